"""The organiser's series page in Chromium with long names: every table's totals stay in its
card (the card's names wrap), at the laptop's and the tablet's width."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from scoring.models import ClubMembership
from tests.browser.pages import LAPTOP, TABLET, evening, login

pytestmark = pytest.mark.browser

# The tables whose content is wider than their card (it would scroll sideways, the totals
# out of sight), and the totals not wholly inside their card.
CUT = """() => {
  const cards = [...document.querySelectorAll('#series-tables [data-table]')];
  const wide = cards.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.dataset.table);
  const out = cards.flatMap((c) => [...c.querySelectorAll('.sheet__total')].filter((t) => {
    const r = t.getBoundingClientRect(), box = c.getBoundingClientRect();
    return r.right > box.right + 1 || r.left < box.left - 1;
  }).map((t) => c.dataset.table + ': ' + t.textContent));
  return {cards: cards.length, wide, out};
}"""


@pytest.mark.parametrize("size", [LAPTOP, TABLET], ids=["laptop", "tablet"])
def test_long_names_wrap_and_the_totals_stay_in_their_card(page, base_url, screenshot_dir, size):
    tournament = evening(12)
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=tournament.club, role="admin")
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.set_viewport_size(size)
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/")
    measured = page.evaluate(CUT)
    page.screenshot(path=screenshot_dir / f"series-long-names-{size['width']}.png", full_page=True)
    assert measured == {"cards": 3, "wide": [], "out": []}
