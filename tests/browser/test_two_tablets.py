"""Two tablets on one game, in real Chromium: B taps its own rounds 1 and 2 without a
connection while A plays them differently. When B comes back, its leftover taps are never
stored in a round they were not made in, whatever the scorer taps ("Alles weggooien", "Eén
voor één bekijken", "probeer opnieuw"): the log holds exactly the rounds A played. And an open
tablet follows the lei that another tablet changes, and says when its waiting taps no longer
fit (scoring/lei/funnel.py, RoundOver; static/js/lei.js)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.outbox import NETWORK, button, drained, events, make_table, open_tablet, tap
from tests.browser.pages import TABLET, console_errors

pytestmark = pytest.mark.browser

A_PLAYED = [("win", "Cees"), ("win", "Dirk")]
KEPT_LEI_HTML = """() => new Promise((resolve) => {
  const open = indexedDB.open('lei-tablet', 1);
  open.onsuccess = () => {
    const read = open.result.transaction('lei').objectStore('lei').get(location.pathname);
    read.onsuccess = () => resolve(read.result ? read.result.html : '');
  };
})"""
TAPS = re.compile(r"/sessies/\d+/(gebeurtenis|ongedaan)/$")


@pytest.fixture
def two(browser):
    """Two tablets, each a browser of its own (cookies, service worker, outbox)."""
    contexts, errors = [], []
    for _ in range(2):
        context = browser.new_context(viewport=TABLET, locale="nl-NL")
        context.set_default_timeout(15_000)
        errors.append(console_errors(context))
        contexts.append(context)
    yield contexts
    for context in contexts:
        context.close()
    assert [e for found in errors for e in found if not NETWORK.search(e)] == []


def diverged(two, live_server):
    """B taps rounds 1 and 2 offline, A plays them otherwise; B is back online, stopped."""
    session = make_table()
    a, b = (context.new_page() for context in two)
    open_tablet(a, live_server.url, session)
    open_tablet(b, live_server.url, session)
    two[1].set_offline(True)
    tap(b, "Laatste slag: Anne")
    tap(b, "Laatste slag: Bas")
    # Offline, the panel moved on: the round, and its dealer (the winner deals), no score.
    expect(b.locator("#round-title")).to_have_text("Ronde 3")
    expect(b.locator('form[data-player="Bas"] .badge--deler')).to_be_visible()
    expect(b.locator('form[data-player="Anne"] .badge--deler')).to_be_hidden()
    expect(b.locator("#totals")).to_have_attribute("aria-busy", "")

    tap(a, "Laatste slag: Cees")
    tap(a, "Laatste slag: Dirk")
    drained(a)
    assert events(session) == A_PLAYED
    two[1].set_offline(False)
    conflict = b.locator(".outbox__conflict")
    expect(conflict).to_contain_text("deze tik hoorde bij ronde 1; de lei staat op ronde 3")
    expect(conflict).to_contain_text("De lei staat nu op ronde 3")
    expect(conflict.locator("li")).to_have_text(
        ["Ronde 1: Laatste slag Anne — ronde voorbij", "Ronde 2: Laatste slag Bas — ronde voorbij"]
    )
    # The lei as it is now: A's rounds, at round 3.
    expect(b.locator("#round-title")).to_have_text("Ronde 3")
    expect(b.locator("#round")).to_have_attribute("data-version", str(session.version))
    return session, a, b


def test_throwing_all_leftover_taps_away_keeps_the_rounds_a_played(
    two, live_server, screenshot_dir
):
    session, _a, b = diverged(two, live_server)
    default = button(b, "Alles weggooien")
    expect(default).to_be_focused()  # the default
    b.screenshot(path=screenshot_dir / "conflict-768x1024.png")
    b.set_viewport_size({"width": 1024, "height": 768})
    b.screenshot(path=screenshot_dir / "conflict-1024x768.png")
    default.click()
    drained(b)
    assert events(session) == A_PLAYED
    expect(b.locator("#round-title")).to_have_text("Ronde 3")


def test_one_by_one_each_leftover_tap_is_refused_and_dropped(two, live_server):
    session, _a, b = diverged(two, live_server)
    button(b, "Eén voor één bekijken").click()
    refused = b.locator(".outbox__refused")
    expect(refused).to_contain_text("Laatste slag Anne")
    button(b, "verwijder deze tik").click()
    # The next leftover tap goes, and is refused for its round: it never becomes round 3.
    expect(refused).to_contain_text("deze tik hoorde bij ronde 2; de lei staat op ronde 3")
    expect(refused).to_contain_text("de lei staat op ronde 3 en is zonder deze tik verder gegaan")
    assert events(session) == A_PLAYED
    button(b, "verwijder deze tik").click()
    drained(b)
    assert events(session) == A_PLAYED


def test_trying_again_never_replays_leftover_taps_as_new_rounds(two, live_server):
    session, _a, b = diverged(two, live_server)
    version = session.version
    button(b, "Eén voor één bekijken").click()
    for _ in range(2):  # the scorer insists: refused again each time, for its round
        button(b, "probeer opnieuw").click()
        expect(b.locator(".outbox__refused")).to_contain_text("deze tik hoorde bij ronde 1")
        expect(b.locator("html")).to_have_attribute("data-outbox-state", "stopped")
        expect(b.locator("html")).to_have_attribute("data-taps-waiting", "2")
    session.refresh_from_db()
    assert (events(session), session.version) == (A_PLAYED, version)
    button(b, "verwijder deze tik").click()
    button(b, "probeer opnieuw").click()  # the tap of round 2, sent again: refused again
    expect(b.locator(".outbox__refused")).to_contain_text("deze tik hoorde bij ronde 2")
    button(b, "verwijder deze tik").click()
    drained(b)
    assert events(session) == A_PLAYED


def test_an_open_tablet_follows_the_lei_and_says_when_its_taps_no_longer_fit(two, live_server):
    session = make_table()
    a, b = (context.new_page() for context in two)
    open_tablet(a, live_server.url, session)
    open_tablet(b, live_server.url, session)
    tap(a, "Toep: Bas")
    # The viewers' poll (every 2 s while the page is looked at) brings A's knock to B.
    expect(b.locator("#live-line")).to_contain_text("Bas toept", timeout=3_000)
    assert b.locator("#outbox").is_hidden()

    b.route(TAPS, lambda route: route.abort("internetdisconnected"))  # B's taps do not go
    tap(b, "Weg: Cees")
    tap(a, "Weg: Cees")
    tap(a, "Weg: Dirk")
    tap(a, "Mee: Anne")
    tap(a, "Laatste slag: Anne")  # round 1 is over without B's tap
    expect(b.locator("#outbox")).to_contain_text(
        "De lei staat nu op ronde 2: de wachtende tikken van ronde 1 passen er niet meer op.",
        timeout=3_000,
    )
    b.unroute(TAPS)
    expect(b.locator(".outbox__refused")).to_contain_text("deze tik hoorde bij ronde 1")
    button(b, "verwijder deze tik").click()
    drained(b)
    assert events(session) == [
        ("knock", "Bas"),
        ("fold", "Cees"),
        ("fold", "Dirk"),
        ("stay", "Anne"),
        ("win", "Anne"),
    ]


def test_a_correction_being_typed_stays_open_while_another_tablet_taps(
    two, live_server, screenshot_dir
):
    """A types a correction of round 1 while B taps: A's lei follows B's tap and keeps the
    editor open with what A typed; saving it says the lei changed meanwhile and keeps the rows,
    and saving again corrects the round."""
    session = make_table()
    a, b = (context.new_page() for context in two)
    open_tablet(a, live_server.url, session)
    open_tablet(b, live_server.url, session)
    tap(a, "Laatste slag: Cees")
    drained(a)
    a.get_by_role("link", name="Ronde 1 verbeteren").click()
    winner = a.get_by_role("combobox", name="Gebeurtenis 1: wie")
    winner.select_option("Dirk")

    session.refresh_from_db()
    expect(b.locator("#round")).to_have_attribute("data-version", str(session.version))
    tap(b, "Toep: Anne")
    drained(b)
    session.refresh_from_db()
    # A follows the lei (its poll, every 2 s): B's knock is on A's panel, the editor still open.
    expect(a.locator("#round")).to_have_attribute("data-version", str(session.version))
    expect(a.locator("#live-line")).to_contain_text("Anne toept")
    expect(a.locator("#editor-title")).to_have_text("Ronde 1 verbeteren")
    expect(winner).to_have_value("Dirk")
    # The lei kept for a reload without wifi is the lei, without the editor left open in it.
    kept = a.evaluate(KEPT_LEI_HTML)
    assert f'data-version="{session.version}"' in kept
    assert "Ronde 1 verbeteren</h2>" not in kept
    assert '<div id="editor"></div>' in kept

    button(a, "Ronde opslaan").click()
    expect(a.locator("#editor-error")).to_contain_text(
        "Niet opgeslagen: de lei is intussen veranderd. Je regels staan er nog"
    )
    expect(winner).to_have_value("Dirk")
    a.screenshot(path=screenshot_dir / "correction-while-the-lei-went-on.png", full_page=True)
    assert events(session) == [("win", "Cees"), ("knock", "Anne")]

    button(a, "Ronde opslaan").click()
    expect(a.locator("#editor-title")).to_have_count(0)  # saved: the lei without the editor
    assert events(session) == [("win", "Dirk"), ("knock", "Anne")]
    expect(a.locator('#sheet td[data-player="Cees"]')).to_have_attribute("data-total", "1")
