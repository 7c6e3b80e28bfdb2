"""The presence form names its seats: a form drawn before a player went out (a tablet without a
connection plays a round to its end, then marks who goes to the toilet) must mark the player
it showed, not whoever sits at that place in the list now."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring.engine import replay
from scoring.models import Session
from tests.builders import HX, make_session, record


def presence_form(html: str) -> str:
    form = html[html.index('action="/sessies/') :]
    form = form[form.index("Afwezig en speler erbij") :]
    return form[: form.index("</form>")]


@pytest.fixture
def bas_goes_out(scorer, club):
    """Round 1 is played after the tablet drew its presence form; Bas goes out in it."""
    session = make_session(club, overrides={"max_points": 2})
    page = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    form = presence_form(page)
    assert re.findall(r'name="seat" value="([^"]+)"', form) == ["Anne", "Bas", "Cees", "Dirk"]
    record(session, "knock", "Bas")
    record(session, "fold", "Cees")
    record(session, "fold", "Dirk")
    record(session, "stay", "Anne")
    record(session, "win", "Anne")
    session.refresh_from_db()
    assert list(replay(session.to_file(), open_round=True).eliminated) == ["Bas"]
    return session


def post_presence(scorer, session, absent: dict[int, str], *, seats: bool = True):
    data = {"version": session.version, "key": "p1", "round": 2}
    data.update({f"absent_{i}": why for i, why in absent.items()})
    if seats:
        data["seat"] = ["Anne", "Bas", "Cees", "Dirk"]
    url = reverse("session_presence", args=[session.pk])
    return scorer.post(url, data, **HX)


def absent_now(session: Session) -> dict[str, str]:
    return replay(Session.objects.get(pk=session.pk).to_file(), open_round=True).what_now().absent


def test_the_form_marks_the_player_it_showed(scorer, bas_goes_out):
    response = post_presence(scorer, bas_goes_out, {2: "toilet"})  # Cees, as drawn
    assert response["X-Lei-Outcome"] == "recorded"
    assert absent_now(bas_goes_out) == {"Cees": "toilet"}


def test_a_player_who_went_out_meanwhile_is_refused_by_name(scorer, bas_goes_out):
    response = post_presence(scorer, bas_goes_out, {1: "drinks"})
    assert response["X-Lei-Outcome"] == "refused"
    assert "Bas is dood en kan niet afwezig zijn" in response.content.decode()
    assert absent_now(bas_goes_out) == {}


def test_a_form_from_before_the_seats_were_named_still_counts_the_seats_as_now(
    scorer, bas_goes_out
):
    """An outbox may hold a presence tap from a page drawn before this change: it is read as
    it always was."""
    response = post_presence(scorer, bas_goes_out, {2: "toilet"}, seats=False)
    assert response["X-Lei-Outcome"] == "recorded"
    assert absent_now(bas_goes_out) == {"Dirk": "toilet"}


def test_named_seats_are_bounded(scorer, bas_goes_out):
    url = reverse("session_presence", args=[bas_goes_out.pk])
    data = {"version": bas_goes_out.version, "key": "p1", "round": 2, "seat": ["x" * 41] * 3}
    response = scorer.post(url, data, **HX)
    assert response["X-Lei-Outcome"] == "refused"
    data["seat"] = [f"Speler {i}" for i in range(40)]
    response = scorer.post(url, data, **HX)
    assert response["X-Lei-Outcome"] == "refused"
    assert absent_now(bas_goes_out) == {}
