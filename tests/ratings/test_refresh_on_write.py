"""The writes that change a club's rated history outside the lei (a merge, the admin's delete,
a date moved, the akkoord rule) bring the ratings up to date themselves: the next page finds
them current and recomputes nothing on a GET."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from scoring.clubs import services as club_services
from scoring.models import Player, RatingSnapshot, RatingState
from scoring.ratings.history import history_key
from scoring.ratings.services import ratings_refresh
from tests.builders import admin_form_data, play
from tests.ratings.games import computed_afresh, stored


def current(club) -> bool:
    """The stored ratings are those of the club's history as it is now, and say so."""
    state = RatingState.objects.get(club=club)
    return state.key == history_key(club.pk) and stored(club) == computed_afresh(club)


@pytest.fixture
def history(club, people):
    games = [
        play(club, ["Anne", "Bas", "Cees", "Dirk"]),
        play(club, ["Cees", "Bas", "Anne"], days_later=1),
        play(club, ["Dirk", "Eva", "Bas"], days_later=2),
    ]
    ratings_refresh(club_id=club.pk)
    assert current(club)
    return games


def test_a_merge_brings_the_ratings_up_to_date_in_its_own_write(club, people, history):
    twice = Player.objects.create(club=club, name="Anne J", is_guest=True)
    play(club, ["Anne J", "Dirk", "Bas"], days_later=3)
    before = stored(club)
    club_services.player_merge(keep=people["Anne"], remove=twice)
    assert current(club)
    assert stored(club) != before
    assert RatingSnapshot.objects.get(player=people["Anne"], latest=True).games == 3


def test_the_admins_delete_of_a_game_brings_the_ratings_up_to_date(
    client, club, people, history, club_admin
):
    client.force_login(club_admin)
    gone = history[1]
    url = reverse("admin:scoring_session_delete", args=[gone.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not RatingSnapshot.objects.filter(session_id=gone.pk).exists()
    assert current(club)
    # Every rated player still has a latest rating (the deleted game's were the latest of some).
    assert set(
        RatingSnapshot.objects.filter(club=club, latest=True).values_list("player__name", flat=True)
    ) == {"Anne", "Bas", "Cees", "Dirk", "Eva"}


def test_the_admins_bulk_delete_brings_the_ratings_up_to_date(
    client, club, people, history, club_admin
):
    client.force_login(club_admin)
    response = client.post(
        reverse("admin:scoring_session_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [history[0].pk, history[2].pk],
            "post": "yes",
        },
    )
    assert response.status_code == 302
    assert list(RatingState.objects.filter(club=club).values_list("games", flat=True)) == [1]
    assert current(club)


def test_a_game_moved_to_another_day_in_the_admin_is_rated_in_its_new_place(
    client, club, people, history, club_admin
):
    client.force_login(club_admin)
    first = history[0]
    url = reverse("admin:scoring_session_change", args=[first.pk])
    data = admin_form_data(client.get(url))
    data["played_on"] = (first.played_on + datetime.timedelta(days=9)).isoformat()
    before = stored(club)
    assert client.post(url, data).status_code == 302
    assert current(club)
    assert stored(club) != before


def test_the_clubs_akkoord_rule_changed_in_the_admin_brings_the_ratings_up_to_date(
    client, club, people, history, club_admin
):
    client.force_login(club_admin)
    url = reverse("admin:scoring_club_change", args=[club.pk])
    data = admin_form_data(client.get(url))
    data["agreement_rule"] = "agreed"  # no game was agreed to: none counts now
    assert client.post(url, data).status_code == 302
    assert current(club)
    assert not RatingSnapshot.objects.filter(club=club).exists()
