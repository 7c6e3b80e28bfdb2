"""Every name readable where a person looks for it, measured, in real Chromium.

Long real names (tests/browser/pages.py, ``long_names``) at 4 to 8 players, in the deciding
rounds (everyone but one in armoede and playing for their life, so each card carries every
badge): on a tablet on its side (1024 x 768) each player card's name is whole, its badges under
or beside it and never over it, and each last-trick button shows its whole name; on a phone
(390 x 844) the viewer's totals and the sheet's heads show each name and badge whole ("Anne",
not "An…"; "deelt", not "ee"). A name is whole when its box holds its text (scrollWidth and
scrollHeight within clientWidth and clientHeight) and no other box of its card covers it.
Screenshots in test-artifacts/screenshots/names-*.png.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import access
from scoring.lei import services
from scoring.models import Club, Session
from tests.browser.pages import long_names
from tests.builders import play_rounds

pytestmark = pytest.mark.browser

LANDSCAPE = {"width": 1024, "height": 768}
PHONE_390 = {"width": 390, "height": 844}

# Each element of ``selector`` whose text does not fit its box, or whose box overlaps another
# visible box among its ``siblings`` (the badges beside a name).
CLIPPED = """([selector, siblings]) => {
  const out = [];
  const shown = (e) => e.getClientRects().length > 0
                       && e.checkVisibility({visibilityProperty: true});
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
                         && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const e of document.querySelectorAll(selector)) {
    if (!shown(e)) continue;
    const text = e.textContent.trim().replace(/\\s+/g, " ");
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
      out.push(`cut: "${text}" (${e.scrollWidth}x${e.scrollHeight}` +
               ` in ${e.clientWidth}x${e.clientHeight})`);
      continue;
    }
    // Every ancestor that cuts what overflows it (not one that scrolls) must hold it whole.
    const r = e.getBoundingClientRect();
    const cuts = (o) => o === "hidden" || o === "clip";
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (!cuts(style.overflowX) && !cuts(style.overflowY)) continue;
      const box = a.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5
          || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        out.push(`cut by ${a.className || a.tagName}: "${text}"`);
        break;
      }
    }
    if (!siblings) continue;
    const card = e.closest(siblings.card);
    for (const o of card.querySelectorAll(siblings.others)) {
      if (o === e || o.contains(e) || e.contains(o) || !shown(o)) continue;
      if (overlap(r, o.getBoundingClientRect()))
        out.push(`"${text}" under "${o.textContent.trim()}"`);
    }
  }
  return out;
}"""


def clipped(page, selector: str, card: str | None = None, others: str | None = None) -> list:
    siblings = {"card": card, "others": others} if card else None
    return page.evaluate(CLIPPED, [selector, siblings])


def deciding_round(count: int) -> Session:
    """``count`` players with long names and an Anne; the first has won nine rounds, so
    everyone else has 9 of 10 points: armoede, a stake of 2, and each playing for their life."""
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    names = long_names(count)
    names[1] = "Anne"  # a short name beside them is never shortened either
    session = services.session_start(club=club, players=names, table_label="Tafel 3")
    play_rounds(session, [names[0]] * 9)
    session.refresh_from_db()
    return session


@pytest.mark.parametrize("count", [4, 5, 6, 8])
def test_the_tablet_shows_every_name_whole_in_the_deciding_rounds(
    strict_screen, base_url, screenshot_dir, count
):
    session = deciding_round(count)
    page = strict_screen(LANDSCAPE, bypass_csp=False)
    page.goto(base_url + reverse("scorer_link", args=[session.scorer_token]))
    page.wait_for_selector("#panel")
    page.screenshot(path=screenshot_dir / f"names-tablet-{count}.png", full_page=True)
    assert page.locator(".round-panel__player .badge--voor-dood").count() == count - 1
    card = ".round-panel__player"
    assert clipped(page, ".round-panel__name", card, ".badge, .round-panel__actions") == []
    assert clipped(page, ".round-panel__player-name .badge", card, ".round-panel__actions") == []
    assert clipped(page, 'form[data-ends-round] button[name="player"]') == []
    head = "#sheet thead .sheet__player"
    assert clipped(page, f"{head} > :first-child", "th", ".badge") == []


def test_the_phone_shows_every_name_and_badge_of_the_sheet_whole(
    strict_screen, base_url, screenshot_dir
):
    count = 8
    session = deciding_round(count)
    page = strict_screen(PHONE_390, bypass_csp=False)
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    page.goto(base_url + viewer)
    page.screenshot(path=screenshot_dir / f"names-viewer-phone-{count}.png", full_page=True)
    head = "#sheet thead .sheet__player"
    assert clipped(page, f"{head} > :first-child", "th", ".badge") == []
    assert clipped(page, f"{head} > .badge", "th", ".sheet__player > :first-child") == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), (
        "the page scrolls sideways"
    )
    # The sheet scrolls inside its frame, and a keyboard reaches it there (axe's
    # scrollable-region-focusable), named by its caption.
    sheet = page.locator("#sheet")
    assert sheet.evaluate("(e) => e.scrollWidth > e.clientWidth")
    assert sheet.get_attribute("tabindex") == "0"
    assert sheet.get_attribute("aria-labelledby") == "sheet-caption"
