"""The lei as the tablet and the viewers show it: the sheet's columns and rows, the round
panel's players and the words of the round so far, made from a replay of the session's log.

A view-model only: what may happen comes from the engine's ``TableView``, never from rules
known here, and nothing in it writes. ``templates/jinja2/scoring/lei/_sheet.html`` and
``_round.html`` draw it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, cached_property
from typing import Any

from django.utils.formats import number_format
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

from scoring.engine import Refusal, replay
from scoring.lei.forms import RANK_LABELS, refusal_text
from scoring.models import Game, Session, hotsql
from scoring.sessionfile import file_from_rows
from scoring.svg import tally_from_results


@dataclass
class Column:
    """One seat of the sheet."""

    name: str
    side: str = ""
    total: int = 0
    jack_dots: list[int] = field(default_factory=list)
    lives: int | None = None
    out: bool = False
    dealer: bool = False
    leader: bool = False
    armoede: bool = False
    for_death: bool = False
    absent: str = ""
    toepkoning: bool = False
    money: str = ""  # the pot game: the balance in euros

    @property
    def lives_text(self) -> SafeString:
        """The lives left in words ("nog 2 levens"), when the game counts lives: a translation
        with a number in it, safe as ``{% blocktranslate count %}`` drew it."""
        count = self.lives or 0
        text = ngettext("nog %(lives)s leven", "nog %(lives)s levens", count)
        return mark_safe(text % {"lives": count})  # noqa: S308


@dataclass
class Cell:
    points: int | None  # None: not in this round
    money: str = ""
    won: bool = False
    jack: bool = False
    folded: bool = False
    absent: str = ""
    out: bool = False

    def __post_init__(self) -> None:
        # What _sheet.html asks of every cell, worked out once here: a sheet has a cell per
        # player for every round of the evening, and most cells have no mark at all.
        self.shown = self.money or ("" if self.points is None else str(self.points))
        self.minus = self.points is not None and self.points < 0
        self.marked = self.won or self.folded or self.absent == "toilet" or self.out


@dataclass
class HistoryRow:
    number: int
    stake: int
    winner: str | None
    jack: bool
    cells: list[Cell]
    corrected: bool = False  # edited after the fact (the audit log's corrections)

    @property
    def drawn_from(self) -> tuple[Any, ...]:
        """Everything the row's drawing (``_sheet_row.html``) reads of it: two rows with the
        same draw the same (``jinja.sheet_row`` keeps a drawing by it)."""
        cells = tuple(
            (c.points, c.money, c.won, c.jack, c.folded, c.absent, c.out) for c in self.cells
        )
        return self.number, self.stake, self.corrected, cells


@dataclass
class FoldedRow:
    """Rounds ``first`` to ``last`` in one row of the sheet, each player's points added up:
    a long evening's sheet shows its last ``SHOWN_ROUNDS`` rounds, and the page of the rounds
    folded here is ``?tot=<until>``."""

    first: int
    last: int
    cells: list[Cell]
    until: int
    earlier: bool  # before the rounds shown one by one (else after them)

    @property
    def first_shown(self) -> str:
        return number_format(self.first, force_grouping=True)

    @property
    def last_shown(self) -> str:
        return number_format(self.last, force_grouping=True)


# The rounds a sheet shows one by one; the rest are folded (``FoldedRow``), so that a tap's
# answer and a viewer's fragment weigh the same in round 10 and round 1,200.
SHOWN_ROUNDS = 30


def shown_until(value: str | None) -> int | None:
    """The last round a sheet's page asks for (``?tot=<round>``); None (the newest rounds) when
    none is asked for or the value is no round number. ``Lei.window`` keeps it within the
    session's rounds."""
    if value and value.isascii() and value.isdigit() and len(value) <= 6:
        return max(int(value), 1)
    return None


