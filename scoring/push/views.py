"""The stream of a page part: ``/stroom/?deel=<the part's URL>``, as Server-Sent Events.

The page's polled element names its part (its ``hx-get``); static/js/poll.js opens the stream
when the page says push is on (``data-push`` on ``<body>``, ``context.push``) and swaps each
event's part in. Who may not see the part gets its status (403, 404, 410) and no stream: the
part is drawn first, through its own view (``fragments``). Each event's ``id`` is the version;
a stream opened again with it (``Last-Event-ID``, or ``?last=``) gets the current part at once
when it has moved on, else the next change. ``event: stale`` asks the page to fetch the part
itself once (it could not be drawn here: the link was revoked, the game thrown away).

One client (an address; an IPv6 network's /64) holds at most ``PUSH_STREAMS_PER_CLIENT``
streams open in a process; one more is refused with 429 before anything is read for it, and
the page polls as after any failed stream (static/js/poll.js). docs/decisions.md ("push")
says why the bound is where it is. Likewise at most ``VARIANTS`` spellings of one part (its
query values) are drawn at once for a language and audience."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import threading
import weakref
from collections.abc import AsyncIterator, Callable

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import Resolver404, resolve, reverse
from django.utils.module_loading import import_string
from django.views.decorators.http import require_GET

from scoring import access
from scoring.http import no_compression
from scoring.lei import watch
from scoring.push import audiences, fragments, listener, topics
from scoring.push.context import push_on

KEEPALIVE = 15.0  # seconds between pings: proxies end quiet connections, the page sees life
STALE = b"event: stale\ndata: \n\n"


def _refused(status: int) -> HttpResponse:
    response = HttpResponse(status=status)
    response["Cache-Control"] = "no-store"
    if status == 429:
        response["Retry-After"] = "60"
    return response


class Slots:
    """The streams each client holds open in this process: a count per client while it holds
    one, so that what is kept is bounded by the open streams themselves."""

    def __init__(self) -> None:
        self.held: dict[str, int] = {}
        self._lock = threading.Lock()  # a release may come from the garbage collector

    def take(self, client: str) -> Callable[[], None] | None:
        """A release for one more stream of ``client``, or None when it holds its bound."""
        with self._lock:
            held = self.held.get(client, 0)
            if held >= settings.PUSH_STREAMS_PER_CLIENT:
                return None
            self.held[client] = held + 1
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                left = self.held[client] - 1
                if left:
                    self.held[client] = left
                else:
                    del self.held[client]

        return release


slots = Slots()

# The spellings of one part (its query values: a TV's ``?tv=1``, a page of earlier rounds'
# ``?tot=``, an evening's ``?pagina=``) drawn at once for one language and audience: each is a
# drawing of every change, and any client can write a thousand. Beyond these, a new one is
# refused (429) while they are open, and its page polls.
VARIANTS = 8


class Variants:
    """The spellings of each part that open streams show, counted while they are open."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, ...], dict[str, int]] = {}
        self._lock = threading.Lock()

    def take(self, part: tuple[str, ...], spelling: str) -> Callable[[], None] | None:
        with self._lock:
            shown = self.held.get(part, {})
            # The part without a query (the sheet, the evening's first page) is never refused:
            # eight made-up spellings must not send a whole room to polling.
            if spelling not in shown and spelling != part[0] and len(shown) >= VARIANTS:
                return None
            shown[spelling] = shown.get(spelling, 0) + 1
            self.held[part] = shown
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                shown = self.held[part]
                shown[spelling] -= 1
                if not shown[spelling]:
                    del shown[spelling]
                if not shown:
                    del self.held[part]

        return release


variants = Variants()


def _nothing() -> None:
    pass


def _both(first: Callable[[], None], second: Callable[[], None]) -> Callable[[], None]:
    def both() -> None:
        first()
        second()

    return both


def client_of(request: HttpRequest) -> str:
    """The client a stream is counted for: the address the login limit counts (the site's
    ``client_ip``, behind its trusted proxies), an IPv6 address by its /64 (one household or
    phone holds a whole /64)."""
    address = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.ip_network(f"{found}/64", strict=False))
    return str(found)


@require_GET
async def stream(request: HttpRequest) -> HttpResponse:
    if not push_on():
        return _refused(404)
    release = slots.take(client_of(request))
    if release is None:
        return _refused(429)
    try:
        response = await _stream(request, release)
    except BaseException:
        release()
        raise
    if not response.streaming:
        release()
    return response


