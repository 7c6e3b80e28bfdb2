"""Whether this server pushes (``PUSH``): the pages then open their streams, else they poll.

Push needs PostgreSQL (its ``NOTIFY``) and an ASGI server (``toepen_site/asgi.py`` says it
serves one); ``make run`` (runserver, SQLite) and any WSGI server poll, and their pages do not
even try a stream. ``PUSH``: ``auto`` (the default: as just said), ``off``, or ``on``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse

_served_asgi = False


def serving_asgi() -> None:
    """Called by ``toepen_site/asgi.py``: this process answers streams."""
    global _served_asgi
    _served_asgi = True


def _postgresql() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def push_on() -> bool:
    """Whether this process answers streams: PostgreSQL, an ASGI server, ``PUSH`` not off."""
    return settings.PUSH != "off" and _served_asgi and _postgresql()


def pages_push() -> bool:
    """Whether the pages open streams: as ``push_on``, or ``PUSH=on`` where the streams have a
    server of their own behind the same proxy (README, "Production")."""
    if settings.PUSH == "on":
        return _postgresql()
    return push_on()


def push(request: HttpRequest) -> dict[str, Any]:
    """The template context's ``push``: the stream's URL when the page opens streams, else ''."""
    return {"push": reverse("push_stream") if pages_push() else ""}
