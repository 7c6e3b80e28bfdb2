"""Starting a session: players in seating order, the first dealer, a preset and overrides."""

from __future__ import annotations

from django.urls import reverse

from scoring.models import ClubMembership, Player, Session
from tests.builders import HX, make_club


def form_data(club, players, **extra):
    data = {"club": club.pk, "dealer": 1, "game": "strafpunten", "preset": "standaard"}
    data.update({f"seat_{i}": name for i, name in enumerate(players, start=1)})
    data.update(extra)
    return data


def test_the_form_lists_the_club_players_to_tap(scorer, people):
    html = scorer.get(reverse("session_new")).content.decode()
    assert 'data-seat-name="Anne"' in html
    assert 'name="seat_8"' in html
    assert "Boer eraf" in html  # a rule with its plain-language label


def test_search_as_you_type_returns_only_the_chips(scorer, people, club):
    response = scorer.get(reverse("player_search"), {"q": "an", "club": club.pk}, **HX)
    html = response.content.decode()
    assert "<html" not in html
    assert 'data-seat-name="Anne"' in html
    assert 'data-seat-name="Bas"' not in html


def test_starting_a_session_seats_the_players_in_order_and_opens_the_tablet(scorer, people, club):
    data = form_data(club, ["Cees", "Anne", "Gast Gijs", "Bas"], dealer=2, rule_max_points=15)
    response = scorer.post(reverse("session_new"), data)
    session = Session.objects.get()
    assert response["Location"] == reverse("tablet", args=[session.pk])
    assert [s.player.name for s in session.seats.order_by("position")] == [
        "Cees",
        "Anne",
        "Gast Gijs",
        "Bas",
    ]
    assert session.first_dealer == "Anne"
    assert session.rules["max_points"] == 15
    assert Player.objects.get(name="Gast Gijs").is_guest


def test_a_preset_and_a_boolean_override(scorer, people, club):
    data = form_data(club, ["Anne", "Bas"], preset="gezin", rule_blind_knock="nee")
    scorer.post(reverse("session_new"), data)
    rules = Session.objects.get().rules
    assert rules["max_points"] == 5
    assert rules["max_stake"] == 2


def test_contradictory_rules_are_refused_on_the_form_in_the_users_language(scorer, people, club):
    data = form_data(club, ["Anne", "Bas"], preset="beginners", rule_armoede="ja")
    html = scorer.post(reverse("session_new"), data).content.decode()
    assert Session.objects.count() == 0
    assert "form-errors" in html
    assert "armoede" in html


def test_a_name_twice_and_too_few_players_are_refused(scorer, people, club):
    html = scorer.post(reverse("session_new"), form_data(club, ["Anne", "anne"])).content.decode()
    assert "twee keer" in html
    html = scorer.post(reverse("session_new"), form_data(club, ["Anne"])).content.decode()
    assert "minstens twee" in html
    assert Session.objects.count() == 0


def test_teams_sit_opposite_each_other(scorer, people, club):
    data = form_data(club, ["Anne", "Bas", "Cees", "Dirk"], teams="on")
    scorer.post(reverse("session_new"), data)
    assert Session.objects.get().teams == {
        "Anne & Cees": ["Anne", "Cees"],
        "Bas & Dirk": ["Bas", "Dirk"],
    }


def test_the_pot_game_with_an_ante_in_euros(scorer, people, club):
    data = form_data(club, ["Anne", "Bas"], game="pot", ante="0.50")
    scorer.post(reverse("session_new"), data)
    session = Session.objects.get()
    assert session.game == "pot"
    assert session.rules["ante"] == 50


def test_a_member_of_several_clubs_chooses_the_club(scorer, people, user):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    ClubMembership.objects.create(user=user, club=other, role="admin")
    html = scorer.get(reverse("session_new")).content.decode()
    assert "De Zwarte Zeven" in html
    assert '<select name="club"' in html


def test_someone_without_a_club_cannot_start_a_session(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("loner", password="x"))
    assert client.get(reverse("session_new")).status_code == 404


def test_a_club_of_someone_else_cannot_be_chosen(scorer, people, club):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    scorer.post(reverse("session_new"), form_data(other, ["Anne", "Bas"]))
    assert Session.objects.count() == 0
