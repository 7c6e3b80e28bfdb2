"""The home page leads anyone, signed in or not, to the standings of the clubs that publish
them, in a real browser on a phone."""

import pytest

from tests.builders import make_club

pytestmark = pytest.mark.browser


def test_a_visitor_finds_a_public_clubs_standings_from_the_home_page(
    page, base_url, screenshot_dir
):
    make_club(name="De Gouden Boer", slug="de-gouden-boer", standings_public=True)
    make_club(name="Besloten Kring", slug="besloten", standings_public=False)
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(base_url + "/")
    clubs = page.get_by_role("navigation", name="De stand van de clubs")
    assert clubs.get_by_role("link").all_inner_texts() == ["De Gouden Boer"]
    page.screenshot(path=screenshot_dir / "home-clubs-375x812.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    box = clubs.get_by_role("link", name="De Gouden Boer").bounding_box()
    assert box["height"] >= 48  # a thumb's target, as every button of the page
    clubs.get_by_role("link", name="De Gouden Boer").click()
    page.wait_for_load_state()
    assert page.url.endswith("/club/de-gouden-boer/")
    assert "De Gouden Boer" in page.locator("h1").inner_text()
