"""The TV that holds any night, and the finish the room sees, in real Chromium.

At 1920 x 1080 with 26, 60 and 200 players whose full names are long ("Wilhelmina van den
Berg-Hoogendoorn"), every page the TV turns to is measured: every box inside the screen, no
name's box over a number's, every name and the title whole (none cut, so no two players look
the same). After the final the TV and the public standings (375 x 812 and 1280 x 800) say
"Einduitslag" and show the final table's order; the phone keeps the strafpunten in view; the
prize list is public.

Screenshots land in test-artifacts/screenshots/ (toernooi-tv-*.png, toernooi-finish-*.png).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import Tournament
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments
from tests.browser.pages import LAPTOP, PHONE, TV, console_errors, evening
from tests.builders import play_out, play_rounds

pytestmark = pytest.mark.browser


# Every box of the board that has a size, as [left, top, right, bottom]; the names' and the
# numbers' boxes; and the names whose text is wider than their box without an ellipsis.
MEASURE = """() => {
  const board = document.querySelector('#tv-board');
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const all = [board, ...board.querySelectorAll('*')].filter(shown);
  const outside = all.filter((e) => {
    const [l, t, r, b] = box(e);
    return l < -1 || t < -1 || r > innerWidth + 1 || b > innerHeight + 1;
  }).map((e) => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 40));
  const names = [...board.querySelectorAll('[data-name]')].filter(shown);
  const numbers = [...board.querySelectorAll('[data-num]')].filter(shown);
  const heads = [...board.querySelectorAll('thead th')].filter(shown)
    .filter((h) => h.scrollWidth > h.clientWidth + 1).map((h) => h.textContent);
  const overlaps = [];
  for (const n of names) {
    const [l, t, r, b] = box(n);
    for (const m of numbers) {
      const [l2, t2, r2, b2] = box(m);
      if (l < r2 - 0.5 && l2 < r - 0.5 && t < b2 - 0.5 && t2 < b - 0.5) {
        overlaps.push(n.textContent + ' / ' + m.textContent);
      }
    }
  }
  const spilled = names.filter((n) => {
    const style = getComputedStyle(n);
    return n.scrollWidth > n.clientWidth + 1
      && !(style.textOverflow === 'ellipsis' && style.overflowX === 'hidden');
  }).map((n) => n.textContent);
  const cut = names.filter((n) => n.scrollWidth > n.clientWidth + 1).length;
  // A number is never cut: its box holds it whole.
  const clipped = numbers.filter((m) => m.scrollWidth > m.clientWidth + 1)
    .map((m) => m.textContent);
  const title = document.querySelector('.tv-title');
  const titleCut = title.scrollWidth > title.clientWidth + 1
    || title.getBoundingClientRect().right > innerWidth + 1;
  return {outside, overlaps, spilled, clipped, heads, cut, names: names.length,
          numbers: numbers.length, titleCut};
}"""


def check_every_page(tv, url: str, shot: str, screenshot_dir) -> int:
    """Each page of the TV's cycle measured; the number of pages in the cycle."""
    page = 1
    seen = 0
    while True:
        tv.goto(f"{url}?pagina={page}")
        expect(tv.locator("#tv-board")).to_be_visible()
        found = tv.evaluate(MEASURE)
        assert found["outside"] == [], (page, found["outside"][:5])
        assert found["overlaps"] == [], (page, found["overlaps"][:5])
        assert found["spilled"] == [], (page, found["spilled"][:5])
        assert found["clipped"] == [], (page, found["clipped"][:5])
        assert found["heads"] == [], (page, found["heads"])
        assert found["names"] > 0
        # Every name whole, so no two players look the same; the title whole too.
        assert found["cut"] == 0, (page, found["cut"])
        assert not found["titleCut"]
        assert tv.evaluate(
            "document.documentElement.scrollHeight <= innerHeight + 1"
            " && document.documentElement.scrollWidth <= innerWidth + 1"
        )
        tv.screenshot(path=screenshot_dir / f"{shot}-page-{page}.png")
        seen += 1
        following = tv.locator("#tv-board").get_attribute("hx-get").rsplit("=", 1)[1]
        page = int(following)
        if page == 1 or seen > 10:
            return seen


