"""The tablet's outbox on bad pub wifi, in real Chromium: taps made without a connection, a
reload without a connection, dropped requests, an undo behind a pending tap, a refusal in the
middle of the outbox. Each ends with the server's event log holding exactly the taps, in order,
and no banner left on the tablet."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.sessions.models import Session as DjangoSession
from playwright.sync_api import expect

from scoring.engine import replay
from scoring.lei import seals, services
from tests.browser.outbox import (
    CACHED,
    KEPT_LEI,
    PLAYERS,
    ROUND,
    ROUND_TAPS,
    button,
    drained,
    events,
    make_table,
    open_tablet,
    tap,
)
from tests.browser.pages import TABLET, console_errors
from tests.builders import record

pytestmark = pytest.mark.browser


def win_with_a_jack(page, name: str) -> None:
    page.get_by_role("checkbox", name="met boer").check()
    tap(page, f"Laatste slag: {name}")


def test_a_whole_round_offline_is_recorded_once_in_order_when_back(
    tablet, context, live_server, screenshot_dir
):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    for name in ROUND_TAPS:
        tap(tablet, name)
    win_with_a_jack(tablet, "Bas")
    strip = tablet.locator("#outbox")
    expect(strip).to_contain_text("5 nog niet verstuurd")
    expect(strip).to_contain_text(
        "Toep Bas · Weg Cees · Weg Dirk · Mee Anne · Laatste slag Bas met boer"
    )
    assert events(session) == []
    tablet.screenshot(path=screenshot_dir / "outbox-offline-768x1024.png", full_page=True)

    context.set_offline(False)
    drained(tablet)
    assert events(session) == [*ROUND, ("win", "Bas", "boer")]
    expect(tablet.locator("#round-flash")).to_contain_text("Ronde 1: Bas wint met boer")
    # The lei is drawn from the server again: its version, and Bas's total after his boer.
    expect(tablet.locator("#round")).to_have_attribute("data-version", str(session.version))
    totals = replay(session.to_file(), open_round=True).totals
    expect(tablet.locator('#sheet td[data-player="Bas"]')).to_have_attribute(
        "data-total", str(totals["Bas"])
    )


def test_taps_wait_through_a_reload_without_a_connection(
    tablet, context, live_server, screenshot_dir
):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tap(tablet, "Weg: Cees")
    expect(tablet.locator("#outbox")).to_contain_text("2 nog niet verstuurd")
    assert events(session) == []

    tablet.reload()  # no connection: the service worker's copy, with the outbox
    expect(tablet.locator("#outbox")).to_contain_text("2 nog niet verstuurd: Toep Bas · Weg Cees")
    tablet.screenshot(path=screenshot_dir / "outbox-reloaded-offline.png", full_page=True)
    for width, height in ((1024, 768), (1280, 800)):  # the strip on the other screens
        tablet.set_viewport_size({"width": width, "height": height})
        tablet.screenshot(path=screenshot_dir / f"outbox-offline-{width}x{height}.png")
    tablet.set_viewport_size(TABLET)
    tap(tablet, "Weg: Dirk")
    tap(tablet, "Mee: Anne")
    win_with_a_jack(tablet, "Bas")
    expect(tablet.locator("#outbox")).to_contain_text("5 nog niet verstuurd")

    context.set_offline(False)
    drained(tablet)
    assert events(session) == [*ROUND, ("win", "Bas", "boer")]


def test_dropped_requests_record_every_tap_once(tablet, context, live_server):
    """30 % of the taps' requests are dropped (seeded): 40 taps, 40 events, none twice."""
    session = make_table(overrides={"max_points": 99})
    open_tablet(tablet, live_server.url, session)
    rng = random.Random(24)
    dropped = []

    def flaky(route):
        if rng.random() < 0.3:
            dropped.append(route.request.url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    tablet.route(re.compile(r"/sessies/\d+/(gebeurtenis|ongedaan)/$"), flaky)
    # A round: Anne knocks, the others answer, the round's winner takes the last trick;
    # rounds in turn for each winner, plain ones between them (no rule is tested here).
    plan: list[tuple[str, str]] = []
    winners = iter(PLAYERS * 10)
    while len(plan) < 40:
        winner = next(winners)
        if len(plan) + 5 <= 40:
            plan += [("knock", "Anne"), ("stay", "Bas"), ("stay", "Cees"), ("stay", "Dirk")]
        plan.append(("win", winner))
    words = {"knock": "Toep", "stay": "Mee", "win": "Laatste slag"}
    for kind, name in plan:
        tap(tablet, f"{words[kind]}: {name}")
    drained(tablet)
    tablet.unroute(re.compile(r"/sessies/\d+/(gebeurtenis|ongedaan)/$"))
    assert dropped  # the wifi did fail
    assert events(session) == plan


def test_an_offline_undo_takes_back_the_fold_not_the_knock_before_it(tablet, context, live_server):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("#live-line")).to_contain_text("Bas toept")
    context.set_offline(True)
    tap(tablet, "Weg: Cees")
    tap(tablet, "Ongedaan maken: de laatste tik terugnemen")
    expect(tablet.locator("#outbox")).to_contain_text(
        "2 nog niet verstuurd: Weg Cees · Ongedaan maken"
    )
    context.set_offline(False)
    drained(tablet)
    assert events(session) == [("knock", "Bas")]
    expect(tablet.locator("#undone")).to_have_text("Weg van Cees ongedaan gemaakt.")


