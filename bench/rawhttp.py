"""A minimal HTTP/1.1 client over asyncio streams for the mixed scenario of ``bench/loadgen.py``:
the viewers' polls and the tablets' taps.

Why not httpx for these too: 3,000 viewers polling every 3 s are 1,000 requests a second, and
on this two-core machine httpx spent a whole core on them, starving both the tablets' client
and the server it measures; a tap through httpx costs the load generator about 3 ms of CPU.
This does what a polling phone or a tapping tablet does (a GET with HX-Request and
If-None-Match, a form POST with its cookies and CSRF header; read the answer) on a fresh
connection per request (gunicorn's sync workers close it after every answer anyway) for a
fraction of the CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
from dataclasses import dataclass, field

# What a request that got no whole answer raises: no connection, a timeout, a cut answer.
ERRORS = (TimeoutError, OSError, asyncio.IncompleteReadError)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes  # as sent (still gzip-compressed if ``content-encoding`` says so)
    wire_bytes: int
    cookies: dict[str, str] = field(default_factory=dict)  # what ``Set-Cookie`` set

    @property
    def content(self) -> bytes:
        """The body as the server meant it: decompressed when it was sent gzip-compressed."""
        if self.headers.get("content-encoding") == "gzip":
            return gzip.decompress(self.body)
        return self.body


async def get(
    host: str, port: int, path: str, headers: dict[str, str], *, timeout: float = 30.0
) -> Answer:
    """GET ``path``; the whole answer is read (``Content-Length`` or until closed)."""
    return await asyncio.wait_for(_request(host, port, "GET", path, headers, b""), timeout)


async def post(
    host: str, port: int, path: str, headers: dict[str, str], body: bytes, *, timeout: float = 30.0
) -> Answer:
    """POST ``body`` to ``path`` (the caller names its ``Content-Type``)."""
    headers = {**headers, "Content-Length": str(len(body))}
    return await asyncio.wait_for(_request(host, port, "POST", path, headers, body), timeout)


async def _request(
    host: str, port: int, method: str, path: str, headers: dict[str, str], body: bytes
) -> Answer:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        found: dict[str, str] = {}
        cookies: dict[str, str] = {}
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                name, value = name.strip().lower(), value.strip()
                found[name] = value
                if name == "set-cookie":
                    pair = value.split(";", 1)[0]
                    cookies[pair.split("=", 1)[0].strip()] = pair.split("=", 1)[-1].strip()
        length = found.get("content-length")
        if status in (204, 304) or length == "0":
            content = b""
        elif length is not None:
            content = await reader.readexactly(int(length))
        else:
            content = await reader.read()
        return Answer(status, found, content, len(head) + len(content), cookies)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
