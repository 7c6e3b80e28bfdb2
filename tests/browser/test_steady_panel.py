"""Nothing moves under a finger: the round panel's buttons keep their size and place when a
notice appears, when a knock opens the answers, when the offline strip shows and when the
outbox stops at a refusal (each compared to the panel just before, within 4 px), in real
Chromium on a tablet in portrait with eight players, the fullest panel there is."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.layout import (
    SIZES,
    full_table,
    moved,
    open_tablet,
    screen,
    tap_answered,
    tap_offline,
    targets,
    unreachable,
)
from tests.builders import record

pytestmark = pytest.mark.browser

__all__ = ["screen"]  # the fixture, shared with the other layout tests
PORTRAIT = SIZES["768x1024"]
UNDO = "Ongedaan maken: de laatste tik terugnemen"


def test_an_undo_notice_moves_no_button(screen, base_url, screenshot_dir):
    page = screen(PORTRAIT)
    open_tablet(page, base_url, full_table())
    before = targets(page)
    tap_answered(page, "Weg: Cees")
    tap_answered(page, UNDO)
    expect(page.locator("#undone")).to_have_text("Weg van Cees ongedaan gemaakt.")
    page.screenshot(path=screenshot_dir / "steady-undo-notice.png")
    after = targets(page)
    assert sorted(after) == sorted(before)  # the same panel, and the notice
    assert moved(before, after) == []


def test_a_knock_opening_the_answers_moves_no_button(screen, base_url, screenshot_dir):
    page = screen(PORTRAIT)
    open_tablet(page, base_url, full_table(knock=False))
    before = targets(page)
    tap_answered(page, "Toep: Anne")
    page.screenshot(path=screenshot_dir / "steady-knock-open.png")
    after = targets(page)
    # A re-knock on Bas lands on Bas's Toep; Anne's own Toep (now "kan niet") stays put too.
    assert {"Toep: Bas", "Toep: Anne", "Laatste slag: Bas", "met boer"} <= before.keys()
    assert {"Mee: Bas", "Weg: Bas"} <= after.keys() - before.keys()
    assert moved(before, after) == []


def test_the_offline_strip_moves_no_button(screen, base_url, screenshot_dir):
    page = screen(PORTRAIT)
    open_tablet(page, base_url, full_table())
    before = targets(page)
    page.context.set_offline(True)
    tap_offline(page, "Weg: Cees")
    tap_offline(page, "Mee: Dirk")
    page.screenshot(path=screenshot_dir / "steady-offline-strip.png")
    assert moved(before, targets(page)) == []
    assert unreachable(page) == []

    page.context.set_offline(False)  # sent: the strip goes, Cees is out of the round
    expect(page.locator("html")).to_have_attribute("data-taps-waiting", "0")
    expect(page.locator("#outbox")).to_be_hidden()
    after = targets(page)
    assert "Weg: Cees" not in after
    assert moved(before, after) == []


def test_a_refusal_stopping_the_outbox_moves_and_covers_no_button(screen, base_url, screenshot_dir):
    session = full_table()
    page = screen(PORTRAIT)
    open_tablet(page, base_url, session)
    before = targets(page)
    record(session, "fold", "Dirk")  # meanwhile, on another tablet
    page.get_by_role("button", name="Weg: Cees", exact=True).click()
    expect(page.locator("html")).to_have_attribute("data-outbox-state", "stopped")
    page.screenshot(path=screenshot_dir / "steady-refusal.png")
    after = targets(page)
    assert "Weg: Dirk" not in after  # the lei as it is now: Dirk folded on the other tablet
    assert moved(before, after) == []
    assert unreachable(page) == []
