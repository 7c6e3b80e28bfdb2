"""A game as a picture (``scoring.picture``): its places, totals as turfjes and the toepkoning,
with the names as the page that shows it gives them to its audience."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import formats
from django.utils.translation import gettext

from scoring.lei.tablet import euros
from scoring.models import Club, Game, Session, SessionResult
from scoring.picture import Card, Line


def table_name(session: Session, number: int | None = None) -> str:
    """The table as the pages call it: its label, or "Tafel n" by its place on the evening."""
    if session.table_label:
        return session.table_label
    return gettext("Tafel %(n)s") % {"n": number} if number else gettext("Tafel")


def session_card(
    club: Club, session: Session, results: Sequence[tuple[SessionResult, str]]
) -> Card:
    """``results``: the game's results in place order, each with its name as shown."""
    pot = session.game == Game.POT
    lines = [
        Line(
            place=f"{r.place}.",
            name=name,
            total=None if pot else r.total,
            points=euros(r.total) if pot else "",
            toepkoning=r.toepkoning,
            out=r.eliminated_in_round is not None,
        )
        for r, name in results
    ]
    day = formats.date_format(session.played_on, "l j F Y") if session.played_on else ""
    heading = " — ".join(part for part in (table_name(session), day) if part)
    more = ""
    if len(lines) > 8:
        more = gettext("en nog %(n)s spelers") % {"n": len(lines) - 8}
    return Card(title=club.name, heading=heading, lines=lines, more=more)
