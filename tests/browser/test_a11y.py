"""Every key page usable by keyboard and screen reader, as axe-core judges it.

axe-core (tests/browser/vendor, injected into the page under test only, past the CSP) runs with
all its rules on the pages people use at the table and in the room: the tablet, the viewer, the
archive and a game in it, the season's standings, the ratings, the toernooi's TV, public
standings and prize list, a phone's check-in and the round editor. No violation of WCAG 2.x A
or AA may remain (tags wcag2a, wcag2aa, wcag21a, wcag21aa, wcag22aa), nor of the landmark
rules (every part of a page inside a landmark, one main). One page load per page; each page's
screenshot lands in test-artifacts/screenshots/a11y-*.png.

The focus outline meets WCAG 2.4.13 (3:1 against the cream page and the slate): axe does not
measure it, so this test does, on a focused link of the archive.
"""

from __future__ import annotations

import datetime
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring import access
from scoring.evening import services as evenings
from scoring.lei import services
from scoring.models import Season
from tests.browser.pages import AXE, console_errors, evening
from tests.builders import play_out, play_rounds

pytestmark = pytest.mark.browser

WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
LANDMARKS = {"region", "landmark-one-main", "landmark-unique", "page-has-heading-one"}

RUN = """async (wcag) => {
  const found = (await axe.run(document, {resultTypes: ["violations"]})).violations;
  return found.map((v) => ({id: v.id, impact: v.impact, tags: v.tags,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + n.failureSummary)}));
}"""


def violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, WCAG)


def failing(found: list[dict]) -> list[dict]:
    """The violations of WCAG A/AA and of the landmark rules."""
    return [v for v in found if set(v["tags"]) & set(WCAG) or v["id"] in LANDMARKS]


def contrast(a: str, b: str) -> float:
    def luminance(rgb: str) -> float:
        parts = [int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
        lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def focus_outline(page) -> tuple[str, float, str, str, str]:
    """The outline of the first thing a Tab reaches (the header's home link, on the slate),
    the colour behind it and the page's (the cream)."""
    page.keyboard.press("Tab")
    return tuple(
        page.evaluate(
            """() => {
                const e = document.activeElement, style = getComputedStyle(e);
                let behind = e.parentElement;
                while (getComputedStyle(behind).backgroundColor === "rgba(0, 0, 0, 0)")
                    behind = behind.parentElement;
                return [style.outlineStyle, parseFloat(style.outlineWidth), style.outlineColor,
                        getComputedStyle(behind).backgroundColor,
                        getComputedStyle(document.body).backgroundColor];
            }"""
        )
    )


def test_the_key_pages_have_no_wcag_a_or_aa_violation(browser, base_url, screenshot_dir):
    tournament = evening(9)
    club = tournament.club
    season = Season.objects.create(
        club=club, name="Winter", starts_on=timezone.localdate() - datetime.timedelta(days=30)
    )
    names = ["Anne", "Bas", "Cees", "Dirk"]
    done = services.session_start(club=club, players=names, season=season)
    play_out(done)
    running = services.session_start(club=club, players=names, season=season, table_label="1")
    play_rounds(running, ["Anne", "Bas", "Cees"])
    running.refresh_from_db()
    desk = evenings.evening_create(club=club)
    pages = {
        "tablet": reverse("scorer_link", args=[running.scorer_token]),
        "round-editor": reverse("round_edit", args=[running.pk, 2]),
        "viewer": reverse("viewer", args=[access.viewer_token(running.pk)]),
        "archive": reverse("league_archive", args=[club.slug]),
        "archived-game": reverse("league_session", args=[club.slug, done.pk]),
        "standings": reverse("league_season", args=[club.slug, season.pk]),
        "ratings": reverse("league_ratings", args=[club.slug]),
        "toernooi-tv": reverse("tournament_tv", args=[club.slug, tournament.pk]),
        "toernooi-public": reverse("tournament_standings", args=[club.slug, tournament.pk]),
        "checkin-phone": reverse("checkin_phone", args=[desk.checkin_token]),
    }
    # The CSP keeps axe out of the app's pages: bypassed in this context only.
    context = browser.new_context(
        viewport={"width": 1024, "height": 768}, locale="nl-NL", bypass_csp=True
    )
    context.set_default_timeout(10_000)
    errors = console_errors(context)
    page = context.new_page()
    problems = {}
    for name, url in pages.items():
        page.goto(base_url + url)
        page.screenshot(path=screenshot_dir / f"a11y-{name}.png", full_page=True)
        found = failing(violations(page))
        if found:
            problems[name] = found
        if name == "archive":
            outline = focus_outline(page)
    context.close()
    assert problems == {}, json.dumps(problems, indent=1)
    style, width, colour, behind, page_colour = outline
    assert style != "none", outline
    assert width >= 2, outline
    assert contrast(colour, behind) >= 3, outline
    assert contrast(colour, page_colour) >= 3, outline
    assert errors == []
