"""A series' results: ending a table's game, entering a paper lei (totals or rounds), closing
a series, and the final table of the top four."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.engine import Refusal
from scoring.engine.bounds import START_RANGE
from scoring.lei import funnel, services
from scoring.models import (
    Player,
    Series,
    Session,
    Tournament,
    TournamentTable,
)
from scoring.names import name_key
from scoring.toernooi.selectors import (
    OVER,
    SEATS_IN_ORDER,
    StandingRow,
    tournament_standings,
)
from scoring.toernooi.services import (
    FINAL_TABLE_SIZE,
    MIN_PLAYERS,
    PaperLeiRefused,
    TooFewPlayers,
    TournamentError,
    close_series,
    draw_seed,
    latest_series,
    lock_tournament,
    must_be_open,
    store_tables,
    table_session,
)


def table_finish(*, table: TournamentTable, actor: Any = None) -> Session:
    """End a table's game now (its time is up, or it played its rounds): the places are the
    engine's order of the moment, by total (``services.session_finish``)."""
    session = _running_session(table)
    if session.status in OVER:
        raise TournamentError(_("Het spel aan deze tafel is al afgelopen."))
    services.session_finish(session=session, actor=actor)
    return session


def _running_session(table: TournamentTable) -> Session:
    table = TournamentTable.objects.select_related("series__tournament", "session").get(pk=table.pk)
    must_be_open(table.series.tournament)
    if table.session is None:
        raise TournamentError(_("Deze tafel is nog niet begonnen."))
    if table.series.state == Series.State.FINISHED:
        raise TournamentError(
            _("Serie %(number)s is al afgesloten.") % {"number": table.series.number}
        )
    return table.session


def table_enter_totals(
    *, table: TournamentTable, totals: Mapping[Player | str, int], actor: Any = None
) -> Session:
    """Enter a table's game from a paper lei by its final totals (a whole number of 0 or more
    for every player at the table). The table's session is replaced by one with those totals,
    finished; the places are by total. Refused when rounds were already recorded (correct
    those instead)."""
    by_name: dict[str, int] = {}
    for who, total in totals.items():
        name = who.name if isinstance(who, Player) else str(who)
        whole = isinstance(total, int) and not isinstance(total, bool)
        if not whole or not 0 <= total <= START_RANGE[1]:
            raise TournamentError(
                _("Het totaal van %(player)s moet een heel getal van 0 of meer zijn.")
                % {"player": name}
            )
        by_name[name_key(name)] = total
    return _replace_from_paper(table, actor=actor, totals=by_name)


def table_enter_rounds(
    *, table: TournamentTable, rounds: Sequence[Mapping[str, Any]], actor: Any = None
) -> Session:
    """Enter a table's game from a paper lei round by round (``toepen/1`` rounds: the events of
    each). The engine checks every round; a lei that breaks the rules is refused whole
    (``PaperLeiRefused``) and nothing changes. The game is then finished as the paper has it."""
    if not isinstance(rounds, Sequence) or isinstance(rounds, str) or not rounds:
        raise TournamentError(_("Een papieren lei heeft minstens één ronde."))
    return _replace_from_paper(table, actor=actor, rounds=list(rounds))


