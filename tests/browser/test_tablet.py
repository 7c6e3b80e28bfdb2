"""A whole evening on the tablet in real Chromium, with a second browser watching the viewer.

Set up through the form (tapping the players in seating order), then: a knock and a re-knock
with a fold, a boer win, a blind knock, an undo, a correction of an earlier round, an armoede
round, and plain rounds until there is a toepkoning. After every round the totals on the tablet
and on the viewer (which only polls, never reloads) are the engine's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.engine import replay
from scoring.models import Club, ClubMembership, Player, Session
from tests.browser.pages import console_errors

pytestmark = pytest.mark.browser

PLAYERS = ["Anne", "Bas", "Cees", "Dirk"]


def engine(session: Session):
    session.refresh_from_db()
    return replay(session.to_file(), open_round=True)


def sheet_totals(page) -> dict[str, int]:
    cells = page.locator("#sheet td[data-player]")
    return {
        cells.nth(i).get_attribute("data-player"): int(cells.nth(i).get_attribute("data-total"))
        for i in range(cells.count())
    }


def version(page) -> int:
    return int(page.get_attribute("#round", "data-version"))


def tap(page, locator) -> None:
    """One tap, then wait for the swapped panel of the next version."""
    before = version(page)
    locator.click()
    page.wait_for_selector(f'#round[data-version="{before + 1}"]')


def button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def check(page, viewer, session) -> dict[str, int]:
    expected = engine(session).totals
    assert sheet_totals(page) == expected
    for name, total in expected.items():  # the viewer polls: within a poll or two
        cell = viewer.locator(f'#sheet td[data-player="{name}"]')
        expect(cell).to_have_attribute("data-total", str(total), timeout=5_000)
    return expected


def test_an_evening_on_the_tablet_to_a_toepkoning(page, browser, base_url, screenshot_dir):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    for name in PLAYERS:
        Player.objects.create(club=club, name=name)
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("teller", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="scorer")

    # Log in and set the table: tap the players clockwise, Anne deals.
    page.goto(base_url + "/inloggen/")
    page.fill("#id_username", "teller")
    page.fill("#id_password", "geheim-genoeg-1")
    button(page, "Inloggen").click()
    page.wait_for_url(base_url + "/")
    page.get_by_role("link", name="Een nieuw spel beginnen").click()
    page.fill("#player-search", "e")  # search as you type (HTMX)
    page.wait_for_selector('#player-results [data-seat-name="Cees"]')
    page.fill("#player-search", "")
    page.wait_for_selector('#player-results [data-seat-name="Bas"]')
    # Clearing the search fires both its triggers (input, search): tap once both answers are in,
    # as a scorer taps the list they see, not one that is being replaced under the finger.
    page.wait_for_function("!document.querySelector('.htmx-request')")
    for seat, name in enumerate(PLAYERS, start=1):
        page.click(f'#player-results [data-seat-name="{name}"]')
        expect(page.locator(f"#id_seat_{seat}")).to_have_value(name)
    button(page, "Het spel beginnen").click()
    page.wait_for_selector("#live")
    session = Session.objects.get()
    assert [s.player.name for s in session.seats.order_by("position")] == PLAYERS

    viewer_context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="nl-NL")
    viewer_errors = console_errors(viewer_context)
    viewer = viewer_context.new_page()
    viewer.goto(base_url + page.get_attribute('a[aria-label="De lei op de tv"]', "href"))
    assert "tv" in viewer.get_attribute("body", "class")

    # Round 1: Bas knocks, Cees knocks again, Dirk folds, Anne wins the last trick.
    tap(page, button(page, "Toep: Bas"))
    tap(page, button(page, "Toep: Cees"))
    tap(page, button(page, "Weg: Dirk"))
    tap(page, button(page, "Laatste slag: Anne"))
    assert check(page, viewer, session) == {"Anne": 0, "Bas": 3, "Cees": 3, "Dirk": 2}

    # Round 2: Bas wins with a boer: a point off, a dot on the lei.
    page.check("#panel input[name=jack]")
    tap(page, button(page, "Laatste slag: Bas"))
    assert check(page, viewer, session) == {"Anne": 1, "Bas": 2, "Cees": 4, "Dirk": 3}

    # Round 3: Dirk knocks blind (from the Meer menu), Anne folds, Cees wins.
    page.click("#more > summary")
    tap(page, button(page, "Blind toepen: Dirk"))
    expect(viewer.locator("#live-line")).to_contain_text("Dirk toept blind — inzet 3")
    tap(page, button(page, "Weg: Anne"))
    tap(page, button(page, "Laatste slag: Cees"))
    assert check(page, viewer, session) == {"Anne": 2, "Bas": 5, "Cees": 4, "Dirk": 6}

    # Round 4: a wrong tap undone.
    tap(page, button(page, "Laatste slag: Anne"))
    tap(page, button(page, "Ongedaan maken: de laatste tik terugnemen"))
    tap(page, button(page, "Laatste slag: Dirk"))
    assert check(page, viewer, session) == {"Anne": 3, "Bas": 6, "Cees": 5, "Dirk": 6}
    page.screenshot(path=screenshot_dir / "tablet-768x1024.png", full_page=True)

    # A correction: round 2 was not won with a boer after all.
    page.get_by_role("link", name="Ronde 2 verbeteren").click()
    page.wait_for_selector("#editor form")
    page.uncheck('#editor input[name="events-0-jack"]')
    tap(page, button(page, "Ronde opslaan"))
    assert check(page, viewer, session) == {"Anne": 3, "Bas": 7, "Cees": 5, "Dirk": 6}

    # Then play on: whoever has the fewest points wins a plain round; in an armoede round one
    # of the others folds and the rest stay and win, so the armoede player goes out. Until one
    # is left: the toepkoning.
    armoede_rounds = 0
    for _round in range(30):
        view = engine(session).what_now()
        if view.finished:
            break
        number = view.round_number
        others = [p for p in view.participants if p not in view.armoede]
        if view.armoede:
            armoede_rounds += 1
            assert page.locator("#panel .badge--armoede").count() == len(view.armoede)
            if len(others) >= 2:
                tap(page, button(page, f"Weg: {others[0]}"))
                others = others[1:]
            view = engine(session).what_now()
        if view.round_number == number:  # not ended by the folds
            candidates = [p for p in others if view.may_win.get(p) is None] or [
                p for p in view.participants if view.may_win[p] is None
            ]
            winner = min(candidates, key=lambda p: (view.totals[p], p))
            tap(page, button(page, f"Laatste slag: {winner}"))
        check(page, viewer, session)
    result = engine(session)
    assert result.finished
    assert armoede_rounds >= 1
    assert page.locator("#panel .badge--toepkoning").count() == 1
    assert f"{result.toepkoning} is de toepkoning!" in page.inner_text("#panel")
    viewer.wait_for_selector("#live .badge--toepkoning", timeout=5_000)
    assert page.locator("#sheet .is-dood").count() >= 3
    assert page.locator(".lei-chart").count() == 1

    viewer.screenshot(path=screenshot_dir / "viewer-tv-1280x800.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=screenshot_dir / "tablet-1280x800.png", full_page=True)
    page.set_viewport_size({"width": 375, "height": 812})
    page.screenshot(path=screenshot_dir / "tablet-375.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    viewer_context.close()
    assert viewer_errors == []  # e.g. no Content-Security-Policy violation while polling
