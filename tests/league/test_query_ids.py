"""Ids in the query strings of the league's pages (``?speler=``, ``?seizoen=``, ``?sessie=``)
are read as the URLs read ids (``scoring.http.id_from``): anything else is no filter, never a
500. "²" passed ``str.isdigit`` and then failed ``int``; 5,000 digits are more than ``int``
reads."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.lei import services
from scoring.models import Player, Season
from tests.builders import make_club, play_rounds


@pytest.fixture
def public_club_with_a_game():
    club = make_club("Openbaar", "openbaar", standings_public=True)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    play_rounds(services.session_start(club=club, players=["Anne", "Bas"], season=season), ["Anne"])
    return club


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["²", "٣", "9" * 5000, "9" * 19])
def test_an_id_in_a_query_string_that_is_no_id_filters_nothing(public_club_with_a_game, value):
    client = Client()
    anne = Player.objects.get(name="Anne")
    everything = client.get("/club/openbaar/archief/").context["page"].paginator.count
    for parameter in ["speler", "seizoen"]:
        response = client.get("/club/openbaar/archief/", {parameter: value})
        assert response.status_code == 200
        assert response.context["page"].paginator.count == everything
    response = client.get(f"/club/openbaar/speler/{anne.pk}/", {"sessie": value})
    assert response.status_code == 200
