"""What is announced to the streams (scoring/notify.py) when a change bumps a session's
version outside the tap's funnel. PostgreSQL only: NOTIFY is delivered on commit."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from scoring.clubs import services as club_services
from scoring.lei import services
from scoring.models import Player, Session
from scoring.notify import CHANNEL
from scoring.push import listener


@pytest.mark.django_db(transaction=True)  # committed: a rolled-back test announces nothing
def test_a_rename_is_announced_with_the_version_of_every_game_it_rewrites(club):
    if connection.vendor != "postgresql":
        pytest.skip("push needs PostgreSQL's NOTIFY")
    game = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    with psycopg.connect(**listener.conninfo(), autocommit=True) as listening:
        listening.execute(f"LISTEN {CHANNEL}")
        club_services.player_rename(player=Player.objects.get(name="Bas"), name="Bastiaan")
        heard = [n.payload for n in listening.notifies(timeout=2, stop_after=1)]
    version = Session.objects.get(pk=game.pk).version
    assert [p.rsplit(" ", 1)[0] for p in heard] == [f"lei {game.pk} {version} {club.pk}"]


@pytest.mark.django_db
def test_the_listening_connection_asks_for_tcp_keepalives():
    """A LISTEN connection dropped by a firewall while quiet is noticed within minutes, not
    after the system's two hours."""
    if connection.vendor != "postgresql":
        pytest.skip("push needs PostgreSQL's NOTIFY")
    with psycopg.connect(**listener.conninfo()) as listening:
        assert "keepalives_idle=60" in listening.info.dsn
