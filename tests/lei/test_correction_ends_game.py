"""A round's correction that would end the game before rounds played after it is refused with
the round that ends it and what to do (issue 43 item 6), not only "het spel is al afgelopen":
on the tablet's round editor and in the admin's round page alike. Nothing changes."""

from __future__ import annotations

from django.urls import reverse

from scoring.models import Session
from tests.builders import HX, correction, make_session, record
from tests.lei.editor import correction_at


def three_rounds(club) -> Session:
    session = make_session(club, players=["Anne", "Bas"])
    for _ in range(3):
        record(session, "win", "Anne")
    session.refresh_from_db()
    return session


def bas_out_in_round_1(session: Session) -> dict[str, object]:
    data = correction_at(session.version, [("penalty", "Bas"), ("win", "Anne")])
    data.update({"events-0-points": "10", "events-0-reason": "kaarten gezien"})
    return data


def test_a_correction_that_ends_the_game_earlier_names_the_round_and_what_to_do(
    scorer, club, people
):
    session = three_rounds(club)
    before = (session.version, list(session.rounds.values_list("events", flat=True)))
    url = reverse("round_edit", args=[session.pk, 1])
    response = scorer.post(url, bas_out_in_round_1(session), **HX)
    text = " ".join(response.content.decode().split())
    assert (
        "Niet opgeslagen: met deze verbetering is het spel al uit na ronde 1, maar er zijn 3"
        " rondes gespeeld. Klopt de verbetering, maak dan eerst de rondes na ronde 1 ongedaan"
        " en verbeter ronde 1 daarna opnieuw; anders kijk je de regels van ronde 1 nog eens na."
    ) in text
    session.refresh_from_db()
    assert (session.version, list(session.rounds.values_list("events", flat=True))) == before


def test_the_admin_is_told_the_same_in_its_language(admin_client, club, people):
    session = three_rounds(club)
    round_1 = session.rounds.get(number=1)
    page = reverse("admin:scoring_round_change", args=[round_1.pk])
    shown = admin_client.get(page, HTTP_ACCEPT_LANGUAGE="en")
    events = [
        {"type": "penalty", "player": "Bas", "points": 10, "reason": "kaarten gezien"},
        {"type": "win", "player": "Anne"},
    ]
    answer = admin_client.post(
        page, correction(shown, events), HTTP_ACCEPT_LANGUAGE="en", follow=True
    )
    said = [str(m) for m in answer.context["messages"]]
    assert said == [
        "Not saved: with this correction the game is over after round 1, but 3 rounds were"
        " played. If the correction is right, first delete the rounds after round 1 (undo them"
        " on the lei), then correct round 1 again; otherwise check the events of round 1."
    ]
    assert session.rounds.get(number=1).events == round_1.events
