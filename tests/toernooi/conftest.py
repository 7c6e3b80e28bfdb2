"""Fixtures of the toernooi's tests: thirteen members and a tournament of two series."""

from __future__ import annotations

import pytest

from scoring.models import Player, Tournament
from scoring.toernooi import services as tournaments
from tests.toernooi.tournaments import NAMES


@pytest.fixture
def members(club) -> list[Player]:
    """Thirteen members of the club, Anne to Mien (``NAMES``)."""
    return [Player.objects.create(club=club, name=name) for name in NAMES]


@pytest.fixture
def tournament(club) -> Tournament:
    """The Wintertoernooi of two series, nobody checked in yet."""
    return tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
