"""The wall and the clock in real Chromium: the seating sheet prints on one A4 with every name
inside its table, and the TV counts the round timer down by itself (static/js/clock.js) with
no console error, so nothing the CSP forbids."""

from __future__ import annotations

import datetime
import itertools
import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from scoring.models import Club, ClubMembership, Player, Series, Tournament
from scoring.toernooi import checkin, clock
from scoring.toernooi import services as tournaments
from tests.browser.pages import FIRST, LAST, TABLET, TV, console_errors, login

pytestmark = pytest.mark.browser

A4_POINTS = (595.3, 841.9)  # 210 x 297 mm


def long_names(count: int) -> list[str]:
    pairs = itertools.product(LAST, FIRST)
    return [f"{first} {last}" for last, first in itertools.islice(pairs, count)]


def organiser_of(club: Club) -> None:
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")


@pytest.mark.parametrize("count", [26, 60, 100])
def test_the_seating_sheet_prints_on_one_a4_with_every_name_inside_its_table(
    browser, base_url, screenshot_dir, count
):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    players = [Player.objects.create(club=club, name=n) for n in long_names(count)]
    organiser_of(club)
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=3)
    checkin.tournament_check_in(tournament=tournament, players=players)
    tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)

    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/")
    page.get_by_role("link", name="Indeling om op te hangen (A4)").click()
    expect(page.locator(".seating")).to_be_visible()
    tables = page.locator(".seating__table").count()
    assert page.locator(".seating__table li").count() == count
    page.screenshot(path=screenshot_dir / f"toernooi-seating-{count}-tablet.png", full_page=True)

    pdf = page.pdf(
        path=str(screenshot_dir / f"toernooi-seating-{count}-a4.pdf"), prefer_css_page_size=True
    )
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert pages == 1, f"{count} players, {tables} tables: {pages} pages"
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert boxes
    for w, h in boxes:
        assert abs(float(w) - A4_POINTS[0]) < 1
        assert abs(float(h) - A4_POINTS[1]) < 1

    # As printed (A4 at 96 dpi, less the margins): no name runs out of its table's box.
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 794, "height": 1123})
    page.screenshot(path=screenshot_dir / f"toernooi-seating-{count}-a4-print.png")
    outside = page.evaluate(
        """() => [...document.querySelectorAll('.seating__table')].flatMap(table => {
          const box = table.getBoundingClientRect();
          return [...table.querySelectorAll('h2, li')].filter(el => {
            const r = el.getBoundingClientRect();
            return r.left < box.left - 0.5 || r.right > box.right + 0.5
              || el.scrollWidth > el.clientWidth + 1;
          }).map(el => el.textContent);
        })"""
    )
    assert outside == []
    context.close()
    assert errors == []


def test_the_organiser_starts_the_clock_and_the_tv_counts_it_down_by_itself(
    browser, base_url, screenshot_dir
):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    players = [Player.objects.create(club=club, name=n) for n in long_names(13)]
    organiser_of(club)
    tournament = tournaments.tournament_create(
        club=club,
        name="Zomeravond",
        series_count=2,
        end_mode=Tournament.EndMode.TIME,
        end_time=datetime.time(22, 30),
    )
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    tournaments.series_start(series=series)

    organiser = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(organiser)
    page = organiser.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/")
    page.fill("#clock-minutes", "25")
    page.get_by_role("button", name="Klok starten").click()
    expect(page.locator(".notices")).to_contain_text("De klok loopt: 25 minuten.")
    expect(page.locator(".clock-panel [data-clock-text]")).to_have_text(re.compile(r"^2[45]:"))
    page.screenshot(path=screenshot_dir / "toernooi-series-clock-tablet.png", full_page=True)

    room = browser.new_context(viewport=TV, locale="nl-NL")
    errors_tv = console_errors(room)
    tv = room.new_page()
    tv.goto(f"{base_url}/club/{club.slug}/toernooi/{tournament.pk}/tv/")
    shown = tv.locator("[data-clock-text]")
    expect(shown).to_have_text(re.compile(r"^2[45]:\d\d$"))
    first = shown.inner_text()
    # It counts by itself, between the board's polls.
    expect(shown).not_to_have_text(first, timeout=3_000)
    minutes, seconds = (int(part) for part in shown.inner_text().split(":"))
    assert 24 * 60 <= minutes * 60 + seconds < 25 * 60
    # Readable from 10 m: digits a tenth of the screen's height (the standings' letters, read
    # from there, are 3 %), all on the screen.
    size = tv.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.clock__time')).fontSize)"
    )
    assert size >= TV["height"] / 10 - 1
    box = tv.locator(".clock").bounding_box()
    assert box["x"] >= 0
    assert box["y"] >= 0
    assert box["x"] + box["width"] <= TV["width"]
    assert box["y"] + box["height"] <= TV["height"]
    tv.screenshot(path=screenshot_dir / "toernooi-tv-clock.png")

    # The organiser stops it; the TV's next poll takes it off.
    page.get_by_role("button", name="Klok stoppen").click()
    expect(page.locator(".notices")).to_contain_text("De klok is gestopt.")
    expect(tv.locator("[data-clock]")).to_have_count(0, timeout=20_000)

    # Two seconds left: the TV says the time is up by itself, without waiting for a poll.
    clock.series_clock_start(series=series, minutes=1)
    Series.objects.filter(pk=series.pk).update(
        clock_ends_at=timezone.now() + datetime.timedelta(seconds=2)
    )
    tv.reload()
    expect(tv.locator("[data-clock-up]")).to_be_hidden()
    expect(tv.locator("[data-clock-up]")).to_be_visible(timeout=4_000)
    expect(shown).to_have_text("0:00")
    tv.screenshot(path=screenshot_dir / "toernooi-tv-clock-up.png")
    organiser.close()
    room.close()
    assert errors == []
    assert errors_tv == []
