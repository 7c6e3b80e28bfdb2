"""Each app process's one ``LISTEN`` connection, and its fan-out to the process's open streams.

Started by the first stream (in the server's event loop), it keeps one psycopg async
connection on ``notify.CHANNEL``; it keeps the parts the writes drew
(``fragments.Drawings.deliver``) and hands every other notification to the queues of the
streams that follow its topic: ``lei:<session>`` (the session's version) and ``club:<club>``
(a token of the change: the session and version, or the transaction of a toernooi's write). When the
connection breaks it connects again and tells every stream to look for itself (``RESYNC``):
what was announced meanwhile is lost, the database is not."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

import psycopg
from django.conf import settings

from scoring.notify import CHANNEL, parse_part
from scoring.push import fragments

log = logging.getLogger(__name__)

RESYNC = "?"  # put in every queue after a reconnect: read the current version again
QUEUE_LIMIT = 64  # a stream this far behind is told to read the current version instead

# libpq's names for Django's settings (the rest of OPTIONS is Django's or the pool's own).
_LIBPQ_OPTIONS = {"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "options"}
# The LISTEN connection only reads, and is quiet between evenings: without TCP keepalives a
# connection that a firewall or NAT dropped meanwhile is not noticed (the system's default is
# two hours), and its streams would ping on without a change. With these it breaks within
# about 90 s, and the listener connects again. OPTIONS may set them otherwise.
_KEEPALIVES = {
    "keepalives": "1",
    "keepalives_idle": "60",
    "keepalives_interval": "10",
    "keepalives_count": "3",
}


def conninfo() -> dict[str, str]:
    db = settings.DATABASES["default"]
    params = {
        "dbname": db.get("NAME") or "",
        "user": db.get("USER") or "",
        "password": db.get("PASSWORD") or "",
        "host": db.get("HOST") or "",
        "port": str(db.get("PORT") or ""),
    }
    params.update(_KEEPALIVES)
    options = db.get("OPTIONS", {})
    params.update({k: str(v) for k, v in options.items() if k in _LIBPQ_OPTIONS | {*_KEEPALIVES}})
    return {k: v for k, v in params.items() if v}


def parse(payload: str) -> list[tuple[str, str]]:
    """The topics a notification is for, each with its version: ``lei 7 12 3 901`` →
    ``[("lei:7", "12"), ("club:3", "7.12")]``; ``club - - 3 905`` → ``[("club:3", "t905")]``."""
    parts = payload.split()
    if len(parts) != 5:
        return []
    kind, session, version, club, txid = parts
    if kind == "lei":
        return [(f"lei:{session}", version), (f"club:{club}", f"{session}.{version}")]
    if kind == "club":
        return [(f"club:{club}", f"t{txid}")]
    return []


@dataclass
class Hub:
    topics: dict[str, set[asyncio.Queue[str]]] = field(default_factory=dict)
    latest: dict[str, str] = field(default_factory=dict)  # the last version seen per topic
    listening: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def subscribe(self, topic: str) -> asyncio.Queue[str]:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_LIMIT)
        self.topics.setdefault(topic, set()).add(queue)
        return queue

    def unsubscribe(self, topic: str, queue: asyncio.Queue[str]) -> None:
        queues = self.topics.get(topic)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self.topics[topic]

    async def ready(self, timeout: float) -> bool:
        """Whether the ``LISTEN`` is in place (a version read after this misses nothing)."""
        try:
            await asyncio.wait_for(self.listening.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def dispatch(self, payload: str) -> None:
        if payload.startswith("part "):
            drawn = parse_part(payload)
            if drawn is not None:
                _session, version, language, audience, path, html = drawn
                fragments.drawings.deliver(path, language, audience, version, html)
            return
        for topic, version in parse(payload):
            self.latest[topic] = version
            for queue in self.topics.get(topic, ()):
                _put(queue, version)

    def resync(self) -> None:
        for queues in self.topics.values():
            for queue in queues:
                _put(queue, RESYNC)

    async def run(self) -> None:
        delay = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    **conninfo(), autocommit=True
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self.resync()
                    delay = 0.5
                    async for notification in connection.notifies():
                        self.dispatch(notification.payload)
            except (psycopg.Error, OSError) as error:
                log.warning("push: listening failed (%s); again in %.1f s", error, delay)
            self.listening.clear()
            self.latest.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)


def _put(queue: asyncio.Queue[str], version: str) -> None:
    try:
        queue.put_nowait(version)
    except asyncio.QueueFull:
        # Far behind: what it needs is the current version, not every one before it.
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(RESYNC)


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """The process's hub (one per event loop: a server process has one)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found
