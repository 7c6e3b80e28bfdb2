"""The organiser's check-in in real Chromium: a pasted list shown before it is saved, at a
laptop's and a tablet's size (no name outside the page, nothing wider than the screen), and a
walk-in named like a member asked about, both answers, without a console error."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.models import Club, ClubMembership, Player, TournamentEntry
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.browser.pages import LAPTOP, TABLET, console_errors, login

pytestmark = pytest.mark.browser

DAY = datetime.date(2026, 11, 27)
LIST = """Anne
  fleur van dam
Bas
Wilhelmina van Oldenbarnevelt-Schimmel
bas
Gijs
Cees"""


@pytest.fixture
def night(db):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    people = {n: Player.objects.create(club=club, name=n) for n in ("Anne", "Bas", "Cees")}
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", date=DAY)
    other = tournaments.tournament_create(club=club, name="Bovenzaal", date=DAY)
    checkin.tournament_check_in(tournament=other, players=[people["Cees"]])
    return tournament, people


def fits_the_screen(page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for box in page.locator(".paste-plan__name").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)"
    ):
        assert box <= width


@pytest.mark.parametrize("size", [LAPTOP, TABLET], ids=["1280x800", "768x1024"])
def test_a_pasted_list_is_shown_then_saved_whole(browser, base_url, screenshot_dir, night, size):
    tournament, _people = night
    context = browser.new_context(viewport=size, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/aanmelden/")
    page.get_by_role("link", name="Een lijst met namen plakken").click()
    label = page.get_by_label("Plak een lijst met namen, één per regel")
    expect(label).to_be_visible()
    tag = f"{size['width']}x{size['height']}"
    page.screenshot(path=screenshot_dir / f"paste-empty-{tag}.png", full_page=True)

    # A duplicate line: explained, no way to save.
    label.fill(LIST)
    page.get_by_role("button", name="Bekijken").click()
    expect(page.locator("#paste-problems")).to_contain_text("Regel 5, “Bas”: staat al op regel 3")
    expect(page.locator("#paste-save")).to_have_count(0)
    fits_the_screen(page)
    page.screenshot(path=screenshot_dir / f"paste-problem-{tag}.png", full_page=True)

    # Mended: the plan, then saved.
    page.get_by_label("Plak een lijst met namen, één per regel").fill(LIST.replace("\nbas\n", "\n"))
    page.get_by_role("button", name="Opnieuw bekijken").click()
    rows = page.locator(".paste-plan__lines tbody tr")
    expect(rows).to_have_count(6)
    expect(page.locator("#paste-plan")).to_contain_text("let op: speelt vanavond ook in Bovenzaal")
    fits_the_screen(page)
    page.screenshot(path=screenshot_dir / f"paste-plan-{tag}.png", full_page=True)
    assert TournamentEntry.objects.filter(tournament=tournament).count() == 0
    page.get_by_role("button", name="6 namen aanmelden").click()
    expect(page.locator(".checkin__count")).to_have_text("6 spelers spelen mee")
    expect(page.get_by_text("Let op: Cees speelt vanavond ook in Bovenzaal.")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"paste-saved-{tag}.png", full_page=True)
    assert errors == []
    context.close()


def test_a_walk_in_named_like_a_member_is_asked_about(browser, base_url, screenshot_dir, night):
    tournament, _people = night
    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/aanmelden/")
    guest = page.get_by_label("Naam van de gast")
    guest.fill(" anne ")
    guest.press("Enter")
    question = page.locator("#walk-in-question")
    expect(question).to_contain_text("Is dit Anne (lid)?")
    page.screenshot(path=screenshot_dir / "walk-in-question-768x1024.png", full_page=True)
    page.get_by_label("Naam van de nieuwe gast").fill("Anne de Wit")
    page.get_by_role("button", name="Nee, een nieuwe gast").click()
    expect(page.locator(".present-list")).to_contain_text("Anne de Wit")
    expect(question).to_have_count(0)
    page.get_by_label("Naam van de gast").fill("ANNE")
    page.get_by_label("Naam van de gast").press("Enter")
    page.get_by_role("button", name="Ja, dat is Anne").click()
    expect(page.locator(".checkin__count")).to_have_text("2 spelers spelen mee")
    names = set(
        TournamentEntry.objects.filter(tournament=tournament).values_list("player__name", flat=True)
    )
    assert names == {"Anne", "Anne de Wit"}
    assert errors == []
    context.close()


def test_a_tap_after_the_login_ran_out_says_so_and_leads_back(
    browser, base_url, screenshot_dir, night
):
    """The toggles are sent by htmx, which shows nothing of a 403: the organiser whose login
    ran out tapped and nothing happened. Now the page says why and nothing was saved, and the
    login leads back to the check-in."""
    tournament, people = night
    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    checkin_url = f"{base_url}/toernooi/{tournament.pk}/aanmelden/"
    page.goto(checkin_url)
    context.clear_cookies(name="sessionid")  # the login ran out
    page.locator('[data-player="Anne"]').click()
    expect(page.locator("#refusal")).to_be_visible()
    expect(page.locator("#content")).to_contain_text("Er is niets opgeslagen.")
    page.screenshot(path=screenshot_dir / "checkin-login-ran-out-tablet.png")
    assert not TournamentEntry.objects.filter(tournament=tournament).exists()
    page.locator("#login-again").click()
    page.fill("#id_username", "organisator")
    page.fill("#id_password", "geheim-genoeg-1")
    page.get_by_role("button", name="Inloggen", exact=True).click()
    expect(page).to_have_url(checkin_url)
    page.locator('[data-player="Anne"]').click()
    expect(page.locator('[data-player="Anne"]')).to_have_attribute("aria-pressed", "true")
    assert TournamentEntry.objects.filter(tournament=tournament, player=people["Anne"]).exists()
    assert [e for e in errors if "403" not in e] == []
