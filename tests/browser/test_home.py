"""The home page in a real browser: the title, the language switch, nothing from other hosts."""

import re
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser


def test_home_page_switches_language_and_fits_tablet_and_phone(page, base_url, screenshot_dir):
    page.goto(base_url + "/")
    assert page.title() == "De digitale lei"
    assert page.locator("html").get_attribute("lang") == "nl"
    dutch = page.locator("main").inner_text()
    assert "Strafpunten bijhouden" in dutch
    page.screenshot(path=screenshot_dir / "home-768x1024.png", full_page=True)

    page.get_by_role("button", name="English").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
    english = page.locator("main").inner_text()
    assert english != dutch
    assert "penalty points" in english
    assert page.title() == "The digital lei"

    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "de"
    german = page.locator("main").inner_text()
    assert german not in (dutch, english)
    assert "Strafpunkte" in german

    page.get_by_role("button", name="Nederlands").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "nl"

    page.set_viewport_size({"width": 375, "height": 812})
    page.screenshot(path=screenshot_dir / "home-375x812.png", full_page=True)
    # Nothing sticks out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_home_page_loads_nothing_from_another_host(page, base_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto(base_url + "/", wait_until="networkidle")
    own = urlsplit(base_url).netloc
    assert requests, "the page made no requests at all"
    assert [url for url in requests if urlsplit(url).netloc != own] == []
    assert failed == []
    # The stylesheet, htmx and the icon came from our own static files, by the hashed names of
    # collectstatic's manifest (lei.<hash>.css), as in production.
    assert any(re.search(r"/static/css/lei\.[0-9a-f]{12}\.css$", url) for url in requests)
    assert any("htmx" in url for url in requests)


def test_every_button_on_the_home_page_is_a_big_enough_target(page, base_url):
    page.goto(base_url + "/")
    for box in page.locator("button, .btn").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().toJSON())"
    ):
        assert box["height"] >= 48
        assert box["width"] >= 48
