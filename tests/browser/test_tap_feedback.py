"""What a scorer, and a screen reader, notice of an ordinary tap: nothing alarming while it is on
its way (the strip "nog niet verstuurd" only once a tap really waits), focus that stays on or
near what was tapped after the panel is drawn anew, and each result said in a polite live
region."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.models import Club
from tests.browser.outbox import button, drained, events
from tests.builders import make_session

pytestmark = pytest.mark.browser

TAPS = re.compile(r"/sessies/\d+/gebeurtenis/$")
# Whether the strip was ever shown since the page opened (it may show and hide between polls).
WATCH = """() => {
  window.__stripShown = false;
  const box = document.getElementById('outbox');
  new MutationObserver(() => { if (!box.hidden) { window.__stripShown = true; } })
    .observe(box, {attributes: true, childList: true});
}"""
FOCUSED = """() => {
  const el = document.activeElement;
  const form = el && el.closest('form');
  return {tag: el.tagName, label: el.getAttribute('aria-label') || el.textContent.trim(),
          player: form ? form.dataset.player || '' : ''};
}"""


@pytest.fixture
def game():
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    return make_session(club, ["Anne", "Bas", "Cees"])


def open_game(page, base_url, session) -> None:
    page.goto(f"{base_url}/tafel/{session.scorer_token}/")
    page.wait_for_selector("#round[data-version]")


def test_an_answered_tap_shows_no_strip_and_a_waiting_one_does(tablet, base_url, game):
    tablet.clock.install()
    open_game(tablet, base_url, game)
    tablet.evaluate(WATCH)
    for name in ["Toep: Anne", "Mee: Bas", "Weg: Cees", "Laatste slag: Bas"]:
        button(tablet, name).click()
        expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    assert events(game)[-1] == ("win", "Bas")
    assert tablet.evaluate("window.__stripShown") is False

    held = []
    tablet.route(
        TAPS, lambda route: held.append(route)
    )  # slow wifi: this tap's answer does not come
    tablet.clock.run_for(1_000)  # the round's result has had its moment
    button(tablet, "Toep: Bas").click()
    tablet.clock.run_for(1_000)
    assert tablet.locator("#outbox").is_hidden()  # a second is an ordinary round trip
    tablet.clock.run_for(600)
    expect(tablet.locator("#outbox")).to_contain_text("1 nog niet verstuurd")
    expect(tablet.locator("#outbox")).to_contain_text("Versturen…")
    for route in held:
        route.continue_()
    tablet.unroute(TAPS)
    drained(tablet)
    assert events(game)[-1] == ("knock", "Bas")


def test_focus_stays_near_the_tap_and_each_result_is_announced(tablet, base_url, game):
    open_game(tablet, base_url, game)
    news = tablet.locator("#tap-news")
    expect(news).to_have_attribute("aria-live", "polite")

    button(tablet, "Toep: Anne").focus()
    tablet.keyboard.press("Enter")  # by keyboard, as a switch or screen reader user taps
    expect(news).to_have_text("Toep Anne: opgeslagen")
    # Anne's "Toep" is gone from the panel drawn anew: focus stays in her row, not the body.
    focused = tablet.evaluate(FOCUSED)
    assert focused["player"] == "Anne", focused

    button(tablet, "Mee: Bas").click()
    expect(news).to_have_text("Mee Bas: opgeslagen")
    assert tablet.evaluate(FOCUSED)["player"] == "Bas"

    button(tablet, "Weg: Cees").click()
    button(tablet, "Laatste slag: Anne").click()
    expect(tablet.locator("#round-flash")).to_be_visible()
    expect(news).to_have_text(tablet.locator("#round-flash").inner_text())
    # The same button is there in the next round: focus is on it.
    assert tablet.evaluate(FOCUSED)["label"] == "Laatste slag: Anne"
    assert events(game) == [("knock", "Anne"), ("stay", "Bas"), ("fold", "Cees"), ("win", "Anne")]
