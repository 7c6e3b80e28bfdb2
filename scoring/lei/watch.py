"""Which viewers' parts open streams show, so that the write that changes a session draws each
of them once, for every stream and every stream server (DESIGN decision 14).

A stream server notes a viewer's part (its path in one spelling, the language, the audience:
``public`` or ``full``) in ``PushWatch`` when a stream of it opens, for ``WATCH_SECONDS``, and
notes it again while such a stream stays open. The write (``scoring/lei/drawn.py``) reads the
session's notes with its lock (``hotsql.lock_and_read``) and draws at most ``DRAWN_PER_CHANGE``
of them, the most recently noted first; a part it did not draw (one more spelling, a language
beyond those, a write that draws nothing: a link renewed, a seal) is drawn by the stream servers
themselves, as before, once per server (``scoring/push/fragments.py``). So a note that is
missing or late costs CPU, never a change: the streams draw what they do not get.

The tablet's and the organiser's parts are not noted: each is drawn for its one person (their
forms carry that person's tokens), by the stream server, as before."""

from __future__ import annotations

import datetime
import time
from typing import NamedTuple

from django.db.models import Q
from django.utils import timezone

from scoring.models import PushWatch, Session

WATCH_SECONDS = 600  # how long a note holds without being noted again
NOTE_AGAIN_SECONDS = 240  # a server notes an open stream's part again after this long
DRAWN_PER_CHANGE = 4  # parts a write draws at most: the rest are drawn by the stream servers
KEPT_PER_SERVER = 4096  # notes a server remembers having made (each a few hundred bytes)


class Watched(NamedTuple):
    part: str
    language: str
    audience: str


class Notes:
    """This server's notes: when it last noted each part, so that a thousand streams of one
    table note it once every ``NOTE_AGAIN_SECONDS``, not once each."""

    def __init__(self) -> None:
        self.noted: dict[tuple[int, Watched], float] = {}

    def due(self, session_id: int, watched: Watched) -> bool:
        """Whether the part is to be noted now (and, if so, it counts as noted)."""
        key = (session_id, watched)
        now = time.monotonic()
        last = self.noted.get(key)
        if last is not None and now - last < NOTE_AGAIN_SECONDS:
            return False
        if len(self.noted) >= KEPT_PER_SERVER:
            self.noted.clear()  # at worst every open part is noted once more
        self.noted[key] = now
        return True

    def forget(self, session_id: int, watched: Watched) -> None:
        """The note failed (the database was away): noted again at the next chance."""
        self.noted.pop((session_id, watched), None)


notes = Notes()


def note(session_id: int, watched: Watched) -> None:
    """Note the part as shown until ``WATCH_SECONDS`` from now (ORM: a drawing thread)."""
    until = timezone.now() + datetime.timedelta(seconds=WATCH_SECONDS)
    PushWatch.objects.bulk_create(
        [PushWatch(session_id=session_id, until=until, **watched._asdict())],
        update_conflicts=True,
        unique_fields=["session", "part", "language", "audience"],
        update_fields=["until"],
    )


def prune() -> int:
    """Forget the notes that nobody renewed (``manage.py prune_keys``), and those of games that
    are gone."""
    gone = Q(until__lt=timezone.now()) | ~Q(session_id__in=Session.objects.values("pk"))
    return PushWatch.objects.filter(gone).delete()[0]
