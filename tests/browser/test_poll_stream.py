"""static/js/poll.js's streams on a page of its own, in Chromium: an EventSource that the test
drives (``window.streams``) and htmx's two calls that poll.js makes, counted, so that what the
script does after a stream fails is seen without a server to cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

POLL_JS = (Path(__file__).resolve().parents[2] / "static" / "js" / "poll.js").read_text()

PAGE = """<!doctype html><html><head>
<script>
  window.streams = [];
  window.EventSource = function (url) {
    this.url = url; this.listeners = {}; this.closed = false; window.streams.push(this);
  };
  EventSource.prototype.addEventListener = function (name, f) { this.listeners[name] = f; };
  EventSource.prototype.close = function () { this.closed = true; };
  EventSource.prototype.emit = function (name, data) {
    if (name === "error") { this.onerror(); return; }
    this.listeners[name]({data: data || "", lastEventId: "2"});
  };
  window.shown = 0;
  window.htmx = {
    trigger: function () { window.shown += 1; },
    swap: function (target, html) { target.outerHTML = html; }
  };
</script>
<script src="/poll.js" defer></script></head>
<body data-push="/stroom/">
<p data-stale hidden>Geen verbinding</p>
<div id="series-tables" hx-get="/reeks/1/" data-poll-visible data-push></div>
</body></html>"""


def open_page(browser, page_html: str):
    """A context whose page at http://poll.test/ is ``page_html`` with this tree's poll.js, on
    Playwright's clock: poll.js's retries come when the test moves the clock (``run_for``)."""
    context = browser.new_context()
    page = context.new_page()
    page.clock.install()
    page.route(
        "http://poll.test/poll.js",
        lambda route: route.fulfill(body=POLL_JS, content_type="text/javascript"),
    )
    page.route(
        "http://poll.test/",
        lambda route: route.fulfill(body=page_html, content_type="text/html"),
    )
    page.goto("http://poll.test/")
    return context, page


@pytest.fixture
def page_of_its_own(browser):
    context, page = open_page(browser, PAGE)
    page.wait_for_function("window.streams.length === 1")
    yield page
    context.close()


def test_a_stream_whose_element_is_no_longer_pushed_fails_without_a_lasting_notice(
    page_of_its_own,
):
    """The series ends: its part comes without data-push (nor a poll), and the stream that
    brought it stays open until it fails (the streams' server restarted). Nothing is pushed
    or polled there any more, so nothing could take the notice away again: it must not come."""
    page = page_of_its_own
    notice = page.locator("[data-stale]")
    page.evaluate("window.streams[0].emit('hello')")
    page.evaluate(
        """() => {
            const finished = document.createElement("div");
            finished.id = "series-tables";
            document.getElementById("series-tables").replaceWith(finished);
        }"""
    )
    page.evaluate("window.streams[0].emit('error')")
    page.clock.run_for(1500)  # past the first try again (1 s after a failure)
    expect(notice).to_be_hidden()
    assert page.evaluate("window.streams.length") == 1


def held_back(page) -> bool:
    """Whether poll.js holds back the element's next poll (it is pushed)."""
    return page.evaluate(
        """() => {
            const evt = new CustomEvent("htmx:beforeRequest",
                {cancelable: true, detail: {elt: document.getElementById("series-tables")}});
            document.dispatchEvent(evt);
            return evt.defaultPrevented;
        }"""
    )


def test_an_element_that_polls_instead_of_its_failed_stream_is_not_held_back(page_of_its_own):
    """The TV's board got more pages: its part comes without data-push, polling. When the
    stream that brought it fails, the polls go on (no stream is tried again for it)."""
    page = page_of_its_own
    page.evaluate("window.streams[0].emit('hello')")
    assert held_back(page)
    page.evaluate(
        """() => {
            const paged = document.createElement("div");
            paged.id = "series-tables";
            paged.setAttribute("hx-get", "/tv/?pagina=2");
            paged.setAttribute("data-poll-visible", "");
            document.getElementById("series-tables").replaceWith(paged);
        }"""
    )
    page.evaluate("window.streams[0].emit('error')")
    page.clock.run_for(1500)  # past the first try again
    assert not held_back(page)
    assert page.evaluate("window.streams.length") == 1


def test_a_pushed_part_without_data_push_ends_its_stream_and_polls(page_of_its_own):
    """The TV's board gets a second page (the round clock started: fewer lines fit), and its
    pushed part comes polling, without data-push. The stream, which would push the one page it
    was opened for on every change, is closed and the board's polls turn its pages again."""
    page = page_of_its_own
    page.evaluate("window.streams[0].emit('hello')")
    assert held_back(page)
    page.evaluate(
        """window.streams[0].emit("part",
            '<div id="series-tables" hx-get="/tv/?pagina=2" data-poll-visible></div>')"""
    )
    assert page.evaluate("window.streams[0].closed")
    assert not held_back(page)
    page.clock.run_for(1500)  # past the first try again
    assert page.evaluate("window.streams.length") == 1
    expect(page.locator("[data-stale]")).to_be_hidden()


def test_a_browser_without_event_source_polls(browser):
    """No EventSource (an old browser, a WebView without it): no stream can open, so the
    element's polls must not be held back for one."""
    no_event_source = (
        PAGE.replace("window.EventSource = function", "window.NoEventSource = function")
        .replace("EventSource.prototype", "NoEventSource.prototype")
        .replace("<script>", "<script>delete window.EventSource;", 1)
    )
    context, page = open_page(browser, no_event_source)
    page.wait_for_load_state()
    assert page.evaluate("typeof window.EventSource") == "undefined"
    assert not held_back(page)
    context.close()


def poll_swaps(page) -> bool:
    """Whether poll.js lets a poll's answer (200) replace the element."""
    return page.evaluate(
        """() => {
            const elt = document.getElementById("series-tables");
            const evt = new CustomEvent("htmx:beforeSwap",
                {detail: {elt: elt, xhr: {status: 200}, shouldSwap: true}});
            document.dispatchEvent(evt);
            return evt.detail.shouldSwap;
        }"""
    )


def test_a_poll_answered_after_the_stream_came_back_does_not_replace_what_it_pushed(
    page_of_its_own,
):
    """Polling after three failed tries, then the stream is tried again and says hello while a
    poll is under way: that poll's answer may be older than what the stream pushes next."""
    page = page_of_its_own
    for attempt in range(3):
        page.evaluate(f"window.streams[{attempt}].emit('error')")
        if attempt < 2:
            page.clock.run_for(1000 * (attempt + 1) + 100)
    assert page.evaluate("window.streams.length") == 3
    assert poll_swaps(page)  # polling: its answers are the page's
    page.clock.run_for(61_000)  # the stream is tried again
    assert page.evaluate("window.streams.length") == 4
    assert poll_swaps(page)  # not yet back: the polls go on
    page.evaluate("window.streams[3].emit('hello')")
    assert not poll_swaps(page)
    assert held_back(page)
