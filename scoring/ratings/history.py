"""What the ratings are computed from, and the computation itself: no writes here.

``rated_games`` is the one input: every finished strafpunten game of the club in the order it
was played, with each player's final place (RULES.md §10: equal totals share a place, which
OpenSkill takes as a tie). Toernooi tables count unless their organiser said not to
(``Tournament.rated``). Filter here, and only here, to leave games out of the ratings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Count, Max, Q, Sum
from openskill.models import PlackettLuce

from scoring.models import Session, SessionResult, counted_q

FINISHED = [Session.Status.FINISHED, Session.Status.LOCKED]


def model() -> PlackettLuce:
    """OpenSkill's Plackett-Luce model with its defaults (mu 25, sigma 25/3): one per computation,
    so nothing is kept between requests."""
    return PlackettLuce()


@dataclass(frozen=True)
class RatedGame:
    session_id: int
    places: tuple[tuple[int, int], ...]  # (player id, place), in place order


def _rated_sessions(club_id: int) -> Q:
    return (
        Q(session__club_id=club_id, session__status__in=FINISHED, session__game="strafpunten")
        & ~Q(session__tournament_table__series__tournament__rated=False)
        & Q(player__isnull=False)
        # the club's akkoord rule, as for the standings (a disputed game out where it says so)
        & counted_q("session__")
    )


def rated_game(club_id: int, session_id: int) -> RatedGame | None:
    """One game as ``rated_games`` lists it (None where it is not rated): one query."""
    places = tuple(
        SessionResult.objects.filter(_rated_sessions(club_id), session_id=session_id)
        .order_by("place", "player_id")
        .values_list("player_id", "place")
    )
    return RatedGame(session_id, places) if len(places) >= 2 else None


def play_order(session_id: int) -> tuple:
    """A game's place in ``rated_games``' order (day, start, id)."""
    day, start = Session.objects.values_list("played_on", "created_at").get(pk=session_id)
    return (day, start, session_id)


def rated_games(club_id: int, *, after: tuple | None = None) -> list[RatedGame]:
    """The club's rated games in the order they were played (day, start, id): one query. A game
    with fewer than two players has nobody to be compared with and is left out. ``after``: only
    the games played after that place in the order (a ``play_order``)."""
    rows = SessionResult.objects.filter(_rated_sessions(club_id))
    if after is not None:
        day, start, last_id = after
        rows = rows.filter(
            Q(session__played_on__gt=day)
            | Q(session__played_on=day, session__created_at__gt=start)
            | Q(session__played_on=day, session__created_at=start, session_id__gt=last_id)
        )
    rows = rows.order_by(
        "session__played_on", "session__created_at", "session_id", "place", "player_id"
    ).values_list("session_id", "player_id", "place")
    games: list[RatedGame] = []
    current: list[tuple[int, int]] = []
    current_id = None
    for session_id, player_id, place in rows.iterator(chunk_size=5000):
        if session_id != current_id:
            if len(current) >= 2:
                games.append(RatedGame(current_id, tuple(current)))
            current, current_id = [], session_id
        current.append((player_id, place))
    if len(current) >= 2:
        games.append(RatedGame(current_id, tuple(current)))
    return games


def history_key(club_id: int, *, without: int | None = None) -> str:
    """A fingerprint of everything ``rated_games`` reads, in one aggregate query: a finished,
    corrected, reopened, removed or moved game (version, ``updated_at``, ids), a merged player
    (the players' ids), a toernooi that stops counting (the rows themselves) all change it.
    ``without``: the fingerprint of the history without that game (session id)."""
    rows = SessionResult.objects.filter(_rated_sessions(club_id))
    if without is not None:
        rows = rows.exclude(session_id=without)
    found = rows.aggregate(
        rows=Count("id"),
        players=Sum("player_id"),
        places=Sum("place"),
        sessions=Sum("session_id"),
        versions=Sum("session__version"),
        latest=Max("session__updated_at"),
        order=Max("session__played_on"),
    )
    text = repr(sorted(found.items()))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Step:
    """A player's rating after one game."""

    seq: int
    session_id: int
    player_id: int
    games: int
    mu: float
    sigma: float


def replay(
    games: list[RatedGame],
    *,
    after: int = 0,
    ratings: dict[int, object] | None = None,
    counts: dict[int, int] | None = None,
) -> Iterator[Step]:
    """Each game's new ratings, game after game, as OpenSkill rates them: each player a team of
    one, ranked by place (a shared place is a tie). ``after``, ``ratings`` and ``counts``: the
    replay goes on from the ``after``-th game, with each player's rating and games by then."""
    pl = model()
    ratings = dict(ratings or {})
    counts = dict(counts or {})
    for seq, game in enumerate(games, start=after + 1):
        players = [pid for pid, _ in game.places]
        teams = [[ratings.get(pid) or pl.rating()] for pid in players]
        rated = pl.rate(teams, ranks=[place for _, place in game.places])
        for pid, (rating,) in zip(players, rated, strict=True):
            ratings[pid] = rating
            counts[pid] = counts.get(pid, 0) + 1
            yield Step(seq, game.session_id, pid, counts[pid], rating.mu, rating.sigma)
