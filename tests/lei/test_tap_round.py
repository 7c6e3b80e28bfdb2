"""A tap belongs to its round (``funnel.RoundOver``): every tap names the round it was made
in, and a tap for a round that is over is refused in words, whatever version it expects, so
that a tablet's leftover taps never make a round that was never played."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.lei import funnel, services
from scoring.models import Session
from tests.builders import HX, new_key, record, tap


def rounds(session: Session) -> list[list[tuple[str, str]]]:
    session.refresh_from_db()
    return [[(e["type"], e["player"]) for e in r.events] for r in session.rounds.order_by("number")]


def play_rounds(session: Session, *winners: str) -> None:
    for name in winners:
        session.refresh_from_db()
        record(session, "win", name)


def test_a_tap_for_a_round_that_is_over_is_refused_and_says_the_lei_moved_on(scorer, session):
    play_rounds(session, "Anne", "Bas", "Cees")  # the lei is at round 4
    before = rounds(session)
    # At the version the lei is at now: "verwijder deze tik" gave the rest that version.
    response = tap(scorer, session, "win", "Dirk", round="2")
    html = response.content.decode()
    assert response["X-Lei-Outcome"] == "moved"
    assert response["X-Lei-Version"] == str(session.version)
    assert (
        "Niet opgeslagen: deze tik hoorde bij ronde 2; de lei staat op ronde 4 en is zonder"
        " deze tik verder gegaan." in html
    )
    assert rounds(session) == before  # no round 4 that never happened


def test_the_round_is_told_before_the_version(scorer, session):
    play_rounds(session, "Anne", "Bas")
    response = tap(scorer, session, "knock", "Cees", version=0, round="1")
    assert response["X-Lei-Outcome"] == "moved"
    assert "deze tik hoorde bij ronde 1; de lei staat op ronde 3" in response.content.decode()


def test_a_tap_for_a_round_not_yet_reached_is_refused_too(scorer, session):
    """Another tablet undid the round's end: the tap made in the next round waits for it."""
    play_rounds(session, "Anne")
    session.refresh_from_db()
    services.session_undo(session=session, version=session.version, key=new_key())
    response = tap(scorer, session, "knock", "Bas", round="2")
    assert response["X-Lei-Outcome"] == "moved"
    assert rounds(session) == []  # the undo left no round 1, and the tap made none


def test_a_tap_for_its_own_round_at_an_old_version_is_stale(scorer, session):
    record(session, "knock", "Cees")
    response = tap(scorer, session, "knock", "Bas", version=0, round="1")
    assert response["X-Lei-Outcome"] == "stale"


def test_taps_of_one_outbox_name_their_rounds_and_are_recorded(scorer, session):
    """A round-ending tap, then the next round's: each names the round it was made in."""
    assert tap(scorer, session, "knock", "Bas", round="1")["X-Lei-Outcome"] == "recorded"
    assert tap(scorer, session, "win", "Bas", round="1")["X-Lei-Outcome"] == "recorded"
    assert tap(scorer, session, "knock", "Anne", round="2")["X-Lei-Outcome"] == "recorded"
    assert rounds(session) == [[("knock", "Bas"), ("win", "Bas")], [("knock", "Anne")]]


def test_a_resent_tap_whose_round_is_over_is_still_answered_as_recorded(scorer, session):
    """Its answer was lost: it did arrive, in its own round, and is not refused afterwards."""
    tap(scorer, session, "win", "Bas", round="1", key="k1")
    play_rounds(session, "Anne")
    again = tap(scorer, session, "win", "Bas", version=0, round="1", key="k1")
    assert again["X-Lei-Outcome"] == "recorded"
    assert rounds(session) == [[("win", "Bas")], [("win", "Anne")]]


def test_an_undo_names_its_round(scorer, session):
    play_rounds(session, "Anne", "Bas")
    url = reverse("session_undo", args=[session.pk])
    session.refresh_from_db()
    old = {"version": session.version, "key": new_key(), "round": 2}
    assert scorer.post(url, old, **HX)["X-Lei-Outcome"] == "moved"
    assert len(rounds(session)) == 2
    # Made in round 3, before its first event: it takes back the end of round 2.
    now = {"version": session.version, "key": new_key(), "round": 3}
    assert scorer.post(url, now, **HX)["X-Lei-Outcome"] == "recorded"
    assert rounds(session) == [[("win", "Anne")]]


def test_presence_names_its_round(scorer, session):
    play_rounds(session, "Anne")
    url = reverse("session_presence", args=[session.pk])
    session.refresh_from_db()
    data = {"version": session.version, "key": new_key(), "round": 1, "absent_1": "drinks"}
    assert scorer.post(url, data, **HX)["X-Lei-Outcome"] == "moved"
    assert len(rounds(session)) == 1


def test_a_round_that_is_not_a_number_is_refused_in_words(scorer, session):
    response = tap(scorer, session, "knock", "Bas", round="twee")
    assert response["X-Lei-Outcome"] == "refused"
    assert rounds(session) == []


def test_every_tap_form_carries_the_round_the_lei_is_at(scorer, session):
    play_rounds(session, "Anne")
    html = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert 'data-round="2"' in html
    assert html.count('name="round" value="2"') == html.count('name="version"')


def test_the_funnel_refuses_a_round_that_is_over(session):
    play_rounds(session, "Anne")
    session.refresh_from_db()
    with pytest.raises(funnel.RoundOver) as refused:
        services.session_record_event(
            session=session,
            event={"type": "win", "player": "Bas"},
            version=session.version,
            key=new_key(),
            round_number=1,
        )
    assert (refused.value.tapped, refused.value.now) == (1, 2)
