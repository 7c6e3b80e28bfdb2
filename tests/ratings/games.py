"""A finished game in one call (outcome known by construction, tests/builders.py ``finish_order``),
and the ratings as stored next to the ratings computed afresh from every rated game."""

from __future__ import annotations

import datetime

from scoring.lei import services
from scoring.models import Player, RatingSnapshot, Session
from scoring.ratings.history import rated_games, replay
from tests.builders import DAY, finish_order


def play(club, order, *, days=0, season=None) -> Session:
    return services.session_import(
        club=club,
        data=finish_order(order),
        season=season,
        played_on=DAY + datetime.timedelta(days=days),
    )


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