def _replace_from_paper(
    table: TournamentTable,
    *,
    actor: Any,
    totals: Mapping[str, int] | None = None,
    rounds: list[Mapping[str, Any]] | None = None,
) -> Session:
    with transaction.atomic():
        lock_tournament(table.series.tournament)
        old = _running_session(table)
        old = Session.objects.select_for_update().get(pk=old.pk)
        if old.rounds.exists():
            raise TournamentError(
                _(
                    "Aan deze tafel zijn al rondes gespeeld: verbeter die op de lei in plaats"
                    " van een papieren lei in te voeren."
                )
            )
        if old.is_locked:
            raise funnel.SessionLocked()
        names = [s.player.name for s in old.seats.select_related("player").order_by("position")]
        data: dict[str, Any] = {
            "format": "toepen/1",
            "game": "strafpunten",
            "preset": old.preset,
            "rules": dict(old.rules),
            "players": names,
            "rounds": rounds or [],
        }
        if old.first_dealer:
            data["dealer"] = old.first_dealer
        if totals is not None:
            wanted = {name_key(n) for n in names}
            if set(totals) != wanted:
                raise TournamentError(
                    _("Geef een totaal voor precies de spelers van deze tafel: %(players)s.")
                    % {"players": ", ".join(names)}
                )
            data["start"] = {n: totals[name_key(n)] for n in names}
        try:
            session = services.session_import(
                club=old.club,
                data=data,
                season=old.season,
                table_label=old.table_label,
                played_on=old.played_on,
                actor=actor,
            )
        except Refusal as refusal:
            raise PaperLeiRefused(refusal) from refusal
        if session.status not in OVER:
            services.session_finish(session=session, actor=actor)
        table = TournamentTable.objects.get(pk=table.pk)
        table.session = session
        table.save(update_fields=["session"])
        old.delete()  # an unplayed session: nothing of it is lost (its audit entry stays)
        return session


def series_finish(*, series: Series, actor: Any = None) -> Series:
    """Close a running series once every table's game is over. "At a time": the tables still
    playing are ended now; "after N rounds": those that played N rounds. Any other table
    still playing refuses it (``SeriesNotDone``) and nothing changes."""
    with transaction.atomic():
        tournament = lock_tournament(series.tournament)
        must_be_open(tournament)
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != Series.State.RUNNING:
            raise TournamentError(_("Serie %(number)s speelt niet.") % {"number": series.number})
        close_series(series, tournament, actor=actor)
        return series


def final_table_create(
    *, tournament: Tournament, seed: int | None = None, actor: Any = None
) -> Series:
    """Seat the top four of the standings at the final table and start its game (a session;
    seats and first dealer by lot). Every regular series must be over."""
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        if not locked.final_table:
            raise TournamentError(_("Dit toernooi heeft geen finaletafel."))
        if latest_series(locked, final=True) is not None:
            raise TournamentError(_("De finaletafel is al geloot."))
        latest = latest_series(locked)
        if latest is None or latest.number < locked.series_count:
            raise TournamentError(
                _("Eerst worden alle %(count)s series gespeeld.") % {"count": locked.series_count}
            )
        if latest.state == Series.State.RUNNING:
            close_series(latest, locked, actor=actor, end_done=False)
        elif latest.state == Series.State.DRAWN:
            raise TournamentError(
                _("Serie %(number)s is geloot maar nog niet begonnen.") % {"number": latest.number}
            )
        series = Series(
            tournament=locked, number=locked.series_count + 1, final=True, seed=draw_seed(seed)
        )
        rng = random.Random(series.seed)
        # A player who went home does not play the final: the next one in the standings does.
        rows = [r for r in tournament_standings(locked).rows if not r.withdrawn]
        finalists = _top(rows, FINAL_TABLE_SIZE, rng)
        if len(finalists) < MIN_PLAYERS:
            raise TooFewPlayers(len(finalists), series.number)
        seated = [p.pk for p in finalists]
        rng.shuffle(seated)
        series.save()
        store_tables(series, [seated], [rng.choice(seated)], {p.pk: p for p in finalists})
        table = series.tables.prefetch_related(SEATS_IN_ORDER).select_related("dealer").get()
        table_session(locked, series, table, actor=actor)
        series.state = Series.State.RUNNING
        series.save(update_fields=["state"])
        return series


def _top(rows: list[StandingRow], count: int, rng: random.Random) -> list[Player]:
    """The first ``count`` players; a shared place across the cut is decided by lot."""
    if len(rows) <= count:
        return [r.player for r in rows]
    cut = rows[count - 1].place
    sure = [r.player for r in rows if r.place < cut]
    tied = [r.player for r in rows if r.place == cut]
    rng.shuffle(tied)
    return sure + tied[: count - len(sure)]