@dataclass
class PanelPlayer:
    name: str
    knock: str | None  # None: may knock; else why not
    blind: str | None
    win: str | None
    fold: str | None
    stay: str | None
    jack_beaten: str | None
    answering: bool
    folded: bool
    fold_cost: int | None
    dealer: bool
    leader: bool
    armoede: bool
    for_death: bool
    absent: str
    next_dealer: str = ""  # who deals the next round if this player ends this one
    # Still counts for the all-fold rule (the engine's ``still_in``): the panel's
    # ``data-active``, which lei.js counts to end a round by folds without a connection.
    still_in: bool = False

    @cached_property
    def labels(self) -> dict[str, str]:
        """The accessible names of this player's buttons (a panel has a dozen per player: as
        text here, not a ``blocktranslate`` each)."""
        name = {"name": self.name}
        return {k: text % name for k, text in _label_texts(get_language()).items()}


@cache
def _label_texts(language: str) -> dict[str, str]:
    """The texts of ``PanelPlayer.labels`` in ``language`` (the active one), translated once per
    process: every tap's answer names each player's buttons, and each ``gettext`` looks the
    language and its catalogues up again."""
    return {
        "knock": gettext("Toep: %(name)s"),
        "knock_no": gettext("Toep: %(name)s (kan niet)"),
        "stay": gettext("Mee: %(name)s"),
        "fold": gettext("Weg: %(name)s"),
        "win": gettext("Laatste slag: %(name)s"),
        "win_no": gettext("Laatste slag: %(name)s (kan niet)"),
        "blind": gettext("Blind toepen: %(name)s"),
        "jack_beaten": gettext("Boer geslagen: %(name)s"),
    }


@dataclass
class PotPlayer:
    name: str
    declared: str  # "" while waiting, else the bid in euros or "pas"
    waiting: bool
    can_win: bool