async def _stream(request: HttpRequest, release: Callable[[], None]) -> HttpResponse:
    path = request.GET.get("deel", "")
    if not path.startswith("/") or path.startswith("//") or "#" in path:
        return _refused(400)
    try:
        match = resolve(path.partition("?")[0])
    except Resolver404:
        return _refused(404)
    name = match.url_name or ""
    topic_of = topics.TOPICS.get(name)
    if topic_of is None or name not in audiences.PAGES:
        return _refused(404)
    try:
        topic = await fragments.run(topic_of, match.kwargs)
    except Exception:  # a link never made (Http404), an id out of range: no such part
        topic = None
    if topic is None:
        return _refused(404)
    hub = listener.hub()
    queue = hub.subscribe(topic)
    variant = _nothing
    try:
        # After LISTEN: a change committed after the version read below is in the queue.
        if not await hub.ready(timeout=5):
            raise _Refuse(503)
        current = await _version(topic, hub)
        if current is None:
            raise _Refuse(404)
        whom = await fragments.run(audiences.audience, request, name, match.kwargs)
        part = audiences.part_path(
            name, reverse(match.view_name, kwargs=match.kwargs), path.partition("?")[2]
        )
        asked = fragments.ask(request, part, whom)
        taken = variants.take((part.partition("?")[0], *asked.key[1:]), part)
        if taken is None:
            raise _Refuse(429)
        variant = taken
        noted = _watched(name, match.kwargs, asked)
        await _note(noted)
        first = await fragments.drawings.part(asked, current)
        if first.status != 200:
            raise _Refuse(first.status if first.status >= 400 else 403)
    except _Refuse as refusal:
        variant()
        hub.unsubscribe(topic, queue)
        return _refused(refusal.status)
    except BaseException:
        variant()
        hub.unsubscribe(topic, queue)
        raise
    release = _both(release, variant)
    last = request.headers.get("Last-Event-ID") or request.GET.get("last", "")
    events = _events(asked, topic, queue, hub, current, first, last, release, noted)
    # What the stream holds is let go when it ends, and also when it never started (its client
    # left between this answer and its first event): then only the collector sees it go.
    weakref.finalize(events, _let_go_later, asyncio.get_running_loop(), hub, topic, queue, release)
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    return no_compression(response)


class _Refuse(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


def _watched(name: str, kwargs: dict, asked: fragments.Ask) -> tuple[int, watch.Watched] | None:
    """What a viewer's stream notes for the writes to draw (``scoring/lei/watch.py``): its
    session and part; None for every other part, drawn for one person by this server."""
    if name != "viewer" or asked.audience.key not in ("public", "full"):
        return None
    pk, _key = access.viewer_link(kwargs["signed"])
    return pk, watch.Watched(asked.path, asked.language, asked.audience.key)


async def _note(noted: tuple[int, watch.Watched] | None) -> None:
    """Note the stream's part when it is due; a note that fails is tried again later (the
    writes meanwhile leave the part to this server to draw)."""
    if noted is None or not watch.notes.due(*noted):
        return
    try:
        await fragments.run(watch.note, *noted)
    except DatabaseError:
        watch.notes.forget(*noted)


async def _version(topic: str, hub: listener.Hub) -> str | None:
    if topic.startswith("lei:"):
        return await fragments.run(topics.session_version, topic)
    return topics.club_version(topic, hub.latest)


def _newer(topic: str, version: str, sent: str) -> bool:
    """Whether ``version`` is news to a stream that sent ``sent``. A session's versions are
    numbers, and a change committed just before the stream read its version is still announced
    after it: not drawn and sent again, under an older id. A club's tokens have no order."""
    if topic.startswith("lei:") and version.isdigit() and sent.isdigit():
        return int(version) > int(sent)
    return version != sent


def _let_go(
    hub: listener.Hub, topic: str, queue: asyncio.Queue[str], release: Callable[[], None]
) -> None:
    release()
    hub.unsubscribe(topic, queue)


def _let_go_later(
    loop: asyncio.AbstractEventLoop,
    hub: listener.Hub,
    topic: str,
    queue: asyncio.Queue[str],
    release: Callable[[], None],
) -> None:
    """As ``_let_go``, from the collector (any thread): the hub is left on its own loop."""
    release()
    with contextlib.suppress(RuntimeError):  # a closed loop dispatches nothing any more
        loop.call_soon_threadsafe(hub.unsubscribe, topic, queue)


async def _events(
    asked: fragments.Ask,
    topic: str,
    queue: asyncio.Queue[str],
    hub: listener.Hub,
    current: str,
    first: fragments.Part,
    last: str,
    release: Callable[[], None],
    noted: tuple[int, watch.Watched] | None = None,
) -> AsyncIterator[bytes]:
    try:
        yield b"retry: 2000\nevent: hello\ndata: \n\n"
        sent = last
        if last != current:
            yield first.event
            sent = current
        while True:
            try:
                async with asyncio.timeout(KEEPALIVE):  # no task a wait, as wait_for makes
                    version = await queue.get()
            except TimeoutError:
                yield b"event: ping\ndata: \n\n"
                await _note(noted)  # noted again while it is open
                continue
            if version == listener.RESYNC:
                found = await _version(topic, hub)
                if found is None:
                    yield STALE
                    return
                version = found
            if not _newer(topic, version, sent):
                continue
            await _note(noted)
            part = await fragments.drawings.part(asked, version)
            sent = version
            if part.status != 200:
                yield STALE
                return
            yield part.event
    finally:
        _let_go(hub, topic, queue, release)
