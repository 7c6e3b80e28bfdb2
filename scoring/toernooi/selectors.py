"""What the toernooi's screens read: each table's state in a series, the standings with their
tie-breakers, the organiser's log and the draw's summary (the final order and the prize list:
``scoring/toernooi/finish.py``). Computed on every call from the tables' ``SessionResult``
rows, so a correction of a table's game is in them at once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from django.db.models import Prefetch, Q
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from scoring.models import (
    AuditEntry,
    Player,
    Series,
    Session,
    SessionResult,
    TableSeat,
    Tournament,
    TournamentEntry,
    TournamentTable,
    counted_q,
)
from scoring.toernooi import draw

# A table's seats with their players in one query, in seat order.
SEATS_IN_ORDER = Prefetch(
    "seats", queryset=TableSeat.objects.select_related("player").order_by("position")
)


OVER = (Session.Status.FINISHED, Session.Status.LOCKED)


@dataclass
class StandingRow:
    player: Player
    place: int
    table_points: int
    strafpunten: int
    toepkoningen: int
    series_played: int
    shared: bool = False  # the place is shared with another player
    decided_by: str = ""  # the tie-breaker that put this row below an equal one ("" if none)
    # Per series: (series number, table number, place at the table, table points).
    series: list[tuple[int, int, int, int]] = field(default_factory=list)
    withdrawn: bool = False
    # Wins minus losses against the players equal on the first three tie-breakers (None when
    # nobody was).
    head_to_head: int | None = None


@dataclass
class Standings:
    rows: list[StandingRow]
    provisional: bool  # a series is running: its tables count with their current places
    series_counted: int  # series counted: closed, or running with a table finished
    explanation: list[Promise]
    # A running series not counted yet: none of its tables has finished, so the standings
    # are those after the last closed series (None when there is none such).
    waiting: int | None = None

    def by_player(self) -> dict[int, StandingRow]:
        return {row.player.pk: row for row in self.rows}


@dataclass
class TableStatus:
    table: TournamentTable
    players: list[Player]  # in seat order
    dealer: Player | None
    session: Session | None
    state: str  # "drawn" (not started), "running", "done" (may be ended), "finished"
    totals: dict[int, int]  # player id → current total
    places: dict[int, int]  # player id → current place
    rounds_played: int


TIE_BREAKERS = [
    gettext_lazy("Tafelpunten: meer tafelpunten staat hoger."),
    gettext_lazy(
        "Strafpunten: bij gelijke tafelpunten staat wie over alle series minder"
        " strafpunten had hoger."
    ),
    gettext_lazy("Toepkoningen: daarna staat wie vaker toepkoning werd hoger."),
    gettext_lazy(
        "Onderling: daarna staat wie aan de tafels waar ze elkaar troffen vaker boven de ander"
        " eindigde hoger. Wie dan nog gelijk staat, deelt de plaats."
    ),
]
DECIDED_BY = {
    # The figure, not the game (German "Strafpunkte", not the game's "Strafpunkte (strafpunten)").
    "strafpunten": pgettext_lazy("de punten", "strafpunten"),
    "toepkoningen": gettext_lazy("toepkoningen"),
    "onderling": gettext_lazy("onderling"),
}


def present_for(tournament: Tournament, number: int) -> list[Player]:
    """The players present for series ``number``, in a fixed order (by id)."""
    entries = tournament.entries.select_related("player").order_by("player_id")
    return [e.player for e in entries if e.plays_in(number)]


def series_overview(series: Series) -> list[TableStatus]:
    """Every table of ``series`` with its players, state and current totals (three queries)."""
    tournament = series.tournament
    tables = list(
        series.tables.select_related("dealer", "session").prefetch_related(SEATS_IN_ORDER)
    )
    results: dict[int, list[SessionResult]] = defaultdict(list)
    sessions = [t.session_id for t in tables if t.session_id]
    for r in SessionResult.objects.filter(session__in=sessions, player__isnull=False):
        results[r.session_id].append(r)
    overview: list[TableStatus] = []
    for table in tables:
        rows = results.get(table.session_id or 0, [])
        played = max((r.rounds_played for r in rows), default=0)
        overview.append(
            TableStatus(
                table=table,
                players=[s.player for s in sorted(table.seats.all(), key=lambda s: s.position)],
                dealer=table.dealer,
                session=table.session,
                state=_table_state(tournament, table.session, played),
                totals={r.player_id: r.total for r in rows},
                places={r.player_id: r.place for r in rows},
                rounds_played=played,
            )
        )
    return overview


def _table_state(tournament: Tournament, session: Session | None, played: int) -> str:
    if session is None:
        return "drawn"
    if session.status in OVER:
        return "finished"
    if tournament.end_mode == Tournament.EndMode.TIME or (
        tournament.end_mode == Tournament.EndMode.ROUNDS and played >= (tournament.end_rounds or 0)
    ):
        return "done"  # the organiser may end it (series_finish does)
    return "running"


def table_points(points: Sequence[int], places: Mapping[Any, int]) -> dict[Any, int]:
    """Each player's table points from their place at one table; a shared place shares the
    points of the places it covers (the average, rounded to whole points, halves up)."""
    sharing: dict[int, int] = defaultdict(int)
    for place in places.values():
        sharing[place] += 1
    awarded: dict[Any, int] = {}
    for who, place in places.items():
        count = sharing[place]
        covered = sum(
            points[p - 1] if p - 1 < len(points) else 0 for p in range(place, place + count)
        )
        awarded[who] = (2 * covered + count) // (2 * count)
    return awarded


def tournament_standings(tournament: Tournament) -> Standings:
    """The standings of the regular series (not the final table), by the tie-breakers of the
    module docstring. Three queries, whatever the number of players and series."""
    entries = list(tournament.entries.select_related("player").order_by("player__name"))
    series_state = dict(tournament.series.filter(final=False).values_list("number", "state"))
    results = list(
        SessionResult.objects.filter(
            counted_q("session__"),  # the club's rule on the table's akkoord
            session__tournament_table__series__tournament=tournament,
            session__tournament_table__series__final=False,
            player__isnull=False,
        ).values_list(
            "session_id",
            "player_id",
            "place",
            "total",
            "toepkoning",
            "session__tournament_table__series__number",
            "session__tournament_table__number",
            "session__status",
        )
    )
    provisional = any(state == Series.State.RUNNING for state in series_state.values())
    # A series counts from its first finished table: before that every player of it stands
    # on 0 at their table and would share the table's points ("1=" for everyone).
    started = {number for *_, number, _table, status in results if status in OVER}
    waiting = [
        n for n, state in series_state.items() if state == Series.State.RUNNING and n not in started
    ]
    counted = [r[:7] for r in results if r[5] not in waiting]
    rows = _rows(tournament, entries, counted)
    return Standings(
        rows=rows,
        provisional=provisional,
        series_counted=sum(1 for s in series_state.values() if s != Series.State.DRAWN)
        - len(waiting),
        explanation=list(TIE_BREAKERS),
        waiting=max(waiting, default=None),
    )


def _rows(
    tournament: Tournament,
    entries: Sequence[TournamentEntry],
    results: Sequence[tuple[int, int, int, int, bool, int, int]],
) -> list[StandingRow]:
    by_player = {
        e.player_id: StandingRow(
            player=e.player,
            place=0,
            table_points=0,
            strafpunten=0,
            toepkoningen=0,
            series_played=0,
            withdrawn=e.withdrawn_after is not None,
        )
        for e in entries
    }
    places_at: dict[int, dict[int, int]] = defaultdict(dict)  # session → player → place
    where: dict[int, tuple[int, int]] = {}
    for session_id, player_id, place, total, king, series_number, table_number in results:
        places_at[session_id][player_id] = place
        where[session_id] = (series_number, table_number)
        row = by_player.get(player_id)
        if row is None:
            continue
        row.strafpunten += total
        row.toepkoningen += int(king)
        row.series_played += 1
    for session_id, places in places_at.items():
        awarded = table_points(tournament.table_points, places)
        number, table_number = where[session_id]
        for player_id, points in awarded.items():
            row = by_player.get(player_id)
            if row is not None:
                row.table_points += points
                row.series.append((number, table_number, places[player_id], points))
    for row in by_player.values():
        row.series.sort()
    # A check-in taken back before it played (an entry kept from before that was possible:
    # scoring/toernooi/corrections.py) is nobody's row: no "vertrokken" ghost.
    kept = [r for r in by_player.values() if r.series_played or not r.withdrawn]
    rows = sorted(kept, key=_key)
    return _place(rows, places_at)


def _key(row: StandingRow) -> tuple[int, int, int]:
    return (-row.table_points, row.strafpunten, -row.toepkoningen)


def _place(
    rows: list[StandingRow], places_at: Mapping[int, Mapping[int, int]]
) -> list[StandingRow]:
    """Places after the head-to-head within groups equal on the first three tie-breakers."""
    ordered: list[StandingRow] = []
    groups: list[list[StandingRow]] = []
    for row in rows:
        if groups and _key(groups[-1][0]) == _key(row):
            groups[-1].append(row)
        else:
            groups.append([row])
    for group in groups:
        if len(group) == 1:
            ordered.append(group[0])
            continue
        score = _head_to_head(group, places_at)
        group.sort(key=lambda r: (-score[r.player.pk], r.player.name.casefold()))
        ordered += group
    previous: StandingRow | None = None
    for index, row in enumerate(ordered, start=1):
        same = previous is not None and _key(previous) == _key(row)
        if same and previous.head_to_head == row.head_to_head:
            row.place = previous.place
            row.shared = previous.shared = True
        else:
            row.place = index
            if previous is not None:
                row.decided_by = _decided_by(previous, row)
        previous = row
    return ordered


def _head_to_head(
    group: list[StandingRow], places_at: Mapping[int, Mapping[int, int]]
) -> dict[int, int]:
    ids = {r.player.pk for r in group}
    score = dict.fromkeys(ids, 0)
    for places in places_at.values():
        here = [pid for pid in places if pid in ids]
        for a, b in combinations(here, 2):
            if places[a] < places[b]:
                score[a] += 1
                score[b] -= 1
            elif places[b] < places[a]:
                score[b] += 1
                score[a] -= 1
    for row in group:
        row.head_to_head = score[row.player.pk]
    return score


def _decided_by(above: StandingRow, row: StandingRow) -> str:
    if above.table_points != row.table_points:
        return ""
    if above.strafpunten != row.strafpunten:
        return str(DECIDED_BY["strafpunten"])
    if above.toepkoningen != row.toepkoningen:
        return str(DECIDED_BY["toepkoningen"])
    return str(DECIDED_BY["onderling"])


def paper_games(overview: Sequence[TableStatus]) -> set[int]:
    """The ids of the tables' games that were entered from a paper lei (one query): those the
    organiser may replace or take back (``scoring.toernooi.results``)."""
    sessions = [t.session.pk for t in overview if t.session is not None]
    return set(
        AuditEntry.objects.filter(
            session__in=sessions, action=AuditEntry.Action.IMPORT
        ).values_list("session_id", flat=True)
    )


@dataclass
class Correction:
    at: Any  # a datetime
    who: str  # the user's name, "schrijverslink", or "" (a command)
    text: str


# The entries of a tournament's tables' games that its page lists beside its own.
GAME_CORRECTIONS = (AuditEntry.Action.CORRECT, AuditEntry.Action.REOPEN)


def corrections(tournament: Tournament, limit: int = 100) -> list[Correction]:
    """The organiser's log of the tournament, newest first (one query): its corrections and
    series closed and reopened (``AuditEntry.tournament``), and the rounds of its tables'
    games corrected after the fact."""
    entries = (
        AuditEntry.objects.filter(
            Q(tournament=tournament)
            | Q(
                session__tournament_table__series__tournament=tournament,
                action__in=GAME_CORRECTIONS,
            )
        )
        .select_related("user", "session__tournament_table__series")
        .order_by("-at", "-id")[:limit]
    )
    return [
        Correction(at=entry.at, who=_who(entry), text=_correction_text(entry)) for entry in entries
    ]


def _who(entry: AuditEntry) -> str:
    if entry.user is not None:
        return entry.user.get_username()
    return gettext("schrijverslink") if entry.by_scorer_token else ""


def _where(facts: dict[str, Any]) -> str:
    if facts.get("final"):
        return gettext("finaletafel")
    if facts.get("table") is None:
        return gettext("serie %(series)s") % {"series": facts.get("series")}
    return gettext("serie %(series)s, tafel %(table)s") % {
        "series": facts.get("series"),
        "table": facts.get("table"),
    }


def _correction_text(entry: AuditEntry) -> str:
    Action = AuditEntry.Action
    before = entry.before if isinstance(entry.before, dict) else {}
    after = entry.after if isinstance(entry.after, dict) else {}
    if entry.action in GAME_CORRECTIONS and entry.tournament_id is None:
        table = entry.session.tournament_table
        after = {"series": table.series.number, "final": table.series.final, "table": table.number}
        if entry.action == Action.REOPEN:
            return gettext("Spel heropend: %(where)s") % {"where": _where(after)}
        return gettext("Ronde %(round)s verbeterd: %(where)s") % {
            "round": entry.round_number,
            "where": _where(after),
        }
    where = _where(after)
    if entry.action == Action.CHECK_IN_UNDO:
        return gettext("Aanmelding van %(player)s ongedaan gemaakt") % {
            "player": before.get("player", "?")
        }
    if entry.action == Action.PAPER:
        text = (
            gettext("Papieren lei vervangen: %(where)s")
            if before.get("paper")
            else gettext("Papieren lei ingevoerd: %(where)s")
        ) % {"where": where}
        if not after.get("finished"):
            text += " " + gettext("(niet uitgespeeld: de tafel speelt verder)")
        return text
    if entry.action == Action.PAPER_UNDO:
        return gettext("Papieren lei teruggenomen: %(where)s") % {"where": where}
    if entry.action == Action.SERIES_CLOSE:
        return gettext("Afgesloten: %(where)s") % {"where": where}
    if entry.action == Action.SERIES_REOPEN:
        text = gettext("Heropend: %(where)s") % {"where": where}
        if after.get("final_taken_back"):
            text += " " + gettext("(de finaletafel is teruggenomen)")
        return text
    if entry.action == Action.SERIES_REDRAW:
        text = gettext("Opnieuw geloot: %(where)s (lotnummer %(seed)s)") % {
            "where": where,
            "seed": after.get("seed"),
        }
        # A redraw by mistake is undone by drawing again with the lotnummer it replaced.
        if before.get("seed") is not None:
            text += " " + gettext("(vorige loting: lotnummer %(seed)s)") % {"seed": before["seed"]}
        return text
    if entry.action == Action.CHECK_IN:
        return checked_in_text(after)
    return entry.get_action_display()


def checked_in_text(after: dict[str, Any]) -> str:
    """A check-in the log keeps (scoring/toernooi/checkin.py): a walk-in taken for a player of
    the club when asked, a pasted list, or a player also in another tournament that evening."""
    parts = []
    for typed, player in after.get("matched") or []:
        parts.append(
            gettext("binnenloper “%(typed)s” is %(player)s") % {"typed": typed, "player": player}
        )
    new = after.get("new_guests") or []
    if new:
        parts.append(gettext("nieuwe gasten: %(names)s") % {"names": ", ".join(new)})
    known = after.get("players") or []
    if known:
        parts.append(gettext("spelers van de club: %(names)s") % {"names": ", ".join(known)})
    for player, others in (after.get("also_in") or {}).items():
        parts.append(
            gettext("%(player)s speelt vanavond ook in %(others)s")
            % {"player": player, "others": ", ".join(others)}
        )
    head = (
        gettext("Lijst aangemeld (%(count)s)") % {"count": after.get("count", 0)}
        if after.get("via") == "paste"
        else gettext("Aangemeld")
    )
    return f"{head}: {'; '.join(parts)}" if parts else head


@dataclass
class DrawSummary:
    """What the organiser's page says of a drawn series' repeats (``scoring.toernooi.draw``)."""

    extra: int  # extra meetings over the regular series up to and including this one
    unavoidable: int  # the fewest the evening can have, by counting seats, given what was played
    players: int  # seated in this series
    series: int  # the tournament's regular series


def draw_summary(tournament: Tournament, series: Series) -> DrawSummary:
    """The evening's extra meetings up to ``series`` (a regular one) and how many the evening
    cannot avoid (one query)."""
    tables: dict[tuple[int, int], list[int]] = defaultdict(list)
    seats = TableSeat.objects.filter(
        series__tournament=tournament, series__final=False, series__number__lte=series.number
    ).values_list("series__number", "table_id", "player_id")
    for number, table, player in seats:
        tables[(number, table)].append(player)
    by_series: dict[int, list[list[int]]] = defaultdict(list)
    for (number, _table), members in sorted(tables.items()):
        by_series[number].append(members)
    now = by_series.get(series.number, [])
    before = [by_series[n] for n in by_series if n < series.number]
    players = [p for members in now for p in members]
    return DrawSummary(
        extra=draw.extra_meetings(by_series.values()),
        unavoidable=draw.lower_bound(
            players,
            [len(members) for members in now],
            max(1, tournament.series_count - series.number + 1),
            draw.meetings(before),
        )
        if now
        else 0,
        players=len(players),
        series=tournament.series_count,
    )
