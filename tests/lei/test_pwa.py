"""The web-app manifest and its icons, so the lei can be put on a tablet's home screen."""

import json
import struct
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.test import RequestFactory

STATIC = Path(settings.BASE_DIR) / "static"


def manifest() -> dict:
    return json.loads((STATIC / "manifest.webmanifest").read_text(encoding="utf-8"))


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_manifest_is_valid_json_with_the_product_name():
    data = manifest()
    assert data["name"] == "De digitale lei"
    assert data["short_name"] == "Lei"
    assert data["start_url"] == "/"
    assert data["display"] == "standalone"
    assert data["theme_color"].startswith("#")
    assert data["background_color"].startswith("#")


def test_manifest_icons_exist_with_the_sizes_they_claim():
    icons = manifest()["icons"]
    sizes = set()
    for icon in icons:
        path = STATIC / icon["src"]  # relative to the manifest, which is in static/
        assert path.is_file(), icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(path)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
        else:
            assert path.read_text().startswith("<svg")
    assert {192, 512} <= sizes


def test_apple_touch_icon_and_base_template_links():
    assert png_size(STATIC / "icons" / "apple-touch-icon.png") == (180, 180)
    html = render_to_string("base.html", request=RequestFactory().get("/"))
    for name in ("manifest.webmanifest", "icons/apple-touch-icon.png", "icons/icon.svg"):
        assert f"/static/{name}" in html
        assert finders.find(name)
    assert '<meta name="theme-color"' in html
    assert "<script>" not in html  # no inline scripts: a strict CSP comes later
