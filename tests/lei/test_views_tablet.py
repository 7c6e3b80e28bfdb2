"""The tablet: the page, one POST per tap (HTMX and plain), refusals, stale versions, keys."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring import access
from scoring.engine import replay
from scoring.models import Session
from tests.builders import HX, make_session, play_rounds, record, tap
from tests.lei.editor import edit_url, editor_data


def tablet_url(session: Session) -> str:
    return reverse("tablet", args=[session.pk])


def more_section(html: str) -> str:
    """The round panel's "Meer" (``<details id="more">``) of a tablet page."""
    start = html.index('id="more"')
    return html[start : html.index("</details>", start)]


def online_buttons(html: str) -> str:
    """The page without the buttons it shows only while taps wait offline (``offline-only``:
    the taps the engine does not allow now, for the server to judge when they arrive)."""
    return re.sub(r'<button class="[^"]*offline-only[^"]*".*?</button>', "", html)


def event_url(session: Session) -> str:
    return reverse("session_event", args=[session.pk])


def totals(session: Session) -> dict[str, int]:
    session.refresh_from_db()
    return replay(session.to_file(), open_round=True).totals


def test_the_tablet_page_shows_a_toep_button_per_player_and_the_sheet(scorer, session):
    response = scorer.get(tablet_url(session))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('value="knock"') == 4
    assert 'id="sheet"' in html
    assert 'id="live"' in html
    assert "<html" in html


# --- one tap, one event ------------------------------------------------------------------


def test_an_htmx_tap_records_the_event_and_returns_the_panel_and_sheet_fragment(scorer, session):
    response = tap(scorer, session, "win", "Cees")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # the fragment, not the page
    assert html.lstrip().startswith('<div id="live"')
    assert 'id="panel"' in html
    assert 'id="sheet"' in html
    assert totals(session) == {"Anne": 1, "Bas": 1, "Cees": 0, "Dirk": 1}


