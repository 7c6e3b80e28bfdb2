"""The one write of the ratings: ``ratings_refresh`` recomputes a club's snapshots from its
whole history (``scoring.ratings.history``) when that history has changed.

From scratch, so a corrected, removed or merged game can never leave a rating that a fresh
computation would not give (BENCHMARKS.md, "Ratings": the time for 5,000 games); a game that
has just finished is rated in its place instead, with the same numbers as from scratch.
Called by the write funnel when a finished game changes (``scoring/lei/funnel.py``), by the
writes that change the history outside it (a merge, the admin's delete, date and akkoord
rule), and, as the net for any other, by the pages that show ratings when they find the
snapshots of another history: the snapshots are a projection of the games, like
``SessionResult``.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from scoring.models import RatingSnapshot, RatingState
from scoring.ratings.history import (
    history_key,
    model,
    play_order,
    rated_game,
    rated_games,
    replay,
)


def ratings_refresh(*, club_id: int, game: int | None = None) -> bool:
    """Bring the club's ratings to its current history; True if they changed. ``game``: the
    session a write just finished; when the ratings were of the history without it, it is
    rated in its place (``_rate_in_place``: what a recompute would give), else everything is
    recomputed."""
    with transaction.atomic():
        state, _ = RatingState.objects.get_or_create(club_id=club_id)
        # The lock: two requests that find the ratings stale recompute them once.
        state = RatingState.objects.select_for_update().get(pk=state.pk)
        key = history_key(club_id)
        if state.key == key:
            return False
        if game is None or not _rate_in_place(club_id, game, state):
            state.games = _recompute(club_id)
        state.key = key
        state.computed_at = timezone.now()
        state.save()
        return True


def _recompute(club_id: int) -> int:
    """Every snapshot of the club anew, from its whole history; the number of games rated."""
    games = rated_games(club_id)
    steps = list(replay(games))
    last = {step.player_id: step.seq for step in steps}
    RatingSnapshot.objects.filter(club_id=club_id).delete()
    _insert(_row(club_id, step, latest=last[step.player_id] == step.seq) for step in steps)
    return len(games)


def _rate_in_place(club_id: int, session_id: int, state: RatingState) -> bool:
    """A game just finished, rated in its place in the play order on top of the stored
    snapshots: those of the games played before it stay, and it and the games played after it
    are rated again from there. On a club evening the tables finish in any order, so the game
    that ends is often not the latest one started; this is a few queries and the evening's
    games (61 to 71 ms at 5,000 games, BENCHMARKS.md "Ratings"), where a recompute grows with
    the club (0.5 to 1.2 s there) and ran inside the tap that ended the game. The same numbers
    as a recompute, since the replay goes game after game. False (nothing written) when the
    snapshots are not of the history without this game (a correction, a removal): then only a
    recompute does."""
    if not state.key or history_key(club_id, without=session_id) != state.key:
        return False
    game = rated_game(club_id, session_id)
    if game is None:  # not rated (fewer than two players): the ratings stay as they are
        return True
    later = rated_games(club_id, after=play_order(session_id))
    snapshots = RatingSnapshot.objects.filter(club_id=club_id)
    # The snapshots are of the history without this game, one seq a game in play order: the
    # games after it hold the last seqs, and the game takes the first of those.
    cut = (snapshots.aggregate(last=Max("seq"))["last"] or 0) - len(later) + 1
    games = [game, *later]
    players = {pid for g in games for pid, _ in g.places}
    tops = dict(
        snapshots.filter(player_id__in=players, seq__lt=cut)
        .values("player_id")
        .annotate(top=Max("seq"))
        .values_list("player_id", "top")
    )
    before = [
        s
        for s in snapshots.filter(player_id__in=tops, seq__in=set(tops.values()))
        if tops[s.player_id] == s.seq
    ]
    pl = model()
    steps = list(
        replay(
            games,
            after=cut - 1,
            ratings={s.player_id: pl.rating(mu=s.mu, sigma=s.sigma) for s in before},
            counts={s.player_id: s.games for s in before},
        )
    )
    snapshots.filter(seq__gte=cut).delete()
    snapshots.filter(player_id__in=players, latest=True).update(latest=False)
    last = {step.player_id: step.seq for step in steps}
    _insert(_row(club_id, step, latest=last[step.player_id] == step.seq) for step in steps)
    state.games += 1
    return True


def _row(club_id: int, step, *, latest: bool) -> tuple:
    return (
        club_id,
        step.player_id,
        step.session_id,
        step.seq,
        step.games,
        step.mu,
        step.sigma,
        latest,
    )


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
