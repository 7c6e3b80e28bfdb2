"""A player's page: places, rounds, form and streaks, league points over a season, the
opponents met, and a session's totals round by round for its chart. Reads the projection
only, a fixed number of queries per page."""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    Case,
    Count,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)

from scoring import names
from scoring.clubs.ranking import Ranking
from scoring.league.standings import (
    results_in_scope,
    results_over,
    with_points,
)
from scoring.models import RoundScore, Season, Session, SessionResult


@dataclass
class PlayerStats:
    sessions: int = 0
    toepkoningen: int = 0
    places: dict[int, int] = field(default_factory=dict)  # place -> how often
    average_place: float | None = None
    rounds_played: int = 0
    rounds_won: int = 0
    knocks: int = 0
    knocked_rounds: int = 0
    knocked_rounds_won: int = 0
    folds: int = 0
    boer_wins: int = 0
    armoede_rounds: int = 0
    armoede_survived: int = 0
    longest_run: int = 0
    strafpunten: int = 0

    @property
    def is_toepkoning(self) -> bool:
        """RULES.md §10: three times toepkoning or more carries the title."""
        return self.toepkoningen >= 3

    @property
    def won_share(self) -> float | None:
        return self.rounds_won / self.rounds_played if self.rounds_played else None

    @property
    def knocked_won_share(self) -> float | None:
        return self.knocked_rounds_won / self.knocked_rounds if self.knocked_rounds else None

    @property
    def fold_rate(self) -> float | None:
        return self.folds / self.rounds_played if self.rounds_played else None

    @property
    def places_list(self) -> list[tuple[int, int]]:
        return sorted(self.places.items())


MAX_PLACE = 8  # at most eight at a table (RULES.md §1)


def _round_scores(*, club_id: int, season_id: int | None, player_id: int) -> QuerySet:
    """The player's round scores in the sessions in scope.

    The sessions come from the player's own session results (a semi-join), so that PostgreSQL
    walks the player's few thousand rows by index instead of hashing every round of the club.
    """
    sessions = results_in_scope(club_id=club_id, season_id=season_id, players=[player_id])
    return RoundScore.objects.filter(
        player_id=player_id, round__session_id__in=sessions.values("session_id")
    ).order_by()


_RUN_SQL = """
SELECT MAX(run) AS longest FROM (
    SELECT COUNT(*) AS run FROM (
        SELECT sid, won_flag,
               ROW_NUMBER() OVER (PARTITION BY sid ORDER BY number)
             - ROW_NUMBER() OVER (PARTITION BY sid, won_flag ORDER BY number) AS island
        FROM ({inner}) r
    ) islands
    WHERE won_flag = 1
    GROUP BY sid, island
) runs
"""


def player_stats(*, club_id: int, player_id: int, season_id: int | None = None) -> PlayerStats:
    """A player's figures over the club's finished sessions (or one season's).

    Queries: 1. sessions, toepkoningen and places from the session results; 2. knocks, folds,
    boer wins and armoede from the round scores; 3. the longest run of rounds won in a row (in
    one session), by the gaps-and-islands trick.
    """
    results = results_in_scope(club_id=club_id, season_id=season_id, players=[player_id])
    by_place = {f"place_{k}": Count("id", filter=Q(place=k)) for k in range(1, MAX_PLACE + 1)}
    s = results.aggregate(
        sessions=Count("id"),
        toepkoningen=Count("id", filter=Q(toepkoning=True)),
        place_sum=Sum("place"),
        rounds_played=Sum("rounds_played"),
        rounds_won=Sum("rounds_won"),
        **by_place,
    )
    rounds = _round_scores(club_id=club_id, season_id=season_id, player_id=player_id)
    knocked = Q(knocks__gt=0)
    r = rounds.aggregate(
        knocks_made=Sum("knocks"),
        knocked_rounds=Count("id", filter=knocked),
        knocked_rounds_won=Count("id", filter=knocked & Q(won=True)),
        folds=Count("id", filter=Q(folded=True)),
        boer_wins=Count("id", filter=Q(jack_win=True)),
        armoede_rounds=Count("id", filter=Q(armoede=True)),
        armoede_survived=Count("id", filter=Q(armoede=True, eliminated=False)),
        strafpunten=Sum("points"),
    )
    islands = (
        rounds.exclude(absent="drinks")
        .annotate(
            sid=F("round__session_id"),
            number=F("round__number"),
            won_flag=Case(When(won=True, then=Value(1)), default=Value(0)),
        )
        .values("sid", "number", "won_flag")
    )
    run = results_over(islands, _RUN_SQL)
    sessions = s["sessions"] or 0
    return PlayerStats(
        sessions=sessions,
        toepkoningen=s["toepkoningen"] or 0,
        places={k: s[f"place_{k}"] for k in range(1, MAX_PLACE + 1) if s[f"place_{k}"]},
        average_place=(s["place_sum"] / sessions) if sessions else None,
        rounds_played=s["rounds_played"] or 0,
        rounds_won=s["rounds_won"] or 0,
        knocks=r["knocks_made"] or 0,
        knocked_rounds=r["knocked_rounds"],
        knocked_rounds_won=r["knocked_rounds_won"],
        folds=r["folds"],
        boer_wins=r["boer_wins"],
        armoede_rounds=r["armoede_rounds"],
        armoede_survived=r["armoede_survived"],
        longest_run=int(run[0]["longest"] or 0) if run else 0,
        strafpunten=r["strafpunten"] or 0,
    )


