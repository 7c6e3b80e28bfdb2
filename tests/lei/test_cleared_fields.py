"""A field the scorer cleared is refused, never read as a number they did not choose: the
penalty's "Punten" emptied on the tablet or in the round editor was recorded as 1 point, and a
four of a kind sent without its rank as four aces."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.builders import HX, record
from tests.lei.editor import correction_at


def tap(scorer, session, language="nl", **fields):
    session.refresh_from_db()
    scorer.cookies["django_language"] = language
    data = {"version": session.version, "key": f"tap-{session.version}-{language}", "round": 1}
    return scorer.post(reverse("session_event", args=[session.pk]), {**data, **fields}, **HX)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("nl", "Vul het aantal strafpunten in."),
        ("en", "Enter the number of penalty points."),
        ("de", "Gib die Anzahl der Strafpunkte ein."),
    ],
)
def test_a_penalty_whose_points_were_cleared_is_refused_and_changes_nothing(
    scorer, session, language, said
):
    response = tap(scorer, session, language, type="penalty", player="Bas", points="", reason="")
    assert said in response.content.decode()
    session.refresh_from_db()
    assert session.version == 0
    assert not session.rounds.exists()
    # The points typed are taken as typed.
    tap(scorer, session, type="penalty", player="Bas", points="3", reason="kijken")
    session.refresh_from_db()
    assert session.version == 1


def test_a_four_of_a_kind_without_its_rank_is_refused(scorer, session):
    response = tap(scorer, session, type="four_of_a_kind", player="Anne", rank="")
    assert "Kies welke vier gelijke." in response.content.decode()
    session.refresh_from_db()
    assert session.version == 0


def test_the_round_editor_refuses_a_penalty_row_without_points(scorer, session):
    record(session, "penalty", "Bas", points=2, reason="kijken")
    record(session, "win", "Anne")
    session.refresh_from_db()
    version, events = session.version, session.rounds.get(number=1).events
    data = correction_at(version, [("penalty", "Bas"), ("win", "Anne")])
    data.update({"events-0-points": "", "events-0-reason": "kijken"})  # its points cleared
    response = scorer.post(reverse("round_edit", args=[session.pk, 1]), data, **HX)
    html = response.content.decode()
    assert response["HX-Retarget"] == "#editor"
    assert "Vul het aantal strafpunten in." in html
    session.refresh_from_db()
    assert (session.version, session.rounds.get(number=1).events) == (version, events)
