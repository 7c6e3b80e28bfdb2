"""The toernooi: check-in, the draw of each series, its tables' games, standings, final table.

A tournament is made of sessions: each table's game is an ordinary session, scored on its own
tablet, so everything the lei does works at a toernooi too. The life of a series:

1. ``series_draw`` seats the players present (``scoring.toernooi.draw``: tables of 4, or 3 and 5;
   planned with the series still to come); the organiser may ``series_swap`` two players or
   ``series_redraw`` (e.g. after a late check-in) while it is only drawn;
2. ``series_start`` gives each table an ordinary ``Session`` (``services.session_start``): the
   tablet, viewers, corrections and archive work on it unchanged;
3. each table's game ends by the engine (the toepkoning) or, for "after N rounds" and "at a
   time", by the organiser (``table_finish`` → ``services.session_finish``: the places are then
   the engine's current order, by total); a paper lei is entered with ``table_enter_totals``
   or ``table_enter_rounds`` (the engine checks the rounds);
4. ``series_finish`` closes the series when every table is over: its games are then closed
   for the tables' scorer links, and only the organiser corrects them or reopens the series
   (``scoring.toernooi.corrections``).

The standings (``tournament_standings``) are computed on every call from the tables'
``SessionResult`` rows, so a correction of a table's game is in them at once, and while a
series runs they are provisional (the tables' current places).

Decisions of our own, where the rules say nothing:

- **Shared places share the points**: players sharing a place at a table get the average of the
  points of the places they cover, rounded to a whole point, halves up (two tied 2nd of
  10/7/5/3/1: (7 + 5) / 2 = 6; two tied 1st: 8.5 → 9). Places beyond the list score 0.
- **Tie-breakers** in this order: more table points, fewer strafpunten over all series, more
  toepkoningen, then head-to-head among the players still tied (who finished above whom at the
  tables where they met: wins minus losses). Players equal on all of these share the place.
- **Check-in while a series is drawn but not started** counts for that series: the start is
  refused until the organiser draws it again (``series_redraw``); the same for a withdrawal
  then. Once a series has started, a late arrival plays from the next one and a player who
  leaves plays out their table (the game goes on) and is out of the next draw.
- **"After N rounds" and "at a time"** are called by the organiser: a table that has played
  its N rounds shows as done and ``series_finish`` (or ``table_finish``) ends it; rounds it
  played meanwhile count, as they would on the lei. A draw of the next series never ends a
  game: it waits until every table is over or the organiser closes the series.
- **A paper lei's totals** record the places by total (lowest first) and no toepkoning (enter
  the rounds for it to count); the engine judges them (``scoring/engine/paper.py``).
- **The final table** takes the top four of the standings after the last series, passing
  over players who withdrew (a tie for 4th place that the tie-breakers cannot decide is
  decided by lot, with the draw's seed). Its places decide places 1-4 (players sharing a
  final place keep their standings order); the rest follow the standings.
"""

from __future__ import annotations

import datetime
import random
import secrets
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations, pairwise
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import labels, writes
from scoring.days import evening_day
from scoring.engine import Refusal, resolve_rules
from scoring.lei import akkoord, services
from scoring.lei.forms import refusal_text
from scoring.models import (
    AuditEntry,
    Club,
    Player,
    Season,
    Series,
    Session,
    TableSeat,
    Tournament,
    TournamentTable,
)
from scoring.toernooi import closing, draw
from scoring.toernooi.audit import tournament_audit
from scoring.toernooi.locks import lock_tournament
from scoring.toernooi.selectors import SEATS_IN_ORDER, present_for, series_overview

MIN_PLAYERS = draw.MIN_TABLE
FINAL_TABLE_SIZE = 4
MAX_PLAYERS = 400  # a draw's work grows with the players: a bound on what one request does


class TournamentError(writes.ServiceError):
    """A toernooi write refused before anything changed; the message is for the organiser."""


