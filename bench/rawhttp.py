"""A minimal HTTP/1.1 GET over asyncio streams, for the viewers' polls in ``bench/loadgen.py``.

Why not httpx for these too: 3,000 viewers polling every 3 s are 1,000 requests a second, and
on this two-core machine httpx spent a whole core on them, starving both the tablets' client
and the server it measures. This does what a polling phone does (GET with HX-Request and
If-None-Match, read the answer, keep the ETag) on a fresh connection per poll (gunicorn's sync
workers close it after every answer anyway) for a fraction of the CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    wire_bytes: int


async def get(
    host: str, port: int, path: str, headers: dict[str, str], *, timeout: float = 30.0
) -> Answer:
    """GET ``path``; the whole answer is read (``Content-Length`` or until closed)."""
    return await asyncio.wait_for(_get(host, port, path, headers), timeout)


async def _get(host: str, port: int, path: str, headers: dict[str, str]) -> Answer:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        found: dict[str, str] = {}
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                found[name.strip().lower()] = value.strip()
        length = found.get("content-length")
        if status in (204, 304) or length == "0":
            body = b""
        elif length is not None:
            body = await reader.readexactly(int(length))
        else:
            body = await reader.read()
        return Answer(status, found, body, len(head) + len(body))
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
