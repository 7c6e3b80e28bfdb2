"""The benchmarks' Django set-up, in one place: the production-like environment a measuring
script runs its Django under (``bench.settings``, no debug, warnings only), and for the scripts
that drive the pages in this process, Django started on a migrated database."""

from __future__ import annotations

import os


def environ(url: str, **extra: str) -> None:
    """Point this process's Django at ``url`` with the benchmarks' settings; ``extra`` adds or
    overrides variables (``CONN_MAX_AGE``)."""
    os.environ.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="bench.settings",
        DEBUG="false",
        SECRET_KEY="bench-only-" + "x" * 40,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="WARNING",
        **extra,
    )


def start(url: str) -> None:
    """``environ``, then Django set up and the database migrated."""
    environ(url)
    import django
    from django.conf import settings

    # The pages name their static files; unhashed names spare a collectstatic for this.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
