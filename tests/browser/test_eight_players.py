"""Eight players, one screen, every state, in real Chromium at a tablet's two ways round and a
laptop's size: with long names, a knock open, a notice and the offline strip showing, every
tap target above the sheet is on the screen and not under anything ("Meer", "Ongedaan maken"
and the winner buttons without scrolling); the sheet fits its box without scrolling sideways
(a compact column layout); the viewer and the single-table TV show all eight columns. Each
state is saved in test-artifacts/screenshots/eight-*.png to look at."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring import access
from tests.browser.layout import (
    EIGHT,
    SIZES,
    button,
    columns_outside,
    full_table,
    open_tablet,
    screen,
    scrolls_sideways,
    tap_answered,
    tap_offline,
    unreachable,
)
from tests.browser.pages import contrast_problems

pytestmark = pytest.mark.browser

__all__ = ["screen"]
UNDO = "Ongedaan maken: de laatste tik terugnemen"


def fits(page, screenshot_dir, name: str) -> None:
    page.screenshot(path=screenshot_dir / f"eight-{name}.png")
    for needed in (UNDO, *(f"Laatste slag: {p}" for p in EIGHT if p != "Cees")):
        expect(button(page, needed)).to_be_visible()
    expect(page.locator("#more > summary")).to_be_visible()
    assert unreachable(page) == []
    assert not scrolls_sideways(page)
    assert not scrolls_sideways(page, "#sheet")
    assert columns_outside(page) == []
    assert contrast_problems(page) == []


@pytest.mark.parametrize("size", list(SIZES))
def test_eight_players_fit_the_tablet_in_every_state(screen, base_url, screenshot_dir, size):
    page = screen(SIZES[size])
    open_tablet(page, base_url, full_table(knock=False))
    fits(page, screenshot_dir, f"{size}-begin")

    tap_answered(page, "Toep: Anne")  # every player's Toep, Mee and Weg
    fits(page, screenshot_dir, f"{size}-knock")

    tap_answered(page, "Weg: Cees")
    tap_answered(page, UNDO)
    expect(page.locator("#undone")).to_be_visible()
    fits(page, screenshot_dir, f"{size}-notice")

    page.context.set_offline(True)  # the strip, the notice and every offline button
    tap_offline(page, "Weg: Cees")
    tap_offline(page, "Mee: Dirk")
    expect(page.locator("#undone")).to_be_visible()
    fits(page, screenshot_dir, f"{size}-offline")
    page.context.set_offline(False)
    expect(page.locator("html")).to_have_attribute("data-taps-waiting", "0")


# The single-table TV at the three sizes and a TV's own; the viewer where its sheet was too wide
# (from 1280 px on it fitted already).
VIEWERS = [(size, True) for size in [*SIZES, "1920x1080"]] + [
    ("768x1024", False),
    ("1024x768", False),
]


@pytest.mark.parametrize(
    ("size", "tv"), VIEWERS, ids=[f"{s}-{'tv' if tv else 'viewer'}" for s, tv in VIEWERS]
)
def test_the_viewer_shows_all_eight_columns(screen, base_url, screenshot_dir, size, tv):
    session = full_table()
    width, height = (int(n) for n in size.split("x"))
    page = screen({"width": width, "height": height})
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    page.goto(base_url + viewer + ("?tv=1" if tv else ""))
    page.wait_for_selector("#sheet")
    page.screenshot(path=screenshot_dir / f"eight-{'tv' if tv else 'viewer'}-{size}.png")
    assert page.locator("#sheet thead th").count() == 9  # the rounds' column and eight
    assert columns_outside(page) == []
    assert not scrolls_sideways(page)
    assert not scrolls_sideways(page, "#sheet")
    assert contrast_problems(page) == []
