"""A series' results: ending a table's game, entering a paper lei (totals or rounds) and
correcting or taking it back, closing a series, and the final table of the top four."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.engine import Refusal, judge_totals
from scoring.engine.bounds import START_RANGE
from scoring.lei import funnel, services
from scoring.models import (
    AuditEntry,
    Player,
    Series,
    Session,
    Tournament,
    TournamentTable,
)
from scoring.names import name_key
from scoring.toernooi.audit import tournament_audit
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


class PaperChanged(TournamentError):
    """A paper lei from a form that showed another state of the table's game than there is
    now: another organiser entered one meanwhile, or took it back. Nothing changes."""

    def __init__(self, table: TournamentTable, session: Session, *, paper: bool) -> None:
        self.session = session
        totals = ", ".join(
            f"{name} {total}"
            for name, total in session.results.filter(player__isnull=False)
            .order_by("place", "player__name")
            .values_list("player__name", "total")
        )
        if paper:
            text = _(
                "Intussen is er al een papieren lei van tafel %(table)s ingevoerd (nu: %(totals)s)."
                " De jouwe is niet opgeslagen: kijk de stand na en sla hem opnieuw op als hij"
                " niet klopt."
            )
        else:
            text = _(
                "Intussen is tafel %(table)s veranderd (nu: %(totals)s). De papieren lei is niet"
                " opgeslagen: kijk de stand na en sla hem opnieuw op als hij niet klopt."
            )
        super().__init__(text % {"table": table.number, "totals": totals})


def paper_seen(session: Session | None) -> str:
    """The table's game as the paper form read it (the form sends it back): a paper lei
    replaces the game, so the game's id and its version."""
    return "" if session is None else f"{session.pk}-{session.version}"


def table_enter_totals(
    *,
    table: TournamentTable,
    totals: Mapping[Player | str, int],
    seen: str | None = None,
    actor: Any = None,
) -> Session:
    """Enter a table's game from a paper lei by its final totals (a whole number for every
    player at the table). The engine judges them (``judge_totals``): impossible totals are
    refused (``PaperLeiRefused``), a finished game is stored finished with its places by
    total, an unfinished one is stored unfinished and the table plays on from them. "After N
    rounds" and "at a time" the organiser ends a game, so any possible totals end it.
    ``seen``: the game as the form read it (``paper_seen``; ``PaperChanged`` when it changed)."""
    by_name: dict[str, int] = {}
    for who, total in totals.items():
        name = who.name if isinstance(who, Player) else str(who)
        whole = isinstance(total, int) and not isinstance(total, bool)
        if not whole or not START_RANGE[0] <= total <= START_RANGE[1]:
            raise TournamentError(
                _("Het totaal van %(player)s moet een heel getal van %(min)s tot %(max)s zijn.")
                % {"player": name, "min": START_RANGE[0], "max": START_RANGE[1]}
            )
        by_name[name_key(name)] = total
    return _replace_from_paper(table, actor=actor, seen=seen, totals=by_name)


def table_enter_rounds(
    *,
    table: TournamentTable,
    rounds: Sequence[Mapping[str, Any]],
    seen: str | None = None,
    actor: Any = None,
) -> Session:
    """Enter a table's game from a paper lei round by round (``toepen/1`` rounds: the events of
    each). The engine checks every round; a lei that breaks the rules is refused whole
    (``PaperLeiRefused``) and nothing changes. A game the engine has not finished is stored
    unfinished (the table plays on), unless the organiser's rounds or time end it."""
    if not isinstance(rounds, Sequence) or isinstance(rounds, str) or not rounds:
        raise TournamentError(_("Een papieren lei heeft minstens één ronde."))
    return _replace_from_paper(table, actor=actor, seen=seen, rounds=list(rounds))


def is_paper(session: Session) -> bool:
    """Whether ``session`` was entered from a paper lei (imported, not started at the table)."""
    return AuditEntry.objects.filter(session=session, action=AuditEntry.Action.IMPORT).exists()


