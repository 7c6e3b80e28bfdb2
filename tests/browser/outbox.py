"""What the outbox's tests share: a table of four, the tablet in a browser context that forgives
the network errors an offline tablet logs (``NETWORK``; the fixtures ``context`` and ``tablet``
in tests/browser/conftest.py), taps that check the tablet took them, and the server's log."""

from __future__ import annotations

import re

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from scoring.models import Club, Session
from tests.builders import make_session

PLAYERS = ["Anne", "Bas", "Cees", "Dirk"]


# Chromium, and htmx for its own requests, say in the console when a request fails; here
# that is the point of the test.
# htmx logs a refused form (403: the login ran out) as an error; the tablet says it itself.
NETWORK = re.compile(
    r"Failed to load resource|net::ERR_|^htmx:(sendError|afterRequest)"
    r"|^Response Status Error Code 403 "
)


def make_table(**options) -> Session:
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    return make_session(club, PLAYERS, **options)


def open_tablet(page, base_url: str, session: Session) -> None:
    """Open the tablet by its scorer link and wait until the service worker keeps the page."""
    page.goto(f"{base_url}/tafel/{session.scorer_token}/")
    page.wait_for_selector("#round[data-version]")
    wait_until_kept(page)


# wait_for_function does not await a promise the predicate returns: each poll starts a look in
# the worker's cache, and the next one reads what the last look found.
KEPT = """() => {
  navigator.serviceWorker.ready
    .then(() => caches.open('lei-tablet-v1'))
    .then((copies) => copies.match(location.pathname))
    .then((copy) => { window.__leiKept = Boolean(copy); });
  return window.__leiKept === true;
}"""


def wait_until_kept(page) -> None:
    """Wait until the service worker keeps the page that is open (lei.js hands it over after
    the page is drawn, and says nothing when it is kept)."""
    try:
        page.wait_for_function(KEPT, polling=100, timeout=10_000)
    except PlaywrightTimeoutError:
        raise AssertionError("the service worker did not keep the tablet page") from None


def button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def tap(page, name: str) -> None:
    """Tap once, as a scorer does: after a round's result has had its moment (lei.js ignores
    taps during it, on purpose); checks that the tablet took the tap."""
    page.wait_for_selector("#panel:not(.is-settling)", state="attached")
    taken = int(page.evaluate("document.documentElement.dataset.tapsTaken || 0"))
    button(page, name).click()
    expect(page.locator("html")).to_have_attribute("data-taps-taken", str(taken + 1))


def events(session: Session) -> list[tuple]:
    """The server's log: every event of every round, in order, as (type, player[, jack])."""
    session.refresh_from_db()
    log = []
    for round_ in session.rounds.order_by("number"):
        for event in round_.events:
            entry = (event["type"], event.get("player"))
            log.append((*entry, "boer") if event.get("jack") else entry)
    return log


def drained(page) -> None:
    """The outbox is empty and the tablet says nothing about it: no strip, no banner."""
    expect(page.locator("html")).to_have_attribute("data-taps-waiting", "0")
    expect(page.locator("#outbox")).to_be_hidden()
    expect(page.locator("html")).not_to_have_attribute("data-outbox-state", re.compile(".*"))
    expect(page.locator("#refusal, #stale")).to_have_count(0)  # read, dropped or sent again
    assert page.evaluate("document.querySelectorAll('.outbox__tap').length") == 0


CACHED = """async () => {
  const copies = await caches.open('lei-tablet-v1');
  return (await copies.keys()).map((request) => new URL(request.url).pathname);
}"""


KEPT_LEI = """() => new Promise((resolve) => {
  const open = indexedDB.open('lei-tablet', 1);
  open.onsuccess = () => {
    const read = open.result.transaction('lei').objectStore('lei').count();
    read.onsuccess = () => resolve(read.result);
  };
})"""


ROUND = [("knock", "Bas"), ("fold", "Cees"), ("fold", "Dirk"), ("stay", "Anne")]


ROUND_TAPS = ["Toep: Bas", "Weg: Cees", "Weg: Dirk", "Mee: Anne"]
