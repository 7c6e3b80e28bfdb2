"""The stream of a page part: ``/stroom/?deel=<the part's URL>``, as Server-Sent Events.

The page's polled element names its part (its ``hx-get``); static/js/poll.js opens the stream
when the page says push is on (``data-push`` on ``<body>``, ``context.push``) and swaps each
event's part in. Who may not see the part gets its status (403, 404, 410) and no stream: the
part is drawn first, through its own view (``fragments``). Each event's ``id`` is the version;
a stream opened again with it (``Last-Event-ID``, or ``?last=``) gets the current part at once
when it has moved on, else the next change. ``event: stale`` asks the page to fetch the part
itself once (it could not be drawn here: the link was revoked, the game thrown away)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import Resolver404, resolve
from django.views.decorators.http import require_GET

from scoring.http import no_compression
from scoring.push import fragments, listener, topics
from scoring.push.context import push_on

KEEPALIVE = 15.0  # seconds between pings: proxies end quiet connections, the page sees life
STALE = b"event: stale\ndata: \n\n"


def _refused(status: int) -> HttpResponse:
    response = HttpResponse(status=status)
    response["Cache-Control"] = "no-store"
    return response


@require_GET
async def stream(request: HttpRequest) -> HttpResponse:
    if not push_on():
        return _refused(404)
    path = request.GET.get("deel", "")
    if not path.startswith("/") or path.startswith("//") or "#" in path:
        return _refused(400)
    try:
        match = resolve(path.partition("?")[0])
    except Resolver404:
        return _refused(404)
    topic_of = topics.TOPICS.get(match.url_name or "")
    if topic_of is None:
        return _refused(404)
    try:
        topic = await fragments.run(topic_of, match.kwargs)
    except Exception:  # a link never made (Http404), an id out of range: no such part
        topic = None
    if topic is None:
        return _refused(404)
    hub = listener.hub()
    queue = hub.subscribe(topic)
    try:
        # After LISTEN: a change committed after the version read below is in the queue.
        if not await hub.ready(timeout=5):
            raise _Refuse(503)
        current = await _version(topic, hub)
        if current is None:
            raise _Refuse(404)
        first = await fragments.drawings.part(request, path, current)
        if first.status != 200:
            raise _Refuse(first.status if first.status >= 400 else 403)
    except _Refuse as refusal:
        hub.unsubscribe(topic, queue)
        return _refused(refusal.status)
    except BaseException:
        hub.unsubscribe(topic, queue)
        raise
    last = request.headers.get("Last-Event-ID") or request.GET.get("last", "")
    events = _events(request, path, topic, queue, hub, current, first, last)
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    return no_compression(response)


class _Refuse(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


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


async def _events(
    request: HttpRequest,
    path: str,
    topic: str,
    queue: asyncio.Queue[str],
    hub: listener.Hub,
    current: str,
    first: fragments.Part,
    last: str,
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
                continue
            if version == listener.RESYNC:
                found = await _version(topic, hub)
                if found is None:
                    yield STALE
                    return
                version = found
            if not _newer(topic, version, sent):
                continue
            part = await fragments.drawings.part(request, path, version)
            sent = version
            if part.status != 200:
                yield STALE
                return
            yield part.event
    finally:
        hub.unsubscribe(topic, queue)
