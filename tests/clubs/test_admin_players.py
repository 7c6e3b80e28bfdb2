"""Adding players in the admin: the club chosen once, and a name the club has already told in
words (never a constraint's name).

Real HTTP through the test client as a club admin (staff with an admin membership) and as a
superuser; the database's own check of the name behind the form's.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from scoring.models import ClubMembership, Player
from tests.builders import make_club

SAME_NAME = "De club heeft al een speler met deze naam (zoals de lei namen vergelijkt)."


def name_errors(response) -> list[str]:
    assert response.status_code == 200
    return list(response.context["adminform"].form.errors.get("name", []))


def test_the_add_form_of_an_admin_of_one_club_has_that_club_chosen(client, club, club_admin):
    client.force_login(club_admin)
    page = client.get(reverse("admin:scoring_player_add"))
    assert page.context["adminform"].form["club"].value() == club.pk
    assert f'<option value="{club.pk}" selected>' in page.content.decode()
    # "Bewaren en nog een toevoegen": the next form has the club chosen again.
    response = client.post(
        reverse("admin:scoring_player_add"),
        {"club": club.pk, "name": "Fleur", "confirmed": "on", "_addanother": "1"},
        follow=True,
    )
    assert response.context["adminform"].form["club"].value() == club.pk
    assert Player.objects.filter(club=club, name="Fleur").exists()


def test_an_admin_of_two_clubs_chooses_the_club(client, club, club_admin):
    other = make_club(name="De Zwarte Tien", slug="zwarte-tien")
    ClubMembership.objects.create(user=club_admin, club=other, role="admin")
    client.force_login(club_admin)
    page = client.get(reverse("admin:scoring_player_add"))
    assert page.context["adminform"].form["club"].value() is None


def test_a_superuser_with_one_club_has_it_chosen_and_without_one_chooses(
    client, club, django_user_model
):
    make_club(name="De Zwarte Tien", slug="zwarte-tien")
    boss = django_user_model.objects.create_superuser("baas", password="x")
    client.force_login(boss)
    url = reverse("admin:scoring_player_add")
    assert client.get(url).context["adminform"].form["club"].value() is None
    ClubMembership.objects.create(user=boss, club=club, role="admin")
    assert client.get(url).context["adminform"].form["club"].value() == club.pk


@pytest.mark.parametrize("typed", ["Anne", "anne", "  ANNE "])
def test_a_name_the_club_has_is_refused_in_words(client, club, club_admin, people, typed):
    client.force_login(club_admin)
    response = client.post(
        reverse("admin:scoring_player_add"), {"club": club.pk, "name": typed, "confirmed": "on"}
    )
    assert name_errors(response) == [SAME_NAME]
    assert "player_name_unique" not in response.content.decode()
    assert Player.objects.filter(club=club, name_key="anne").count() == 1


def test_the_databases_check_of_the_name_speaks_words_too(client, club, club_admin):
    """A name changed by a queryset's update keeps its old key (scoring/clubs/services.py,
    ``_guest``): only the database's constraint finds the clash then, and its message is the
    same sentence as the form's."""
    stale = Player.objects.create(club=club, name="Wim")
    Player.objects.filter(pk=stale.pk).update(name="Zoë")
    client.force_login(club_admin)
    response = client.post(
        reverse("admin:scoring_player_add"), {"club": club.pk, "name": "zoë", "confirmed": "on"}
    )
    text = response.content.decode()
    assert response.status_code == 200
    assert SAME_NAME in text
    assert "player_name_unique_in_club_ignoring_case" not in text
    assert Player.objects.filter(club=club).count() == 1


def test_the_models_own_check_says_it_in_words(club, people):
    with pytest.raises(ValidationError) as refused:
        Player(club=club, name="ANNE").validate_constraints()
    assert refused.value.messages == [SAME_NAME]
