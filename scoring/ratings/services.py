"""The one write of the ratings: ``ratings_refresh`` recomputes a club's snapshots from its
whole history (``scoring.ratings.history``) when that history has changed.

From scratch every time, so a corrected, removed or merged game can never leave a rating
that a fresh computation would not give (BENCHMARKS.md, "Ratings": the time for 5,000 games).
Called by the write funnel when a finished game changes (``scoring/lei/funnel.py``) and by
the pages that show ratings when they find the snapshots of another history (an admin's
delete, a merge): the snapshots are a projection of the games, like ``SessionResult``.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from django.utils import timezone

from scoring.models import RatingSnapshot, RatingState
from scoring.ratings.history import history_key, rated_games, replay


def ratings_refresh(*, club_id: int) -> bool:
    """Recompute the club's ratings unless they are of its current history; True if they
    were."""
    with transaction.atomic():
        state, _ = RatingState.objects.get_or_create(club_id=club_id)
        # The lock: two requests that find the ratings stale recompute them once.
        state = RatingState.objects.select_for_update().get(pk=state.pk)
        key = history_key(club_id)
        if state.key == key:
            return False
        games = rated_games(club_id)
        steps = list(replay(games))
        last = {step.player_id: step.seq for step in steps}
        RatingSnapshot.objects.filter(club_id=club_id).delete()
        _insert(
            (
                club_id,
                step.player_id,
                step.session_id,
                step.seq,
                step.games,
                step.mu,
                step.sigma,
                last[step.player_id] == step.seq,
            )
            for step in steps
        )
        state.key = key
        state.games = len(games)
        state.computed_at = timezone.now()
        state.save()
        return True


def ratings_fresh(*, club_id: int) -> None:
    """For a page about to read the ratings: recompute them if their history changed. Two
    queries when they are current (the key and the state)."""
    current = RatingState.objects.filter(club_id=club_id).values_list("key", flat=True).first()
    if current != history_key(club_id):
        ratings_refresh(club_id=club_id)


_COLUMNS = ("club_id", "player_id", "session_id", "seq", "games", "mu", "sigma", "latest")


def _insert(rows: Iterable[tuple]) -> None:
    """The snapshots in one ``executemany``: ``bulk_create`` spent most of a recompute making
    and preparing 25,000 model instances; a 5,000-game recompute went from a median of 6.0 s
    to 1.9 s on the same machine (BENCHMARKS.md, "Ratings")."""
    quote = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(  # noqa: S608 (the model's names)
        quote(RatingSnapshot._meta.db_table),
        ", ".join(quote(c) for c in _COLUMNS),
        ", ".join(["%s"] * len(_COLUMNS)),
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, list(rows))
