"""An admin action posted with a selection that holds no ids ("abc", 5,000 digits, more than a
column holds) is refused with a message and changes nothing, where Django's own filter by
those ids raised ValueError or OverflowError (``scoring.admin_base.SelectionChecked``)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from scoring.models import ClubMembership, Player
from tests.safety import row_counts

NO_IDS = [["abc"], ["9" * 5000], ["9" * 30], ["1", "x"]]


@pytest.fixture
def root(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("baas", password="x"))
    return client


@pytest.mark.parametrize("selected", NO_IDS)
@pytest.mark.parametrize(
    ("changelist", "action"),
    [
        ("admin:scoring_player_changelist", "merge_players"),
        ("admin:scoring_session_changelist", "lock_sessions"),
        ("admin:auth_user_changelist", "delete_selected"),
    ],
)
def test_an_action_on_a_selection_of_no_ids_is_refused_and_changes_nothing(
    root, people, session, changelist, action, selected
):
    before = (row_counts(), User.objects.count())
    url = reverse(changelist)
    data = {"action": action, "index": "0", "_selected_action": selected}
    response = root.post(url, data, follow=True)
    assert response.status_code == 200
    messages = [str(m) for m in response.context["messages"]]
    assert "De selectie bevat iets wat geen id van een regel is: er is niets veranderd." in messages
    assert (row_counts(), User.objects.count()) == before


def test_a_club_admin_is_answered_the_same(client, club, people, django_user_model):
    user = django_user_model.objects.create_user("beheer", password="x", is_staff=True)
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client.force_login(user)
    url = reverse("admin:scoring_player_changelist")
    data = {"action": "merge_players", "index": "0", "_selected_action": ["9" * 5000, "abc"]}
    assert client.post(url, data).status_code == 302
    assert Player.objects.count() == len(people)
