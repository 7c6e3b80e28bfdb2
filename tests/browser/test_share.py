"""The links to share a game come when "Deel" is opened on the tablet: the page itself, and the
service worker's copy of it, hold no secret scorer link."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser.layout import SIZES, full_table, open_tablet, screen
from tests.browser.outbox import wait_until_kept

pytestmark = pytest.mark.browser

__all__ = ["screen"]  # the fixture, shared with the other layout tests

KEPT_PAGE = """async () => {
  await navigator.serviceWorker.ready;
  const copies = await caches.open('lei-tablet-v1');
  const kept = await copies.match(location.pathname);
  return kept ? await kept.text() : "";
}"""


def test_deel_fetches_the_scorer_link_which_the_page_and_its_copy_never_hold(screen, base_url):
    session = full_table()
    tablet = screen(SIZES["768x1024"])
    open_tablet(tablet, base_url, session)
    secret = reverse("scorer_link", args=[session.scorer_token])
    assert secret not in tablet.content()
    wait_until_kept(tablet)
    kept = tablet.evaluate(KEPT_PAGE)
    assert 'id="panel"' in kept
    assert secret not in kept

    tablet.locator("#share > summary").click()
    expect(tablet.get_by_role("heading", name="Scoren op een andere tablet")).to_be_visible()
    expect(tablet.locator("#share-links")).to_contain_text(base_url + secret)
    expect(tablet.locator("#share-links svg")).to_have_count(2)  # the two QR codes
    assert secret not in tablet.evaluate(KEPT_PAGE)
