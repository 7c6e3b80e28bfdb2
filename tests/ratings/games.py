"""The ratings as stored next to the ratings computed afresh from every rated game (the games
themselves come from tests/builders.py, ``play``)."""

from __future__ import annotations

from scoring.models import Player, RatingSnapshot
from scoring.ratings.history import rated_games, replay


def stored(club) -> dict[tuple[int, str], tuple[float, float]]:
    return {
        (s.seq, s.player.name): (s.mu, s.sigma)
        for s in RatingSnapshot.objects.filter(club=club).select_related("player")
    }


def computed_afresh(club) -> dict[tuple[int, str], tuple[float, float]]:
    names = dict(Player.objects.filter(club=club).values_list("id", "name"))
    return {
        (step.seq, names[step.player_id]): (step.mu, step.sigma)
        for step in replay(rated_games(club.pk))
    }
