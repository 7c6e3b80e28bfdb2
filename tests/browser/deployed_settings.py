"""The settings of the server the browser tests use: production's (README, "Production"), read
from the environment as on a real app server, with DEBUG off, the static files from
``collectstatic`` under the manifest storage, and the test database.

``tests/browser/conftest.py`` (``live_server``) runs ``collectstatic`` and gunicorn with this
module. What differs from a pub's server, and why:

- plain HTTP on the loopback address: the browser talks to gunicorn directly, with no proxy to
  end TLS, so ``SECURE_SSL_REDIRECT`` would send every request to an https:// that nothing
  answers, and secure cookies would not be sent back over http://; both are off (HSTS is only
  sent over HTTPS, so it stays as in production);
- ``ALLOWED_HOSTS`` is that address;
- the secret key is the test process's own: the tests sign viewer links and make users there,
  and the server must read them (as every app server shares one key);
- passwords are hashed with MD5, as the tests make them (``tests/conftest.py``,
  ``fast_password_hashing``);
- the content types are read afresh at each request (``fresh_content_types.py``): the tests
  empty the database between them, and Django makes the content types again with new ids;
- the database is the test database pytest-django made (``LEI_DATABASE_NAME``); SQLite as a
  file in WAL mode, written by two processes, each writer taking the lock when it begins.
"""

import os
from pathlib import Path

os.environ["DEBUG"] = "false"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ["SECURE_SSL_REDIRECT"] = "false"
os.environ["SECURE_COOKIES"] = "false"

from toepen_site.settings import *  # noqa: F403
from toepen_site.settings import DATABASES, MIDDLEWARE

STATIC_ROOT = Path(os.environ["LEI_STATIC_ROOT"])
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DATABASES["default"]["NAME"] = os.environ["LEI_DATABASE_NAME"]
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(transaction_mode="IMMEDIATE", timeout=20)
MIDDLEWARE = ["tests.browser.fresh_content_types.forget_content_types", *MIDDLEWARE]
