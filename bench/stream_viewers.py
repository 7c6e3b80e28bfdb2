"""Stream-holding viewers for ``bench/loadgen.py``'s mixed scenario (``--viewer-mode stream``):
each holds one Server-Sent Events stream open, checks that it receives every version of its
table's session, and measures the change-to-viewer delay, from the tap's answer at the tablet
to the event at the viewer (both clocks are this process's ``time.perf_counter``).

The stream's URL is a pattern (``--stream-url``) with ``{signed}`` (the viewer link's signed
part) and ``{pk}`` (the session), so that it follows whatever the push's views name it. An event
is the SSE format's: ``id: <version>``, ``event:`` and ``data:`` lines, a blank line; a line
starting with ``:`` is a comment (a keep-alive). A stream that ends or fails is opened again
with ``Last-Event-ID``, as ``EventSource`` does, at most ``RECONNECTS`` times.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

RECONNECTS = 3
KIND = "change to viewer (stream)"  # the recorder's name of the delay


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """The events of an SSE stream's lines: ``{"id", "event", "data"}`` each."""
    fields: dict[str, str] = {}
    data: list[str] = []
    async for line in lines:
        if not line:
            if fields or data:
                yield {"id": fields.get("id"), "event": fields.get("event", "message"),
                       "data": "\n".join(data)}  # fmt: skip
            fields, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        else:
            fields[name] = value


class StreamViewer:
    """One phone or TV holding its table's stream open."""

    def __init__(self, pk: int, url: str) -> None:
        self.pk = pk
        self.url = url
        self.base: int | None = None  # the version when the clock started
        self.versions: list[int] = []  # every version received, in order

    @property
    def version(self) -> int | None:
        return max(self.versions) if self.versions else self.base

    def missed(self, final: int) -> int:
        """Versions after ``base`` up to ``final`` that never came."""
        if self.base is None:
            return final
        return len(set(range(self.base + 1, final + 1)) - set(self.versions))

    async def hold(
        self, client: httpx.AsyncClient, answered: dict[tuple[int, int], float], recorder: Any
    ) -> None:
        """Read the stream until cancelled; each new version's delay goes to ``recorder``."""
        for _ in range(RECONNECTS + 1):
            headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
            if self.versions:
                headers["Last-Event-ID"] = str(self.versions[-1])
            try:
                async with client.stream("GET", self.url, headers=headers) as response:
                    if response.status_code != 200:
                        recorder.error("viewer stream", f"HTTP {response.status_code}")
                        continue
                    async for event in sse_events(response.aiter_lines()):
                        self._receive(event, answered, recorder)
            except httpx.HTTPError as error:
                recorder.error("viewer stream", type(error).__name__)
        recorder.error("viewer stream", "gave up after reconnecting")

    def _receive(
        self, event: dict[str, Any], answered: dict[tuple[int, int], float], recorder: Any
    ) -> None:
        now = time.perf_counter()
        if not (event["id"] or "").isdigit():
            return
        version = int(event["id"])
        if self.versions and version <= self.versions[-1]:
            recorder.error("viewer stream", "a version again or out of order")
            return
        self.versions.append(version)
        at = answered.get((self.pk, version))
        if at is not None:  # the fragment may come before the tablet has its answer: 0
            recorder.ok(KIND, max(0.0, (now - at) * 1000))


async def hold_all(
    viewers: list[StreamViewer],
    client: httpx.AsyncClient,
    answered: dict[tuple[int, int], float],
    recorder: Any,
    until: asyncio.Future,
) -> None:
    """Hold every viewer's stream until ``until`` is done, then close them all."""
    tasks = [asyncio.create_task(v.hold(client, answered, recorder)) for v in viewers]
    await until
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
