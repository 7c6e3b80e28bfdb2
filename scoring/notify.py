"""Announcing a change to the open streams: ``pg_notify`` in the write's own transaction.

PostgreSQL delivers a notification when its transaction commits and drops it on a rollback,
so a stream is told of committed changes only, in commit order; identical notifications of one
transaction are delivered once. The payload is small (``scoring/push/listener.py`` parses it):
``lei <session> <version> <club> <transaction>`` for a session,
``club - - <club> <transaction>`` for the rest of a club's evening (a toernooi's draw, a new
game). Without PostgreSQL there is nobody listening and nothing is sent."""

from __future__ import annotations

from django.db import connection

CHANNEL = "toepen_push"

_SQL = "SELECT pg_notify(%s, %s || ' ' || txid_current())"


def _send(payload: str) -> None:
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(_SQL, [CHANNEL, payload])


def session_changed(session_id: int, version: int, club_id: int) -> None:
    """A write to the session (``scoring/lei/funnel.py``), its seal or its links
    (``scoring/lei/seals.py``), its start or its end: its viewers, tablets and the club's
    evening and toernooi pages draw it again."""
    _send(f"lei {session_id} {version} {club_id}")


def club_changed(club_id: int) -> None:
    """A change to the club's evening that is no session's: a toernooi's draw, series, clock,
    check-in (``scoring/toernooi/services.py``, ``lock_tournament``)."""
    _send(f"club - - {club_id}")