@dataclass
class Lei:
    session: Session
    data: dict[str, Any]
    result: Any
    view: Any
    columns: list[Column]
    live_line: list[str]
    players: list[PanelPlayer] = field(default_factory=list)
    pot_players: list[PotPlayer] = field(default_factory=list)
    pot: str = ""
    max_bid: str = ""
    chart: dict[str, list[int]] = field(default_factory=dict)
    toepkoning: str | None = None
    seated: list[str] = field(default_factory=list)  # alive players, for absent / penalties
    open_join: list[str] = field(default_factory=list)
    round_open: bool = False  # the last stored round is still being played
    until: int | None = None  # the last round of the sheet's page (``?tot=``); None: the newest

    @property
    def is_pot(self) -> bool:
        return self.session.game == Game.POT

    @property
    def finished(self) -> bool:
        return bool(self.result.finished) or self.session.status != Session.Status.RUNNING

    @property
    def locked(self) -> bool:
        return self.session.status == Session.Status.LOCKED

    @property
    def table_closed(self) -> bool:
        """The game was ended by hand (``funnel.SessionClosed``: finished while its replay is
        not): no tap of the table changes it any more, undo included, so the tablet offers
        none; a club admin reopens it. (A toernooi's closed series still shows undo, and its
        refusal says why: the organiser's closing is news to the table.)"""
        return self.session.status == Session.Status.FINISHED and not self.result.finished

    @property
    def unit_is_lives(self) -> bool:
        return self.result.rules.get("unit") == "lives"

    @property
    def unit(self) -> str:
        return self.result.rules.get("unit", "points")

    @property
    def presence(self) -> list[tuple[str, str]]:
        """Each seated player and why they are away this round ("" when at the table)."""
        absent = getattr(self.view, "absent", {})
        return [(name, absent.get(name, "")) for name in self.seated]

    @property
    def start_refusal(self) -> str:
        refusal = getattr(self.view, "refusal", None)
        return refusal_text(refusal) if refusal is not None else ""

    @property
    def ranks(self) -> list[tuple[str, Any]]:
        return list(RANK_LABELS.items())

    @cached_property
    def window(self) -> tuple[int, int]:
        """The indexes (into ``result.rounds``) of the rounds the sheet shows one by one: the
        last ``SHOWN_ROUNDS``, or those up to round ``until`` on a page of earlier rounds."""
        played = len(self.result.rounds)
        end = played
        if self.until is not None:
            numbers = [rr.number for rr in self.result.rounds]
            end = max(sum(1 for n in numbers if n <= self.until), min(SHOWN_ROUNDS, played))
        return max(end - SHOWN_ROUNDS, 0), end

    @cached_property
    def history(self) -> list[HistoryRow]:
        """The rounds the sheet shows one by one, newest first (``window``). Made when first
        asked for: most taps are answered with the round panel alone."""
        start, end = self.window
        shown = self.result.rounds[start:end]
        players = self.result.players
        rows = _pot_history(shown, players) if self.is_pot else _history(self.result, shown)
        corrected = self.corrected
        for row in rows:
            row.corrected = row.number in corrected
        return rows

    @cached_property
    def folded_before(self) -> FoldedRow | None:
        """The rounds before the window in one row, with the page that shows them."""
        start, _ = self.window
        until = self.result.rounds[start - 1].number if start else 0
        return self._folded(0, start, until=until, earlier=True)

    @cached_property
    def folded_after(self) -> FoldedRow | None:
        """On a page of earlier rounds, the rounds after the window in one row, with the page
        of the rounds that follow (``until`` 0: the newest, the page without ``?tot=``)."""
        _, end = self.window
        rounds = self.result.rounds
        later = min(end + SHOWN_ROUNDS, len(rounds))
        until = 0 if later == len(rounds) else rounds[later - 1].number
        return self._folded(end, len(rounds), until=until, earlier=False)

    def _folded(self, start: int, end: int, *, until: int, earlier: bool) -> FoldedRow | None:
        rounds = self.result.rounds[start:end]
        if not rounds:
            return None
        sums = dict.fromkeys(self.result.players, 0)
        for rr in rounds:
            for name, points in rr.points.items():
                if name in sums:
                    sums[name] += points
        cells = [
            Cell(points=sums[name], money=euros(sums[name]) if self.is_pot else "")
            for name in self.result.players
        ]
        return FoldedRow(rounds[0].number, rounds[-1].number, cells, until, earlier)

    @property
    def next_dealer(self) -> str:
        """Who deals the next game at this table ("nieuw spel, zelfde spelers"): the winner
        (the first member of a winning side), else whoever stands first alone, else whoever
        won the last round, else the first seat."""
        result = self.result
        teams = result.teams or {}
        first = [u for u, place in result.places.items() if place == 1]
        candidates = [result.winner, first[0] if len(first) == 1 else None]
        candidates += [rr.winner for rr in reversed(result.rounds) if rr.winner][:1]
        for unit in candidates:
            if unit in teams:
                return teams[unit][0]
            if unit in result.players:
                return unit
        return result.players[0] if result.players else ""

    @cached_property
    def corrected(self) -> frozenset[int]:
        """The numbers of the rounds corrected after the fact, by the round editor or the
        admin (``Session.corrected_rounds``, kept by ``funnel.session_write``). A round stays
        marked once corrected, even when it is undone and played again."""
        return frozenset(self.session.corrected_rounds)

    @cached_property
    def player_options(self) -> str:
        """The ``<option>`` of every player in the round, for the panel's four player lists
        (vuile was, twice; vier gelijke; strafpunt): made once, not by a loop in each."""
        return format_html_join(
            "", '<option value="{}">{}</option>', ((p.name, p.name) for p in self.players)
        )

    @cached_property
    def sheet_key(self) -> str:
        """A digest of everything the sheet (``_sheet.html``) is drawn from: the session file
        without the round being played, the columns (which carry that round's dealer, badges
        and presence), the round number, the state and the language. Two lei with the same
        key draw the same sheet, so a tap that leaves the sheet as the tablet shows it is
        answered with the round panel alone (``answer_write``), and a viewer's sheet drawn from
        the same is drawn once (``viewer_views.viewer_sheet``). The "verbeterd" marks are in
        it: a round stays marked when it is undone and played again as it was. The pot game's
        sheet shows the open round's bids: it has no key and is always drawn whole."""
        if self.is_pot:
            return ""
        rounds = self.data["rounds"]
        basis = {
            "file": {**self.data, "rounds": rounds[:-1] if self.round_open else rounds},
            "columns": repr(self.columns),
            "round": self.view.round_number,
            "until": self.until,
            "state": [self.finished, self.locked, self.session.status, self.session.result_closed],
            "corrected": sorted(self.corrected),
            "language": get_language(),
        }
        text = json.dumps(basis, sort_keys=True, default=str, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def euros(cents: int) -> str:
    return "€\u00a0" + number_format(Decimal(cents) / 100, 2, force_grouping=True)


def load_lei(session: Session, log: tuple[list[Any], list[Any]] | None = None) -> Lei:
    """Replay the session's log: its seats with players and its rounds, read here (two queries)
    unless the caller read them with the session (``log``)."""
    seats, rounds = log if log is not None else hotsql.seats_and_rounds(session.pk)
    return build_lei(session, file_from_rows(session, seats, rounds))


def build_lei(session: Session, data: dict[str, Any], result: Any = None) -> Lei:
    """The lei of ``data``; ``result`` is its replay when the caller has it already."""
    if result is None:
        result = replay(data, open_round=True)
    view = result.what_now()
    if result.game == "pot":
        return _build_pot(session, data, result, view)
    side_of = result.side_of
    start = data.get("start") or {}
    out = set(result.eliminated)
    max_points = result.rules["max_points"]
    king = result.toepkoning
    columns: list[Column] = []
    for name in result.players:
        unit = side_of.get(name, name)
        series = [start.get(unit, 0)] if start.get(unit) else []
        for rr in result.rounds:
            if rr.side_points is not None:
                series.append(rr.side_points.get(unit, 0))
            else:
                series.append(rr.points.get(name, 0))
        total = result.totals.get(unit, 0)
        strokes, dots = tally_from_results(series)
        columns.append(
            Column(
                name=name,
                side=side_of.get(name, ""),
                total=total,
                jack_dots=dots if strokes == total else [],
                lives=max_points - total if result.rules.get("unit") == "lives" else None,
                out=unit in out,
                dealer=view.dealer == name,
                leader=view.leader == name,
                armoede=name in view.armoede,
                for_death=name in view.playing_for_death,
                absent=view.absent.get(name, ""),
                toepkoning=king is not None and king == unit,
            )
        )
    players = [
        PanelPlayer(
            name=name,
            knock=_why(view.may_knock.get(name)),
            blind=_why(view.may_blind_knock.get(name)),
            win=_why(view.may_win.get(name)),
            fold=_why(view.may_fold.get(name)),
            stay=_why(view.may_stay.get(name)),
            jack_beaten=_why(view.may_jack_beaten.get(name)),
            answering=name in view.must_answer,
            folded=name in view.folded,
            fold_cost=view.folded.get(name),
            dealer=view.dealer == name,
            leader=view.leader == name,
            armoede=name in view.armoede,
            for_death=name in view.playing_for_death,
            absent=view.absent.get(name, ""),
            next_dealer=view.next_dealers.get(name, ""),
            still_in=name in view.still_in,
        )
        for name in view.participants
    ]
    round_open = len(data["rounds"]) == view.round_number and not result.finished
    lei = Lei(
        session=session,
        data=data,
        result=result,
        view=view,
        columns=columns,
        live_line=[],
        players=players,
        toepkoning=king,
        seated=[c.name for c in columns if not c.out],
        open_join=list(data["rounds"][-1].get("join", [])) if round_open else [],
        round_open=round_open,
    )
    lei.live_line = _live_line(lei)
    if result.finished or session.status != Session.Status.RUNNING:
        lei.chart = _chart(result, data)
    return lei


def _history(result: Any, rounds: list[Any]) -> list[HistoryRow]:
    """The rows of the sheet (``Lei.history``): a cell per player for each of ``rounds``."""
    side_of = result.side_of
    history = []
    for rr in reversed(rounds):
        cells = []
        for name in result.players:
            played = name in rr.points
            cells.append(
                Cell(
                    points=rr.points.get(name) if played else None,
                    won=rr.winner == name,
                    jack=rr.winner == name and rr.jack,
                    folded=name in rr.folds,
                    absent=rr.absent.get(name, ""),
                    out=side_of.get(name, name) in rr.eliminated,
                )
            )
        history.append(HistoryRow(rr.number, rr.stake, rr.winner, rr.jack, cells))
    return history


def _why(refusal: Refusal | None) -> str | None:
    return None if refusal is None else refusal_text(refusal)


def _chart(result: Any, data: dict[str, Any]) -> dict[str, list[int]]:
    """Each unit's total from the start through every round, for ``{% score_chart %}``."""
    start = data.get("start") or {}
    units = list(result.teams) if result.teams else list(result.players)
    series: dict[str, list[int]] = {u: [start.get(u, 0)] for u in units}
    for rr in result.rounds:
        for unit in units:
            if unit in rr.totals:
                series[unit].append(rr.totals[unit])
    return series


def _build_pot(session: Session, data: dict[str, Any], result: Any, view: Any) -> Lei:
    columns = [
        Column(name=name, total=result.balances.get(name, 0), money=euros(result.balances[name]))
        for name in result.players
    ]
    pot_players = [
        PotPlayer(
            name=name,
            declared=(
                ""
                if name not in view.bids
                else gettext("pas")
                if view.bids[name] == "fold"
                else euros(view.bids[name])
            ),
            waiting=name in view.waiting,
            can_win=name in view.may_win,
        )
        for name in result.players
    ]
    round_open = len(data["rounds"]) == view.round_number and not view.finished
    lei = Lei(
        session=session,
        data=data,
        result=result,
        view=view,
        columns=columns,
        live_line=[],
        pot_players=pot_players,
        pot=euros(view.pot),
        max_bid=f"{view.max_bid / 100:.2f}",  # an <input type=number> attribute: a dot
        round_open=round_open,
    )
    lei.live_line = [
        gettext("%(player)s past") % {"player": p}
        if bid == "fold"
        else gettext("%(player)s biedt %(amount)s") % {"player": p, "amount": euros(bid)}
        for p, bid in view.bids.items()
    ]
    return lei


def _pot_history(rounds: list[Any], players: list[str]) -> list[HistoryRow]:
    """The rows of the pot game's sheet: each player's winnings or losses per round."""
    return [
        HistoryRow(
            rr.number,
            0,
            rr.winner,
            False,
            [
                Cell(
                    points=rr.points.get(name, 0),
                    money=euros(rr.points.get(name, 0)),
                    won=rr.winner == name,
                )
                for name in players
            ],
        )
        for rr in reversed(rounds)
    ]


def _live_line(lei: Lei) -> list[str]:
    """What happened so far in the round being played, in words: "Bas toept — inzet 2 — …".

    The stake after a knock is the engine's (``view.stakes``), not worked out here.
    """
    view = lei.view
    if not lei.round_open or view.finished:
        return []
    events = view.events
    parts: list[str] = []
    if view.armoede:
        parts.append(
            gettext("%(players)s in armoede — inzet %(stake)s")
            % {"players": ", ".join(view.armoede), "stake": view.stakes[0]}
        )
    absent_words = {"toilet": gettext("naar het toilet"), "drinks": gettext("haalt drinken")}
    for name, why in view.absent.items():
        parts.append(f"{name} {absent_words.get(why, why)}")
    for index, event in enumerate(events, start=1):
        player = event.get("player", "")
        kind = event.get("type")
        if kind in ("knock", "blind_knock"):
            text = (
                gettext("%(player)s toept")
                if kind == "knock"
                else gettext("%(player)s toept blind")
            )
            parts.append(text % {"player": player})
            parts.append(gettext("inzet %(stake)s") % {"stake": view.stakes[index]})
        elif kind == "fold":
            parts.append(gettext("%(player)s weg") % {"player": player})
        elif kind == "stay":
            parts.append(gettext("%(player)s mee") % {"player": player})
        elif kind == "laundry":
            parts.append(gettext("%(player)s heeft vuile was") % {"player": player})
        elif kind == "penalty":
            parts.append(
                gettext("%(player)s krijgt %(points)s strafpunt")
                % {"player": player, "points": event.get("points")}
            )
        elif kind == "jack_beaten":
            parts.append(gettext("boer van %(player)s geslagen") % {"player": player})
        elif kind == "disqualify":
            parts.append(gettext("%(player)s eruit") % {"player": player})
        else:
            parts.append(f"{player}: {kind}")
    return parts
