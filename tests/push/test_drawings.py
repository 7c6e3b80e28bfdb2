"""The drawings that a process's streams share (scoring/push/fragments.py), without a server:
one stream that goes away while its part is being drawn leaves the drawing to the others."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.test import RequestFactory

from scoring.push import audiences, fragments
from tests.push.loop import run_apart


def _ask(path: str) -> fragments.Ask:
    return fragments.ask(RequestFactory().get("/stroom/"), path, audiences.PUBLIC)


# Django's connection handling runs around each call on the drawing threads.
@pytest.mark.django_db
def test_a_stream_that_goes_while_its_part_is_drawn_leaves_the_drawing_to_the_others():
    async def scenario() -> tuple[fragments.Part, int]:
        gate = threading.Event()
        # Both drawing threads held: the part's drawing waits in line, the first stream awaits it.
        held = [asyncio.ensure_future(fragments.run(gate.wait)) for _ in range(2)]
        drawings = fragments.Drawings()
        first = asyncio.ensure_future(drawings.part(_ask("/geen-deel/"), "7"))
        await asyncio.sleep(0.01)
        second = asyncio.ensure_future(drawings.part(_ask("/geen-deel/"), "7"))
        await asyncio.sleep(0.01)
        first.cancel()  # its phone closed the stream
        await asyncio.sleep(0.01)
        gate.set()
        await asyncio.gather(*held)
        part = await asyncio.wait_for(second, 10)
        return part, len(drawings.kept)

    part, kept = run_apart(scenario())
    assert part.status == 404  # drawn, through Django, for the stream that stayed
    assert kept == 1  # and kept for the next stream of that version


@pytest.mark.django_db
@pytest.mark.parametrize(("fresh", "drawings"), [(60.0, 1), (0.0, 2)])
def test_a_kept_drawing_is_drawn_again_once_it_is_no_longer_fresh(monkeypatch, fresh, drawings):
    """A part may show the time (the toernooi's round timer, as seconds left when drawn): a TV
    that reconnects after a quiet spell gets a new drawing, not one from minutes ago."""
    drawn: list[str] = []
    draw = fragments.draw

    def counted(asked, version):
        drawn.append(asked.path)
        return draw(asked, version)

    monkeypatch.setattr(fragments, "draw", counted)
    monkeypatch.setattr(fragments, "FRESH_SECONDS", fresh)

    async def scenario() -> int:
        drawings = fragments.Drawings()
        await drawings.part(_ask("/geen-deel/"), "7")
        await drawings.part(_ask("/geen-deel/"), "7")  # a stream that comes later
        return len(drawings.kept)

    assert run_apart(scenario()) == 1
    assert drawn == ["/geen-deel/"] * drawings


@pytest.mark.django_db
def test_a_drawing_made_again_is_kept_as_the_newest(monkeypatch):
    """A part drawn again once no longer fresh is the most recent drawing: the bound on kept
    drawings lets an older one go before it."""
    monkeypatch.setattr(fragments, "FRESH_SECONDS", 0.0)
    monkeypatch.setattr(fragments, "_KEPT", 2)

    async def scenario() -> list[str]:
        drawings = fragments.Drawings()
        await drawings.part(_ask("/een/"), "7")
        await drawings.part(_ask("/twee/"), "7")
        await drawings.part(_ask("/een/"), "7")  # drawn again: the newest
        await drawings.part(_ask("/drie/"), "7")  # one too many: the oldest goes
        return [key[0] for key in drawings.kept]

    assert run_apart(scenario()) == ["/een/", "/drie/"]
