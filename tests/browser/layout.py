"""What the tablet's layout tests share: a full table of eight, a page that forgives the
console's network errors of an offline tablet, taps that wait for the answer, and measures of
where the tap targets are (tests/browser/test_steady_panel.py, test_eight_players.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring.lei import services
from scoring.models import Club, Session
from tests.browser.pages import console_errors
from tests.builders import new_key, record

# Eight at the table, three of them with names longer than any button or column.
EIGHT = [
    "Anne",
    "Maximiliaan van Oldenbarnevelt",
    "Cees",
    "Dirk",
    "Eva-Marie Zwanenburg-Schoonderwoerd",
    "Femke",
    "Gijsbrecht van Aemstel",
    "Bas",
]
SIZES = {
    "768x1024": {"width": 768, "height": 1024},
    "1024x768": {"width": 1024, "height": 768},
    "1280x800": {"width": 1280, "height": 800},
}
# An offline tablet's failed requests are the point of the test, not an error of the page.
NETWORK = re.compile(r"Failed to load resource|net::ERR_|^htmx:(sendError|afterRequest)")


@pytest.fixture
def screen(browser) -> Iterator[object]:
    """``screen(size)``: a fresh Dutch page of that size whose context may go offline; any
    console error but a failed request fails the test. The context lets the test inject
    axe-core (``bypass_csp``), as tests/browser/test_screens.py does."""
    contexts = []

    def open_page(size: dict[str, int]):
        context = browser.new_context(viewport=size, locale="nl-NL", bypass_csp=True)
        context.set_default_timeout(15_000)
        contexts.append((context, console_errors(context)))
        return context.new_page()

    yield open_page
    errors = []
    for context, found in contexts:
        errors += [e for e in found if not NETWORK.search(e)]
        context.close()
    assert errors == [], "the browser console showed errors:\n" + "\n".join(errors)


def full_table(*, knock: bool = True) -> Session:
    """Eight players a few rounds in, with everything the sheet can show in a cell or a head:
    a boer, knocks and folds, a player on the toilet, a corrected round; then a knock being
    answered (every player's Toep, Mee and Weg), or a round not yet begun."""
    club = Club.objects.create(name="Café De Gouden Boer", slug="gouden-boer")
    session = services.session_start(
        club=club, players=EIGHT, table_label="Tafel 12 (achter de biljarttafel)"
    )
    anne, maximiliaan, cees, dirk, eva, femke, gijsbrecht, bas = EIGHT
    record(session, "win", eva, jack=True)
    record(session, "knock", maximiliaan)
    for name in (cees, dirk, femke, gijsbrecht, bas):
        record(session, "fold", name)
    record(session, "stay", anne)
    record(session, "stay", eva)
    record(session, "win", anne)
    session.refresh_from_db()
    services.session_set_presence(
        session=session,
        absent={gijsbrecht: "toilet"},
        join=[],
        version=session.version,
        key=new_key(),
    )
    session.refresh_from_db()
    record(session, "knock", dirk)
    record(session, "fold", femke)
    record(session, "win", maximiliaan)
    services.round_replace_events(
        session=session, number=1, events=[{"type": "win", "player": eva}]
    )
    session.refresh_from_db()
    record(session, "win", bas, jack=True)
    if knock:
        record(session, "knock", anne)
    session.refresh_from_db()
    return session


def open_tablet(page, base_url: str, session: Session) -> None:
    page.goto(base_url + reverse("scorer_link", args=[session.scorer_token]))
    page.wait_for_selector("#panel")


def button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def tap_answered(page, name: str) -> None:
    """One tap online, then wait for the server's answer to be drawn: the next version, and
    nothing left waiting."""
    page.wait_for_selector("#panel:not(.is-settling)", state="attached")
    version = int(page.get_attribute("#round", "data-version"))
    button(page, name).click()
    page.wait_for_selector(f'#round[data-version="{version + 1}"]', state="attached")
    expect(page.locator("html")).to_have_attribute("data-taps-waiting", "0")


def tap_offline(page, name: str) -> None:
    """One tap without a connection: the tablet takes it and the strip shows it waiting."""
    page.wait_for_selector("#panel:not(.is-settling)", state="attached")
    taken = int(page.evaluate("document.documentElement.dataset.tapsTaken || 0"))
    button(page, name).click()
    expect(page.locator("html")).to_have_attribute("data-taps-taken", str(taken + 1))
    expect(page.locator("#outbox")).to_be_visible()


# The tap targets of the round panel, each by a name that stays the same when its button is
# drawn again: its accessible name without "(kan niet)", "met boer", "Meer".
TARGETS = """() => {
    const seen = {};
    const shown = (e) => e.checkVisibility({visibilityProperty: true});
    const name = (e) => (e.getAttribute("aria-label") || e.textContent)
        .replace(/ \\(kan niet\\)$/, "").replace(/\\s+/g, " ").trim();
    const add = (key, e) => {
        const r = e.getBoundingClientRect();
        seen[key] = [r.x + scrollX, r.y + scrollY, r.width, r.height];
    };
    document.querySelectorAll(
        "#panel button, #panel .btn-with-reason > summary"
    ).forEach((e) => { if (shown(e)) add(name(e), e); });
    const jack = document.querySelector('#panel input[name="jack"]');
    if (jack && shown(jack)) add("met boer", jack.closest("label"));
    const more = document.querySelector("#more > summary");
    if (more && shown(more)) add("Meer", more);
    return seen;
}"""


def targets(page) -> dict[str, list[float]]:
    """Where each tap target of the round panel is on the page: x, y, width, height."""
    return page.evaluate(TARGETS)


def moved(before: dict, after: dict, tolerance: float = 4) -> list[str]:
    """The targets in both that moved or changed size by more than ``tolerance`` pixels."""
    out = []
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key], after[key]
        if any(abs(x - y) > tolerance for x, y in zip(a, b, strict=True)):
            out.append(f"{key}: {[round(v) for v in a]} -> {[round(v) for v in b]}")
    return out


