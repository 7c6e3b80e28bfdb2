"""A tap's key is tied to what was sent with it: the same tap sent again is recorded once and
answers "recorded"; the same key with another tap is a 409 with the reason, and records
nothing (a client's bug is said, never a silent loss)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.lei import funnel, services
from scoring.models import IdempotencyKey, Session
from tests.builders import HX, record

REUSED = "Deze tik kwam met het kenmerk van een andere tik, die al is opgeslagen."


def post_tap(client, session: Session, data: dict, *, htmx: bool = True):
    return client.post(reverse("session_event", args=[session.pk]), data, **(HX if htmx else {}))


def log(session: Session) -> list[tuple[str, str]]:
    return [(e["type"], e["player"]) for r in session.rounds.order_by("number") for e in r.events]


def test_the_same_key_with_another_tap_is_a_409_that_says_why_and_records_nothing(scorer, session):
    post_tap(scorer, session, {"type": "knock", "player": "Bas", "version": 0, "key": "k1"})
    other = post_tap(scorer, session, {"type": "fold", "player": "Cees", "version": 1, "key": "k1"})
    assert other.status_code == 409
    assert other["X-Lei-Outcome"] == "conflict"  # the outbox stops at it (static/js/lei.js)
    assert other["X-Lei-Version"] == "1"
    assert "HX-Trigger" not in other
    html = other.content.decode()
    assert 'id="refusal"' in html  # where the outbox reads a refusal's reason
    assert f"Niet opgeslagen: {REUSED}" in html
    assert log(session) == [("knock", "Bas")]
    session.refresh_from_db()
    assert session.version == 1


def test_without_javascript_the_reused_key_gets_the_tablet_page_with_the_reason(scorer, session):
    post_tap(scorer, session, {"type": "knock", "player": "Bas", "version": 0, "key": "k1"})
    data = {"type": "fold", "player": "Cees", "version": 1, "key": "k1"}
    page = post_tap(scorer, session, data, htmx=False)
    assert page.status_code == 409
    assert REUSED in page.content.decode()
    assert "scoring/lei/tablet.html" in [t.name for t in page.templates]
    assert log(session) == [("knock", "Bas")]


def test_the_same_tap_sent_again_later_is_recorded_once_and_answers_recorded(scorer, session):
    first = {"type": "knock", "player": "Bas", "version": 0, "key": "k1", "sheet": "a"}
    post_tap(scorer, session, first)
    session.refresh_from_db()
    record(session, "fold", "Cees")  # another tablet taps meanwhile
    # The answer was lost; the outbox sends the tap again, after a refusal with a newer
    # version and the sheet the tablet shows now: it is the same tap.
    again = post_tap(scorer, session, {**first, "version": 2, "sheet": "b"})
    assert again.status_code == 200
    assert again["X-Lei-Outcome"] == "recorded"
    assert log(session) == [("knock", "Bas"), ("fold", "Cees")]


def test_an_undo_with_the_key_of_a_tap_is_refused(scorer, session):
    post_tap(scorer, session, {"type": "knock", "player": "Bas", "version": 0, "key": "k1"})
    undo = scorer.post(
        reverse("session_undo", args=[session.pk]), {"version": 1, "key": "k1"}, **HX
    )
    assert undo.status_code == 409
    assert log(session) == [("knock", "Bas")]


def test_a_round_correction_sent_again_with_other_events_is_refused_in_the_editor(scorer, session):
    record(session, "knock", "Anne")
    record(session, "win", "Anne")
    session.refresh_from_db()
    url = reverse("round_edit", args=[session.pk, 1])

    def rows(*events: tuple[str, str]) -> dict:
        data = {
            "events-TOTAL_FORMS": len(events),
            "events-INITIAL_FORMS": 0,
            "version": session.version,
            "key": "edit-1",
        }
        for i, (kind, player) in enumerate(events):
            data.update({f"events-{i}-type": kind, f"events-{i}-player": player})
        return data

    assert scorer.post(url, rows(("win", "Bas")), **HX).status_code == 200
    assert log(session) == [("win", "Bas")]
    again = scorer.post(url, rows(("win", "Cees")), **HX)
    assert again.status_code == 409
    assert again["HX-Retarget"] == "#editor"  # lei.js lets htmx draw it there
    assert REUSED in again.content.decode()
    assert log(session) == [("win", "Bas")]


def test_the_service_refuses_a_key_sent_before_with_another_event(session):
    services.session_record_event(
        session=session, event={"type": "knock", "player": "Bas"}, version=0, key="k1"
    )
    with pytest.raises(funnel.KeyReused):
        services.session_record_event(
            session=session, event={"type": "knock", "player": "Anne"}, version=1, key="k1"
        )
    stored = IdempotencyKey.objects.get(session=session, key="k1")
    assert stored.digest == funnel.sent_digest("event", {"type": "knock", "player": "Bas"})


def test_a_key_stored_before_fingerprints_were_kept_is_taken_at_its_word(session):
    services.session_record_event(
        session=session, event={"type": "knock", "player": "Bas"}, version=0, key="k1"
    )
    IdempotencyKey.objects.filter(key="k1").update(digest="")  # as the migration left it
    again = services.session_record_event(
        session=session, event={"type": "knock", "player": "Anne"}, version=0, key="k1"
    )
    assert again.replayed
    assert log(session) == [("knock", "Bas")]
