"""The end of a game on the tablet: the confirm step, a game without a finished round thrown
away, corrected rounds marked "verbeterd", and "nieuw spel, zelfde spelers"."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from scoring import access, writes
from scoring.days import evening_day
from scoring.lei import akkoord, funnel, seals, services
from scoring.models import AuditEntry, Season, Session, SessionResult
from tests.builders import HX, make_session, play_rounds, record
from tests.lei.editor import editor_data


def tablet(session: Session) -> str:
    return reverse("tablet", args=[session.pk])


def finish(client, session: Session, *, confirm: str | None = "ja", htmx: bool = True, key="f"):
    session.refresh_from_db()
    data = {"version": session.version, "key": key}
    if confirm is not None:
        data["confirm"] = confirm
    return client.post(reverse("session_finish", args=[session.pk]), data, **(HX if htmx else {}))


def finish_step(html: str) -> str:
    """The confirm step of "Spel beëindigen" (``<details id="finish">``)."""
    start = html.index('<details class="confirm" id="finish">')
    return html[start : html.index("</details>", start)]


# --- ending a game asks first --------------------------------------------------------------


def test_ending_the_game_is_a_question_first_and_its_answer_a_form(scorer, session):
    play_rounds(session, ["Anne"])
    step = finish_step(scorer.get(tablet(session)).content.decode())
    # The first tap opens the question (works without JavaScript); the form is inside it.
    assert step.index("<summary") < step.index("<form")
    assert "Spel beëindigen…" in step
    assert 'name="confirm" value="ja"' in step
    assert "De stand van nu wordt de einduitslag." in step
    assert 'aria-label="Ja, het spel beëindigen"' in step


@pytest.mark.parametrize("htmx", [True, False])
@pytest.mark.parametrize("confirm", [None, "", "nee", "JA"])
def test_a_finish_without_the_confirmation_ends_nothing(scorer, session, htmx, confirm):
    play_rounds(session, ["Anne"])
    session.refresh_from_db()
    before = session.version
    response = finish(scorer, session, confirm=confirm, htmx=htmx)
    session.refresh_from_db()
    assert (session.status, session.version) == (Session.Status.RUNNING, before)
    text = "Het spel is niet beëindigd: bevestig het eerst."
    if htmx:
        assert text in response.content.decode()
    else:
        assert response.status_code == 302
        assert text in scorer.get(response["Location"]).content.decode()


def test_a_confirmed_finish_ends_the_game_with_the_places_as_they_are(scorer, session):
    play_rounds(session, ["Anne", "Bas"])
    html = finish(scorer, session).content.decode()
    session.refresh_from_db()
    assert session.status == Session.Status.FINISHED
    assert "Uitgespeeld" in html
    assert SessionResult.objects.filter(session=session).count() == 4


def test_a_game_ended_by_hand_offers_no_undo_that_would_be_refused(scorer, session):
    play_rounds(session, ["Anne", "Bas"])
    assert 'class="round-panel__undo"' in scorer.get(tablet(session)).content.decode()
    html = finish(scorer, session).content.decode()
    # Every tap of the table is refused now (only a club admin reopens the game): no undo.
    assert "Uitgespeeld" in html
    assert 'class="round-panel__undo"' not in html
    assert 'class="round-panel__undo"' not in scorer.get(tablet(session)).content.decode()


def test_the_question_says_a_game_without_a_finished_round_is_thrown_away(scorer, session):
    record(session, "knock", "Anne")  # round 1 is being played, none is finished
    step = finish_step(scorer.get(tablet(session)).content.decode())
    assert "Er is nog geen ronde uitgespeeld: het spel wordt weggegooid" in step
    assert 'aria-label="Ja, het spel weggooien"' in step


def test_a_game_without_a_finished_round_is_thrown_away_not_stored_as_played(
    scorer, club, people, season
):
    session = make_session(club, players=["Anne", "Bas", "Cees", "Dirk", "Eva"], season=season)
    record(session, "knock", "Anne")
    record(session, "fold", "Bas")
    pk = session.pk
    response = finish(scorer, session)
    # The tablet goes home (htmx follows HX-Redirect), with a message saying why.
    assert response["HX-Redirect"] == reverse("home")
    assert not Session.objects.filter(pk=pk).exists()
    assert not SessionResult.objects.filter(session_id=pk).exists()
    home = scorer.get(reverse("home")).content.decode()
    assert "Het spel is weggegooid: er was nog geen ronde uitgespeeld." in home
    # Nothing disappears without a trace: the audit log keeps who sat there and what was tapped.
    entry = AuditEntry.objects.get(action="finish", after={"discarded": True})
    assert entry.club_id == club.pk
    assert entry.before["session"] == pk
    assert entry.before["players"] == ["Anne", "Bas", "Cees", "Dirk", "Eva"]
    assert [e["type"] for e in entry.before["rounds"][0]["events"]] == ["knock", "fold"]
    # Not in the league: the season's standings and the archive know nothing of it.
    standings = scorer.get(reverse("league_season", args=[club.slug, season.pk])).content.decode()
    assert "Nog geen uitgespeelde sessies in dit seizoen." in standings
    archive = scorer.get(reverse("league_archive", args=[club.slug])).content.decode()
    assert f"/{pk}/" not in archive


def test_a_plain_finish_of_an_unplayed_game_goes_home(scorer, session):
    response = finish(scorer, session, htmx=False)
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert not Session.objects.filter(pk=session.pk).exists()


def test_a_stale_finish_of_an_unplayed_game_throws_nothing_away(scorer, session):
    record(session, "knock", "Anne")
    data = {"version": 0, "key": "stale", "confirm": "ja"}  # the tablet saw version 0
    html = scorer.post(reverse("session_finish", args=[session.pk]), data, **HX)
    assert html.status_code == 200
    assert Session.objects.filter(pk=session.pk, status="running").exists()


def test_a_locked_session_is_never_thrown_away(session):
    play_rounds(session, ["Anne"])
    services.session_finish(session=session)
    seals.session_lock(session=session)
    with pytest.raises(funnel.SessionLocked):
        services.session_discard(session=session)
    Session.objects.filter(pk=session.pk).update(status="running")
    with pytest.raises(writes.ServiceError):  # finished rounds: ended, never discarded
        services.session_discard(session=Session.objects.get(pk=session.pk))
    assert Session.objects.filter(pk=session.pk).exists()


# --- "verbeterd" -----------------------------------------------------------------------------


def sheet_row(html: str, number: int) -> str:
    """The sheet's row of round ``number``."""
    match = re.search(
        rf'<tr(?: class="[^"]*")?><th scope="row">(?:<a [^>]*>)?<span class="sheet__word">'
        rf"[^<]*</span>{number}(?:</a>)?.*?</tr>",
        html,
        re.S,
    )
    assert match, f"no row {number}"
    return match.group(0)


