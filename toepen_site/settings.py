"""Settings for the digital lei, read from the environment.

Everything that differs between a laptop and a server comes from an environment variable,
read by the small helpers below that fail loudly on a bad value. The defaults are safe for
development: with nothing set, the app runs in debug mode on a SQLite file in the project folder.
"""

import datetime
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str) -> bool:
    value = os.getenv(name, default).strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off", ""}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name: str, default: str, minimum: int | None = None) -> int:
    value = os.getenv(name, default)
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    return number


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", "true")
SECRET_KEY = os.getenv("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-not-secret-" + "x" * 40  # a development default only

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "csp",
    "django_htmx",
    "template_partials",
    "scoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # A tablet URL refuses a body larger than any tap with 413, before anything reads it.
    "toepen_site.middleware.TapBodyLimitMiddleware",
    # A NUL character (U+0000) anywhere in a request is a 400 here, before any view, form or
    # query sees it: PostgreSQL stores none (toepen_site.middleware.NulCharacterMiddleware).
    "toepen_site.middleware.NulCharacterMiddleware",
    # gzip for the app's answers (not static files: whitenoise has them precompressed), minding
    # BREACH: toepen_site/middleware.py says how.
    "toepen_site.middleware.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Cache-Control: private on every answer that showed a member more than a stranger.
    "toepen_site.middleware.PrivatePagesMiddleware",
    # A sign-out's answer names the person, whose waiting taps the tablet then drops.
    "scoring.lei.outbox.signed_out_mark",
    # A successful login leaves the browser a device cookie of that username: its own
    # allowance when others' failures lock the address or the name (toepen_site/logins.py).
    "toepen_site.logins.DeviceCookieMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # One address, a part for htmx and the page otherwise: the cache tells them apart.
    "toepen_site.middleware.HtmxVaryMiddleware",
    # A database connection lost mid-request is a 503 with Retry-After, in the person's
    # language (after LocaleMiddleware), not a 500: toepen_site.middleware.DatabaseGoneMiddleware.
    "toepen_site.middleware.DatabaseGoneMiddleware",
    # Last, as django-axes asks: it answers a locked-out login with 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "toepen_site.urls"

# Bytes of a POST to the tablet's URLs (toepen_site.middleware.TapBodyLimitMiddleware): a tap
# is a few hundred; a round's correction has a row per event (at most 500).
TAP_BODY_LIMIT = 16 * 1024
ROUND_EDIT_BODY_LIMIT = 256 * 1024
# Taps one scorer (a scorer link, or a member) may send to one session (scoring/lei/taplimit.py):
# a burst of TAP_LIMIT_BURST at once, then TAP_LIMIT_PER_MINUTE a minute; beyond it a 429 with
# Retry-After, which the tablet's outbox waits out. TAP_LIMIT_PER_MINUTE=0 switches it off.
TAP_LIMIT_BURST = envint("TAP_LIMIT_BURST", "20")
TAP_LIMIT_PER_MINUTE = envint("TAP_LIMIT_PER_MINUTE", "120")
# New guests one address may add on the check-in QR (scoring/evening/flood.py): a burst of
# CHECKIN_GUEST_BURST (the pub's crowd at the door, all behind one address), then
# CHECKIN_GUESTS_PER_MINUTE a minute; beyond it the phone is asked to wait (429). Guests waiting
# for the organiser count toward no evening's cap, only toward CHECKIN_PENDING_LIMIT.
CHECKIN_GUEST_BURST = envint("CHECKIN_GUEST_BURST", "100", minimum=1)
CHECKIN_GUESTS_PER_MINUTE = envint("CHECKIN_GUESTS_PER_MINUTE", "30", minimum=1)
CHECKIN_PENDING_LIMIT = envint("CHECKIN_PENDING_LIMIT", "200", minimum=1)

# Push (scoring/push/): "auto" pushes under an ASGI server on PostgreSQL, else the pages poll;
# "off" always polls; "on" also lets pages served by WSGI open streams that another (ASGI)
# server behind the same proxy answers (README, "Production").
PUSH = os.getenv("PUSH", "auto").strip().lower()
if PUSH not in ("auto", "on", "off"):
    raise ImproperlyConfigured(f"PUSH must be auto, on or off, not {PUSH!r}")
# The streams one client (address) may hold open in one process; one more is refused (429)
# and its page polls. docs/decisions.md ("push") says why 500.
PUSH_STREAMS_PER_CLIENT = envint("PUSH_STREAMS_PER_CLIENT", "500")

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "scoring.push.context.push",
            ],
        },
    },
    # The lei's hot parts, drawn on every tap and for every viewer (scoring/lei/jinja.py).
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "scoring.lei.jinja.environment"},
    },
]

