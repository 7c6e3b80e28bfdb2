"""The design system in a real browser: every component of lei.css on one page
(tests/browser/gallery.html), at the phone, tablet and TV sizes, light and dark."""

from pathlib import Path

import pytest
from django.template import RequestContext, Template
from django.test import RequestFactory

pytestmark = pytest.mark.browser

GALLERY = Path(__file__).with_name("gallery.html")
PLAYERS = [
    {"name": "Anne", "total": 7, "dots": [], "badge": "deler", "badge_text": "deler"},
    {"name": "Bas", "total": 8, "dots": [3], "badge": "voor-dood", "badge_text": "leven en dood"},
    {"name": "Cees", "total": 9, "dots": [], "badge": "armoede", "badge_text": "armoede"},
    {"name": "Dirk", "total": 11, "dots": [], "dood": True, "badge": "dood", "badge_text": "dood"},
    {"name": "Eva <script>", "total": -1, "dots": []},
]
ROWS = [[1, 2, 1, 0, 1], [2, 2, 3, 4, -1], [4, 0, 4, 6, -1], [0, 4, 1, 1, 0]]
SERIES = {
    "Anne": [0, 1, 3, 7, 7],
    "Bas": [0, 2, 4, 4, 8],
    "Cees": [0, 1, 4, 8, 9],
    "Dirk": [0, 0, 4, 10, 11],
    "Eva <script>": [0, 1, 0, -1, -1],
}
BODY_STYLE = "(s => [s.backgroundColor, s.fontSize])(getComputedStyle(document.body))"
SIZES = {"phone": (375, 812), "tablet": (768, 1024), "landscape": (1024, 768), "tv": (1280, 800)}


def gallery_html(body_class: str = "") -> str:
    request = RequestFactory().get("/")
    context = {"players": PLAYERS, "rows": ROWS, "series": SERIES, "body_class": body_class}
    return Template(GALLERY.read_text()).render(RequestContext(request, context))


def show(page, base_url: str, body_class: str = "") -> None:
    page.goto(base_url + "/")  # so /static/... resolves against the live server
    page.set_content(gallery_html(body_class), wait_until="load")


@pytest.mark.parametrize("size", SIZES)
def test_components_fit_and_are_big_enough_to_tap(page, base_url, screenshot_dir, size):
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    show(page, base_url, body_class="tv" if size == "tv" else "")
    page.screenshot(path=screenshot_dir / f"components-{size}.png", full_page=True)

    # Nothing sticks out sideways: the sheet scrolls inside its own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for box in page.locator("button, .btn, input, select").evaluate_all(
        "els => els.filter(e => !['checkbox', 'hidden'].includes(e.type))"
        ".map(e => ({h: e.getBoundingClientRect().height, w: e.getBoundingClientRect().width}))"
    ):
        assert box["h"] >= 48
        assert box["w"] >= 48
    # The pictures have a size of their own (from the viewBox and lei.css).
    for selector in (".lei-turfjes", ".lei-die", ".lei-chart"):
        box = page.locator(selector).first.bounding_box()
        assert box["width"] > 0
        assert box["height"] > 0
    # The hostile name is text, not a script.
    assert page.locator("script:not([src])").count() == 0


def test_tv_mode_is_dark_with_big_type(page, base_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    show(page, base_url)
    light = page.evaluate(BODY_STYLE)
    show(page, base_url, body_class="tv")
    dark = page.evaluate(BODY_STYLE)
    assert light[0] != dark[0]
    assert dark[0] == "rgb(14, 20, 18)"
    assert float(dark[1].removesuffix("px")) > float(light[1].removesuffix("px"))


def test_prefers_dark_colour_scheme_darkens_the_page(page, base_url, screenshot_dir):
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 768, "height": 1024})
    show(page, base_url)
    page.screenshot(path=screenshot_dir / "components-dark.png", full_page=True)
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 28, 25)"
