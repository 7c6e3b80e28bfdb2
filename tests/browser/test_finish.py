"""The end of a game in Chromium: two taps to end it, a game without a finished round thrown
away with the tablet sent home, and the next game with the same players in one tap."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring.lei import services
from scoring.models import Club, Session
from tests.builders import record

pytestmark = pytest.mark.browser


def open_tablet(page, base_url: str, session: Session) -> None:
    page.goto(base_url + reverse("scorer_link", args=[session.scorer_token]))
    page.wait_for_selector("#panel")


def ask_to_end(page) -> None:
    page.locator("#more > summary").click()
    page.locator("#finish > summary").click()


def test_ending_a_played_game_takes_two_taps_and_offers_the_next_one(page, base_url):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    record(session, "win", "Bas")
    open_tablet(page, base_url, session)
    ask_to_end(page)
    expect(page.locator("#finish-question")).to_contain_text("einduitslag")
    session.refresh_from_db()
    assert session.status == "running"  # the first tap only asked
    page.get_by_role("button", name="Ja, het spel beëindigen").click()
    expect(page.locator("#panel")).to_contain_text("Uitgespeeld")
    assert Session.objects.get(pk=session.pk).status == "finished"

    page.get_by_role("button", name="Iedereen akkoord").click()  # the table answers first
    page.get_by_role("button", name="Nieuw spel, zelfde spelers").click()
    page.wait_for_url(lambda url: f"/sessies/{session.pk}/" not in url)
    expect(page.get_by_role("button", name="Toep: Anne", exact=True)).to_be_visible()
    new = Session.objects.exclude(pk=session.pk).get()
    assert new.first_dealer == "Bas"
    assert page.url.endswith(reverse("tablet", args=[new.pk]))


def test_ending_a_game_without_a_finished_round_throws_it_away_and_goes_home(page, base_url):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    record(session, "knock", "Anne")
    open_tablet(page, base_url, session)
    ask_to_end(page)
    expect(page.locator("#finish-question")).to_contain_text("weggegooid")
    page.get_by_role("button", name="Ja, het spel weggooien").click()
    page.wait_for_url(base_url + "/")
    expect(page.get_by_role("status").filter(has_text="Het spel is weggegooid")).to_be_visible()
    assert not Session.objects.filter(pk=session.pk).exists()