WSGI_APPLICATION = "toepen_site.wsgi.application"
ASGI_APPLICATION = "toepen_site.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("CONN_MAX_AGE", "60"),
        conn_health_checks=True,
    )
}
# Parameters bound by the server, and statements prepared once they ran five times on a
# connection (psycopg's own threshold; Django turns preparing off unless it is asked for): the
# hot paths run the same dozen statements on every tap and poll, and PostgreSQL no longer
# parses and plans them each time (BENCHMARKS.md, "Friday night at scale"). Both off behind a
# pooler in transaction mode (README, DB_SERVER_SIDE_BINDING).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and envbool(
    "DB_SERVER_SIDE_BINDING", "true"
):
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=5
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Caches live in the database, as sessions do (DESIGN.md decision 4): the season standings'
# rows (scoring/league/standings_cache.py). Its table is made by scoring's migrations.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "django_cache",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login limits that stop guessing without locking a pub out (toepen_site/logins.py, where each
# rule is explained; README.md, "Production", says what a pub sees). django-axes counts the
# failures in the database, so every app server behind the proxy sees the same count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Wrong passwords for one name from one address lock that pair until the cool-off after the
# last one; attempts refused meanwhile are not counted and do not restart it.
LOGIN_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", "5", minimum=1)
AXES_FAILURE_LIMIT = "toepen_site.logins.login_failure_limit"
AXES_COOLOFF_TIME = datetime.timedelta(minutes=envint("LOGIN_COOLOFF_MINUTES", "15", minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_USERNAME_CALLABLE = "toepen_site.middleware.login_username"  # bounded, no NUL
# Failures from one address within the cool-off, whatever the names, after which the address
# waits this long after each further failure.
LOGIN_ADDRESS_FAILURE_LIMIT = envint("LOGIN_ADDRESS_FAILURE_LIMIT", "50", minimum=1)
LOGIN_ADDRESS_WAIT_SECONDS = envint("LOGIN_ADDRESS_WAIT_SECONDS", "60", minimum=1)
# A locked name's login page asks to wait this long (doubled by each wrong password after a
# wait) before its token lets one password check through; the token is good this long after.
LOGIN_DELAY_SECONDS = envint("LOGIN_DELAY_SECONDS", "60", minimum=1)
LOGIN_DELAY_VALID_SECONDS = 300
# Wrong passwords a browser that signed in as that name before may make within the cool-off,
# whatever others' failures lock (its device cookie); after them it waits as any browser does.
LOGIN_DEVICE_FAILURE_LIMIT = envint("LOGIN_DEVICE_FAILURE_LIMIT", "5", minimum=1)
AXES_LOCKOUT_CALLABLE = "toepen_site.logins.login_lockout_response"  # that page, 429
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# Lockouts are lifted with `manage.py axes_reset_username NAME` / `axes_reset_ip ADDRESS`; the
# club admin (scoped to clubs, tests/test_admin_scoping.py) has no page for them.
AXES_ENABLE_ADMIN = False
AXES_CLIENT_IP_CALLABLE = "toepen_site.middleware.client_ip"
# How many proxies in front of the app servers append to X-Forwarded-For (0: none, the client
# connects directly). Only those addresses are trusted; see toepen_site.middleware.client_ip.
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", "0")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Dutch first: the game is Dutch and so are most of the people at the table.
LANGUAGE_CODE = "nl"
LANGUAGES = [("nl", "Nederlands"), ("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.getenv("TIME_ZONE", "Europe/Amsterdam")
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "toepen_site.staticfiles.MinifiedManifestStorage"
        )
    },
}

# Production hardening; `manage.py check --deploy` is clean when DEBUG is off.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", "false" if DEBUG else "true")
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "false" if DEBUG else "true")
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Django's database sessions, their read written out once (toepen_site/sessions.py).
SESSION_ENGINE = "toepen_site.sessions"
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# A form older than the last login says so in the site's words, not Django's bare 403.
CSRF_FAILURE_VIEW = "scoring.http.csrf_failure"
# One strict policy for every page (django-csp): scripts, styles, images and requests from our
# own origin only, no inline script or style, no frames, no plugins. The pages are built for it
# (htmx is told not to inject its indicator <style>; the SVG pictures carry no style
# attributes), and so is the Django admin, which has used no inline <script> since Django 4.x:
# tests/site/test_security_headers.py scans the templates and pages, and
# tests/browser/test_security_csp.py uses the admin in Chromium. Set CSP_REPORT_URI in the
# environment to collect violation reports.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "object-src": [NONE],
        "report-uri": os.getenv("CSP_REPORT_URI") or None,
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "INFO")},
}
