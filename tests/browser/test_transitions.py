"""Every tablet input around every change of state, in Chromium against the app as deployed:
a tap, a boer tick, an undo and akkoord, fired 0, 100, 300, 600 and 1,000 ms after a tap was
answered, a round ended, the game ended, another tablet's change arrived and the login ended,
on one tablet and on two. Each ends in one of two ways, read from the database: stored once,
or refused with words on the screen; never silently gone (docs/decisions.md, "The tablet's
taps").

The moments are the page's own time (Playwright's page clock): the tablet's guard after a
round and its timers run on it, so "300 ms later" is exact and costs no waiting. Latency is
added by holding a request in a route until the test lets it go."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.lei import seals
from scoring.models import Club, Session
from tests.browser.outbox import NETWORK, button, drained, events
from tests.browser.pages import TABLET, console_errors
from tests.builders import make_session

pytestmark = pytest.mark.browser

MOMENTS = [0, 100, 300, 600, 1000]  # ms after the change of state
TAPS = re.compile(r"/sessies/\d+/(gebeurtenis|ongedaan|akkoord)/$")
TICK = 'form[data-ends-round] input[name="jack"]'


def two_players(**options) -> Session:
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    return make_session(club, ["Anne", "Bas"], **options)


def open_game(page, base_url: str, session: Session) -> None:
    page.goto(f"{base_url}/tafel/{session.scorer_token}/")
    page.wait_for_selector("#round[data-version]")


def answered(page, session: Session) -> None:
    """Every tap of this tablet answered and the lei drawn at the version the server holds."""
    try:
        expect(page.locator("html")).to_have_attribute("data-taps-waiting", "0")
    except AssertionError:  # refused: with which words
        raise AssertionError(page.locator("#outbox").inner_text()) from None
    session.refresh_from_db()
    expect(page.locator("#round")).to_have_attribute("data-version", str(session.version))


class Held:
    """A route that holds the tablet's next taps (latency, without sleeping) until let go."""

    def __init__(self, page) -> None:
        self.page = page
        self.routes: list = []
        page.route(TAPS, lambda route: self.routes.append(route))

    def go(self) -> None:
        for route in self.routes:
            route.continue_()
        self.page.unroute(TAPS)


def test_tap_tick_and_undo_after_a_tap_answered_and_after_a_round_ended(tablet, base_url):
    """One tablet, a round per moment: a boer ticked while "Mee" is on its way stays ticked
    through that answer's redraw and goes with the last trick; the last trick tapped a moment
    after an answer is stored once; an undo a moment after the round ended is stored once."""
    session = two_players(overrides={"max_points": 100})
    tablet.clock.install()
    open_game(tablet, base_url, session)
    expected: list[tuple] = []
    for moment in MOMENTS:
        button(tablet, "Toep: Anne").click()
        answered(tablet, session)
        held = Held(tablet)
        button(tablet, "Mee: Bas").click()
        tablet.locator(TICK).check()  # before "Mee" is answered
        held.go()
        answered(tablet, session)  # a tap answered: the panel was drawn anew
        expect(tablet.locator(TICK)).to_be_checked()
        tablet.clock.run_for(moment)
        button(tablet, "Laatste slag: Bas").click()
        answered(tablet, session)  # a round ended
        expected += [("knock", "Anne"), ("stay", "Bas"), ("win", "Bas", "boer")]
        assert events(session) == expected, moment
        expect(tablet.locator(TICK)).not_to_be_checked()  # the boer was that round's

        tablet.clock.run_for(moment)
        button(tablet, "Ongedaan maken: de laatste tik terugnemen").click()
        answered(tablet, session)
        assert events(session) == expected[:-1], moment  # the round is open again
        expect(tablet.locator("#undone")).to_be_visible()
        tablet.locator(TICK).check()
        tablet.clock.run_for(moment)
        button(tablet, "Laatste slag: Bas").click()
        answered(tablet, session)
        assert events(session) == expected, moment
    drained(tablet)


