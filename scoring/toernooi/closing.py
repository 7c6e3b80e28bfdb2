"""What closing a series leaves behind, and the series as the organiser's page showed it.

DESIGN decision 13: a change of state names what it leaves pending, and every write carries the
version it was read at. Under the club's "alleen met akkoord" rule a table whose game is over
but not agreed to counts for nothing once its series is closed (its scorer link takes no akkoord
then: ``scoring/lei/akkoord.py``). So the close names those tables ("tafel 3: wacht op
akkoord") and is refused until the organiser accepts their results there, or closes knowing
they will not count. The page's close form carries each table's game and version (``seen``):
a close from a page that showed another state of a table is refused, naming the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.models import Club, Series, Session
from scoring.models.lei import SETTLED
from scoring.toernooi.selectors import TableStatus
from scoring.writes import ServiceError


@dataclass(frozen=True)
class Pending:
    """A table that closing the series would leave without a counted result."""

    number: int
    words: str  # "tafel 3: wacht op akkoord"


class SeriesWaiting(ServiceError):
    """Closing would leave tables whose result counts for nothing: named, nothing changed."""

    def __init__(self, series: Series, pending: Sequence[Pending]) -> None:
        self.series = series
        self.pending = list(pending)
        super().__init__(
            ngettext(
                "Serie %(series)s is niet afgesloten: %(tables)s. Zonder akkoord telt die"
                " uitslag niet mee: accepteer hem, of sluit af zonder.",
                "Serie %(series)s is niet afgesloten: %(tables)s. Zonder akkoord tellen die"
                " uitslagen niet mee: accepteer ze, of sluit af zonder.",
                len(self.pending),
            )
            % {"series": series.number, "tables": "; ".join(p.words for p in self.pending)}
        )


class SeriesChanged(ServiceError):
    """The close came from a page that showed other games or versions than there are now."""

    def __init__(self, series: Series, changed: Sequence[str]) -> None:
        self.series = series
        self.changed = list(changed)
        super().__init__(
            _(
                "Intussen is er iets veranderd: %(what)s. Serie %(series)s is niet afgesloten:"
                " kijk de tafels na en sluit dan opnieuw af."
            )
            % {"what": "; ".join(self.changed), "series": series.number}
        )


def seen_token(overview: Sequence[TableStatus]) -> str:
    """The tables as a page shows them, for its close form: ``number-game-version`` each."""
    return ".".join(
        f"{s.table.number}-{s.session.pk}-{s.session.version}"
        for s in overview
        if s.session is not None
    )


def _parse_seen(text: str) -> dict[int, tuple[int, int]] | None:
    found: dict[int, tuple[int, int]] = {}
    for part in text.split(".")[:1000]:
        pieces = part.split("-")
        if len(pieces) != 3 or not all(p.isdigit() and len(p) < 12 for p in pieces):
            return None
        number, game, version = (int(p) for p in pieces)
        found[number] = (game, version)
    return found


def state_words(status: TableStatus) -> str:
    """A table's state in a few words, as the series page shows it."""
    session = status.session
    if session is None:
        return _("nog niet begonnen")
    if status.state in ("running", "done") and not status.rounds_played:
        return _("nog niet gespeeld")
    if status.state == "running":
        return _("speelt nog")
    if status.state == "done":
        return _("mag stoppen")
    return _("klaar, %(agreement)s") % {"agreement": session.get_agreement_display()}


def changed_since(overview: Sequence[TableStatus], seen: str | None) -> list[str]:
    """The tables whose game or version differs from ``seen`` (None: the page sent none, and
    the close acts on the series as it is now), in words: "tafel 3 (nu: klaar, akkoord)"."""
    if seen is None:
        return []
    shown = _parse_seen(seen)
    if shown is None:
        return [_("de pagina was te oud om te lezen")]
    changed = []
    for status in overview:
        session = status.session
        now = None if session is None else (session.pk, session.version)
        if shown.get(status.table.number) != now:
            changed.append(
                _("tafel %(table)s (nu: %(state)s)")
                % {"table": status.table.number, "state": state_words(status)}
            )
    return changed


def pending_tables(overview: Sequence[TableStatus], club: Club, *, end_done: bool) -> list[Pending]:
    """The tables that closing now leaves without a counted result: under "alleen met akkoord"
    a game over (or ended by this close) that the table did not agree to and nobody accepted."""
    if club.agreement_rule != Club.AgreementRule.AGREED:
        return []
    pending = []
    for status in overview:
        session = status.session
        if session is None or session.agreement in SETTLED:
            continue
        if status.state == "done" and end_done:
            words = _("tafel %(table)s: wordt nu beëindigd, zonder akkoord")
        elif status.state != "finished":
            continue
        elif session.agreement == Session.Agreement.DISPUTED:
            words = _("tafel %(table)s: niet akkoord")
        else:
            words = _("tafel %(table)s: wacht op akkoord")
        pending.append(Pending(status.table.number, words % {"table": status.table.number}))
    return pending