def test_offline_folds_end_the_round_as_the_engine_does_with_a_player_on_the_toilet(
    tablet, context, live_server
):
    # Cees is on the toilet: the knock folds him, so Anne's and Dirk's folds leave Bas alone.
    session = make_table()
    services.session_set_presence(
        session=session, absent={"Cees": "toilet"}, join=[], version=0, key="presence-1"
    )
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tap(tablet, "Weg: Anne")
    expect(tablet.locator("#round-title")).to_have_text("Ronde 1")  # Bas and Dirk still in
    tap(tablet, "Weg: Dirk")
    expect(tablet.locator("#round-title")).to_have_text("Ronde 2")
    expect(tablet.locator('form[data-player="Bas"] .badge--deler.is-next')).to_have_count(1)
    context.set_offline(False)
    drained(tablet)
    assert events(session) == [("knock", "Bas"), ("fold", "Anne"), ("fold", "Dirk")]
    played = replay(session.to_file(), open_round=True).rounds[0]
    assert (played.ended_by, played.winner) == ("all_fold", "Bas")
    expect(tablet.locator("#round-title")).to_have_text("Ronde 2")


def test_an_offline_knock_ends_the_round_when_the_only_other_player_is_on_the_toilet(
    tablet, context, live_server
):
    session = make_table()
    absent = {"Bas": "drinks", "Cees": "toilet", "Dirk": "drinks"}
    services.session_set_presence(
        session=session, absent=absent, join=[], version=0, key="presence-1"
    )
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Anne")
    expect(tablet.locator("#round-title")).to_have_text("Ronde 2")
    context.set_offline(False)
    drained(tablet)
    played = replay(session.to_file(), open_round=True).rounds[0]
    assert (played.ended_by, played.winner) == ("all_fold", "Anne")


def test_a_refusal_stops_the_outbox_at_that_tap_and_says_why(
    tablet, context, live_server, screenshot_dir
):
    session = make_table()
    sent = []
    tablet.on("request", lambda r: sent.append(r.url) if "/gebeurtenis/" in r.url else None)
    tablet.clock.install()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tablet.clock.run_for(700)  # not a double tap (lei.js: 600 ms): the scorer taps it again
    tap(tablet, "Toep: Bas")
    tap(tablet, "Weg: Cees")
    context.set_offline(False)

    refused = tablet.locator(".outbox__refused")
    expect(refused).to_contain_text("Toep Bas")
    expect(refused).to_contain_text(
        "Niet opgeslagen: Bas kan niet toepen: de laatste toep is van hemzelf"
    )
    expect(tablet.locator("#outbox")).to_contain_text("2 nog niet verstuurd")
    tablet.screenshot(path=screenshot_dir / "outbox-refused-768x1024.png", full_page=True)
    before = len(sent)
    tablet.clock.run_for(10_000)  # past every retry of the outbox (lei.js: 5 s at most)
    assert len(sent) == before  # nothing after the refusal went out, nor the refused tap again
    assert events(session) == [("knock", "Bas")]

    button(tablet, "verwijder deze tik").click()
    drained(tablet)
    assert events(session) == [("knock", "Bas"), ("fold", "Cees")]