@pytest.mark.parametrize("moment", MOMENTS)
def test_akkoord_tapped_a_moment_after_the_last_trick_ended_the_game(tablet, base_url, moment):
    """ "Iedereen akkoord" works at any moment after the game ended: pressed at once, stored
    once (it was dropped while the last round's result had its moment)."""
    session = two_players(start={"Bas": 9})
    tablet.clock.install()
    open_game(tablet, base_url, session)
    button(tablet, "Laatste slag: Anne").click()
    agree = button(tablet, "Iedereen akkoord")
    expect(agree).to_be_visible()  # the game ended: its answer drawn
    tablet.clock.run_for(moment)
    agree.click()
    expect(tablet.locator("#akkoord [role=status]")).to_contain_text("Iedereen akkoord")
    session.refresh_from_db()
    assert (session.status, session.agreement) == ("finished", "agreed")
    assert session.audit_entries.filter(action="agree").count() == 1
    expect(button(tablet, "Ongedaan maken: de laatste tik terugnemen")).to_have_count(0)
    drained(tablet)


def test_inputs_around_another_tablets_changes(tablet, browser, base_url):
    """Two tablets: what A ticked and opened survives the redraws B's taps bring (the poll),
    and A's last trick, tapped a moment after B's change arrived, is stored once with its
    boer."""
    other = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(other)
    b = other.new_page()
    session = two_players(overrides={"max_points": 100})
    tablet.clock.install()
    open_game(tablet, base_url, session)
    open_game(b, base_url, session)
    expected: list[tuple] = []
    for moment in MOMENTS:
        tablet.locator(TICK).check()
        if tablet.locator("#more").get_attribute("open") is None:  # kept open since the last
            tablet.locator("#more > summary").click()
        penalty = tablet.locator("#penalty-reason")
        penalty.fill("te laat")
        button(b, "Toep: Anne").click()
        answered(b, session)
        tablet.clock.run_for(2_000)  # A's poll brings B's change
        answered(tablet, session)
        expect(tablet.locator(TICK)).to_be_checked()
        expect(tablet.locator("#more")).to_have_attribute("open", "")
        expect(penalty).to_have_value("te laat")
        tablet.clock.run_for(moment)
        button(tablet, "Mee: Bas").click()
        answered(tablet, session)
        expect(tablet.locator(TICK)).to_be_checked()
        button(tablet, "Laatste slag: Anne").click()
        answered(tablet, session)
        expected += [("knock", "Anne"), ("stay", "Bas"), ("win", "Anne", "boer")]
        assert events(session) == expected, moment

    other.close()
    assert [e for e in errors if not NETWORK.search(e)] == []


def test_taps_after_the_login_ended_wait_in_words_and_go_once_after(tablet, context, base_url):
    """The login ends (the scorer link's grant is in it): each tap after that, at any moment,
    is refused with words and waits; opening the link again sends each once."""
    session = two_players(overrides={"max_points": 100})
    tablet.clock.install()
    open_game(tablet, base_url, session)
    context.clear_cookies(name="sessionid")  # the login ended
    for moment, name in zip(MOMENTS[:2], ["Toep: Anne", "Mee: Bas"], strict=True):
        tablet.clock.run_for(moment)
        button(tablet, name).click()
    strip = tablet.locator("#outbox")
    expect(strip).to_contain_text("om 2 tikken te versturen")
    expect(strip).to_contain_text("Toep Anne · Mee Bas")
    assert events(session) == []
    open_game(tablet, base_url, session)  # the scorer link again, as a scorer would
    answered(tablet, session)
    assert events(session) == [("knock", "Anne"), ("stay", "Bas")]


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_a_tap_after_the_link_was_revoked_is_refused_in_its_words(
    tablet, base_url, screenshot_dir, size
):
    """The club admin revokes the scorer link while the tablet is open: its next tap says the
    link was revoked (410), with no login to ask for, and is not stored."""
    width, height = size
    tablet.set_viewport_size({"width": width, "height": height})
    session = two_players()
    open_game(tablet, base_url, session)
    seals.session_revoke_token(session=session)
    button(tablet, "Toep: Anne").click()
    strip = tablet.locator("#outbox")
    expect(strip).to_contain_text("Deze schrijverslink is ingetrokken")
    expect(strip.get_by_role("link", name="Inloggen")).to_have_count(0)
    expect(strip.get_by_role("button", name="probeer opnieuw")).to_have_count(0)
    tablet.screenshot(path=screenshot_dir / f"tablet-link-revoked-{width}x{height}.png")
    assert events(session) == []