@dataclass
class LeaguePoint:
    session_id: int
    played_on: datetime.date
    place: int
    table_size: int
    points: int


_PLAYER_POINTS_SQL = """
SELECT sid, played_on, place, table_size, pts FROM ({inner}) r
WHERE pid = %s ORDER BY played_on, sid
"""


def league_points(*, season: Season, player_id: int) -> list[LeaguePoint]:
    """The player's league points session by session through the season (one query)."""
    ranking = Ranking.from_json(season.ranking)
    inner = with_points(
        results_in_scope(club_id=season.club_id, season_id=season.pk, sessions_of=player_id),
        ranking,
    )
    return [
        LeaguePoint(
            session_id=row["sid"],
            played_on=_date(row["played_on"]),
            place=row["place"],
            table_size=row["table_size"],
            points=int(row["pts"]),
        )
        for row in results_over(inner, _PLAYER_POINTS_SQL, [player_id])
    ]


def _date(value: Any) -> datetime.date:
    return datetime.date.fromisoformat(value) if isinstance(value, str) else value


@dataclass
class Opponent:
    player_id: int
    name: str
    public_initials: bool
    sessions: int
    higher: int  # sessions in which the player finished above this opponent
    lower: int  # … and below
    confirmed: bool = True  # a guest a scorer link added: no public page yet

    def display_name(self, *, full: bool) -> str:
        return names.display_name(self.name, self.public_initials, full=full)


def opponents(*, club_id: int, player_id: int, season_id: int | None = None) -> list[Opponent]:
    """Head-to-head against everyone the player sat with (one query): sessions together and who
    finished higher, most sessions first."""
    theirs = results_in_scope(club_id=club_id, season_id=season_id, sessions_of=player_id)
    my_place = SessionResult.objects.filter(
        session_id=OuterRef("session_id"), player_id=player_id
    ).values("place")[:1]
    rows = (
        theirs.exclude(player_id=player_id)
        .annotate(my_place=Subquery(my_place))
        .values("player_id", "player__name", "player__public_initials", "player__confirmed")
        .annotate(
            together=Count("id"),
            higher=Count("id", filter=Q(my_place__lt=F("place"))),
            lower=Count("id", filter=Q(my_place__gt=F("place"))),
        )
        .order_by("-together", "player__name")
    )
    return [
        Opponent(
            player_id=r["player_id"],
            name=r["player__name"],
            public_initials=r["player__public_initials"],
            sessions=r["together"],
            higher=r["higher"],
            lower=r["lower"],
            confirmed=r["player__confirmed"],
        )
        for r in rows
    ]


# --- the per-round totals of one session, for a chart -----------------------------------------


def session_series(session: Session, *, full_names: bool) -> dict[str, list[int]]:
    """Each seated player's total from round 0 on, in seat order (two queries: the seats and
    the round scores). Names are public names unless ``full_names``."""
    seats = list(
        session.seats.order_by("position").values_list(
            "player_id", "player__name", "player__public_initials"
        )
    )
    totals: dict[int, list[int]] = defaultdict(list)
    for player_id, total in (
        RoundScore.objects.filter(round__session=session, player__isnull=False)
        .order_by("round__number")
        .values_list("player_id", "total")
    ):
        totals[player_id].append(total)
    start = session.start or {}
    series: dict[str, list[int]] = {}
    for player_id, name, initials in seats:
        label = names.display_name(name, initials, full=full_names)
        while label in series:  # two players with the same initials
            label += "'"
        series[label] = [int(start.get(name, 0)), *totals.get(player_id, [])]
    return series
