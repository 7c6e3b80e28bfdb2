"""Stream-holding viewers for ``bench/loadgen.py``'s mixed scenario (``--viewer-mode stream``):
each holds one Server-Sent Events stream open, checks that it receives every version of its
table's session, and measures the change-to-viewer delay, from the tap's answer at the tablet
to the event at the viewer (both clocks are this process's ``time.perf_counter``).

The stream's URL is a pattern (``--stream-url``) with ``{signed}`` (the viewer link's signed
part) and ``{pk}`` (the session), so that it follows whatever the push's views name it. An event
is the SSE format's: ``id: <version>``, ``event:`` and ``data:`` lines, a blank line; a line
starting with ``:`` is a comment (a keep-alive). A stream that ends or fails is opened again
with ``Last-Event-ID``, as ``EventSource`` does, at most ``RECONNECTS`` times.

The stream is read over a bare asyncio connection (HTTP/1.1, chunked or not), not httpx: 12,000
open streams at 4x the scenario, each event a few KB of ``data:`` lines, cost httpx far more of
the load generator's one core than the bytes need.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

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
        self.opened = asyncio.Event()  # set by the stream's first event (``hello``)
        self.early: list[int] = []  # versions that came before their tap's answer was read

    @property
    def version(self) -> int | None:
        return max(self.versions) if self.versions else self.base

    def missed(self, final: int) -> int:
        """Versions after ``base`` up to ``final`` that never came."""
        if self.base is None:
            return final
        return len(set(range(self.base + 1, final + 1)) - set(self.versions))

    async def hold(
        self, address: tuple[str, int], answered: dict[tuple[int, int], float], recorder: Any
    ) -> None:
        """Read the stream until cancelled; each new version's delay goes to ``recorder``."""
        for _ in range(RECONNECTS + 1):
            headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
            if self.versions:
                headers["Last-Event-ID"] = str(self.versions[-1])
            try:
                async for event in raw_stream(*address, self.url, headers, recorder):
                    self.opened.set()
                    self._receive(event, answered, recorder)
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                recorder.error("viewer stream", type(error).__name__)
        self.opened.set()
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
        if at is not None:
            recorder.ok(KIND, max(0.0, (now - at) * 1000))
        elif self.base is not None and version > self.base:
            # Before the tablet read its answer: a delay of 0, counted once the answer is in
            # (``count_early``); a version no tap of the run made has no delay.
            self.early.append(version)

    def count_early(self, answered: dict[tuple[int, int], float], recorder: Any) -> None:
        for version in self.early:
            if (self.pk, version) in answered:
                recorder.ok(KIND, 0.0)


async def raw_stream(
    host: str, port: int, path: str, headers: dict[str, str], recorder: Any
) -> AsyncIterator[dict[str, Any]]:
    """The SSE events of one GET of ``path`` until the server ends it (a refusal: an error)."""
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    try:
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        status = int(head.split(" ", 2)[1])
        if status != 200:
            recorder.error("viewer stream", f"HTTP {status}")
            return
        chunked = "transfer-encoding: chunked" in head
        async for event in sse_events(_lines(reader, chunked)):
            yield event
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _lines(reader: asyncio.StreamReader, chunked: bool) -> AsyncIterator[str]:
    """The body's lines (``\n``-separated, a trailing ``\r`` kept off), chunks decoded."""
    rest = b""
    while True:
        if chunked:
            size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
            if size == 0:
                return
            data = (await reader.readexactly(size + 2))[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                return
        *whole, rest = (rest + data).split(b"\n")
        for line in whole:
            yield line.rstrip(b"\r").decode()


async def hold_all(
    viewers: list[StreamViewer],
    address: tuple[str, int],
    answered: dict[tuple[int, int], float],
    recorder: Any,
    until: asyncio.Future,
    *,
    opening: int = 64,
) -> None:
    """Hold every viewer's stream until ``until`` is done, then close them all. They open
    ``opening`` at a time (each waits for its first event before the next starts), as phones
    arrive over an evening rather than in one instant."""
    gate = asyncio.Semaphore(opening)

    async def one(v: StreamViewer) -> None:
        await gate.acquire()
        task = asyncio.create_task(v.hold(address, answered, recorder))
        try:
            await asyncio.wait_for(v.opened.wait(), 60)
        except TimeoutError:
            recorder.error("viewer stream", "no first event in 60 s")
            v.opened.set()  # the clock does not wait for it
        finally:
            gate.release()
        await task

    tasks = [asyncio.create_task(one(v)) for v in viewers]
    await until
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
