"""The ratings page and the player page's rating chart in Chromium, on a phone and a laptop:
nothing wider than the screen, the chart drawn. Screenshots in
test-artifacts/screenshots/ratings-*.png to look at."""

from __future__ import annotations

import datetime
import random

import pytest
from django.urls import reverse

from scoring.engine.simulate import random_session
from scoring.lei import services
from scoring.models import Club, Player

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 812}, "laptop": {"width": 1280, "height": 800}}
NAMES = ["Anne de Vries", "Bas", "Cees", "Dirk", "Eva", "Fleur", "Gijs", "Henk"]


@pytest.fixture
def rated_club(transactional_db):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    for name in NAMES:
        Player.objects.create(club=club, name=name, public_initials=name == "Dirk")
    Player.objects.create(club=club, name="Gast Karel", is_guest=True)
    rng = random.Random(3)
    skill = {n: 2.0 ** (len(NAMES) - i) / 16 for i, n in enumerate(NAMES)}
    for day in range(25):
        table = rng.sample([*NAMES, "Gast Karel"], 5)
        services.session_import(
            club=club,
            data=random_session(rng, table, rounds=2000, skill=skill),
            played_on=datetime.date(2026, 1, 1) + datetime.timedelta(days=day),
        )
    return club


@pytest.mark.parametrize("size", list(SIZES))
def test_the_ratings_and_the_rating_chart_fit_the_screen(
    browser, base_url, screenshot_dir, rated_club, size
):
    context = browser.new_context(viewport=SIZES[size], locale="nl-NL")
    page = context.new_page()
    page.goto(base_url + reverse("league_ratings", args=[rated_club.slug]))
    assert page.locator("#ratings tbody tr").count() == len(NAMES)
    assert page.locator("#ratings-guests tbody tr").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.screenshot(path=screenshot_dir / f"ratings-page-{size}.png", full_page=True)

    anne = Player.objects.get(name="Anne de Vries")
    page.goto(base_url + reverse("league_player", args=[rated_club.slug, anne.pk]))
    assert page.locator("#head-to-head tbody tr").count() > 3
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    chart = page.locator("#rating svg.lei-chart")
    assert chart.count() == 1
    box = chart.bounding_box()
    assert box["width"] > 200
    assert box["x"] + box["width"] <= SIZES[size]["width"]
    page.locator("#rating").screenshot(path=screenshot_dir / f"ratings-player-{size}.png")
    context.close()
