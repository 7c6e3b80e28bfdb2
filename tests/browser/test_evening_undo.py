"""Two organisers put a club evening's mistakes right at once, in Chromium against the app as
deployed: one draws round 1, the other's page from before the draw draws nothing twice; a
player signed out on one screen leaves the other's board, which was offline meanwhile and says
so; the draw is thrown away and drawn again without the signed-out player; and the second
organiser's page, still showing the first draw, throws the new one away not. Screenshots of
the confirm step at tablet and laptop size are left in test-artifacts/screenshots/
(``evening-undo-*``)."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring.evening import services
from scoring.models import ClubMembership, EveningTable, Seat
from tests.browser.pages import TABLET, console_errors, login

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans", "Ilse"]


def tables(evening) -> list[tuple[int, int, int]]:
    return list(EveningTable.objects.filter(evening=evening).values_list("round", "number", "pk"))


def test_two_organisers_undo_a_sign_in_and_a_draw(
    browser, base_url, screenshot_dir, club, django_user_model
):
    for username in ("beheer", "tweede"):
        user = django_user_model.objects.create_user(username, password="geheim-wachtwoord")
        ClubMembership.objects.create(user=user, club=club, role="admin")
    evening = services.evening_create(club=club)
    for name in NAMES:
        services.checkin_by_organiser(evening=evening, name=name)
    url = base_url + reverse("evening_page", args=[evening.pk])

    pages, errors = [], []
    for username, viewport in (("beheer", TABLET), ("tweede", LAPTOP)):
        context = browser.new_context(viewport=viewport, locale="nl-NL")
        context.set_default_timeout(10_000)
        errors += console_errors(context)
        page = context.new_page()
        login(page, base_url, username, "geheim-wachtwoord")
        page.goto(url)
        expect(page.locator("#board")).to_contain_text("9 spelers aangemeld")
        pages.append(page)
    first, second = pages

    # Both screens offer round 1; the first draws it, the second's tap draws nothing twice.
    first.get_by_role("button", name="Ronde 1 loten").click()
    expect(first.locator("body")).to_contain_text("Ronde 1 is geloot: 2 tafels.")
    second.get_by_role("button", name="Ronde 1 loten").click()
    expect(second.locator("body")).to_contain_text("Ronde 1 is al geloot")
    drawn = tables(evening)
    assert [(r, n) for r, n, _ in drawn] == [(1, 1), (1, 2)]

    # The second screen loses its connection; the first signs Ilse out.
    second.context.set_offline(True)
    expect(second.locator("#board [data-stale]")).to_be_visible(timeout=15_000)
    first.locator('[data-player="Ilse"]').get_by_role("button", name="Ilse afmelden").click()
    expect(first.locator("body")).to_contain_text("Ilse is afgemeld")
    expect(first.locator("#board")).to_contain_text("8 spelers aangemeld")
    second.context.set_offline(False)
    expect(second.locator("#board")).to_contain_text("8 spelers aangemeld", timeout=15_000)
    expect(second.locator("#board [data-stale]")).to_be_hidden()
    expect(second.locator('#board [data-player="Ilse"]')).to_have_count(0)
    # Ilse still sits at her table of round 1: that game is hers.
    assert Seat.objects.filter(session__evening_table__round=1, player__name="Ilse").exists()

    # The first organiser throws round 1 away, behind its confirm step, and draws it again.
    first.locator("#draw-discard summary").click()
    confirm = first.get_by_role("button", name="Ja, gooi de loting van ronde 1 weg")
    expect(confirm).to_be_visible()
    first.screenshot(path=screenshot_dir / "evening-undo-confirm-tablet.png", full_page=True)
    second.reload()
    second.locator("#draw-discard summary").click()
    second.screenshot(path=screenshot_dir / "evening-undo-confirm-laptop.png", full_page=True)
    confirm.click()
    expect(first.locator("body")).to_contain_text("De loting van ronde 1 is weggegooid (2 tafels)")
    assert tables(evening) == []
    first.get_by_role("button", name="Ronde 1 loten").click()
    expect(first.locator("body")).to_contain_text("Ronde 1 is geloot: 2 tafels.")
    again = tables(evening)
    assert not {pk for *_, pk in again} & {pk for *_, pk in drawn}
    assert not Seat.objects.filter(session__evening_table__round=1, player__name="Ilse").exists()

    # The second screen still shows the first draw's confirm step: it throws the new one away
    # not.
    second.get_by_role("button", name="Ja, gooi de loting van ronde 1 weg").click()
    expect(second.locator("body")).to_contain_text("Ronde 1 is intussen opnieuw geloot")
    assert tables(evening) == again
    assert not [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e]


def test_an_evening_started_on_the_wrong_day_is_put_right_on_a_phone(
    browser, base_url, screenshot_dir, club, django_user_model
):
    user = django_user_model.objects.create_user("beheer", password="geheim-wachtwoord")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    evening = services.evening_create(club=club, date=datetime.date(2026, 12, 29))
    for name in NAMES[:4]:
        services.checkin_by_organiser(evening=evening, name=name)
    services.evening_draw(evening=evening, expected_round=1, seed=1)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="nl-NL")
    context.set_default_timeout(10_000)
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "beheer", "geheim-wachtwoord")
    page.goto(base_url + reverse("evening_page", args=[evening.pk]))
    expect(page.locator("h1")).to_contain_text("29 december 2026")
    page.locator("#evening-date summary").click()
    page.get_by_label("Datum").fill("2026-11-29")
    page.screenshot(path=screenshot_dir / "evening-date-phone.png", full_page=True)
    page.get_by_role("button", name="Datum opslaan").click()
    expect(page.locator("body")).to_contain_text(
        "De clubavond en zijn 1 lei staan nu op 29 november 2026."
    )
    expect(page.locator("h1")).to_contain_text("29 november 2026")
    page.screenshot(path=screenshot_dir / "evening-date-phone-done.png")
    assert set(
        EveningTable.objects.filter(evening=evening).values_list("session__played_on", flat=True)
    ) == {datetime.date(2026, 11, 29)}
    assert errors == []
