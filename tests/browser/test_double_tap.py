"""A double tap on a round's winner, in real Chromium: the round's result shows for a moment
and the next round's buttons (the same button in the same spot) take taps only after it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.outbox import button, drained, events, make_table, open_tablet

pytestmark = pytest.mark.browser


@pytest.fixture
def tablet(context):
    return context.new_page()


@pytest.mark.parametrize("gap_ms", [100, 250, 400])
def test_a_double_tap_on_a_winner_records_one_round(tablet, live_server, gap_ms):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    box = button(tablet, "Laatste slag: Anne").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    tablet.mouse.click(x, y)
    tablet.wait_for_timeout(gap_ms)
    tablet.mouse.click(x, y)  # the same spot: round 2's "Anne" once round 1 is drawn
    expect(tablet.locator("#round-flash")).to_have_text("Ronde 1: Anne wint — inzet 1")
    tablet.wait_for_timeout(700)
    drained(tablet)
    assert events(session) == [("win", "Anne")]

    # After the moment the next round takes taps as ever, in the same spot.
    tablet.mouse.click(x, y)
    expect(tablet.locator("#round-flash")).to_have_text("Ronde 2: Anne wint — inzet 1")
    drained(tablet)
    assert events(session) == [("win", "Anne"), ("win", "Anne")]