def test_a_round_corrected_in_the_editor_is_marked_verbeterd_for_tablet_and_viewers(
    scorer, client, session
):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    url = reverse("round_edit", args=[session.pk, 2])
    answer = scorer.post(url, editor_data(session, [{"type": "win", "player": "Dirk"}], "e1"), **HX)
    assert 'class="badge badge--fixed"' in sheet_row(answer.content.decode(), 2)
    page = scorer.get(tablet(session)).content.decode()
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    for html in (page, client.get(viewer).content.decode()):
        assert ">verbeterd</span>" in sheet_row(html, 2)
        assert "verbeterd" not in sheet_row(html, 1)
        assert "verbeterd" not in sheet_row(html, 3)


def test_a_round_corrected_in_the_admin_is_marked_too(client, session, django_user_model):
    play_rounds(session, ["Anne", "Bas"])
    admin = django_user_model.objects.create_user("beheer", is_staff=True)
    services.round_replace_events(
        session=session, number=1, events=[{"type": "win", "player": "Cees"}], actor=admin
    )
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    html = client.get(viewer).content.decode()
    assert ">verbeterd</span>" in sheet_row(html, 1)
    assert "verbeterd" not in sheet_row(html, 2)


def test_rounds_played_as_tapped_are_not_marked(scorer, session):
    play_rounds(session, ["Anne", "Bas"])
    record(session, "knock", "Cees")
    assert "badge--fixed" not in scorer.get(tablet(session)).content.decode()


# --- "nieuw spel, zelfde spelers" ------------------------------------------------------------


def again(client, session: Session):
    return client.post(reverse("session_again", args=[session.pk]))


def seats(session: Session) -> list[str]:
    return list(session.seats.order_by("position").values_list("player__name", flat=True))


def test_a_finished_game_offers_the_next_one_with_the_same_players(scorer, club, people, season):
    session = make_session(
        club,
        players=["Dirk", "Anne", "Cees"],
        overrides={"max_points": 2},
        table_label="Tafel 3",
        season=season,
    )
    play_rounds(session, ["Cees", "Cees"])  # Anne and Dirk are out: Cees is the toepkoning
    session.refresh_from_db()
    assert session.status == Session.Status.FINISHED
    html = scorer.get(tablet(session)).content.decode()
    assert "Klopt de eindstand?" in html
    assert "Nieuw spel, zelfde spelers" not in html  # the table answers that first
    akkoord.session_agree(session=session)
    html = scorer.get(tablet(session)).content.decode()
    assert 'aria-label="Nieuw spel, zelfde spelers"' in html
    assert "Dezelfde stoelen en regels; Cees deelt." in html

    response = again(scorer, session)
    new = Session.objects.exclude(pk=session.pk).get()
    assert response.status_code == 302
    assert response["Location"] == tablet(new)
    assert seats(new) == ["Dirk", "Anne", "Cees"]
    assert new.first_dealer == "Cees"  # the winner deals
    assert new.rules == session.rules
    assert (new.table_label, new.season, new.status) == ("Tafel 3", season, "running")
    # One tap to start: the new game's page has its round panel ready.
    assert 'aria-label="Toep: Cees"' in scorer.get(tablet(new)).content.decode()