def _replace_from_paper(
    table: TournamentTable,
    *,
    actor: Any,
    seen: str | None = None,
    totals: Mapping[str, int] | None = None,
    rounds: list[Mapping[str, Any]] | None = None,
) -> Session:
    """The table's game replaced by the paper lei: a game not played at the table, or an
    earlier paper lei (a correction). After the series is closed only by a finished one."""
    with transaction.atomic():
        tournament, series, old = _paper_table(table)
        replaced = is_paper(old)
        if not replaced and old.rounds.exists():
            raise TournamentError(
                _(
                    "Aan deze tafel zijn al rondes gespeeld: verbeter die op de lei in plaats"
                    " van een papieren lei in te voeren."
                )
            )
        if seen is not None and seen != paper_seen(old):
            raise PaperChanged(table, old, paper=replaced)
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
        stopped = tournament.end_mode != Tournament.EndMode.TOEPKONING
        finished = False
        if totals is not None:
            wanted = {name_key(n) for n in names}
            if set(totals) != wanted:
                raise TournamentError(
                    _("Geef een totaal voor precies de spelers van deze tafel: %(players)s.")
                    % {"players": ", ".join(names)}
                )
            data["start"] = {n: totals[name_key(n)] for n in names}
            try:
                finished = judge_totals(old.rules, data["start"], stopped=stopped).finished
            except Refusal as refusal:
                raise PaperLeiRefused(refusal) from refusal
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
        if rounds is not None:
            ends = tournament.end_mode == Tournament.EndMode.TIME or (
                tournament.end_mode == Tournament.EndMode.ROUNDS
                and len(rounds) >= (tournament.end_rounds or 0)
            )
            finished = session.status in OVER or ends
        if series.state == Series.State.FINISHED and not finished:
            raise TournamentError(
                _(
                    "Serie %(number)s is afgesloten en deze lei is niet uitgespeeld: heropen de"
                    " serie eerst als de tafel verder moet spelen."
                )
                % {"number": series.number}
            )
        if finished and session.status not in OVER:
            services.session_finish(session=session, actor=actor)
        _hand_over(old, session, table, closed=series.state == Series.State.FINISHED)
        tournament_audit(
            tournament,
            actor=actor,
            action=AuditEntry.Action.PAPER,
            session=session,
            before={"session": old.pk, "paper": replaced},
            after={
                "series": series.number,
                "final": series.final,
                "table": table.number,
                "finished": finished,
                "totals": data.get("start"),
                "rounds": len(rounds or []),
            },
        )
        return session


def table_paper_undo(
    *, table: TournamentTable, seen: str | None = None, actor: Any = None
) -> Session:
    """Take back a paper lei entered for this table (the wrong table, say): the table's game
    is an unplayed one again, as the series' start made it. Not after the series is closed
    (the table would play in a closed series): enter the right lei instead."""
    with transaction.atomic():
        tournament, series, old = _paper_table(table)
        if series.state == Series.State.FINISHED:
            raise TournamentError(
                _(
                    "Serie %(number)s is afgesloten: voer de juiste papieren lei in, of heropen"
                    " de serie eerst."
                )
                % {"number": series.number}
            )
        if not is_paper(old):
            raise TournamentError(
                _("Tafel %(table)s heeft geen papieren lei om terug te nemen.")
                % {"table": table.number}
            )
        if seen is not None and seen != paper_seen(old):
            raise PaperChanged(table, old, paper=True)
        fresh = TournamentTable.objects.select_related("dealer").get(pk=table.pk)
        session = table_session(tournament, series, fresh, actor=actor)
        _hand_over(old, session, fresh, closed=False)
        tournament_audit(
            tournament,
            actor=actor,
            action=AuditEntry.Action.PAPER_UNDO,
            session=session,
            before={"session": old.pk},
            after={"series": series.number, "final": series.final, "table": table.number},
        )
        return session


def _paper_table(table: TournamentTable) -> tuple[Tournament, Series, Session]:
    """Under the tournament's lock: the tournament, the table's series and its game (locked).
    A finished tournament is corrected too: by a finished lei, as a closed series is."""
    tournament = lock_tournament(table.series.tournament)
    table = TournamentTable.objects.select_related("series").get(pk=table.pk)
    series = table.series
    if series.state != Series.State.FINISHED:
        must_be_open(tournament)
    if table.session_id is None:
        raise TournamentError(_("Deze tafel is nog niet begonnen."))
    old = Session.objects.select_for_update().get(pk=table.session_id)
    if old.is_locked:
        raise funnel.SessionLocked()
    return tournament, series, old


def _hand_over(old: Session, new: Session, table: TournamentTable, *, closed: bool) -> None:
    """``new`` is the table's game from now on, with the old one's scorer link: the printed
    table card keeps working. The old game goes (its audit entries stay). The organiser
    entered the paper lei: it counts as accepted (scoring/lei/akkoord.py)."""
    token = old.scorer_token
    old.scorer_token = None
    old.save(update_fields=["scorer_token"])
    new.scorer_token = token
    new.result_closed = closed
    new.agreement = Session.Agreement.ACCEPTED
    new.save(update_fields=["scorer_token", "result_closed", "agreement"])
    table.session = new
    table.save(update_fields=["session"])
    old.delete()


def series_finish(
    *,
    series: Series,
    seen: str | None = None,
    accept: Collection[int] = (),
    leave_waiting: bool = False,
    actor: Any = None,
) -> Series:
    """Close a running series once every table's game is over. "At a time": the tables still
    playing are ended now; "after N rounds": those that played N rounds. Any other table
    still playing refuses it (``SeriesNotDone``) and nothing changes. ``seen``, ``accept``
    and ``leave_waiting``: what the organiser's page showed and chose (``close_series``)."""
    with transaction.atomic():
        tournament = lock_tournament(series.tournament)
        must_be_open(tournament)
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state == Series.State.FINISHED:
            raise TournamentError(
                _("Serie %(number)s is al afgesloten (door een andere organisator?).")
                % {"number": series.number}
            )
        if series.state != Series.State.RUNNING:
            raise TournamentError(_("Serie %(number)s speelt niet.") % {"number": series.number})
        close_series(
            series,
            tournament,
            actor=actor,
            seen=seen,
            accept=accept,
            leave_waiting=leave_waiting,
        )
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
