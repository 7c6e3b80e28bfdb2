"""A refusal is said whole in the scorer's language: the engine's reasons are templates of their
own (scoring/engine/errors.py), never an English detail put into a translated sentence."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from scoring.engine import MESSAGES
from tests.builders import HX, make_session

SEATS = ["Anne", "Bas", "Cees", "Dirk"]


def join(scorer, session, name: str, language: str):
    scorer.cookies["django_language"] = language
    data = {"version": session.version, "key": f"join-{language}", "round": 1, "join": name}
    data["seat"] = SEATS
    return scorer.post(reverse("session_presence", args=[session.pk]), data, **HX)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("nl", "Niet opgeslagen: Anne kan niet aanschuiven: die naam zit al aan tafel"),
        ("de", "Nicht gespeichert: Anne kann nicht einsteigen: der Name ist schon am Tisch"),
        ("en", "Anne cannot join: that name is taken"),
    ],
)
def test_a_name_already_at_the_table_is_refused_in_the_tablets_language(
    scorer, club, language, said
):
    session = make_session(club, SEATS)
    response = join(scorer, session, "anne", language)
    assert response["X-Lei-Outcome"] == "refused"
    text = html.unescape(response.content.decode())
    assert said in text
    if language != "en":
        assert "that name is taken" not in text


def test_a_player_joining_a_team_game_is_refused_in_dutch(scorer, club):
    teams = {"Noord": ["Anne", "Cees"], "Oost": ["Bas", "Dirk"]}
    session = make_session(club, SEATS, teams=teams)
    response = join(scorer, session, "Eva", "nl")
    assert response["X-Lei-Outcome"] == "refused"
    assert "Eva kan niet aanschuiven: de teams liggen vast" in response.content.decode()


@pytest.mark.parametrize(
    ("rules", "said"),
    [
        ({"rule_max_stake": "1", "rule_blind_knock": "nee"}, "armoede opent met inzet 2"),
        ({"rule_max_stake": "2", "rule_blind_stake": "3"}, "de inzet na blind toepen (3)"),
        ({"teams": "on", "rule_five_crosses": "ja"}, "vijf kruisjes kan niet met teams"),
    ],
)
def test_rules_that_contradict_themselves_are_refused_in_dutch_on_the_start_form(
    scorer, club, rules, said
):
    data = {"club": club.pk, "dealer": 1, "game": "strafpunten", "preset": "standaard"}
    data.update({f"seat_{i}": name for i, name in enumerate(SEATS, start=1)})
    data.update(rules)
    response = scorer.post(reverse("session_new"), data)
    assert response.status_code == 200  # the form again, with the reason
    assert said in html.unescape(response.content.decode())


def test_no_engine_refusal_is_only_a_detail_filled_in_by_the_engine():
    # A template that is its whole detail says nothing a translator could translate.
    assert [code for code, text in MESSAGES.items() if text.strip() == "%(detail)s"] == []
