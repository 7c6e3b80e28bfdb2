"""Viewers poll only while they are looked at (static/js/poll.js), in real Chromium.

The viewer's sheet polls every 3 s while its page is visible; a hidden page (a phone in a
pocket, a background tab) sends nothing, and the page polls at once when it is shown again.
Time is Playwright's clock, so that "nothing in 10 s" takes no 10 s; the page is hidden by
answering ``document.visibilityState`` as the browser does for a background tab.
"""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring import access
from tests.conftest import record

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
    page.wait_for_timeout(300)
    assert polls == []
    with page.expect_request(is_poll):
        page.clock.run_for(200)
    assert len(polls) == 1
    assert polls[0].startswith('"lei-')  # the sheet's ETag: an unchanged sheet is a 304
    for _ in range(2):  # one at a time: htmx drops a poll while the one before is in flight
        with page.expect_request(is_poll):
            page.clock.run_for(3_000)
    page.wait_for_timeout(300)
    assert len(polls) == 3


def test_a_hidden_viewer_sends_no_polls_and_polls_at_once_when_shown(page, base_url, session):
    polls = open_viewer(page, base_url, session)
    expect(total(page, "Bas")).to_have_attribute("data-total", "0")
    show(page, "hidden")
    record(session, "win", "Anne")  # the table plays on while the phone is in a pocket
    page.clock.run_for(10_000)
    page.wait_for_timeout(500)
    assert polls == []
    expect(total(page, "Bas")).to_have_attribute("data-total", "0")

    with page.expect_request(is_poll):
        show(page, "visible")  # no time passes on the page's clock: the poll is the shown event's
    page.clock.run_for(50)  # htmx settles the swapped sheet
    assert len(polls) == 1
    expect(total(page, "Bas")).to_have_attribute("data-total", "1")

    show(page, "hidden")
    page.clock.run_for(9_000)
    page.wait_for_timeout(300)
    assert len(polls) == 1
