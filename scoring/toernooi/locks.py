"""A toernooi write's first step: the tournament's row locked until the write commits, and the
write announced to the pages that show the club's evening (``scoring/notify.py``): the
announcement reaches them only if the write commits."""

from __future__ import annotations

from scoring import notify
from scoring.models import Tournament


def lock_tournament(tournament: Tournament) -> Tournament:
    locked = Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)
    notify.club_changed(locked.club_id)
    return locked
