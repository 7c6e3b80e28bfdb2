"""'Delen' (static/js/share.js): the tablet's end screen and the evening page share the game's
picture (scoring/picture.py). Where the phone can share files (the Web Share API) the picture
goes to its share sheet as a PNG file; anywhere else the link downloads it."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from scoring.models import Club, Player
from tests.browser.pages import long_names, open_finished_game
from tests.builders import play

pytestmark = pytest.mark.browser

# A phone that shares files: Chromium on Linux has no share sheet, so the test gives the page
# one that keeps what it was handed (the Web Share API's two functions, nothing of ours).
SHARE_SHEET = """
navigator.canShare = (data) => Boolean(data && data.files && data.files.length);
navigator.share = (data) => {
  window.__shared = data.files.map((f) => [f.name, f.type, f.size]);
  return Promise.resolve();
};
"""


def test_delen_on_the_tablets_end_screen_downloads_the_picture(page, base_url, screenshot_dir):
    open_finished_game(page, base_url, 1024, 768)
    share = page.get_by_role("link", name="Delen")
    expect(share).to_be_visible()
    page.screenshot(path=screenshot_dir / "delen-tablet-1024x768.png")
    with page.expect_download() as download:
        share.click()
    assert download.value.suggested_filename == "lei.png"
    image = Image.open(io.BytesIO(download.value.path().read_bytes()))
    assert image.size == (1200, 630)
    assert "Anne" in image.text["Description"]


def test_delen_on_a_phone_hands_the_picture_to_its_share_sheet(browser, base_url, screenshot_dir):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    names = long_names(8)
    session = play(club, names, table="Tafel 1")
    Player.objects.filter(club=club, name=names[1]).update(public_initials=True)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="nl-NL")
    phone.add_init_script(SHARE_SHEET)
    page = phone.new_page()
    page.goto(f"{base_url}/club/{club.slug}/avond/{session.played_on.isoformat()}/")
    share = page.get_by_role("link", name="Delen")
    expect(share).to_be_visible()
    page.screenshot(path=screenshot_dir / "delen-phone-390x844.png")
    share.click()
    page.wait_for_function("() => window.__shared !== undefined")
    [(name, kind, size)] = page.evaluate("() => window.__shared")
    assert (name, kind) == ("lei.png", "image/png")
    assert 10_000 < size < 200_000
    # The picture of the game itself, as the public gets it from the page's og:image.
    og = page.locator('meta[property="og:image"]').get_attribute("content")
    assert og.endswith("/lei.png")
    game = page.request.get(f"{base_url}/club/{club.slug}/archief/{session.pk}/lei.png").body()
    (screenshot_dir / "picture-eight-long-names.png").write_bytes(game)
    shown = Image.open(io.BytesIO(game)).text["Description"]
    assert names[1] not in shown  # initials, as the page shows them to the public
    phone.close()
