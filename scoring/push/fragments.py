"""A page part drawn once per change and audience, for every stream that shows it.

The part is what the page's own poll gets: the same URL, asked through the whole of Django
(middleware, the view's access check, its names by initials) as an htmx request of the stream's
audience. So a stream shows exactly what its page would, and whoever may not see the page gets
nothing from its stream. The drawing runs on a few threads of its own (the ORM is synchronous),
and its answer is kept in this process per (part, version, language, audience): the 3,000
phones of a Friday night that watch one table share one drawing of each version. A drawing is
kept for streams that ask within ``FRESH_SECONDS`` of it; a stream that comes later (a TV that
reconnects after a quiet spell) gets a new one, because a part may show the time: the
toernooi's round timer is drawn as the seconds left at its drawing.

The audience is what the stream's request resolves to (``scoring/push/audiences.py``): the
public, the club's members, or the one person a tablet or organiser's page is drawn for; a
query value the view does not read and a cookie that names no session change nothing."""

from __future__ import annotations

import asyncio
import io
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.db import close_old_connections
from django.http import HttpRequest

from scoring.push.audiences import Audience

T = TypeVar("T")

# Threads that draw (and read versions): each keeps one database connection.
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="push-draw")
_KEPT = 512  # drawn parts kept per process; a newer version of a part replaces the older
FRESH_SECONDS = 5.0  # a kept drawing older than this is drawn again for the stream that asks
_handler: WSGIHandler | None = None

