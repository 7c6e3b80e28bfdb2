"""After a game the tablet asks "klopt de eindstand?" first; the next game comes after."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.pages import SIZES, open_finished_game

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", SIZES)
def test_the_table_says_akkoord_before_it_is_offered_the_next_game(
    page, base_url, screenshot_dir, size
):
    width, height = size
    open_finished_game(page, base_url, width, height)

    again = page.get_by_role("button", name="Nieuw spel, zelfde spelers")
    expect(page.locator("#akkoord-question")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"tablet-akkoord-asked-{width}x{height}.png")
    expect(again).to_have_count(0)

    page.get_by_role("button", name="Iedereen akkoord").click()
    answer = page.locator("#akkoord [role=status]")
    expect(answer).to_contain_text("Iedereen akkoord")
    expect(again).to_be_visible()
    page.screenshot(path=screenshot_dir / f"tablet-akkoord-answered-{width}x{height}.png")
    assert again.bounding_box()["y"] > answer.bounding_box()["y"]