@pytest.mark.parametrize(
    ("count", "end_mode", "pages"),
    [
        # Names this long take the standings' whole width: 20 players a page.
        (26, Tournament.EndMode.TOEPKONING, 2),
        (60, Tournament.EndMode.TIME, 3),  # with the round timer above the tables
        (200, Tournament.EndMode.TOEPKONING, 10),
    ],
)
def test_the_tv_holds_a_night_of_long_names(
    browser, base_url, screenshot_dir, count, end_mode, pages
):
    tournament = evening(count, end_mode=end_mode)
    context = browser.new_context(viewport=TV, locale="nl-NL")
    errors = console_errors(context)
    tv = context.new_page()
    url = f"{base_url}/club/gouden-boer/toernooi/{tournament.pk}/tv/"
    turned = check_every_page(tv, url, f"toernooi-tv-{count}", screenshot_dir)
    assert turned == pages
    context.close()
    assert errors == []


def test_the_room_sees_the_finish(browser, base_url, screenshot_dir):
    tournament = evening(26)
    second = tournament.series.get(number=2)
    tournaments.series_start(series=second)
    for table in second.tables.select_related("session"):
        play_out(table.session)
    tournament_results.series_finish(series=second)
    third = tournaments.series_draw(tournament=tournament, expected_number=3, seed=6)
    tournaments.series_start(series=third)
    for table in third.tables.select_related("session"):
        play_out(table.session)
    final = tournament_results.final_table_create(tournament=tournament, seed=2)

    context = browser.new_context(viewport=TV, locale="nl-NL")
    errors = console_errors(context)
    tv = context.new_page()
    url = f"{base_url}/club/gouden-boer/toernooi/{tournament.pk}/tv/"
    tv.goto(url)
    expect(tv.locator("#tv-tables-heading")).to_contain_text("Finaletafel")
    tv.screenshot(path=screenshot_dir / "toernooi-finish-tv-final-table.png")

    # The final is won by the finalist lowest in the standings; the TV follows by itself.
    table = final.tables.get()
    seated = {s.player_id for s in table.seats.all()}
    standings = tournament_selectors.tournament_standings(tournament)
    underdog = [r for r in standings.rows if r.player.pk in seated][-1].player
    session = table.session
    while True:
        session.refresh_from_db()
        if session.status != session.Status.RUNNING:
            break
        play_rounds(session, [underdog.name])
    tournament_results.series_finish(series=final)
    expect(tv.locator("[data-final]")).to_have_text("Einduitslag", timeout=20_000)
    tv.goto(url + "?pagina=1")  # the TV turns its pages: the top of the standings
    expect(tv.locator(".tv-standings tbody tr").first).to_contain_text(underdog.name[:10])
    found = tv.evaluate(MEASURE)
    assert found["outside"] == []
    assert found["overlaps"] == []
    assert found["spilled"] == []
    assert found["clipped"] == []
    tv.screenshot(path=screenshot_dir / "toernooi-finish-tv.png")

    # The public standings: the final order, on a phone (strafpunten in view) and a laptop.
    public = f"{base_url}/club/gouden-boer/toernooi/{tournament.pk}/"
    phone = context.browser.new_context(viewport=PHONE, locale="nl-NL")
    phone_errors = console_errors(phone)
    page = phone.new_page()
    page.goto(public)
    expect(page.locator("h1 [data-final]")).to_have_text("Einduitslag")
    rows = page.locator("#tournament-standings tbody tr")
    expect(rows).to_have_count(26)
    expect(rows.first).to_contain_text(underdog.name)
    strafpunten = page.locator("#tournament-standings thead th").nth(3)
    expect(strafpunten).to_be_visible()
    box = strafpunten.bounding_box()
    assert box["x"] + box["width"] <= PHONE["width"] + 1
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
    page.screenshot(path=screenshot_dir / "toernooi-finish-standings-phone.png", full_page=True)
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=screenshot_dir / "toernooi-finish-standings-laptop.png", full_page=True)

    # The prize list, public by default, from the standings' link.
    page.get_by_role("link", name="Prijslijst").click()
    expect(page.locator("#prize-list tbody tr")).to_have_count(26)
    expect(page.locator("#prize-list tbody tr").first).to_contain_text(underdog.name)
    page.screenshot(path=screenshot_dir / "toernooi-finish-prizes-laptop.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
    page.screenshot(path=screenshot_dir / "toernooi-finish-prizes-phone.png", full_page=True)
    phone.close()
    context.close()
    assert errors == []
    assert phone_errors == []
