"""Reads of a club's people that several rooms ask: the players a typed name is probably
(``players_like``: the walk-in form, the pasted list, the phone check-in)."""

from __future__ import annotations

from scoring.models import Player
from scoring.names import alike

LIKE_SHOWN = 3  # "Bedoel je …?" offers a few, never the club's list


def players_like(club_id: int, typed: str, *, confirmed_only: bool = False) -> list[Player]:
    """The club's players whose name ``typed`` probably is, spelled otherwise (``names.alike``):
    members before guests, at most ``LIKE_SHOWN``. One query; the comparison is Python's, as
    names are (a club has hundreds of players, not millions)."""
    players = Player.objects.filter(club_id=club_id).order_by("is_guest", "name", "pk")
    if confirmed_only:
        players = players.filter(confirmed=True)
    return [p for p in players if alike(typed, p.name)][:LIKE_SHOWN]