class TooFewPlayers(TournamentError):
    def __init__(self, count: int, number: int) -> None:
        self.count = count
        super().__init__(
            _(
                "Voor serie %(number)s zijn %(count)s spelers aangemeld: een tafel heeft er"
                " minstens %(min)s nodig."
            )
            % {"number": number, "count": count, "min": MIN_PLAYERS}
        )


class SeriesNotDone(TournamentError):
    """A table of the series is still playing."""

    def __init__(self, series: Series, tables: Sequence[int]) -> None:
        self.tables = list(tables)
        numbers = ", ".join(str(n) for n in self.tables)
        super().__init__(
            ngettext(
                "Serie %(series)s is nog niet klaar: tafel %(tables)s speelt nog.",
                "Serie %(series)s is nog niet klaar: de tafels %(tables)s spelen nog.",
                len(self.tables),
            )
            % {"series": series.number, "tables": numbers}
        )


class DrawTaken(TournamentError):
    """Another organiser drew this series a moment ago (or the page was out of date)."""

    def __init__(self, expected: int, current: int) -> None:
        self.expected = expected
        self.current = current
        super().__init__(
            _(
                "Serie %(expected)s is al geloot (door een andere organisator?): de laatste"
                " geloote serie is %(current)s. Bekijk de nieuwe indeling."
            )
            % {"expected": expected, "current": current}
        )


class DrawChanged(TournamentError):
    """The page acted on a draw of the series that was drawn again (or swapped) since."""

    def __init__(self, series: Series) -> None:
        self.series = series
        super().__init__(
            _(
                "Iemand anders heeft intussen opnieuw geloot (of gewisseld): hier is de nieuwe"
                " indeling van serie %(number)s. Er is niets veranderd."
            )
            % {"number": series.number}
        )


class SeatedTwice(TournamentError):
    def __init__(self, player: Player) -> None:
        super().__init__(
            _("%(player)s zou dan twee keer aan tafel zitten in deze serie.")
            % {"player": player.name}
        )


class PaperLeiRefused(TournamentError):
    """A paper lei that breaks the rules: the engine's refusal, in the organiser's language."""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        where = ""
        if refusal.round is not None:
            where = _("ronde %(round)s: ") % {"round": refusal.round}
        super().__init__(
            _("De papieren lei klopt niet: %(why)s") % {"why": where + refusal_text(refusal)}
        )


def tournament_create(
    *,
    club: Club,
    name: str,
    date: datetime.date | None = None,
    season: Season | None = None,
    preset: str = "",
    rules: Mapping[str, Any] | None = None,
    series_count: int = 4,
    end_mode: str = Tournament.EndMode.TOEPKONING,
    end_rounds: int | None = None,
    end_time: datetime.time | None = None,
    table_points: Sequence[int] | None = None,
    table_size: int = 4,
    final_table: bool = True,
    rated: bool = True,
    actor: Any = None,
) -> Tournament:
    """A new toernooi of ``club``. Without ``preset`` its tables play the club's house rules
    with ``rules`` on top, with a ``preset`` that preset and ``rules`` (as a session). The
    engine checks the rules now, so that no table's start is refused later."""
    name = (name or "").strip()
    if not name:
        raise TournamentError(_("Een toernooi heeft een naam nodig."))
    if len(name) > Tournament._meta.get_field("name").max_length:
        raise TournamentError(_("De naam van het toernooi is te lang."))
    if season is not None and season.club_id != club.pk:
        raise TournamentError(_("Dat seizoen hoort bij een andere club."))
    if not isinstance(series_count, int) or not 1 <= series_count <= 20:
        raise TournamentError(_("Een toernooi heeft 1 tot 20 series."))
    if table_size not in (4, 5):
        raise TournamentError(_("De tafelgrootte is 4 of 5."))
    if end_mode not in Tournament.EndMode.values:
        raise TournamentError(_("Onbekende manier om een tafel te laten eindigen."))
    if end_mode == Tournament.EndMode.ROUNDS and not (
        isinstance(end_rounds, int) and 1 <= end_rounds <= 200
    ):
        raise TournamentError(_("Geef het aantal rondes per spel (1 tot 200)."))
    if end_mode == Tournament.EndMode.TIME and end_time is None:
        raise TournamentError(_("Geef de tijd waarop de spellen eindigen."))
    points = checked_points(table_points)
    if rules is not None and not isinstance(rules, Mapping):
        raise TournamentError(_("De regels kloppen niet: %(why)s") % {"why": type(rules).__name__})
    overrides = dict(rules or {})
    try:
        if preset:
            resolve_rules(preset, overrides)
        else:
            resolve_rules(club.preset, {**club.rules, **overrides})
    except Refusal as refusal:
        raise TournamentError(
            _("De regels kloppen niet: %(why)s") % {"why": refusal_text(refusal)}
        ) from refusal
    return Tournament.objects.create(
        club=club,
        season=season,
        name=name,
        date=date or evening_day(),
        preset=preset,
        rules=overrides,
        series_count=series_count,
        end_mode=end_mode,
        end_rounds=end_rounds if end_mode == Tournament.EndMode.ROUNDS else None,
        end_time=end_time if end_mode == Tournament.EndMode.TIME else None,
        table_points=points,
        table_size=table_size,
        final_table=final_table,
        rated=rated,
    )