def test_a_second_tap_on_nieuw_spel_opens_the_same_new_game(scorer, session):
    play_rounds(session, ["Anne"])
    finish(scorer, session)
    first = again(scorer, session)
    second = again(scorer, session)
    assert first["Location"] == second["Location"]
    assert Session.objects.count() == 2


def test_after_closing_time_the_one_ahead_deals(scorer, session):
    play_rounds(session, ["Bas", "Bas", "Cees"])  # Bas has 1 point, the others 2 or 3
    finish(scorer, session)
    again(scorer, session)
    assert Session.objects.exclude(pk=session.pk).get().first_dealer == "Bas"


def test_the_next_pot_game_keeps_the_pot_games_rules(scorer, club, people):
    session = make_session(club, players=["Anne", "Bas", "Cees"], game="pot")
    record(session, "bid", "Anne", bid=100)
    record(session, "bid", "Bas", bid="fold")
    record(session, "bid", "Cees", bid="fold")
    record(session, "win", "Anne")
    finish(scorer, session)
    assert Session.objects.get(pk=session.pk).status == "finished"
    again(scorer, session)
    new = Session.objects.exclude(pk=session.pk).get()
    assert (new.game, new.rules, seats(new)) == ("pot", session.rules, ["Anne", "Bas", "Cees"])


def test_a_running_game_offers_no_next_one_and_refuses_it(scorer, session):
    play_rounds(session, ["Anne"])
    assert "Nieuw spel, zelfde spelers" not in scorer.get(tablet(session)).content.decode()
    response = again(scorer, session)
    assert response.status_code == 302
    assert response["Location"] == tablet(session)
    assert Session.objects.count() == 1


def test_a_tablet_with_the_scorer_link_scores_the_next_game_too(client, session):
    play_rounds(session, ["Anne"])
    services.session_finish(session=session)
    assert client.get(reverse("scorer_link", args=[session.scorer_token])).status_code == 302
    response = again(client, session)
    new = Session.objects.exclude(pk=session.pk).get()
    assert response["Location"] == tablet(new)
    assert client.get(tablet(new)).status_code == 200


def test_the_next_game_plays_in_the_running_season_when_the_old_one_has_ended(scorer, club, people):
    today = evening_day()
    old = Season.objects.create(
        club=club, name="Oud", starts_on=today - datetime.timedelta(days=90),
        ends_on=today - datetime.timedelta(days=1),
    )  # fmt: skip
    running = Season.objects.create(club=club, name="Nu", starts_on=today)
    session = make_session(club, season=old)
    play_rounds(session, ["Anne"])
    finish(scorer, session)
    again(scorer, session)
    assert Session.objects.exclude(pk=session.pk).get().season == running


# --- the new-game form -------------------------------------------------------------------------


def selected_season(html: str) -> str:
    select = html[html.index('name="season"') :]
    select = select[: select.index("</select>")]
    match = re.search(r'<option value="(\d*)" selected>', select)
    return match.group(1) if match else ""


def test_the_new_game_form_defaults_to_the_clubs_running_season(scorer, club):
    today = evening_day()
    Season.objects.create(
        club=club, name="Vorig", starts_on=today - datetime.timedelta(days=200),
        ends_on=today - datetime.timedelta(days=100),
    )  # fmt: skip
    running = Season.objects.create(
        club=club, name="Winter", starts_on=today - datetime.timedelta(days=10)
    )
    Season.objects.create(club=club, name="Later", starts_on=today + datetime.timedelta(days=30))
    html = scorer.get(reverse("session_new")).content.decode()
    assert selected_season(html) == str(running.pk)


def test_without_a_running_season_the_new_game_form_chooses_none(scorer, club):
    today = evening_day()
    Season.objects.create(
        club=club, name="Vorig", starts_on=today - datetime.timedelta(days=200),
        ends_on=today - datetime.timedelta(days=100),
    )  # fmt: skip
    assert selected_season(scorer.get(reverse("session_new")).content.decode()) == ""
