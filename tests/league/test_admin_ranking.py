"""A season's ranking settings: the admin checks them with the code that reads them
(``clubs.ranking.Ranking.parse``), and a row stored before that check still shows its standings,
by the default ranking with a note, on every page that reads it."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from scoring.clubs.ranking import InvalidRanking, Ranking
from scoring.models import Season
from tests.builders import admin_form_data, play

BAD_RANKINGS = [
    [1, 2],
    "x",
    {"placement_points": [1e30, 1]},
    {"placement_points": [10**30, 1]},
    {"placement_points": "10,6,4"},
    {"placement_points": [True, 1]},
    {"best_n": -1},
    {"best_n": 10**400},
    {"best_n": "²"},
    {"scoring": "most_beers"},
    {"tie_breakers": ["coin_toss"]},
    {"tie_breakers": [{"x": 1}]},
    {"bogus": 1},
]


@pytest.mark.parametrize("data", BAD_RANKINGS, ids=repr)
def test_a_ranking_that_cannot_be_read_is_refused_with_a_reason(data):
    with pytest.raises(InvalidRanking) as refused:
        Ranking.parse(data)
    assert str(refused.value)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"scoring": "placement", "best_n": None, "tie_breakers": ["wins", "average_place"]},
        {"scoring": "per_round", "tie_breakers": []},
        {"best_n": "10", "placement_points": [10, 6, 4, 2, 1]},
        {"scoring": "strafpunten", "tie_breakers": ["head2head", "onderling"]},
    ],
)
def test_the_rankings_clubs_use_are_read_as_before(data):
    ranking = Ranking.parse(data)
    assert ranking == Ranking.from_json(data)
    assert not ranking.invalid


@pytest.mark.parametrize("data", BAD_RANKINGS[:3], ids=repr)
def test_the_admin_refuses_a_ranking_it_cannot_read(club_admin_client, season, data):
    url = reverse("admin:scoring_season_change", args=[season.pk])
    before = Season.objects.get(pk=season.pk).ranking
    response = club_admin_client.post(
        url, {**admin_form_data(club_admin_client.get(url)), "ranking": json.dumps(data)}
    )
    assert response.status_code == 200  # the form again, with the reason
    assert response.context["adminform"].form.errors["ranking"]
    assert Season.objects.get(pk=season.pk).ranking == before


def test_the_admin_saves_a_good_ranking(club_admin_client, season):
    url = reverse("admin:scoring_season_change", args=[season.pk])
    ranking = {"placement_points": [10, 6, 4], "tie_breakers": ["head_to_head"]}
    response = club_admin_client.post(
        url, {**admin_form_data(club_admin_client.get(url)), "ranking": json.dumps(ranking)}
    )
    assert response.status_code == 302
    assert Season.objects.get(pk=season.pk).ranking == ranking


@pytest.mark.parametrize("data", BAD_RANKINGS, ids=repr)
def test_a_stored_bad_ranking_shows_the_default_standings_with_a_note(
    client, public_club, season, people, data
):
    play(public_club, ["Anne", "Bas", "Cees"], season=season)
    Season.objects.filter(pk=season.pk).update(ranking=data)
    slug = public_club.slug
    standings_page = client.get(reverse("league_season", args=[slug, season.pk]))
    assert standings_page.status_code == 200
    assert "niet te lezen" in standings_page.content.decode()
    for url in [
        reverse("league_season_csv", args=[slug, season.pk]),
        reverse("league_season_rounds_csv", args=[slug, season.pk]),
        reverse("league_player", args=[slug, people["Anne"].pk]),
        reverse("league_club", args=[slug]),
    ]:
        assert client.get(url).status_code == 200, url
    csv_rows = client.get(reverse("league_season_csv", args=[slug, season.pk])).content.decode()
    assert csv_rows.splitlines()[1].startswith("1,Anne,1,1,1.00,2,")  # the default ranking