def checked_points(points: Sequence[int] | None) -> list[int]:
    if points is None:
        return list(Tournament._meta.get_field("table_points").default())
    points = list(points)
    if not (
        1 <= len(points) <= 8
        and all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 1000 for p in points)
    ):
        raise TournamentError(
            _("Tafelpunten zijn 1 tot 8 hele getallen van 0 tot 1000, één per plaats.")
        )
    if any(later > earlier for earlier, later in pairwise(points)):
        raise TournamentError(_("Een lagere plaats krijgt niet meer tafelpunten dan een hogere."))
    return points


def must_be_open(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.OPEN:
        raise TournamentError(_("Dit toernooi is afgelopen."))


def latest_series(tournament: Tournament, *, final: bool | None = False) -> Series | None:
    series = tournament.series.all()
    if final is not None:
        series = series.filter(final=final)
    return series.order_by("-number").first()


def joining_series(tournament: Tournament) -> int:
    """The first series a player checked in now plays: a series only drawn still takes them
    (after a new draw), a started one does not."""
    return joining_after(latest_series(tournament))


def joining_after(latest: Series | None) -> int:
    """``joining_series`` given the latest regular series (for a page that read it already)."""
    if latest is None:
        return 1
    return latest.number if latest.state == Series.State.DRAWN else latest.number + 1


def next_series_number(tournament: Tournament) -> int:
    """The number of the series to draw next (what a draw form sends as ``expected_number``)."""
    latest = latest_series(tournament)
    return 1 if latest is None else latest.number + 1


def series_draw(
    *,
    tournament: Tournament,
    expected_number: int,
    seed: int | None = None,
    actor: Any = None,
) -> Series:
    """Draw series ``expected_number``: the tables of the players present (see the module
    docstring of ``scoring.toernooi.draw``). ``expected_number`` is the series the organiser saw as
    next: when two organisers draw at once one wins and the other gets ``DrawTaken``. The
    series before must be over (``SeriesNotDone`` names the tables still playing). A ``seed``
    reproduces a draw; without one it is drawn at random and stored with the series."""
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        latest = latest_series(locked)
        current = latest.number if latest else 0
        if expected_number != current + 1:
            if expected_number <= current:
                raise DrawTaken(expected_number, current)
            raise TournamentError(
                _("Serie %(expected)s kan nog niet: de volgende serie is %(next)s.")
                % {"expected": expected_number, "next": current + 1}
            )
        if expected_number > locked.series_count:
            raise TournamentError(
                _("Alle %(count)s series van dit toernooi zijn geloot.")
                % {"count": locked.series_count}
            )
        if latest_series(locked, final=True) is not None:
            raise TournamentError(_("De finaletafel is al geloot."))
        if latest is not None:
            if latest.state == Series.State.DRAWN:
                raise TournamentError(
                    _("Serie %(number)s is geloot maar nog niet begonnen.")
                    % {"number": latest.number}
                )
            if latest.state == Series.State.RUNNING:
                close_series(latest, locked, actor=actor, end_done=False)
        series = Series(tournament=locked, number=expected_number, seed=draw_seed(seed))
        _seat(series, locked)
        return series


def series_redraw(
    *,
    series: Series,
    seed: int | None = None,
    expected_draw: int | None = None,
    actor: Any = None,
) -> Series:
    """Draw a series again before it starts: after a late check-in or a withdrawal, or when
    the organiser does not like the draw. Without ``seed`` a new one is drawn.
    ``expected_draw`` is the ``draw_version`` the organiser's page showed: of two organisers
    redrawing at once, the second gets ``DrawChanged`` (the tournament's lock orders them)."""
    with transaction.atomic():
        locked = lock_tournament(series.tournament)
        must_be_open(locked)
        series = _drawn_as_shown(series, expected_draw)
        if series.final:
            raise TournamentError(_("De finaletafel wordt niet opnieuw geloot."))
        before = series.seed
        TableSeat.objects.filter(series=series).delete()
        series.tables.all().delete()
        series.seed = draw_seed(seed)
        series.draw_version += 1
        _seat(series, locked)
        tournament_audit(
            locked,
            actor=actor,
            action=AuditEntry.Action.SERIES_REDRAW,
            before={"series": series.number, "seed": before},
            after={"series": series.number, "seed": series.seed},
        )
        return series


def _drawn_as_shown(series: Series, expected_draw: int | None) -> Series:
    """The series locked, still drawn, and (with ``expected_draw``) the draw the page showed."""
    series = Series.objects.select_for_update().get(pk=series.pk)
    _must_be_drawn(series)
    if expected_draw is not None and expected_draw != series.draw_version:
        raise DrawChanged(series)
    return series


def draw_seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbelow(2**31)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise TournamentError(_("Een lotnummer is een heel getal van 0 of meer."))
    return seed


def _history(tournament: Tournament, before: int) -> list[list[list[int]]]:
    """Who sat together in the regular series before ``before``: [series][table][player id]."""
    tables: dict[tuple[int, int], list[int]] = defaultdict(list)
    seats = TableSeat.objects.filter(
        series__tournament=tournament, series__final=False, series__number__lt=before
    ).values_list("series__number", "table_id", "player_id")
    for number, table, player in seats:
        tables[(number, table)].append(player)
    by_series: dict[int, list[list[int]]] = defaultdict(list)
    for (number, _table), players in sorted(tables.items()):
        by_series[number].append(players)
    return [by_series[n] for n in sorted(by_series)]


def _seat(series: Series, tournament: Tournament) -> None:
    """Draw and store the tables of ``series`` (saved here) for the players present."""
    players = present_for(tournament, series.number)
    if len(players) < MIN_PLAYERS:
        raise TooFewPlayers(len(players), series.number)
    by_id = {p.pk: p for p in players}
    history = _history(tournament, series.number)
    result = draw.draw_tables(
        [p.pk for p in players],
        met=draw.meetings(history),
        played=history,
        preferred=tournament.table_size,
        rng=random.Random(series.seed),
        series_left=tournament.series_count - series.number + 1,  # planned with who is here
    )
    series.repeat_pairs = [list(p) for p in result.repeats]
    series.save()
    store_tables(series, result.tables, result.dealers, by_id)


def store_tables(
    series: Series,
    tables: Sequence[Sequence[int]],
    dealers: Sequence[int],
    by_id: Mapping[int, Player],
) -> None:
    made = TournamentTable.objects.bulk_create(
        TournamentTable(series=series, number=n, dealer=by_id[dealer])
        for n, dealer in enumerate(dealers, start=1)
    )
    if made and made[0].pk is None:  # a database that does not return ids from bulk inserts
        made = list(series.tables.order_by("number"))
    TableSeat.objects.bulk_create(
        TableSeat(series=series, table=table, player=by_id[pid], position=i)
        for table, members in zip(made, tables, strict=True)
        for i, pid in enumerate(members, start=1)
    )


def series_swap(
    *,
    series: Series,
    a: Player,
    b: Player,
    expected_draw: int | None = None,
    actor: Any = None,
) -> Series:
    """Swap two players of a drawn series (other tables: they trade seats; one table: they
    trade places at it). A first dealer moves with the seat. ``expected_draw``: as for
    ``series_redraw``."""
    with transaction.atomic():
        lock_tournament(series.tournament)
        series = _drawn_as_shown(series, expected_draw)
        if a.pk == b.pk:
            raise SeatedTwice(a)
        seats = {s.player_id: s for s in series.seats.select_for_update().filter(player__in=[a, b])}
        for player in (a, b):
            if player.pk not in seats:
                raise TournamentError(
                    _("%(player)s zit niet aan een tafel van serie %(number)s.")
                    % {"player": player.name, "number": series.number}
                )
        first, second = seats[a.pk], seats[b.pk]
        spots = (first.table_id, first.position), (second.table_id, second.position)
        try:
            with transaction.atomic():
                # Through a free position: each table's positions are unique at every moment.
                first.position = 0xFFF
                first.save(update_fields=["position"])
                second.table_id, second.position = spots[0]
                second.save(update_fields=["table", "position"])
                first.table_id, first.position = spots[1]
                first.save(update_fields=["table", "position"])
        except IntegrityError as clash:
            raise SeatedTwice(a) from clash
        for table in TournamentTable.objects.filter(pk__in={first.table_id, second.table_id}):
            if table.dealer_id in (a.pk, b.pk) and first.table_id != second.table_id:
                table.dealer_id = b.pk if table.dealer_id == a.pk else a.pk
                table.save(update_fields=["dealer"])
        # The organiser sees what the swap did to the repeat pairs.
        series.repeat_pairs = _repeats(series)
        series.draw_version += 1
        series.save(update_fields=["repeat_pairs", "draw_version"])
        return series


def _repeats(series: Series) -> list[list[int]]:
    """The pairs seated together in ``series`` who met in an earlier series."""
    met = draw.meetings(_history(series.tournament, series.number))
    tables: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in series.seats.values_list("table_id", "player_id"):
        tables[table_id].append(player_id)
    return sorted(
        list(draw.pair(a, b))
        for members in tables.values()
        for a, b in combinations(members, 2)
        if met.get(draw.pair(a, b))
    )


def _must_be_drawn(series: Series) -> None:
    if series.state != Series.State.DRAWN:
        raise TournamentError(
            _("Serie %(number)s is al begonnen: de indeling staat vast.")
            % {"number": series.number}
        )


def series_start(*, series: Series, expected_draw: int | None = None, actor: Any = None) -> Series:
    """Start a drawn series: each table's game becomes a session (seats and first dealer as
    drawn). Refused when the check-ins changed after the draw: draw it again first; and with
    ``expected_draw``, when the draw is no longer the one the page showed."""
    with transaction.atomic():
        tournament = lock_tournament(series.tournament)
        must_be_open(tournament)
        series = _drawn_as_shown(series, expected_draw)
        tables = list(series.tables.select_related("dealer").prefetch_related(SEATS_IN_ORDER))
        seated = {s.player_id for t in tables for s in t.seats.all()}
        if not series.final:
            present = {p.pk for p in present_for(tournament, series.number)}
            if present != seated:
                raise TournamentError(
                    _(
                        "De aanmeldingen zijn veranderd na de loting van serie %(number)s:"
                        " loot de serie opnieuw."
                    )
                    % {"number": series.number}
                )
        for table in tables:
            table_session(tournament, series, table, actor=actor)
        series.state = Series.State.RUNNING
        series.save(update_fields=["state"])
        return series


def _table_label(tournament: Tournament, series: Series, table: TournamentTable) -> str:
    # Stored in Dutch, shown in each reader's language (scoring/labels.py).
    return labels.toernooi_table(
        tournament.name, series=series.number, table=table.number, final=series.final
    )


def table_session(
    tournament: Tournament,
    series: Series,
    table: TournamentTable,
    *,
    actor: Any,
) -> Session:
    players = [s.player for s in sorted(table.seats.all(), key=lambda s: s.position)]
    try:
        session = services.session_start(
            club=tournament.club,
            players=players,
            dealer=table.dealer,
            preset=tournament.preset or None,
            overrides=tournament.rules,
            table_label=_table_label(tournament, series, table),
            season=tournament.season,
            played_on=tournament.date,
            actor=actor,
        )
    except Refusal as refusal:  # the club changed its house rules since the tournament began
        raise TournamentError(
            _("De regels kloppen niet: %(why)s") % {"why": refusal_text(refusal)}
        ) from refusal
    table.session = session
    table.save(update_fields=["session"])
    return session


def close_series(
    series: Series,
    tournament: Tournament,
    *,
    actor: Any,
    end_done: bool = True,
    seen: str | None = None,
    accept: Collection[int] = (),
    leave_waiting: bool = False,
) -> None:
    """Close ``series``; with ``end_done`` the tables that may be ended ("done") are ended
    now, without it only a series whose every game is over by itself is closed (a draw of
    the next series does not end games behind the organiser's back). ``seen``: the tables as
    the organiser's page showed them (``closing.SeriesChanged`` when they changed since);
    a table whose result would count for nothing is named (``closing.SeriesWaiting``) unless
    its number is in ``accept`` (the organiser accepts its result here) or ``leave_waiting``
    (the organiser was shown them and closes without)."""
    # The games' rows first: a tap waits for the close, and then finds its result closed.
    list(Session.objects.select_for_update(of=("self",)).filter(tournament_table__series=series))
    overview = series_overview(series)
    changed = closing.changed_since(overview, seen)
    if changed:
        raise closing.SeriesChanged(series, changed)
    over = ("finished", "done") if end_done else ("finished",)
    playing = [t.table.number for t in overview if t.state not in over]
    if playing:
        raise SeriesNotDone(series, playing)
    pending = closing.pending_tables(overview, tournament.club, end_done=end_done)
    left = [p for p in pending if p.number not in accept]
    if left and not leave_waiting:
        raise closing.SeriesWaiting(series, left)
    accepted = {p.number for p in pending} - {p.number for p in left}
    for status in overview:
        if status.state == "done":
            services.session_finish(session=status.session, actor=actor)
        if status.table.number in accepted:
            akkoord.session_accept(session=status.session, actor=actor)
    series.state, series.clock_ends_at = Series.State.FINISHED, None  # reopened: no old clock
    series.save(update_fields=["state", "clock_ends_at"])
    # Closed for the tables' scorer links too (scoring/lei/funnel.py): only the organiser
    # changes a result now, and no game plays on until the series is reopened.
    Session.objects.filter(tournament_table__series=series).update(result_closed=True)
    tournament_audit(
        tournament,
        actor=actor,
        action=AuditEntry.Action.SERIES_CLOSE,
        after={"series": series.number, "final": series.final},
    )
    if series.final or (series.number >= tournament.series_count and not tournament.final_table):
        tournament.status = Tournament.Status.FINISHED
        tournament.save(update_fields=["status"])
