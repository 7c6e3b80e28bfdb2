"""Viewers poll only while they are looked at (static/js/poll.js), in real Chromium.

The viewer's sheet polls every 3 s while its page is visible; a hidden page (a phone in a
pocket, a background tab) sends nothing, and the page polls at once when it is shown again.
While polls fail (pub wifi) the page says that what it shows may be behind.
Time is Playwright's clock, so that "nothing in 10 s" takes no 10 s; the page is hidden by
answering ``document.visibilityState`` as the browser does for a background tab. A poll is sent
in the timer that ``run_for`` fires (htmx's "every 3s"), and its request event reaches the test
before ``run_for`` returns: what ``polls`` holds then is all the page sent.
"""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring import access
from tests.browser.pages import console_errors
from tests.builders import record

pytestmark = pytest.mark.browser

EVENING = datetime.datetime(2026, 11, 27, 21, 0)


def show(page, state: str) -> None:
    """Make the page visible or hidden as the browser does when its tab is switched."""
    page.evaluate(
        """(state) => {
            const answer = (value) => ({configurable: true, get: () => value});
            Object.defineProperty(document, "visibilityState", answer(state));
            Object.defineProperty(document, "hidden", answer(state === "hidden"));
            document.dispatchEvent(new Event("visibilitychange"));
        }""",
        state,
    )


def is_poll(request) -> bool:
    return request.headers.get("hx-request") == "true"


def open_viewer(page, base_url, session) -> list[str]:
    """Open the session's viewer with the page's clock paused; returns the polls sent from
    then on (the If-None-Match of each)."""
    polls: list[str] = []
    page.on(
        "request",
        lambda r: (
            polls.append(r.headers.get("if-none-match", ""))
            if r.headers.get("hx-request")
            else None
        ),
    )
    page.clock.install(time=EVENING)
    page.clock.pause_at(EVENING + datetime.timedelta(seconds=1))
    page.goto(base_url + reverse("viewer", args=[access.viewer_token(session.pk)]))
    expect(page.locator("#live")).to_be_attached()
    return polls


def total(page, name: str):
    return page.locator(f'#sheet td[data-player="{name}"]')


def test_a_visible_viewer_polls_every_three_seconds(page, base_url, session):
    polls = open_viewer(page, base_url, session)
    page.clock.run_for(2_900)
    assert polls == []
    with page.expect_request(is_poll):
        page.clock.run_for(200)
    assert len(polls) == 1
    assert polls[0].startswith('"lei-')  # the sheet's ETag: an unchanged sheet is a 304
    for _ in range(2):  # one at a time: htmx drops a poll while the one before is in flight
        with page.expect_request(is_poll):
            page.clock.run_for(3_000)
    assert len(polls) == 3


def test_a_hidden_viewer_sends_no_polls_and_polls_at_once_when_shown(page, base_url, session):
    polls = open_viewer(page, base_url, session)
    expect(total(page, "Bas")).to_have_attribute("data-total", "0")
    show(page, "hidden")
    record(session, "win", "Anne")  # the table plays on while the phone is in a pocket
    page.clock.run_for(10_000)
    assert polls == []
    expect(total(page, "Bas")).to_have_attribute("data-total", "0")

    with page.expect_request(is_poll):
        show(page, "visible")  # no time passes on the page's clock: the poll is the shown event's
    page.clock.run_for(50)  # htmx settles the swapped sheet
    assert len(polls) == 1
    expect(total(page, "Bas")).to_have_attribute("data-total", "1")

    show(page, "hidden")
    page.clock.run_for(9_000)
    assert len(polls) == 1


def test_a_viewer_whose_polls_fail_says_the_sheet_may_be_behind(
    browser, base_url, session, screenshot_dir
):
    context = browser.new_context(viewport={"width": 375, "height": 812}, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    polls = open_viewer(page, base_url, session)
    notice = page.locator("[data-stale]")
    expect(notice).to_be_hidden()

    def no_wifi(route):
        route.abort() if is_poll(route.request) else route.continue_()

    page.route("**/kijk/**", no_wifi)
    with page.expect_request(is_poll):
        page.clock.run_for(3_000)
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("loopt misschien achter")
    page.screenshot(path=screenshot_dir / "viewer-no-wifi.png", full_page=True)

    page.unroute("**/kijk/**", no_wifi)
    with page.expect_response(lambda r: is_poll(r.request)):
        page.clock.run_for(3_000)
    expect(notice).to_be_hidden()
    assert len(polls) == 2
    context.close()
    # The browser and htmx log the failed poll; nothing else went wrong.
    expected = ("ERR_FAILED", "htmx:sendError", "htmx:afterRequest")
    assert all(any(word in e for word in expected) for e in errors), errors
