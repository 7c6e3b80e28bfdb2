"""The public ``toepen.json`` export follows the privacy setting everywhere a name is, also in
the names of the sides of team toepen that are made of their members' names."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from scoring.engine import replay
from scoring.lei import services
from scoring.models import ClubMembership, Player
from scoring.sessionfile import public_file, rename_sides

SECRET = "Anne Geheimnaam"
PLAYERS = [SECRET, "Bas", "Cees", "Dirk"]


@pytest.fixture
def team_session(club):
    club.standings_public = True
    club.save()
    Player.objects.create(club=club, name=SECRET, public_initials=True)
    for name in PLAYERS[1:]:
        Player.objects.create(club=club, name=name)
    data = {
        "format": "toepen/1",
        "players": PLAYERS,
        # The tablet names each side after its two players.
        "teams": {f"{SECRET} & Cees": [SECRET, "Cees"], "Bas & Dirk": ["Bas", "Dirk"]},
        "start": {f"{SECRET} & Cees": 3},
        "rounds": [{"events": [{"type": "win", "player": "Bas"}]}],
    }
    return services.session_import(club=club, data=data)


def export(client, session):
    url = reverse("league_session_export", args=[session.club.slug, session.pk])
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_a_team_name_does_not_leak_a_full_name_in_the_public_export(client, team_session):
    text = export(client, team_session)
    assert "Geheimnaam" not in text
    data = json.loads(text)
    assert data["teams"] == {"A.G. & Cees": ["A.G.", "Cees"], "Bas & Dirk": ["Bas", "Dirk"]}
    assert data["start"] == {"A.G. & Cees": 3}
    assert replay(data).totals == {"A.G. & Cees": 4, "Bas & Dirk": 0}  # still a session file


@pytest.mark.django_db
def test_a_member_exports_the_full_names(client, team_session, user):
    ClubMembership.objects.create(user=user, club=team_session.club, role="scorer")
    client.force_login(user)
    data = json.loads(export(client, team_session))
    assert data == team_session.to_file()
    assert f"{SECRET} & Cees" in data["teams"]


def test_a_side_named_otherwise_keeps_its_name():
    data = {"players": ["A B", "C", "D", "E"], "teams": {"Noord": ["A B", "D"], "Oost": ["C", "E"]}}
    assert rename_sides(data, {"A B": "A.B."})["teams"] == data["teams"]


def test_a_renamed_side_never_takes_the_name_of_another_side_or_player():
    data = {
        "players": ["Anne Vos", "Bas", "A.V.", "Dirk"],
        "teams": {"Anne Vos": ["Anne Vos", "A.V."], "Bas & Dirk": ["Bas", "Dirk"]},
    }
    renamed = public_file(data, {"Anne Vos": "A.V.'"})
    assert list(renamed["teams"]) == ["A.V.''", "Bas & Dirk"]
    assert renamed["players"] == ["A.V.'", "Bas", "A.V.", "Dirk"]


def test_the_longest_name_is_replaced_first():
    data = {"players": ["Anne", "Anne Vos", "C", "D"], "teams": {"Anne Vos & C": ["Anne Vos", "C"]}}
    renamed = rename_sides(data, {"Anne": "A.", "Anne Vos": "A.V."})
    assert list(renamed["teams"]) == ["A.V. & C"]
