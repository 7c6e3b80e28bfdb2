"""The round editor: only the game's event types, only the fields each type has, the ranks of
four of a kind in the order of the cards, and bad rows refused without a change."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring.lei import funnel, services
from scoring.models import Session
from tests.builders import HX, make_session, record
from tests.lei.editor import correction_at


def editor(client, session: Session, number: int = 1) -> str:
    response = client.get(reverse("round_edit", args=[session.pk, number]), **HX)
    assert response.status_code == 200
    return response.content.decode()


def options(html: str, name: str) -> list[str]:
    select = html[html.index(f'name="{name}"') :]
    select = select[: select.index("</select>")]
    return re.findall(r'<option value="([^"]*)"', select)


def groups(html: str) -> list[str]:
    """The kinds that have fields of their own in the first row."""
    row = html[html.index('class="editor-row"') :]
    row = row[: row.index("</li>")]
    return re.findall(r'data-for="([^"]+)"', row)


def test_a_strafpunten_round_offers_its_events_and_their_fields_not_the_pot_games(scorer, session):
    record(session, "win", "Anne", jack=True)
    html = editor(scorer, session)
    types = options(html, "events-0-type")
    assert types == [
        "", "knock", "fold", "stay", "win", "blind_knock", "four_of_a_kind", "laundry",
        "penalty", "jack_beaten", "disqualify",
    ]  # fmt: skip
    assert groups(html) == ["win", "four_of_a_kind", "laundry", "penalty"]
    assert 'name="events-0-bid"' not in html
    assert 'name="events-0-jack" checked' in html


def test_a_pot_round_offers_bids_and_the_winner_only(scorer, club, people):
    session = make_session(club, players=["Anne", "Bas"], game="pot")
    record(session, "bid", "Anne", bid=150)
    html = editor(scorer, session)
    assert options(html, "events-0-type") == ["", "bid", "bid_fold", "win"]
    assert groups(html) == ["bid"]
    for field in ("jack", "rank", "challenger", "genuine", "points", "reason"):
        assert f'name="events-0-{field}"' not in html
    assert 'name="events-0-bid" value="1.5"' in html  # a number input wants a dot, in any language


def test_four_of_a_kind_lists_its_ranks_in_card_order(scorer, session):
    record(session, "four_of_a_kind", "Anne", rank="queen")
    html = editor(scorer, session)
    assert options(html, "events-0-rank") == [
        "7", "8", "9", "10", "ace", "king", "queen", "jack"
    ]  # fmt: skip
    assert '<option value="queen" selected>' in html


def test_a_pot_event_in_a_strafpunten_round_is_refused_and_changes_nothing(scorer, session):
    record(session, "win", "Anne")
    session.refresh_from_db()
    version = session.version
    data = {
        "version": version,
        "key": "bad-row",
        "events-TOTAL_FORMS": "1",
        "events-INITIAL_FORMS": "0",
        "events-MIN_NUM_FORMS": "0",
        "events-MAX_NUM_FORMS": "1000",
        "events-0-type": "bid",
        "events-0-player": "Anne",
        "events-0-bid": "1.00",
    }
    response = scorer.post(reverse("round_edit", args=[session.pk, 1]), data, **HX)
    html = response.content.decode()
    assert response["HX-Retarget"] == "#editor"
    assert "Controleer de regels hieronder." in html
    assert "errorlist" in html
    session.refresh_from_db()
    assert session.version == version
    assert session.rounds.get(number=1).events == [{"type": "win", "player": "Anne"}]


# --- a game ended at closing time stays ended ------------------------------------------------


def correct_round_1(client, session: Session, events: list[tuple[str, str]]):
    session.refresh_from_db()
    data = correction_at(session.version, events)
    return client.post(reverse("round_edit", args=[session.pk, 1]), data, **HX)


def test_a_correction_keeps_a_game_ended_at_closing_time_ended(scorer, session):
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    services.session_finish(session=session)
    assert session.status == "finished"
    response = correct_round_1(scorer, session, [("knock", "Cees"), ("win", "Cees")])
    assert response.status_code == 200
    session.refresh_from_db()
    assert session.status == "finished"  # still in the standings, with the corrected totals
    assert session.rounds.get(number=1).events[-1] == {"type": "win", "player": "Cees"}
    places = dict(session.results.values_list("player__name", "place"))
    assert places["Cees"] == 1


def test_a_tap_on_a_game_ended_at_closing_time_is_refused_and_changes_nothing(scorer, session):
    record(session, "win", "Anne")
    services.session_finish(session=session)
    session.refresh_from_db()
    version = session.version
    with pytest.raises(funnel.SessionClosed):
        record(session, "win", "Bas")
    response = scorer.post(
        reverse("session_event", args=[session.pk]),
        {"version": version, "key": "late-tap", "type": "win", "player": "Bas"},
        **HX,
    )
    assert "Dit spel is beëindigd" in response.content.decode()
    session.refresh_from_db()
    assert (session.status, session.version, session.rounds.count()) == ("finished", version, 1)


def test_an_admin_reopens_a_game_ended_at_closing_time(scorer, session):
    record(session, "win", "Anne")
    services.session_finish(session=session)
    services.session_reopen(session=session)
    assert session.status == "running"
    record(session, "win", "Bas")
    session.refresh_from_db()
    assert (session.status, session.rounds.count()) == ("running", 2)
    assert session.audit_entries.filter(action="reopen").count() == 1


def test_a_game_the_engine_finished_cannot_be_reopened_into_play(club, people):
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    record(session, "win", "Anne")
    record(session, "win", "Anne")
    assert session.status == "finished"
    services.session_reopen(session=session)
    assert session.status == "finished"  # the toepkoning is decided by the rules


# --- the editor as a page of its own (a new tab) and inside the tablet -----------------------


def htmx_targets_missing(html: str) -> list[str]:
    """The ``hx-target`` ids a page names that are not on it (htmx:targetError: nothing sent)."""
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    named = re.findall(r'hx-target="#([^"]+)"', html)
    return [target for target in named if target not in ids]


def test_the_round_editor_saves_as_a_page_of_its_own_and_inside_the_tablet(scorer, session):
    record(session, "win", "Anne")
    url = reverse("round_edit", args=[session.pk, 1])
    # Opened in a new tab: a plain form (no htmx target that is not on the page), and saving
    # goes back to the lei (POST/redirect/GET).
    html = scorer.get(url).content.decode()
    assert htmx_targets_missing(html) == []
    form = html[html.index('<form method="post" action="' + url) :]
    assert "hx-post" not in form[: form.index(">")]
    session.refresh_from_db()
    data = {
        "version": session.version,
        "key": "new-tab",
        "events-TOTAL_FORMS": "1",
        "events-INITIAL_FORMS": "0",
        "events-MIN_NUM_FORMS": "0",
        "events-MAX_NUM_FORMS": "1000",
        "events-0-type": "win",
        "events-0-player": "Bas",
    }
    response = scorer.post(url, data)  # what the browser sends without htmx
    assert response.status_code == 302
    assert response["Location"] == reverse("tablet", args=[session.pk])
    assert session.rounds.get(number=1).events == [{"type": "win", "player": "Bas"}]
    tablet = scorer.get(response["Location"])
    assert "Ronde 1 is verbeterd." in [str(m) for m in tablet.context["messages"]]
    # Inside the tablet: drawn into its #editor, posted by htmx, answered with the fresh lei.
    fragment = editor(scorer, session)
    assert htmx_targets_missing(tablet.content.decode() + fragment) == []
    assert 'hx-target="#live"' in fragment
    response = correct_round_1(scorer, session, [("win", "Cees")])
    assert response.status_code == 200
    assert 'id="live"' in response.content.decode()
    assert session.rounds.get(number=1).events == [{"type": "win", "player": "Cees"}]


@pytest.mark.parametrize("htmx", [True, False])
def test_a_correction_made_while_the_lei_went_on_keeps_its_rows_to_save_again(
    scorer, session, htmx
):
    """Another tablet taps while the scorer types a correction: nothing is saved, and the
    editor comes back with the rows as typed, at the version of now, saying so; saving again
    corrects the round."""
    record(session, "win", "Anne")
    session.refresh_from_db()
    seen = session.version  # the editor is drawn
    record(session, "knock", "Bas")  # the other tablet, meanwhile
    url = reverse("round_edit", args=[session.pk, 1])
    typed = [("knock", "Dirk"), ("win", "Cees")]
    headers = HX if htmx else {}
    response = scorer.post(url, correction_at(seen, typed), **headers)

    assert response.status_code == 200
    html = response.content.decode()
    assert "de lei is intussen veranderd. Je regels staan er nog" in html
    if htmx:
        assert response["HX-Retarget"] == "#editor"  # into the editor, the rest as it is
    assert 'id="live"' not in html
    # The rows as typed, under the version of now.
    assert re.findall(r'<option value="(\w+)" selected>', html)[:4] == [
        "knock",
        "Dirk",
        "win",
        "Cees",
    ]
    session.refresh_from_db()
    assert f'name="version" value="{session.version}"' in html
    assert session.rounds.get(number=1).events == [{"type": "win", "player": "Anne"}]

    again = scorer.post(url, correction_at(session.version, typed), **headers)
    assert again.status_code == (200 if htmx else 302)
    assert session.rounds.get(number=1).events == [
        {"type": "knock", "player": "Dirk"},
        {"type": "win", "player": "Cees"},
    ]
