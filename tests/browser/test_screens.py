"""One screen, no scrolling: what the scorer, the phones and the TV need is in view.

In real Chromium at the sizes people use: a tablet in portrait (768 x 1024) and landscape
(1024 x 768) and a laptop (1280 x 800) with 4 and with 8 players show the round panel, the
winner buttons and every player's total without scrolling; a phone (375 x 812) shows all 8
totals of the viewer and the standings' points without scrolling sideways; the TV (1920 x 1080)
shows the evening's 10 tables with every total. axe-core (tests/browser/vendor, injected into
the page under test only) finds no text with too little contrast. Each screen is saved in
test-artifacts/screenshots/screen-*.png to look at.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring import access
from scoring.days import evening_day
from scoring.lei import services
from scoring.models import Club, ClubMembership, Season, Session
from tests.browser.pages import contrast_problems
from tests.builders import record

pytestmark = pytest.mark.browser

LONG = "Maximiliaan van Oldenbarnevelt"  # a name longer than any column: shortened, not cut
EIGHT = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Femke", "Gijs", LONG]
SIZES = {
    "portrait": {"width": 768, "height": 1024},
    "landscape": {"width": 1024, "height": 768},
    "laptop": {"width": 1280, "height": 800},
}


def club_with_season() -> tuple[Club, Season]:
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    season = Season.objects.create(
        club=club, name="Winter", starts_on=timezone.localdate() - datetime.timedelta(days=30)
    )
    return club, season


def table(club: Club, players: list[str], season: Season | None = None, **options) -> Session:
    """A game a few rounds in, everybody with points, and a knock being answered: the round
    panel at its fullest (each player's Mee and Weg besides Toep)."""
    session = services.session_start(club=club, players=players, season=season, **options)
    for winner in players[1:4]:
        record(session, "win", winner)
    record(session, "knock", players[0])
    session.refresh_from_db()
    return session


def open_tablet(page, base_url: str, session: Session) -> None:
    page.goto(base_url + reverse("scorer_link", args=[session.scorer_token]))
    page.wait_for_selector("#panel")


def boxes_outside(page, selector: str) -> list[str]:
    """The elements of ``selector`` (each visible one) that are not wholly in the viewport,
    without scrolling; "none" when nothing matches."""
    return page.evaluate(
        """(selector) => {
            const out = [], w = window.innerWidth, h = window.innerHeight;
            const found = [...document.querySelectorAll(selector)]
                .filter(e => e.getClientRects().length);
            if (!found.length) return ["none: " + selector];
            for (const e of found) {
                const r = e.getBoundingClientRect();
                if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5)
                    out.push(`${selector} "${e.textContent.trim().slice(0, 30)}" at ` +
                             `${Math.round(r.left)},${Math.round(r.top)}-` +
                             `${Math.round(r.right)},${Math.round(r.bottom)} in ${w}x${h}`);
            }
            return out;
        }""",
        selector,
    )


def scrolls_sideways(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth"
    )


def clipped_names(page, selector: str) -> list[str]:
    """Names in ``selector`` that do not fit and are not shortened with an ellipsis."""
    return page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
            .filter(e => e.scrollWidth > e.clientWidth + 1 &&
                         getComputedStyle(e).textOverflow !== "ellipsis")
            .map(e => e.textContent.trim())""",
        selector,
    )


def shoot(page, screenshot_dir: Path, name: str) -> None:
    page.screenshot(path=screenshot_dir / f"screen-{name}.png")


@pytest.mark.parametrize("players", [4, 8])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_tablet_shows_panel_winner_buttons_and_every_total_without_scrolling(
    strict_screen, base_url, screenshot_dir, size, players
):
    club, season = club_with_season()
    session = table(club, EIGHT[:players] if players == 8 else [*EIGHT[:3], LONG], season)
    page = strict_screen(SIZES[size])
    open_tablet(page, base_url, session)
    shoot(page, screenshot_dir, f"tablet-{size}-{players}")
    outside = []
    for selector in (
        "#panel .round-panel__head",
        ".round-panel__player",
        'form[data-ends-round] button[name="player"]',
        "#totals li",
        "#panel",
    ):
        outside += boxes_outside(page, selector)
    assert outside == []
    assert page.locator("#totals li").count() == players
    assert not scrolls_sideways(page)
    assert clipped_names(page, ".totals__name, .round-panel__player-name") == []
    assert contrast_problems(page) == []


def test_the_tablet_in_the_dark_keeps_its_contrast(strict_screen, base_url, screenshot_dir):
    club, season = club_with_season()
    session = table(club, EIGHT[:4], season)
    services.round_replace_events(
        session=session, number=1, events=[{"type": "win", "player": "Cees"}]
    )
    page = strict_screen(SIZES["portrait"], scheme="dark")
    open_tablet(page, base_url, session)
    page.locator("#sheet").scroll_into_view_if_needed()
    shoot(page, screenshot_dir, "tablet-dark")
    assert contrast_problems(page) == []


def test_a_finished_game_shows_akkoord_then_nieuw_spel_in_view(
    strict_screen, base_url, screenshot_dir
):
    club, season = club_with_season()
    session = services.session_start(
        club=club, players=EIGHT[:4], season=season, overrides={"max_points": 3}
    )
    while Session.objects.get(pk=session.pk).status == "running":
        record(session, "win", "Anne")
    page = strict_screen(SIZES["landscape"])
    open_tablet(page, base_url, session)
    assert boxes_outside(page, "#akkoord button") == []
    page.get_by_role("button", name="Iedereen akkoord").click()
    page.locator(".again button").wait_for()
    shoot(page, screenshot_dir, "tablet-finished")
    assert boxes_outside(page, ".again button") == []
    assert boxes_outside(page, "#totals li") == []
    assert contrast_problems(page) == []


@pytest.mark.parametrize("tv", [False, True])
def test_the_phone_viewer_shows_all_eight_totals_without_scrolling_sideways(
    strict_screen, base_url, screenshot_dir, tv
):
    club, season = club_with_season()
    session = table(club, EIGHT, season)
    services.round_replace_events(
        session=session, number=2, events=[{"type": "win", "player": "Anne"}]
    )
    page = strict_screen({"width": 375, "height": 812})
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    page.goto(base_url + viewer + ("?tv=1" if tv else ""))
    shoot(page, screenshot_dir, f"viewer-phone{'-tv' if tv else ''}")
    assert boxes_outside(page, "#totals li") == []
    assert not scrolls_sideways(page)
    assert clipped_names(page, ".totals__name") == []
    assert page.locator(".badge--fixed").count() == 1  # round 2 was corrected
    assert contrast_problems(page) == []


def test_the_tv_shows_one_tables_totals_and_its_newest_rounds(
    strict_screen, base_url, screenshot_dir
):
    club, season = club_with_season()
    session = table(club, EIGHT, season)
    page = strict_screen({"width": 1920, "height": 1080})
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    page.goto(base_url + viewer + "?tv=1")
    shoot(page, screenshot_dir, "viewer-tv")
    assert boxes_outside(page, "#totals li") == []
    assert boxes_outside(page, "#sheet tbody tr:nth-child(2)") == []  # the last round played
    assert not scrolls_sideways(page)
    assert contrast_problems(page) == []


def test_the_standings_show_the_points_on_a_phone(strict_screen, base_url, screenshot_dir):
    club, season = club_with_season()
    for _ in range(2):
        session = table(club, EIGHT, season)
        services.session_finish(session=session)
    page = strict_screen({"width": 375, "height": 812})
    page.goto(base_url + reverse("league_season", args=[club.slug, season.pk]))
    shoot(page, screenshot_dir, "standings-phone")
    # The page's links and notes above the table may push it below the fold: scrolled to it,
    # every row's points and name must be on the phone's screen, none cut off at the side.
    page.evaluate("() => document.getElementById('standings').scrollIntoView()")
    header = page.get_by_role("columnheader", name="Punten")
    column = page.evaluate(
        "(h) => [...h.parentElement.children].indexOf(h) + 1", header.element_handle()
    )
    assert boxes_outside(page, f"#standings tr > :nth-child({column})") == []
    assert boxes_outside(page, "#standings tbody tr > :nth-child(2)") == []  # the names
    assert not scrolls_sideways(page)
    assert contrast_problems(page) == []


def test_the_tv_shows_ten_tables_of_an_evening_with_every_total(
    strict_screen, base_url, screenshot_dir
):
    club, season = club_with_season()
    for number in range(1, 11):
        players = EIGHT[: 4 + number % 5]  # 4 to 8 at a table
        session = table(club, players, season, table_label=f"Tafel {number}")
        if number % 3 == 0:
            services.session_finish(session=session)
    page = strict_screen({"width": 1920, "height": 1080})
    day = evening_day().isoformat()
    page.goto(base_url + reverse("league_evening", args=[club.slug, day]))
    shoot(page, screenshot_dir, "evening-tv")
    assert page.locator("#evening-tables > section").count() == 10
    assert boxes_outside(page, "#evening-tables > section") == []
    assert boxes_outside(page, "#evening-tables .sheet__total") == []
    assert not scrolls_sideways(page)
    assert clipped_names(page, "#evening-tables .evening__name") == []
    assert contrast_problems(page) == []


def test_the_round_editor_fits_a_tablet(strict_screen, base_url, screenshot_dir):
    club, season = club_with_season()
    session = table(club, EIGHT, season)
    page = strict_screen(SIZES["portrait"])
    open_tablet(page, base_url, session)
    page.get_by_role("link", name="Ronde 3 verbeteren").click()
    page.wait_for_selector("#editor form")
    # Only the fields of the row's kind: a win has "met boer", four of a kind its rank.
    jack, rank = page.locator('[name="events-0-jack"]'), page.locator('[name="events-0-rank"]')
    assert jack.is_visible()
    assert not rank.is_visible()
    page.select_option('[name="events-0-type"]', "four_of_a_kind")
    assert rank.is_visible()
    assert not jack.is_visible()
    page.select_option('[name="events-0-type"]', "win")
    page.locator("#editor").scroll_into_view_if_needed()
    shoot(page, screenshot_dir, "round-editor")
    assert not scrolls_sideways(page)
    assert page.evaluate(
        "() => [...document.querySelectorAll('#editor *')]"
        ".every(e => e.getBoundingClientRect().right <= window.innerWidth + 0.5)"
    )
    small = page.evaluate(
        """() => [...document.querySelectorAll(
                '#editor button, #editor select, #editor input:not([type=hidden]), #editor a,'
                + ' #sheet a')]
            .filter(e => e.getClientRects().length)
            // A checkbox is tapped through its label.
            .map(e => e.type === "checkbox" ? e.closest("label") : e)
            .map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
            .filter(([, r]) => r.height < 44 || r.width < 44).map(([h]) => h)"""
    )
    assert small == []
    assert contrast_problems(page) == []


def test_the_new_game_form_has_beginnen_in_view(
    strict_screen, base_url, screenshot_dir, django_user_model
):
    club, season = club_with_season()
    user = django_user_model.objects.create_user("teller", password="geheim-wachtwoord")
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    page = strict_screen(SIZES["portrait"])
    page.goto(base_url + reverse("login"))
    page.fill('input[name="username"]', "teller")
    page.fill('input[name="password"]', "geheim-wachtwoord")
    page.get_by_role("button", name="Inloggen").click()
    page.wait_for_url(base_url + "/")
    page.goto(base_url + reverse("session_new"))
    shoot(page, screenshot_dir, "new-game")
    assert boxes_outside(page, 'button[aria-label="Het spel beginnen"]') == []
    assert page.locator('select[name="season"]').input_value() == str(season.pk)
    assert contrast_problems(page) == []