def test_a_plain_tap_redirects_back_to_the_tablet(scorer, session):
    response = tap(scorer, session, "win", "Cees", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == tablet_url(session)
    assert totals(session)["Anne"] == 1


@pytest.mark.parametrize(
    ("event_type", "extra"),
    [
        ("knock", {}),
        ("blind_knock", {}),
        ("four_of_a_kind", {"rank": "10"}),
        ("laundry", {"challenger": "Dirk", "genuine": ""}),
        ("penalty", {"points": "1", "reason": "gekeken"}),
    ],
)
def test_every_action_of_the_panel_is_recorded(scorer, session, event_type, extra):
    response = tap(scorer, session, event_type, "Bas", **extra)
    assert response.status_code == 200
    assert "notice--error" not in response.content.decode()
    session.refresh_from_db()
    assert session.rounds.get().events[0]["type"] == event_type


def test_knock_fold_and_winner_take_three_taps(scorer, session):
    tap(scorer, session, "knock", "Bas")
    tap(scorer, session, "fold", "Cees")
    tap(scorer, session, "win", "Dirk")
    assert totals(session) == {"Anne": 2, "Bas": 2, "Cees": 1, "Dirk": 0}


def test_a_win_with_a_boer_takes_a_point_off(scorer, session):
    tap(scorer, session, "win", "Anne", jack="on")
    assert totals(session) == {"Anne": -1, "Bas": 1, "Cees": 1, "Dirk": 1}
    html = scorer.get(tablet_url(session)).content.decode()
    assert "boer ●" in html


def test_stay_is_recorded_and_jack_beaten_when_played(club, people, scorer):
    session = make_session(club, preset="standaard", overrides={"jack_beaten_by_queen": 1})
    tap(scorer, session, "knock", "Bas")
    tap(scorer, session, "stay", "Cees")
    tap(scorer, session, "jack_beaten", "Dirk")
    session.refresh_from_db()
    assert [e["type"] for e in session.rounds.get().events] == ["knock", "stay", "jack_beaten"]


def test_a_refused_tap_shows_the_engines_message_and_changes_nothing(scorer, session):
    tap(scorer, session, "knock", "Bas")
    session.refresh_from_db()
    before = (session.version, session.rounds.get().events)
    response = tap(scorer, session, "knock", "Bas")  # his own raise
    html = response.content.decode()
    assert response.status_code == 200
    assert "notice--error" in html
    assert "Bas kan niet toepen: de laatste toep is van hemzelf" in html
    session.refresh_from_db()
    assert (session.version, session.rounds.get().events) == before


def test_a_refusal_is_shown_in_the_users_language(scorer, session):
    tap(scorer, session, "knock", "Bas")
    scorer.cookies["django_language"] = "en"
    html = tap(scorer, session, "knock", "Bas").content.decode()
    assert "Bas cannot knock: the latest raise is their own" in html


def test_a_plain_refused_tap_redirects_with_the_message(scorer, session):
    response = tap(scorer, session, "fold", "Anne", htmx=False)
    assert response.status_code == 302
    page = scorer.get(response["Location"]).content.decode()
    assert "notice--error" in page
    assert session.rounds.count() == 0


def test_a_stale_tablet_gets_the_fresh_sheet_and_a_notice_and_nothing_changes(scorer, session):
    record(session, "win", "Cees")  # another tablet
    response = tap(scorer, session, "win", "Anne", version=0, key="old-tablet")
    html = response.content.decode()
    assert response.status_code == 200
    assert "de lei was al verder dan deze tik verwachtte" in html
    assert 'id="sheet"' in html
    assert totals(session) == {"Anne": 1, "Bas": 1, "Cees": 0, "Dirk": 1}
    session.refresh_from_db()
    assert f'name="version" value="{session.version}"' in html


def test_a_stale_plain_post_redirects_with_the_notice(scorer, session):
    record(session, "win", "Cees")
    response = tap(scorer, session, "win", "Anne", version=0, htmx=False)
    assert response.status_code == 302
    page = scorer.get(response["Location"]).content.decode()
    assert "de lei was al verder dan deze tik verwachtte" in page


def test_a_repeated_key_is_recorded_once(scorer, session):
    first = tap(scorer, session, "win", "Cees", key="same-tap", version=0)
    again = tap(scorer, session, "win", "Cees", key="same-tap", version=0)
    assert first.status_code == again.status_code == 200
    assert "notice--error" not in again.content.decode()
    assert session.rounds.count() == 1
    assert totals(session)["Anne"] == 1


def test_a_broken_form_is_refused_without_a_change(scorer, session):
    response = scorer.post(event_url(session), {"type": "nonsense", "player": "Anne"}, **HX)
    assert "notice--error" in response.content.decode()
    assert session.rounds.count() == 0


def test_undo_takes_back_the_last_event(scorer, session):
    tap(scorer, session, "knock", "Bas")
    session.refresh_from_db()
    url = reverse("session_undo", args=[session.pk])
    response = scorer.post(url, {"version": session.version, "key": "undo-1"}, **HX)
    assert response.status_code == 200
    assert session.rounds.count() == 0


def test_undo_with_nothing_to_undo_says_so(scorer, session):
    url = reverse("session_undo", args=[session.pk])
    html = scorer.post(url, {"version": 0, "key": "undo-0"}, **HX).content.decode()
    assert "Er is niets om ongedaan te maken" in html


def test_absent_and_joining_players_before_the_first_event(scorer, session):
    url = reverse("session_presence", args=[session.pk])
    data = {"version": 0, "key": "p1", "absent_3": "drinks", "join": "Eva"}
    response = scorer.post(url, data, **HX)
    assert "notice--error" not in response.content.decode()
    view = replay(Session.objects.get(pk=session.pk).to_file(), open_round=True).what_now()
    assert view.participants == ["Anne", "Bas", "Cees", "Eva"]
    assert view.absent == {"Dirk": "drinks"}


def test_the_panel_marks_the_toilet_and_a_fold_and_gives_each_form_its_key(scorer, session):
    url = reverse("session_presence", args=[session.pk])
    scorer.post(url, {"version": 0, "key": "p1", "absent_2": "toilet"}, **HX)
    session.refresh_from_db()
    record(session, "knock", "Anne")  # Cees, on the toilet, is folded at the first knock
    html = scorer.get(tablet_url(session)).content.decode()
    cees = html[html.index('name="player" value="Cees"') :]
    cees = cees[: cees.index("</form>")]
    assert '<span class="badge">toilet</span>' in cees
    assert '<span class="badge this-round-only">weg (1)</span>' in cees
    # Nothing to tap this round: only the next round's buttons (static/js/lei.js shows them
    # after a round-ending tap waits in the outbox).
    assert re.findall(r'next-round-only[^"]*" name="type" value="(\w+)"', cees) == [
        "knock",
        "stay",
        "fold",
    ]
    assert cees.count('name="type"') == 3
    panel = html[html.index('id="round"') :]
    keys = re.findall(r'name="key" value="([^"]+)"', panel)
    assert len(keys) == len(set(keys)) >= 6  # a key per form: a tap is never taken for another


def test_the_more_forms_speak_the_tablets_language_and_each_has_its_key(scorer, session):
    url = reverse("session_presence", args=[session.pk])
    scorer.post(url, {"version": 0, "key": "p1", "absent_1": "drinks"}, **HX)
    html = scorer.get(tablet_url(session), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    more = more_section(html)
    # Standaard rules, before the round's first event: no "boer geslagen" (a house rule).
    types = re.findall(r'name="type" value="([a-z_]+)"', more)
    assert types == ["blind_knock", "laundry", "four_of_a_kind", "penalty"]
    assert "<h3>Penalty point</h3>" in more
    assert 'aria-label="Blind knock: Anne"' in more
    assert '<option value="drinks" selected>' in more  # Bas is getting drinks this round
    assert more.count('<option value="Cees">Cees</option>') == 4  # laundry twice, four, penalty
    keys = re.findall(r'name="key" value="([^"]+)"', more)
    assert len(keys) == len(set(keys)) == 6  # the four event forms, presence and finish


@pytest.mark.parametrize("first", ["nl", "en", "de"])
def test_the_more_forms_texts_are_kept_per_language(scorer, session, first):
    # The Meer and presence forms' texts: one language's texts never reach another's tablet,
    # whichever language a worker drew first.
    texts = {
        "nl": ("<h3>Strafpunt</h3>", "<h3>Afwezig en speler erbij</h3>", ">aan tafel</option>"),
        "en": ("<h3>Penalty point</h3>", "<h3>Away and new players</h3>", ">at the table</option>"),
        "de": ("<h3>Strafpunkt</h3>", "<h3>Abwesend und neue Spieler</h3>", ">am Tisch</option>"),
    }
    for language in [first, *(other for other in texts if other != first)]:
        html = scorer.get(tablet_url(session), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        more = more_section(html)
        for text in texts[language]:
            assert text in more, (language, text)


def test_presence_after_the_first_event_is_refused(scorer, session):
    tap(scorer, session, "knock", "Bas")
    session.refresh_from_db()
    url = reverse("session_presence", args=[session.pk])
    html = scorer.post(
        url, {"version": session.version, "key": "p2", "absent_0": "toilet"}, **HX
    ).content.decode()
    assert "notice--error" in html


def test_finishing_at_closing_time_crowns_nobody_but_shows_the_chart(scorer, session):
    play_rounds(session, ["Anne", "Bas"])
    session.refresh_from_db()
    url = reverse("session_finish", args=[session.pk])
    html = scorer.post(
        url, {"version": session.version, "key": "f1", "confirm": "ja"}, **HX
    ).content.decode()
    assert "Uitgespeeld" in html
    assert "lei-chart" in html


def test_a_finished_session_crowns_the_toepkoning_and_draws_the_chart(scorer, club, people):
    session = make_session(club, players=["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(session, ["Anne", "Anne"])
    html = scorer.get(tablet_url(session)).content.decode()
    assert "Anne is de toepkoning!" in html
    assert "badge--toepkoning" in html
    assert "lei-chart" in html
    assert 'value="knock"' not in html


def test_the_sheet_marks_armoede_dealer_and_the_dead(scorer, club, people):
    session = make_session(club, players=["Anne", "Bas", "Cees"], overrides={"max_points": 3})
    play_rounds(session, ["Bas", "Cees"])  # Anne 2 (armoede), Bas 1, Cees 1
    html = scorer.get(tablet_url(session)).content.decode()
    assert "badge--armoede" in html
    assert "badge--deler" in html
    assert "badge--uitkomst" in html
    assert "inzet 2" in html


def test_lives_are_shown_when_the_unit_is_lives(scorer, club, people):
    session = make_session(club, preset="pagat")
    play_rounds(session, ["Anne"])
    html = scorer.get(tablet_url(session)).content.decode()
    assert "nog 9 levens" in html


def test_disabled_toep_says_why(scorer, club, people):
    session = make_session(club, preset="beginners")
    html = scorer.get(tablet_url(session)).content.decode()
    assert 'value="knock"' not in online_buttons(html)
    assert html.count('aria-disabled="true"') >= 4
    assert "btn__reason" in html


# --- correcting a round ------------------------------------------------------------------


def test_the_round_editor_shows_one_row_per_event(scorer, session):
    record(session, "knock", "Bas")
    record(session, "win", "Cees")
    response = scorer.get(edit_url(session, 1), **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="editor"')
    assert html.count('name="events-') > 10
    assert 'value="knock" selected' in html


def test_the_round_editor_works_without_javascript(scorer, session):
    record(session, "win", "Cees")
    page = scorer.get(edit_url(session, 1))
    assert "<html" in page.content.decode()
    data = editor_data(session, [{"type": "win", "player": "Anne"}])
    response = scorer.post(edit_url(session, 1), data)
    assert response.status_code == 302
    assert totals(session) == {"Anne": 0, "Bas": 1, "Cees": 1, "Dirk": 1}


def test_correcting_a_round_replays_the_session(scorer, session):
    record(session, "win", "Cees")
    record(session, "win", "Dirk")
    rows = [{"type": "knock", "player": "Bas"}, {"type": "win", "player": "Anne", "jack": "on"}]
    response = scorer.post(edit_url(session, 1), editor_data(session, rows), **HX)
    assert response.status_code == 200
    assert 'id="live"' in response.content.decode()
    assert totals(session) == {"Anne": 0, "Bas": 3, "Cees": 3, "Dirk": 2}


def test_a_refused_correction_shows_the_message_in_the_editor_and_changes_nothing(scorer, session):
    record(session, "win", "Cees")
    rows = [{"type": "fold", "player": "Anne"}, {"type": "win", "player": "Cees"}]
    response = scorer.post(edit_url(session, 1), editor_data(session, rows), **HX)
    html = response.content.decode()
    assert response["HX-Retarget"] == "#editor"
    assert 'id="editor-error"' in html
    assert totals(session) == {"Anne": 1, "Bas": 1, "Cees": 0, "Dirk": 1}


def test_a_stale_correction_changes_nothing_and_keeps_its_rows(scorer, session):
    # The tablet's own poll brings the fresh sheet; the answer keeps the editor (more in
    # tests/lei/test_views_round_edit.py).
    record(session, "win", "Cees")
    data = editor_data(session, [{"type": "win", "player": "Anne"}])
    record(session, "win", "Anne")
    html = scorer.post(edit_url(session, 1), data, **HX).content.decode()
    assert "de lei is intussen veranderd. Je regels staan er nog" in html
    assert totals(session) == {"Anne": 1, "Bas": 2, "Cees": 1, "Dirk": 2}


def test_an_unknown_round_is_404(scorer, session):
    assert scorer.get(edit_url(session, 9)).status_code == 404


# --- the pot game ------------------------------------------------------------------------


def test_the_pot_game_bids_folds_and_a_winner_in_euros(scorer, club, people):
    session = make_session(club, game="pot", players=["Anne", "Bas"])
    html = scorer.get(tablet_url(session)).content.decode()
    assert "Pot:" in html
    assert "2,00" in html
    tap(scorer, session, "bid", "Anne", bid="1.50")
    tap(scorer, session, "bid_fold", "Bas")
    response = tap(scorer, session, "win", "Anne")
    assert "notice--error" not in response.content.decode()
    session.refresh_from_db()
    result = replay(session.to_file(), open_round=True)
    assert result.balances == {"Anne": -25, "Bas": -175}
    url = reverse("session_finish", args=[session.pk])
    scorer.post(url, {"version": session.version, "key": "share", "confirm": "ja"}, **HX)
    session.refresh_from_db()
    assert session.ended


@pytest.mark.parametrize(
    ("language", "label"),
    [("nl", "Anne &amp; Co: 1 strafpunten"), ("en", "Anne &amp; Co: 1 penalty points"),
     ("de", "Anne &amp; Co: 1 Strafpunkte")],
)  # fmt: skip
def test_the_sheets_head_and_totals_escape_names_and_speak_the_language(
    client, club, language, label
):
    """``{% sheet_columns %}`` and ``{% sheet_totals %}``: a column per player, the name
    escaped once, the totals as labelled turfjes with the number, badges in the language."""
    session = make_session(club, players=["Anne & Co", "Bas", "Cees"])
    play_rounds(session, ["Bas"])  # everybody else 1 point
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    html = client.get(viewer, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    head = html[html.index("<thead>") : html.index("</thead>")]
    assert head.count('<th scope="col">') == 4  # the round column and one per player
    assert "<span>Anne &amp; Co</span>" in head
    dealer = {"nl": "deelt", "en": "deals", "de": "gibt"}[language]
    assert f'<span class="badge badge--deler">{dealer}</span>' in head
    totals = html[html.index('<tr class="sheet__round-current">') :]
    totals = totals[: totals.index("</tr>")]
    assert 'data-player="Anne &amp; Co" data-total="1"' in totals
    assert f'aria-label="{label}"' in totals
    assert '<span class="sheet__total">0</span>' in totals  # Bas won the round
