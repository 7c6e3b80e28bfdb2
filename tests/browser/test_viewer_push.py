"""A viewer's page in Chromium, served by the streams' server as deployed (README,
"Production": gunicorn with uvicorn's worker, DEBUG off, collectstatic's manifest), takes the
change a tablet on the pages' server (gunicorn's sync workers) made from its stream, and sends
no poll meanwhile. Skipped without PostgreSQL, as push is.

The page's time is Playwright's clock: the test moves it past the page's 3 s poll
(``run_for``) instead of waiting that long, and a poll that is not held back is sent then."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring import access
from tests.browser.outbox import make_table, open_tablet, tap
from tests.browser.pages import console_errors

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
    page.clock.install()
    with page.expect_request(lambda r: "/stroom/" in r.url):
        page.goto(f"{push_url}/kijk/{viewer}/")
    expect(page.locator("body")).to_have_attribute("data-push", "/stroom/")
    page.clock.run_for(3500)  # past the page's 3 s poll: held back while the stream is open

    open_tablet(tablet, base_url, session)  # the other server: the tap reaches it by NOTIFY
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    expect(page.locator("#live")).to_have_attribute(
        "data-etag", re.compile(rf"lei-{session.pk}-{session.version}-"), timeout=10_000
    )
    page.clock.run_for(3500)  # past the pushed sheet's own 3 s poll: held back too
    assert polls == []
    assert len(streams) == 1  # one stream, never opened again


# Whether static/js/poll.js holds the sheet's next poll back: it asks by the event htmx sends
# before each poll, which poll.js cancels. A stream tried again while the page polls holds
# the polls back from its hello on.
HELD_BACK = """() => {
    const evt = new CustomEvent("htmx:beforeRequest",
        {cancelable: true, detail: {elt: document.getElementById("live")}});
    document.dispatchEvent(evt);
    return evt.defaultPrevented;
}"""


def is_poll(request) -> bool:
    return "/stroom/" not in request.url and request.headers.get("hx-request") == "true"


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
    page.on("request", lambda r: polls.append(r.url) if is_poll(r) else None)
    viewer = access.viewer_token(session.pk, session.viewer_key or "")
    notice = page.locator("[data-stale]")
    with page.expect_request(is_poll):  # gave up on the stream after three tries: it polls
        page.goto(f"{push_url}/kijk/{viewer}/")
        expect(notice).to_be_visible()  # the first try failed
        expect(notice).to_contain_text("Geen verbinding")
        page.screenshot(path=screenshot_dir / "viewer-stream-failing.png", full_page=True)
    expect(notice).to_be_hidden()  # a poll got through: the page is as it should be
    assert len(streams) == 3

    open_tablet(tablet, base_url, session)
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    etag = re.compile(rf"lei-{session.pk}-{session.version}-")
    expect(page.locator("#live")).to_have_attribute("data-etag", etag, timeout=10_000)

    reachable["streams"] = True
    with page.expect_request(lambda r: "/stroom/" in r.url):
        page.clock.fast_forward(61_000)  # the stream is tried again
    page.wait_for_function(HELD_BACK)  # its hello
    polled = len(polls)
    page.clock.run_for(4000)  # past the 3 s poll: held back again
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
