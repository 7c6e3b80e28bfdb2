"""The outbox through a lost login and a hand-over, on the server as deployed: taps wait through
a login that ends and are sent, all and in order, after logging in again (with the CSRF token
of then, not of when they were tapped); signing out on purpose (the site's or the admin's
logout) throws them away, saying so; another person on the same browser sees and sends nothing
of them, and finds no page kept for the one before."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Error, expect

from scoring.models import Club
from tests.browser.outbox import (
    CACHED,
    KEPT_LEI,
    button,
    drained,
    events,
    make_table,
    tap,
    wait_until_kept,
)
from tests.builders import make_session

pytestmark = pytest.mark.browser

PASSWORD = "geheim-genoeg-1"
TAPS = ["Toep: Bas", "Weg: Cees", "Weg: Dirk"]
LOGGED = [("knock", "Bas"), ("fold", "Cees"), ("fold", "Dirk")]
WAITING_TAPS = """new Promise((resolve) => {
  const open = indexedDB.open('lei-tablet', 1);
  open.onsuccess = () => {
    const read = open.result.transaction('taps').objectStore('taps').count();
    read.onsuccess = () => resolve(read.result);
  };
})"""


def member(django_user_model, club: Club, name: str):
    user = django_user_model.objects.create_user(name, password=PASSWORD)
    club.memberships.create(user=user, role="scorer")
    return user


def log_in(page, base_url: str, name: str) -> None:
    if "/inloggen/" not in page.url:
        page.goto(base_url + "/inloggen/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    button(page, "Inloggen").click()
    page.wait_for_url(re.compile(r"^(?!.*/inloggen/)"))


def open_tablet(page, base_url: str, session) -> None:
    """The tablet page of a member, once the service worker keeps it."""
    page.goto(f"{base_url}/sessies/{session.pk}/")
    page.wait_for_selector("#round[data-version]")
    wait_until_kept(page)


def test_taps_wait_through_a_lost_login_and_are_sent_in_order_after_logging_in_again(
    tablet,
    context,
    base_url,
    django_user_model,
    screenshot_dir,
):
    session = make_table()
    member(django_user_model, session.club, "teller")
    log_in(tablet, base_url, "teller")
    open_tablet(tablet, base_url, session)
    context.set_offline(True)
    for name in TAPS:
        tap(tablet, name)
    context.clear_cookies(name="sessionid")  # the login ends while the taps wait
    context.set_offline(False)

    strip = tablet.locator("#outbox")
    expect(strip).to_contain_text("Log opnieuw in om 3 tikken te versturen.")
    expect(strip).to_contain_text("Toep Bas · Weg Cees · Weg Dirk")
    expect(strip).not_to_contain_text("403")
    expect(strip).not_to_contain_text("Verboden")
    tablet.screenshot(path=screenshot_dir / "outbox-log-in-again.png", full_page=True)
    assert events(session) == []

    strip.get_by_role("link", name="Inloggen").click()
    tablet.wait_for_url(re.compile(r"/inloggen/\?next="))
    log_in(tablet, base_url, "teller")  # and back to the tablet, which sends them
    assert tablet.url == f"{base_url}/sessies/{session.pk}/"
    drained(tablet)
    assert events(session) == LOGGED


def test_taps_wait_through_a_login_ending_and_go_after_signing_in_in_another_tab(
    tablet,
    context,
    base_url,
    django_user_model,
):
    """Signing in again renews the CSRF token: the taps go with the new one (they used to carry
    the token of the page that took them, and were refused "Verboden (403)" for ever)."""
    session = make_table()
    member(django_user_model, session.club, "teller")
    tablet.clock.install()
    log_in(tablet, base_url, "teller")
    open_tablet(tablet, base_url, session)
    tablet.route("**/gebeurtenis/", lambda route: route.abort())  # no wifi for the taps
    for name in TAPS:
        tap(tablet, name)
    expect(tablet.locator("#outbox")).to_contain_text("3 nog niet verstuurd")

    context.clear_cookies(name="sessionid")  # the login ends (not a sign-out: that drops them)
    tablet.unroute("**/gebeurtenis/")
    expect(tablet.locator("#outbox")).to_contain_text("Log opnieuw in om 3 tikken te versturen.")
    assert events(session) == []

    other = context.new_page()
    log_in(other, base_url, "teller")
    # It tries again every 5 s while a login is needed (lei.js), with the token of the moment.
    tablet.clock.run_for(5_000)
    drained(tablet)
    assert events(session) == LOGGED
    other.close()


@pytest.mark.parametrize("where", ["site", "admin"])
def test_signing_out_on_purpose_throws_the_waiting_taps_away_and_says_so(
    where,
    tablet,
    context,
    base_url,
    django_user_model,
    screenshot_dir,
):
    """A lost login keeps the taps for the same person's next login (above); a sign-out is
    meant: the same person signing in again finds them gone, told how many, and none sent."""
    session = make_table()
    member(django_user_model, session.club, "teller")
    django_user_model.objects.filter(username="teller").update(is_staff=True)  # for the admin
    log_in(tablet, base_url, "teller")
    open_tablet(tablet, base_url, session)
    tablet.route("**/gebeurtenis/", lambda route: route.abort())  # no wifi for the taps
    for name in TAPS:
        tap(tablet, name)
    expect(tablet.locator("#outbox")).to_contain_text("3 nog niet verstuurd")

    other = context.new_page()
    if where == "admin":
        other.goto(base_url + "/admin/")
        other.locator("#logout-form button").click()
    else:
        other.goto(base_url + "/")
        other.get_by_role("button", name="Uitloggen").click()
    other.wait_for_load_state()
    tablet.unroute("**/gebeurtenis/")  # the page left open may try again from here on
    # It sees the sign-out before it sends again, and reloads: to the login page, taps unsent.
    # (Waited for, so that it does not read the mark after the next login, racing the goto.)
    tablet.wait_for_url(re.compile(r"/inloggen/"))
    log_in(other, base_url, "teller")
    other.close()

    tablet.goto(f"{base_url}/sessies/{session.pk}/")
    expect(tablet.locator("#signed-out")).to_have_text(
        "Uitgelogd: de 3 tikken die nog wachtten zijn niet verstuurd en weggegooid."
    )
    tablet.screenshot(path=screenshot_dir / f"outbox-signed-out-{where}.png", full_page=True)
    drained(tablet)
    assert tablet.evaluate(WAITING_TAPS) == 0
    assert "lei-signed-out" not in {c["name"] for c in context.cookies()}  # read once
    assert events(session) == []
    tap(tablet, "Toep: Bas")  # the same person taps on, as usual
    expect(tablet.locator("#signed-out")).to_have_count(0)
    drained(tablet)
    assert events(session) == [("knock", "Bas")]


def test_another_person_on_the_same_browser_sends_nothing_of_the_first_and_is_told_whose(
    tablet,
    context,
    base_url,
    django_user_model,
):
    session = make_table()
    elsewhere = make_session(Club.objects.create(name="De Zwarte Zeven", slug="zwarte-zeven"))
    member(django_user_model, session.club, "anne")
    member(django_user_model, session.club, "bas")
    elsewhere.club.memberships.create(
        user=django_user_model.objects.get(username="anne"), role="scorer"
    )
    log_in(tablet, base_url, "anne")
    open_tablet(tablet, base_url, elsewhere)  # a page of a club the next person is not in
    open_tablet(tablet, base_url, session)
    tablet.route("**/gebeurtenis/", lambda route: route.abort())
    for name in TAPS:
        tap(tablet, name)
    expect(tablet.locator("#outbox")).to_contain_text("3 nog niet verstuurd")

    # Bas signs in on the same browser, without Anne signing out.
    other = context.new_page()
    log_in(other, base_url, "bas")
    assert [path for path in other.evaluate(CACHED) if path.startswith("/sessies/")] == []
    assert other.evaluate(KEPT_LEI) == 0
    open_tablet(other, base_url, session)
    expect(other.locator("html")).to_have_attribute("data-taps-waiting", "0")
    expect(other.locator(".outbox__tap")).to_have_count(0)
    # Not sent under Bas's name, nor thrown away without a word: named, with Anne's way on.
    told = other.locator(".others-taps")
    expect(told).to_contain_text("Niet verstuurd: 3 tikken van anne wachten nog op deze tablet.")
    expect(told).to_contain_text("Toep Bas · Weg Cees · Weg Dirk")
    expect(told.get_by_role("link", name="Inloggen als anne")).to_be_visible()
    assert other.evaluate(WAITING_TAPS) == 3  # kept for Anne

    # Anne's page, still open, tries again: the server refuses her taps from Bas, and the page
    # comes back as Bas's, naming them.
    tablet.unroute("**/gebeurtenis/")
    expect(tablet.locator(".others-taps")).to_contain_text("3 tikken van anne")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    assert events(session) == []

    # Without a connection, Anne's other club's page is not there for Bas.
    context.set_offline(True)
    with pytest.raises(Error):
        other.goto(f"{base_url}/sessies/{elsewhere.pk}/")
    expect(other.locator("#round")).to_have_count(0)
    other.close()
    context.set_offline(False)

    # Anne logs in again on the tablet, from the notice: her taps go, once, in her name.
    tablet.locator(".others-taps").get_by_role("link", name="Inloggen als anne").click()
    log_in(tablet, base_url, "anne")
    drained(tablet)
    expect(tablet.locator(".others-taps")).to_have_count(0)
    assert events(session) == LOGGED
    entries = session.audit_entries.filter(action="event")
    assert {entry.user.username for entry in entries} == {"anne"}


def test_a_person_switch_after_a_login_ended_names_the_taps_and_the_kept_page_is_gone(
    tablet,
    context,
    base_url,
    django_user_model,
    screenshot_dir,
):
    """Anne's three taps wait (the first ends round 1) when her login ends; the server's
    answer means her page is no longer kept for a reload offline. Bas signs in on the tablet:
    he sees round 1 open, with a notice naming Anne and her taps, and sends none of them."""
    session = make_table()
    member(django_user_model, session.club, "anne")
    member(django_user_model, session.club, "bas")
    log_in(tablet, base_url, "anne")
    open_tablet(tablet, base_url, session)
    context.set_offline(True)
    for name in ["Laatste slag: Anne", "Toep: Bas", "Weg: Cees"]:
        tap(tablet, name)
    context.clear_cookies(name="sessionid")  # the login ends while they wait
    context.set_offline(False)
    expect(tablet.locator("#outbox")).to_contain_text("Log opnieuw in om 3 tikken te versturen.")
    tablet.wait_for_function(
        """() => { caches.open('lei-tablet-v1').then((c) => c.match(location.pathname))
          .then((copy) => { window.__stillKept = Boolean(copy); });
          return window.__stillKept === false; }""",
        polling=100,
    )
    context.set_offline(True)
    with pytest.raises(Error):
        tablet.reload()  # nothing of Anne's lei for whoever picks the tablet up offline
    context.set_offline(False)

    log_in(tablet, base_url, "bas")
    open_tablet(tablet, base_url, session)
    expect(tablet.locator("#round-title")).to_have_text("Ronde 1")
    told = tablet.locator(".others-taps")
    expect(told).to_contain_text("Niet verstuurd: 3 tikken van anne wachten nog op deze tablet.")
    expect(told).to_contain_text("Laatste slag Anne · Toep Bas · Weg Cees")
    tablet.screenshot(path=screenshot_dir / "outbox-another-persons-taps.png")
    drained(tablet)
    assert events(session) == []
    told.get_by_role("button", name="Weggooien").click()  # Bas may throw them away, in words
    expect(told).to_have_count(0)
    assert tablet.evaluate(WAITING_TAPS) == 0
