"""The stream's own order of versions (scoring/push/views.py), without a server: a change that
was committed before the stream read its version, and is announced only after, is not sent again
under its older id."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from django.test import RequestFactory
from django.urls import reverse

from scoring import access
from scoring.lei import services
from scoring.models import Session
from scoring.push import audiences, fragments, listener, views
from tests.push.loop import run_apart


@pytest.mark.django_db(transaction=True)  # the part is drawn on a thread of its own
def test_a_change_announced_after_the_stream_read_its_version_is_not_sent_again(
    club, drawing_threads_closed
):
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    for n in range(2):
        session.refresh_from_db()
        knock = (
            {"type": "knock", "player": "Bas"} if n == 0 else {"type": "knock", "player": "Cees"}
        )
        services.session_record_event(
            session=session, event=knock, version=session.version, key=f"k{n}"
        )
    now = Session.objects.get(pk=session.pk).version
    path = reverse("viewer", args=[access.viewer_token(session.pk)])
    topic = f"lei:{session.pk}"

    async def scenario() -> list[bytes]:
        asked = fragments.ask(RequestFactory().get("/stroom/"), path, audiences.PUBLIC)
        first = await fragments.drawings.part(asked, str(now))
        assert first.status == 200
        # Both changes were announced after the stream subscribed, and read with the version.
        queue: asyncio.Queue[str] = asyncio.Queue()
        for version in (now - 1, now):
            queue.put_nowait(str(version))
        events = views._events(
            asked, topic, queue, listener.Hub(), str(now), first, "", lambda: None
        )
        sent = [await events.__anext__(), await events.__anext__()]
        # Nothing more within a second: the next would be the keepalive's ping, 15 s on.
        with contextlib.suppress(TimeoutError):
            sent.append(await asyncio.wait_for(events.__anext__(), 1.0))
        return sent

    hello, part, *more = run_apart(scenario())
    assert hello.startswith(b"retry:")
    assert part.startswith(f"id: {now}\nevent: part\n".encode())
    assert more == []
