"""A double tap on a round's winner, in real Chromium: the round's result shows for a moment
and the next round's buttons (the same button in the same spot) take taps only after it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.outbox import button, drained, events, make_table, open_tablet

pytestmark = pytest.mark.browser


# The gap between the two taps is what is tested, and it stays real time: in it the first
# tap's answer may come back and be drawn (the same button in the same spot becomes round 2's),
# which Playwright's clock cannot move. Written out per gap, so that tests/site/
# test_tests_shape.py counts them (0.75 s in all).
GAPS = {
    "100ms": lambda page: page.wait_for_timeout(100),
    "250ms": lambda page: page.wait_for_timeout(250),
    "400ms": lambda page: page.wait_for_timeout(400),
}


@pytest.mark.parametrize("gap", GAPS.values(), ids=GAPS.keys())
def test_a_double_tap_on_a_winner_records_one_round(tablet, live_server, gap):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    box = button(tablet, "Laatste slag: Anne").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    tablet.mouse.click(x, y)
    gap(tablet)
    tablet.mouse.click(x, y)  # the same spot: round 2's "Anne" once round 1 is drawn
    expect(tablet.locator("#round-flash")).to_have_text("Ronde 1: Anne wint — inzet 1")
    drained(tablet)
    assert events(session) == [("win", "Anne")]

    # After the moment (lei.js lifts .is-settling) the next round takes taps as ever, in the
    # same spot.
    tablet.wait_for_selector("#panel:not(.is-settling)", state="attached")
    tablet.mouse.click(x, y)
    expect(tablet.locator("#round-flash")).to_have_text("Ronde 2: Anne wint — inzet 1")
    drained(tablet)
    assert events(session) == [("win", "Anne"), ("win", "Anne")]
