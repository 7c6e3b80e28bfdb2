"""League aggregates: season standings, player statistics, head-to-head, the evening's tables.

Everything here reads the projection that ``scoring.lei.services`` stores after every write
(``SessionResult`` per player per session, ``RoundScore`` per player per round) and never
replays a session or re-derives a rule: a recorded or corrected round is in the next page view.

Each page costs a fixed number of queries, whatever the size of the season. The per-session
figures that need the rest of the table (placement points: how many players finished below
you) are window functions in one inner query over ``SessionResult``; what is summed over them
is an outer ``SELECT … GROUP BY`` around that query's SQL (``results_over``), because SQL cannot
aggregate a window function in the same ``SELECT``. Both SQLite and PostgreSQL run it.

Season ranking settings (``Season.ranking``, see ``Ranking``)::

    {"scoring": "placement",         # or "per_round": fewest strafpunten per round played,
                                     # or "rating": the club rating after the season's games
     "placement_points": null,       # or [10, 6, 4, 2, 1]: points by place instead of the default
     "best_n": null,                 # or 10: only each player's best 10 sessions count
     "tie_breakers": ["toepkoningen", "average_place", "head_to_head", "strafpunten_per_round"]}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    QuerySet,
    Value,
    When,
    Window,
)

from scoring import names
from scoring.clubs.ranking import (
    AVERAGE_PLACE,
    HEAD_TO_HEAD,
    PER_ROUND,
    PER_ROUND_BREAKER,
    PLACEMENT,
    RATING,
    TOEPKONINGEN,
    Ranking,
)
from scoring.models import Player, Season, Session, SessionResult, counted_q
from scoring.ratings.selectors import season_ratings


@dataclass
class FormEntry:
    place: int
    table_size: int


FORM_LENGTH = 5


# Where a row is listed: ranked, a member below the season's minimum of evenings, a guest.
RANKED, NOT_YET, GUEST = "ranked", "not_yet", "guest"

FINISHED = [Session.Status.FINISHED, Session.Status.LOCKED]


# --- the inner query: one row per player per finished session --------------------------------


def results_in_scope(
    *,
    club_id: int,
    season_id: int | None = None,
    sessions_of: int | None = None,
    players: Iterable[int] | None = None,
) -> QuerySet:
    """Players' results of the finished strafpunten sessions of a club (or one season).

    ``sessions_of`` keeps only the sessions a given player sat in; ``players`` keeps only those
    players' rows (then ``table_size`` and placement points are not meaningful).
    """
    qs = SessionResult.objects.filter(
        counted_q("session__"),  # the club's rule on the table's akkoord
        player__isnull=False,
        session__club_id=club_id,
        session__status__in=FINISHED,
        session__game="strafpunten",
    )
    if season_id is not None:
        qs = qs.filter(session__season_id=season_id)
    if sessions_of is not None:
        qs = qs.filter(
            session_id__in=SessionResult.objects.filter(player_id=sessions_of).values("session_id")
        )
    if players is not None:
        qs = qs.filter(player_id__in=list(players))
    return qs.order_by()


def with_points(qs: QuerySet, ranking: Ranking) -> QuerySet:
    """Columns for ``results_over``: pid, sid, place, koning, played, won, strafpunten, played_on,
    table_size (players at the table) and pts (the session's league points)."""
    by_session = {"partition_by": [F("session_id")]}
    table_size = Window(Count("id"), **by_session)
    if ranking.placement_points:
        pts = Case(
            *(When(place=i, then=Value(p)) for i, p in enumerate(ranking.placement_points, 1)),
            default=Value(0),
            output_field=IntegerField(),
        )
    else:
        # Players with a place <= mine (ties included: the window's peers) are not below me.
        pts = table_size - Window(Count("id"), order_by=F("place").asc(), **by_session)
    return qs.annotate(
        pid=F("player_id"),
        sid=F("session_id"),
        koning=Case(When(toepkoning=True, then=Value(1)), default=Value(0)),
        played=F("rounds_played"),
        won=F("rounds_won"),
        session_total=F("total"),
        played_on=F("session__played_on"),
        disputed=Case(When(session__agreement="disputed", then=Value(1)), default=Value(0)),
        table_size=table_size,
        pts=pts,
    ).values(
        "pid",
        "sid",
        "place",
        "koning",
        "played",
        "won",
        "session_total",
        "played_on",
        "disputed",
        "table_size",
        "pts",
    )


def results_over(
    inner: QuerySet, template: str, params: Sequence[Any] = (), **numbers: int
) -> list[dict[str, Any]]:
    """Run ``template`` with ``{inner}`` replaced by ``inner``'s SQL; rows as dicts.

    The inner query's columns are named by its ``values()``. ``template`` is written here, in
    this module; its ``%s`` parameters all come after ``{inner}`` in the text, and ``numbers``
    (whole numbers only) are formatted in where a parameter would come before it.
    """
    sql, inner_params = inner.query.sql_with_params()
    if not all(isinstance(n, int) for n in numbers.values()):
        raise TypeError("only whole numbers are formatted into SQL")
    with connection.cursor() as cursor:
        cursor.execute(template.format(inner=sql, **numbers), [*inner_params, *params])
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


@dataclass
class StandingRow:
    player_id: int
    name: str
    public_initials: bool
    is_guest: bool
    sessions: int
    toepkoningen: int
    average_place: float
    points: int  # placement: the counted league points; per_round: the strafpunten
    all_points: int  # placement: every session's points, also those best-N leaves out
    rounds_played: int
    rounds_won: int
    strafpunten: int
    form: list[FormEntry] = field(default_factory=list)  # the latest session first
    rank: int = 0
    tied: bool = False  # shares its rank with the row above or below
    decided_by: str | None = None  # the tie-breaker that put it below the row above
    confirmed: bool = True  # a guest a scorer link added: no public player page yet
    evenings: int = 0  # days with a finished session, for the season's ``min_sessions``
    section: str = RANKED
    rating: float | None = None  # the club rating after the player's last game of the season
    disputed: int = 0  # counted games the table did not agree to (scoring/lei/akkoord.py)

    @property
    def won_share(self) -> float | None:
        return self.rounds_won / self.rounds_played if self.rounds_played else None

    @property
    def per_round(self) -> float | None:
        return self.strafpunten / self.rounds_played if self.rounds_played else None

    def display_name(self, *, full: bool) -> str:
        return names.display_name(self.name, self.public_initials, full=full)


@dataclass
class Standings:
    season: Season
    ranking: Ranking
    rows: list[StandingRow]


# Each player's sessions best first, for ``best_n``: also what ``scoring.league.best_n`` lists
# as counted, so that it is exactly what was summed.
BEST_WINDOW = "ROW_NUMBER() OVER (PARTITION BY pid ORDER BY pts DESC, played_on DESC, sid DESC)"

# The form columns: the place and the table size of each player's five latest sessions.
_STANDINGS_SQL = """
SELECT pid, COUNT(*) AS sessions, COUNT(DISTINCT played_on) AS evenings,
       SUM(koning) AS toepkoningen, AVG(place) AS average_place,
       SUM(pts) AS all_points, SUM(CASE WHEN best <= {best_n} THEN pts ELSE 0 END) AS best_points,
       SUM(played) AS rounds_played, SUM(won) AS rounds_won, SUM(session_total) AS strafpunten,
       SUM(disputed) AS disputed,
       MAX(CASE WHEN recent = 1 THEN place END) AS form1_place,
       MAX(CASE WHEN recent = 1 THEN table_size END) AS form1_size,
       MAX(CASE WHEN recent = 2 THEN place END) AS form2_place,
       MAX(CASE WHEN recent = 2 THEN table_size END) AS form2_size,
       MAX(CASE WHEN recent = 3 THEN place END) AS form3_place,
       MAX(CASE WHEN recent = 3 THEN table_size END) AS form3_size,
       MAX(CASE WHEN recent = 4 THEN place END) AS form4_place,
       MAX(CASE WHEN recent = 4 THEN table_size END) AS form4_size,
       MAX(CASE WHEN recent = 5 THEN place END) AS form5_place,
       MAX(CASE WHEN recent = 5 THEN table_size END) AS form5_size
FROM (
    SELECT r.*,
           {best_window} AS best,
           ROW_NUMBER() OVER (PARTITION BY pid ORDER BY played_on DESC, sid DESC) AS recent
    FROM ({inner}) r
) ranked
GROUP BY pid
"""
_STANDINGS_SQL = _STANDINGS_SQL.replace("{best_window}", BEST_WINDOW)


def season_standings(season: Season) -> Standings:
    """The season's table, ranked by its settings: the ranked members first, then the members
    with fewer evenings than ``Season.min_sessions`` (not yet ranked), then the guests, each
    part ranked on its own (``StandingRow.section``).

    Queries: 1. the aggregate per player over the season's results (placement points, best N,
    strafpunten, evenings and form by window functions); 2. the players' names; 3. the start
    totals of sessions carried over from a paper lei; 4. only when ranked by rating, the
    ratings (current: the caller saw to it); 5. only when a tie reaches the head-to-head
    breaker, the results between the tied players (once per part).

    Strafpunten are the session totals (less any start totals): in team toepen a player's
    total is the side's.
    """
    ranking = Ranking.from_json(season.ranking)
    inner = with_points(results_in_scope(club_id=season.club_id, season_id=season.pk), ranking)
    best_n = ranking.best_n or 2**31 - 1
    aggregates = results_over(inner, _STANDINGS_SQL, best_n=best_n)
    players = {
        p["id"]: p
        for p in Player.objects.filter(id__in=[a["pid"] for a in aggregates]).values(
            "id", "name", "public_initials", "is_guest", "confirmed"
        )
    }
    carried = _carried_over(season, {p["name"]: pid for pid, p in players.items()})
    # Guests are listed apart from the members; a club that keeps no members (everybody typed
    # in at the table, a guest) has nobody to list them apart from, and is ranked as one list.
    members_kept = any(not p["is_guest"] for p in players.values())
    rows = []
    for a in aggregates:
        player = players[a["pid"]]
        form = [
            FormEntry(place=a[f"form{k}_place"], table_size=a[f"form{k}_size"])
            for k in range(1, FORM_LENGTH + 1)
            if a[f"form{k}_place"] is not None
        ]
        penalty = int(a["strafpunten"] or 0) - carried.get(a["pid"], 0)
        rows.append(
            StandingRow(
                player_id=a["pid"],
                name=player["name"],
                public_initials=player["public_initials"],
                is_guest=player["is_guest"],
                sessions=a["sessions"],
                toepkoningen=int(a["toepkoningen"] or 0),
                average_place=float(a["average_place"]),
                points=int(a["best_points"] if ranking.scoring == PLACEMENT else penalty),
                all_points=int(a["all_points"] or 0),
                rounds_played=int(a["rounds_played"] or 0),
                rounds_won=int(a["rounds_won"] or 0),
                strafpunten=penalty,
                form=form,
                confirmed=player["confirmed"],
                evenings=a["evenings"],
                section=GUEST
                if player["is_guest"] and members_kept
                else (RANKED if a["evenings"] >= season.min_sessions else NOT_YET),
                disputed=int(a["disputed"] or 0),
            )
        )
    if ranking.scoring == RATING:
        rated = season_ratings(season)  # one query
        for row in rows:
            row.rating = rated.get(row.player_id, (None, 0))[0]
    # Each part ranked on its own: guests and who is not yet ranked push no member down.
    listed = []
    for section in (RANKED, NOT_YET, GUEST):
        part = [row for row in rows if row.section == section]
        _rank(
            part,
            ranking,
            lambda ids: head_to_head_among(
                club_id=season.club_id, season_id=season.pk, players=ids
            ),
        )
        listed.extend(part)
    return Standings(season=season, ranking=ranking, rows=listed)


def _carried_over(season: Season, player_ids: Mapping[str, int]) -> dict[int, int]:
    """Start totals of sessions carried over from a paper lei (RULES.md §14 ``start``), by
    player: a session's total includes them, the strafpunten scored in the season do not.
    One query, over the few sessions that have them."""
    carried: dict[int, int] = defaultdict(int)
    for start in (
        Session.objects.filter(season=season, status__in=FINISHED, game="strafpunten")
        .exclude(start={})
        .values_list("start", flat=True)
    ):
        for name, total in (start or {}).items():
            if name in player_ids:
                carried[player_ids[name]] += int(total)
    return carried


def _primary(row: StandingRow, ranking: Ranking) -> tuple:
    if ranking.scoring == PER_ROUND:
        # Nobody who has played no round is ahead of someone who has.
        per_round = row.per_round
        return (per_round is None, per_round or 0.0)
    if ranking.scoring == RATING:
        return (row.rating is None, -round(row.rating or 0.0, 9))
    return (-row.points,)


_BREAKER_KEY: dict[str, Callable[[StandingRow], Any]] = {
    TOEPKONINGEN: lambda row: -row.toepkoningen,
    AVERAGE_PLACE: lambda row: round(row.average_place, 9),
    PER_ROUND_BREAKER: lambda row: (
        row.per_round is None,
        round(row.per_round, 9) if row.per_round is not None else 0,
    ),
}


def _rank(
    rows: list[StandingRow],
    ranking: Ranking,
    head_to_head: Callable[[set[int]], Mapping[tuple[int, int], int]],
) -> None:
    """Order ``rows`` in place and number them: the ranking's value first, then each tie-breaker
    on the groups still tied, in the configured order. Rows tied after all of them share a rank
    (1, 2, 2, 4) and are listed by name."""
    rows.sort(key=lambda r: (_primary(r, ranking), r.name.casefold()))
    groups = _split([rows], lambda r: _primary(r, ranking), None)
    for breaker in ranking.tie_breakers:
        if all(len(g) == 1 for g in groups):
            break
        if breaker == HEAD_TO_HEAD:
            tied = {r.player_id for g in groups if len(g) > 1 for r in g}
            beaten = head_to_head(tied)

            def key(
                row: StandingRow,
                _group: list[StandingRow],
                beaten: Mapping[tuple[int, int], int] = beaten,
            ) -> int:
                others = [o.player_id for o in _group if o is not row]
                above = sum(beaten.get((row.player_id, o), 0) for o in others)
                below = sum(beaten.get((o, row.player_id), 0) for o in others)
                return below - above

            groups = _split(groups, key, breaker, group_aware=True)
        else:
            groups = _split(groups, _BREAKER_KEY[breaker], breaker)
    position = 0
    for group in groups:
        group.sort(key=lambda r: r.name.casefold())
        for row in group:
            row.rank = position + 1
            row.tied = len(group) > 1
        position += len(group)
    rows[:] = [row for group in groups for row in group]


def _split(
    groups: list[list[StandingRow]],
    key: Callable[..., Any],
    breaker: str | None,
    *,
    group_aware: bool = False,
) -> list[list[StandingRow]]:
    """Each group sorted by ``key`` and cut where the key changes."""
    result: list[list[StandingRow]] = []
    for group in groups:
        if len(group) == 1 and breaker is not None:
            result.append(group)
            continue
        keyed = [(key(r, group) if group_aware else key(r), r) for r in group]
        keyed.sort(key=lambda kr: kr[0])
        current: list[StandingRow] = []
        last: Any = object()
        for k, row in keyed:
            if current and k != last:
                result.append(current)
                current = []
                if breaker is not None:
                    row.decided_by = breaker
            current.append(row)
            last = k
        result.append(current)
    return result


_HEAD_TO_HEAD_SQL = """
SELECT a.pid AS winner, b.pid AS loser, COUNT(*) AS times
FROM ({inner}) a JOIN ({inner}) b ON a.sid = b.sid AND a.place < b.place
GROUP BY a.pid, b.pid
"""


def head_to_head_among(
    *, club_id: int, season_id: int | None, players: Iterable[int]
) -> dict[tuple[int, int], int]:
    """``(a, b) -> n``: in n of the sessions that a and b played together, a finished higher."""
    players = list(players)
    if not players:
        return {}
    inner = (
        results_in_scope(club_id=club_id, season_id=season_id, players=players)
        .annotate(pid=F("player_id"), sid=F("session_id"))
        .values("pid", "sid", "place")
    )
    sql, params = inner.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(_HEAD_TO_HEAD_SQL.format(inner=sql), [*params, *params])
        return {(winner, loser): times for winner, loser, times in cursor.fetchall()}