def test_try_again_sends_a_refused_tap_once_more_after_the_lei_changed(
    tablet, context, live_server
):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    record(session, "knock", "Cees")  # meanwhile, on another tablet
    context.set_offline(False)
    refused = tablet.locator(".outbox__refused")
    expect(refused).to_contain_text("Niet opgeslagen")
    expect(refused).to_contain_text("de lei was al verder dan deze tik verwachtte")
    assert events(session) == [("knock", "Cees")]

    button(tablet, "probeer opnieuw").click()  # Bas knocks again over Cees: the scorer's call
    drained(tablet)
    assert events(session) == [("knock", "Cees"), ("knock", "Bas")]


def test_the_worker_keeps_no_secret_link_and_signing_out_drops_what_it_kept(
    tablet, live_server, django_user_model
):
    session = make_table()
    user = django_user_model.objects.create_user("teller", password="geheim-genoeg-1")
    session.club.memberships.create(user=user, role="scorer")
    tablet.goto(live_server.url + "/inloggen/")
    tablet.fill("#id_username", "teller")
    tablet.fill("#id_password", "geheim-genoeg-1")
    button(tablet, "Inloggen").click()
    tablet.wait_for_url(live_server.url + "/")
    open_tablet(tablet, live_server.url, session)  # by the secret link, as a second tablet would
    kept = tablet.evaluate(CACHED)
    assert f"/sessies/{session.pk}/" in kept
    assert not [path for path in kept if path.startswith("/tafel/")]
    assert tablet.evaluate(KEPT_LEI) == 1

    tablet.goto(live_server.url + "/")
    tablet.get_by_role("button", name="Uitloggen").click()
    tablet.wait_for_url(live_server.url + "/")
    assert [path for path in tablet.evaluate(CACHED) if not path.startswith("/static/")] == []
    assert tablet.evaluate(KEPT_LEI) == 0


def test_taps_wait_through_closing_the_browser(browser, context, tablet, live_server):
    """The outbox is in IndexedDB: a browser closed with taps waiting sends them when the
    tablet page is opened again (here: a new browser context with the first one's storage)."""
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tap(tablet, "Weg: Cees")
    expect(tablet.locator("#outbox")).to_contain_text("2 nog niet verstuurd")
    kept = context.storage_state(indexed_db=True)

    again = browser.new_context(viewport=TABLET, locale="nl-NL", storage_state=kept)
    errors = console_errors(again)
    page = again.new_page()
    page.goto(f"{live_server.url}/sessies/{session.pk}/")
    expect(page.locator("#live-line")).to_contain_text("Bas toept — inzet 2 — Cees weg")
    drained(page)
    assert events(session) == [("knock", "Bas"), ("fold", "Cees")]
    again.close()
    assert errors == []


def test_the_meer_forms_work_offline_too(tablet, context, live_server):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tablet.locator("#more > summary").click()
    tablet.select_option("#penalty-player", "Dirk")
    tablet.fill("#penalty-points", "2")
    tablet.fill("#penalty-reason", "kaart laten zien")
    tap(tablet, "Strafpunt opschrijven")
    expect(tablet.locator("#outbox")).to_contain_text(
        "2 nog niet verstuurd: Toep Bas · Strafpunt Dirk"
    )
    context.set_offline(False)
    drained(tablet)
    session.refresh_from_db()
    penalty = session.rounds.get().events[-1]
    assert (penalty["type"], penalty["player"], penalty["points"]) == ("penalty", "Dirk", 2)
    assert events(session) == [("knock", "Bas"), ("penalty", "Dirk")]


def test_a_revoked_link_leaves_no_copy_of_the_tablet_page(tablet, live_server):
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    seals.session_revoke_token(session=session)
    tablet.goto(f"{live_server.url}/sessies/{session.pk}/")  # online: the server says no now
    expect(tablet.locator("#round")).to_have_count(0)
    assert [path for path in tablet.evaluate(CACHED) if path.startswith("/sessies/")] == []


