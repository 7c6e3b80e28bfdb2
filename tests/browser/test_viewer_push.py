"""A viewer's page in Chromium, served by the streams' server as deployed (README,
"Production": gunicorn with uvicorn's worker, DEBUG off, collectstatic's manifest), takes the
change a tablet on the pages' server (gunicorn's sync workers) made from its stream, and sends
no poll meanwhile. Skipped without PostgreSQL, as push is."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring import access
from tests.browser.conftest import console_errors
from tests.browser.outbox import make_table, open_tablet, tap

pytestmark = pytest.mark.browser


def test_a_viewer_page_is_pushed_a_tap_and_does_not_poll(
    page,
    push_url,
    tablet,
    base_url,
):
    session = make_table()
    polls: list[str] = []
    streams: list[str] = []
    page.on(
        "request",
        lambda r: (
            (streams if "/stroom/" in r.url else polls).append(r.url)
            if "/stroom/" in r.url or r.headers.get("hx-request") == "true"
            else None
        ),
    )
    viewer = access.viewer_token(session.pk, session.viewer_key or "")
    page.goto(f"{push_url}/kijk/{viewer}/")
    expect(page.locator("body")).to_have_attribute("data-push", "/stroom/")
    page.wait_for_timeout(3500)  # past the page's 3 s poll: held back while the stream is open
    assert streams, "the page opened no stream"

    open_tablet(tablet, base_url, session)  # the other server: the tap reaches it by NOTIFY
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    expect(page.locator("#live")).to_have_attribute(
        "data-etag", re.compile(rf"lei-{session.pk}-{session.version}-"), timeout=10_000
    )
    page.wait_for_timeout(500)
    assert polls == []
    assert len(streams) == 1  # one stream, never opened again


def until(page, condition, seconds: float = 15) -> None:
    for _ in range(int(seconds * 10)):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("the page did not get there in time")


def test_a_viewer_whose_stream_fails_says_so_polls_and_takes_the_stream_back(
    browser,
    push_url,
    tablet,
    base_url,
    screenshot_dir,
):
    """The streams' server out of reach (a restart, a proxy): the page says "Geen verbinding"
    while its stream fails, polls after three tries, and a minute later tries the stream once
    more while it polls; when that stream says hello the polls stop again."""
    session = make_table()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="nl-NL")
    errors = console_errors(phone)
    page = phone.new_page()
    page.clock.install()
    reachable = {"streams": False}
    streams: list[str] = []
    polls: list[str] = []

    def stream_route(route):
        streams.append(route.request.url)
        if reachable["streams"]:
            route.continue_()
        else:
            route.abort()

    page.route(re.compile(r".*/stroom/.*"), stream_route)
    page.on(
        "request",
        lambda r: (
            polls.append(r.url)
            if "/stroom/" not in r.url and r.headers.get("hx-request") == "true"
            else None
        ),
    )
    viewer = access.viewer_token(session.pk, session.viewer_key or "")
    page.goto(f"{push_url}/kijk/{viewer}/")
    notice = page.locator("[data-stale]")
    expect(notice).to_be_visible()  # the first try failed
    expect(notice).to_contain_text("Geen verbinding")
    page.screenshot(path=screenshot_dir / "viewer-stream-failing.png", full_page=True)
    until(page, lambda: polls)  # gave up on the stream: it polls
    expect(notice).to_be_hidden()  # a poll got through: the page is as it should be
    assert len(streams) == 3

    open_tablet(tablet, base_url, session)
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    etag = re.compile(rf"lei-{session.pk}-{session.version}-")
    expect(page.locator("#live")).to_have_attribute("data-etag", etag, timeout=10_000)

    reachable["streams"] = True
    page.clock.fast_forward(61_000)  # the stream is tried again
    until(page, lambda: len(streams) == 4)
    page.wait_for_timeout(1000)  # its hello
    polled = len(polls)
    page.wait_for_timeout(4000)  # past the 3 s poll: held back again
    assert len(polls) == polled
    expect(notice).to_be_hidden()

    tap(tablet, "Mee: Anne")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    etag = re.compile(rf"lei-{session.pk}-{session.version}-")
    expect(page.locator("#live")).to_have_attribute("data-etag", etag, timeout=10_000)
    assert len(polls) == polled  # pushed, not polled
    assert len(streams) == 4
    phone.close()
    # The browser logs the streams that were cut; nothing else went wrong.
    assert all("ERR_FAILED" in e for e in errors), errors
