"""Announcing a change to the open streams: ``pg_notify`` in the write's own transaction.

PostgreSQL delivers a notification when its transaction commits and drops it on a rollback,
so a stream is told of committed changes only, in commit order; identical notifications of one
transaction are delivered once. The payload is small (``scoring/push/listener.py`` parses it):
``lei <session> <version> <club> <transaction>`` for a session,
``club - - <club> <transaction>`` for the rest of a club's evening (a toernooi's draw, a new
game). A write that draws its viewers' parts (``scoring/lei/drawn.py``) sends each before
those, as ``part <session> <version> <language> <audience> <path> <html>``, the html
compressed (zlib, base64): a stream server hands it to its streams as it is. Without
PostgreSQL there is nobody listening and nothing is sent."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence

from django.db import connection

CHANNEL = "toepen_push"

_SQL = "pg_notify(%s, %s || ' ' || txid_current())"
_PART_SQL = "pg_notify(%s, %s)"
# PostgreSQL takes a payload shorter than 8,000 bytes. A 30-round sheet of 8 players is about a
# third of it compressed; a part that does not fit is not sent, and the streams draw it.
PAYLOAD_LIMIT = 7999


def _send(payload: str, parts: Sequence[str] = ()) -> None:
    """``payload``, after ``parts`` (``part_payload``): one statement, whose notifications
    PostgreSQL queues in the order it evaluates its select list, the order written (a stream
    server must have the parts when it hears of the version: tests/push/test_drawn.py hears
    the version last)."""
    if connection.vendor != "postgresql":
        return
    calls = [*(_PART_SQL for _ in parts), _SQL]
    params = [value for part in parts for value in (CHANNEL, part)] + [CHANNEL, payload]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(calls)}", params)


def session_changed(session_id: int, version: int, club_id: int, parts: Sequence[str] = ()) -> None:
    """A write to the session (``scoring/lei/funnel.py``), its seal or its links
    (``scoring/lei/seals.py``), its start or its end: its viewers, tablets and the club's
    evening and toernooi pages draw it again. ``parts``: the viewers' parts the write drew
    (``part_payload``), announced before the version they are of."""
    _send(f"lei {session_id} {version} {club_id}", parts)


def club_changed(club_id: int) -> None:
    """A change to the club's evening that is no session's: a toernooi's draw, series, clock,
    check-in (``scoring/toernooi/services.py``, ``lock_tournament``)."""
    _send(f"club - - {club_id}")


def part_payload(
    session_id: int, version: int, language: str, audience: str, path: str, html: str
) -> str | None:
    """The announcement of a viewer's part drawn by the write itself, for every stream that
    shows it (``session_changed`` sends it); None when it is too large to announce."""
    body = base64.b64encode(zlib.compress(html.encode(), 6)).decode("ascii")
    payload = f"part {session_id} {version} {language} {audience} {path} {body}"
    return payload if len(payload) <= PAYLOAD_LIMIT else None


def parse_part(payload: str) -> tuple[str, str, str, str, str, str] | None:
    """``part_payload``'s payload as (session, version, language, audience, path, html); None
    for anything else."""
    fields = payload.split(" ")
    if len(fields) != 7 or fields[0] != "part":
        return None
    try:
        html = zlib.decompress(base64.b64decode(fields[6], validate=True)).decode()
    except (ValueError, zlib.error):
        return None
    return fields[1], fields[2], fields[3], fields[4], fields[5], html