# The request headers a part's drawing keeps from the stream's request: the host and scheme
# (the proxy's), the client's address (the login limit's middleware reads it).
_KEPT_HEADERS = ("HTTP_HOST", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")


@dataclass(frozen=True)
class Part:
    status: int
    event: bytes  # the whole SSE message (``id:`` and ``data:`` lines), for a 200


async def run(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on a drawing thread, with Django's connection handling around it as
    a request has (a connection past its age or broken is closed first and after)."""

    def call() -> T:
        close_old_connections()
        try:
            return function(*args)
        finally:
            close_old_connections()

    return await asyncio.get_running_loop().run_in_executor(_POOL, call)


@dataclass(frozen=True)
class Ask:
    """A part as its streams ask for it: ``key`` is what its drawings are kept by (the part in
    one spelling, the scheme, the language, the audience: ``scoring/push/audiences.py``), never
    the bytes of a request; ``meta`` and the audience's cookie are what it is drawn with. The
    host is not in the key: it is one the site allows (else the stream was a 400), and a pushed
    part names no absolute URL, while its port is any number a client writes."""

    path: str
    language: str
    audience: Audience
    meta: tuple[tuple[str, str], ...]

    @property
    def key(self) -> tuple[str, ...]:
        scheme = dict(self.meta).get("wsgi.url_scheme", "")
        return (self.path, scheme, self.language, self.audience.key)


def ask(request: HttpRequest, path: str, audience: Audience) -> Ask:
    """The ``Ask`` of a stream's request for ``path`` (in one spelling) as ``audience``."""
    meta = {k: request.META[k] for k in _KEPT_HEADERS if k in request.META}
    meta["wsgi.url_scheme"] = request.scheme
    language = getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)
    return Ask(path, language, audience, tuple(sorted(meta.items())))


class Drawings:
    """The kept drawings of this process, and the ones under way (a second stream that asks
    for a part being drawn waits for the same drawing); and the drawings the writes sent
    (``delivered``: ``scoring/lei/drawn.py``), which no stream draws again."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[str, ...], asyncio.Future[Part]] = OrderedDict()
        self.newest: dict[tuple[str, ...], str] = {}
        self.drawn_at: dict[tuple[str, ...], float] = {}  # when each kept drawing was done
        # (path, language, audience) → (version, its part): the newest a write sent of each.
        self.sent: OrderedDict[tuple[str, str, str], tuple[str, Part]] = OrderedDict()

    def deliver(self, path: str, language: str, audience: str, version: str, html: str) -> None:
        """A write's drawing of ``path`` at ``version`` for its language and audience (the
        listener's, as it hears of it: before the version itself)."""
        which = (path, language, audience)
        self.sent[which] = (version, Part(200, message(version, html)))
        self.sent.move_to_end(which)
        while len(self.sent) > _KEPT:
            self.sent.popitem(last=False)

    def delivered(self, asked: Ask, version: str) -> Part | None:
        """The drawing a write sent of the part at ``version`` for the stream's language and
        audience, if one did. It shows no time, so it is never too old for its version."""
        found = self.sent.get((asked.path, asked.language, asked.audience.key))
        if found is None or found[0] != version:
            return None
        return found[1]

    async def part(self, asked: Ask, version: str) -> Part:
        sent = self.delivered(asked, version)
        if sent is not None:
            return sent
        which = asked.key
        key = (*which, version)
        found = self.kept.get(key)
        if found is not None and found.done():
            drawn_at = self.drawn_at.get(key)
            if drawn_at is not None and time.monotonic() - drawn_at > FRESH_SECONDS:
                found = None  # drawn again below, and kept in its place
        if found is None:
            # A task of its own: the stream that asked first may go (its phone closed), and
            # its cancellation must not end the drawing that the table's other streams await.
            found = asyncio.ensure_future(run(draw, asked, version))
            found.add_done_callback(lambda done: self._done(key, done))
            self.kept[key] = found
            self.kept.move_to_end(key)  # a drawing made again, in the place of a stale one
            older = self.newest.get(which)
            if older is not None and older != version:
                self.kept.pop((*which, older), None)
                self.drawn_at.pop((*which, older), None)
            self.newest[which] = version
            while len(self.kept) > _KEPT:
                old, _ = self.kept.popitem(last=False)
                self.drawn_at.pop(old, None)
                if self.newest.get(old[:-1]) == old[-1]:
                    del self.newest[old[:-1]]
        else:
            self.kept.move_to_end(key)
        return await asyncio.shield(found)

    def _done(self, key: tuple[str, ...], done: asyncio.Future[Part]) -> None:
        """A drawing that failed is not kept: the next stream that asks draws it again."""
        if self.kept.get(key) is not done:
            return  # replaced meanwhile, or gone
        if done.cancelled() or done.exception() is not None:
            del self.kept[key]
            self.drawn_at.pop(key, None)
        else:
            self.drawn_at[key] = time.monotonic()


drawings = Drawings()


def draw(asked: Ask, version: str) -> Part:
    """Ask Django for the part as the page's poll does: GET, htmx, the stream's language and
    audience, no ``If-None-Match`` (a 304 has nothing to show) and no gzip (the text goes into
    the stream)."""
    global _handler
    if _handler is None:
        _handler = WSGIHandler()
    meta = dict(asked.meta)
    route, _, query = asked.path.partition("?")
    environ = {
        **meta,
        "REQUEST_METHOD": "GET",
        "PATH_INFO": route,
        "SCRIPT_NAME": "",
        "QUERY_STRING": query,
        "SERVER_NAME": meta.get("HTTP_HOST", "localhost").rpartition(":")[0] or "localhost",
        "SERVER_PORT": "443" if meta.get("wsgi.url_scheme") == "https" else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HX_REQUEST": "true",
        "HTTP_ACCEPT_LANGUAGE": asked.language,
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
    }
    if asked.audience.cookie:
        environ["HTTP_COOKIE"] = f"{settings.SESSION_COOKIE_NAME}={asked.audience.cookie}"
    response = _handler.get_response(WSGIRequest(environ))
    if response.status_code != 200 or response.streaming:
        return Part(response.status_code, b"")
    return Part(200, message(version, response.content.decode()))


def message(version: str, html: str, event: str = "part") -> bytes:
    lines = "".join(f"data: {line}\n" for line in html.splitlines() or [""])
    return f"id: {version}\nevent: {event}\n{lines}\n".encode()