# Every tap target of the tablet above its sheet (the head's links, the round panel, the
# strip's buttons) that is drawn: where it is, and whether a tap on its middle reaches it.
UNREACHABLE = """() => {
    const w = innerWidth, h = innerHeight, out = [];
    const found = document.querySelectorAll(
        ".tablet__head a, #round button, #round summary, #round a, #round select, " +
        "#round input:not([type=hidden]), #outbox button"
    );
    for (let e of found) {
        if (!e.checkVisibility({visibilityProperty: true})) continue;
        if (e.type === "checkbox") e = e.closest("label") || e;
        const r = e.getBoundingClientRect();
        const what = (e.getAttribute("aria-label") || e.textContent).trim().slice(0, 40);
        const where = `${Math.round(r.left)},${Math.round(r.top)}-` +
                      `${Math.round(r.right)},${Math.round(r.bottom)} in ${w}x${h}`;
        if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5) {
            out.push(`outside: "${what}" at ${where}`);
            continue;
        }
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!hit || !(e === hit || e.contains(hit)))
            out.push(`covered: "${what}" at ${where} by ${hit && hit.outerHTML.slice(0, 60)}`);
    }
    return out;
}"""


def unreachable(page) -> list[str]:
    """The tap targets above the sheet that are off the screen or under something else."""
    return page.evaluate(UNREACHABLE)


def scrolls_sideways(page, selector: str = "html") -> bool:
    return page.evaluate(
        "(s) => { const e = document.querySelector(s); return e.scrollWidth > e.clientWidth; }",
        selector,
    )


def columns_outside(page) -> list[str]:
    """The sheet's player columns whose head is not wholly inside the sheet's box."""
    return page.evaluate(
        """() => {
            const box = document.querySelector("#sheet").getBoundingClientRect();
            return [...document.querySelectorAll("#sheet thead th")]
                .filter((th) => { const r = th.getBoundingClientRect();
                                  return r.left < box.left - 0.5 || r.right > box.right + 0.5; })
                .map((th) => th.textContent.trim().slice(0, 30));
        }"""
    )