def test_a_correction_sent_without_a_connection_says_it_was_not_saved(tablet, context, live_server):
    """The round editor is not a tap: htmx sends it once, and a failure is said plainly."""
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    tap(tablet, "Laatste slag: Anne")
    expect(tablet.locator("#round-flash")).to_contain_text("Ronde 1: Anne wint")
    # Opening the editor without a connection says so too (it did nothing, without a word).
    context.set_offline(True)
    tablet.get_by_role("link", name="Ronde 1 verbeteren").click()
    expect(tablet.locator("#form-unsent")).to_have_text(
        "Niet geopend: geen verbinding. Probeer het opnieuw als de wifi terug is."
    )
    context.set_offline(False)
    tablet.get_by_role("link", name="Ronde 1 verbeteren").click()
    tablet.wait_for_selector("#editor form")
    expect(tablet.locator("#form-unsent")).to_have_count(0)
    context.set_offline(True)
    button(tablet, "Ronde opslaan").click()
    expect(tablet.locator("#form-unsent")).to_have_text(
        "Niet opgeslagen: geen verbinding. Probeer het opnieuw als de wifi terug is."
    )
    context.set_offline(False)
    button(tablet, "Ronde opslaan").click()
    expect(tablet.locator("#form-unsent")).to_have_count(0)


def test_a_correction_saved_after_the_login_ran_out_says_so_and_keeps_the_rows(
    tablet, context, live_server
):
    """The round editor's save refused because the scorer's login ran out (403, the refusal
    page of scoring/http.py) says why, with the way to log in, and leaves the rows as typed:
    it used to do nothing at all, without a word."""
    session = make_table()
    open_tablet(tablet, live_server.url, session)
    tap(tablet, "Laatste slag: Anne")
    expect(tablet.locator("#round-flash")).to_contain_text("Ronde 1: Anne wint")
    tablet.get_by_role("link", name="Ronde 1 verbeteren").click()
    winner = tablet.get_by_role("combobox", name="Gebeurtenis 1: wie")
    winner.select_option("Bas")
    DjangoSession.objects.all().delete()  # the login (here the scorer link's) ran out
    button(tablet, "Ronde opslaan").click()
    notice = tablet.locator("#form-unsent")
    expect(notice).to_contain_text("Log in of open de schrijverslink.")
    expect(notice.locator("a")).to_have_text("Inloggen")
    expect(notice.locator("a")).to_have_attribute(
        "href", re.compile(r"^/inloggen/\?next=/sessies/")
    )
    expect(winner).to_have_value("Bas")
    assert events(session) == [("win", "Anne")]


def test_an_offline_round_in_which_a_player_goes_out_then_the_toilet_marks_who_was_chosen(
    tablet, context, live_server, screenshot_dir
):
    """Without a connection the table plays a round in which Bas goes out, then the scorer
    opens "Meer" and sends Cees to the toilet in the presence form drawn before that round.
    The form names its seats: Cees is marked, not whoever is third at the table now (Dirk)."""
    session = make_table(overrides={"max_points": 2})
    open_tablet(tablet, live_server.url, session)
    context.set_offline(True)
    for name in ROUND_TAPS:  # Bas knocks (2), Cees and Dirk fold (1), Anne stays
        tap(tablet, name)
    tap(tablet, "Laatste slag: Anne")  # Bas has 2: out
    expect(tablet.locator("#round-title")).to_have_text("Ronde 2")
    tablet.get_by_text("Meer", exact=True).click()
    tablet.select_option("#absent-2", "toilet")  # the third seat as drawn: Cees
    tablet.screenshot(path=screenshot_dir / "outbox-presence-offline-768x1024.png", full_page=True)
    tablet.get_by_role("button", name="Aanwezigheid opslaan").click()
    context.set_offline(False)
    drained(tablet)
    played = replay(session.to_file(), open_round=True)
    assert list(played.eliminated) == ["Bas"]
    assert played.what_now().absent == {"Cees": "toilet"}
