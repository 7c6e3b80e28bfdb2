"""The table cards as they come out of a printer, decoded as a tablet's camera would.

Chromium prints the cards page to PDF (print media, the page's own A6 or A5 size), poppler's
``pdftoppm`` rasterises every page at 150 and 300 dpi, and zxing-cpp decodes each page: every
card must give exactly its own table's scorer link, from a symbol of at least 30 mm with its
quiet zone (4 modules of white all round, inside the page) intact.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from scoring.models import Club, ClubMembership, Player
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.browser.pages import TABLET, console_errors, login, long_names

pytestmark = pytest.mark.browser

# Real full names, the longest there are (40 letters, each on two lines of the card): the
# card's layout must not push the QR code onto a page of its own.
NAMES = sorted(long_names(400), key=len)[-13:]
MIN_SYMBOL_MM = 30
QUIET_MODULES = 4


def _pdftoppm() -> str:
    found = shutil.which("pdftoppm")
    if found is None:
        reason = "no pdftoppm: apt-get install poppler-utils"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run the browser tests (see .ci/run)", pytrace=False)
        pytest.skip(reason)
    return found


def _rasterise(pdf: Path, dpi: int, into: Path) -> list[Path]:
    """Every page of ``pdf`` as a grey PNG at ``dpi``, in page order."""
    prefix = into / f"{pdf.stem}-{dpi}"
    subprocess.run(
        [_pdftoppm(), "-r", str(dpi), "-gray", "-png", str(pdf), str(prefix)],
        check=True,
        timeout=60,
    )
    return sorted(into.glob(f"{prefix.name}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def _decode(png: Path, dpi: int) -> tuple[str, float]:
    """The text of the one QR code on a printed page, and its symbol's side in mm, after
    checking its quiet zone: 4 modules of white all round, inside the page."""
    import zxingcpp
    from PIL import Image

    image = Image.open(png).convert("L")
    found = [b for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]
    assert len(found) == 1, f"{png.name}: {len(found)} QR codes decoded"
    code = found[0]
    corners = code.position
    xs = [corners.top_left.x, corners.top_right.x, corners.bottom_left.x, corners.bottom_right.x]
    ys = [corners.top_left.y, corners.top_right.y, corners.bottom_left.y, corners.bottom_right.y]
    side_px = math.dist(
        (corners.top_left.x, corners.top_left.y), (corners.top_right.x, corners.top_right.y)
    )
    modules = _modules(code.text)
    module_px = side_px / modules
    quiet = round(QUIET_MODULES * module_px)
    left, top = min(xs) - quiet, min(ys) - quiet
    right, bottom = max(xs) + quiet, max(ys) + quiet
    assert min(left, top) >= 0, f"{png.name}: the quiet zone is cut off by the page"
    assert right < image.width, f"{png.name}: the quiet zone is cut off by the page"
    assert bottom < image.height, f"{png.name}: the quiet zone is cut off by the page"
    # The ring between the symbol (a module in, for the rounding of its corners) and the quiet
    # zone's edge is white.
    inset = math.ceil(module_px)
    ring = [
        (left, top, right, min(ys) - inset),
        (left, max(ys) + inset, right, bottom),
        (left, top, min(xs) - inset, bottom),
        (max(xs) + inset, top, right, bottom),
    ]
    for box in ring:
        darkest = image.crop(box).getextrema()[0]
        assert darkest > 160, f"{png.name}: something dark in the quiet zone {box}"
    return code.text, side_px / dpi * 25.4


def _modules(text: str) -> int:
    """The side of the symbol in modules, as scoring/svg.py's qr_svg makes it."""
    import segno

    return segno.make(text, error="m").symbol_size(border=0)[0]


@pytest.mark.parametrize("size", ["a6", "a5"])
def test_every_printed_table_card_scans_as_its_own_tables_scorer_link(
    browser, base_url, screenshot_dir, tmp_path, size
):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    players = [Player.objects.create(club=club, name=n) for n in NAMES]
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    tournament = tournaments.tournament_create(
        club=club,
        name="Het grote Wilhelmina van den Berg-Hoogendoorn-toernooi van de Gouden Boer",
        series_count=2,
    )
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=2)
    tournaments.series_start(series=series)
    tables = list(series.tables.select_related("session").order_by("number"))
    assert len(tables) == 3  # 13 players: 5 + 4 + 4
    links = [base_url + reverse("scorer_link", args=[t.session.scorer_token]) for t in tables]

    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(
        f"{base_url}/toernooi/{tournament.pk}/serie/1/tafelkaarten/"
        + ("?formaat=a5" if size == "a5" else "")
    )
    expect(page.locator(".table-card")).to_have_count(3)
    pdf = tmp_path / f"cards-{size}.pdf"
    page.pdf(path=str(pdf), prefer_css_page_size=True)
    shutil.copy(pdf, screenshot_dir / f"toernooi-cards-{size}-printed.pdf")
    context.close()
    assert errors == []

    for dpi in (150, 300):
        pages = _rasterise(pdf, dpi, tmp_path)
        assert len(pages) == 3, f"{dpi} dpi: one page per table"
        for png, link in zip(pages, links, strict=True):
            text, side_mm = _decode(png, dpi)
            assert text == link, f"{png.name}"
            assert side_mm >= MIN_SYMBOL_MM, f"{png.name}: the QR code is {side_mm:.1f} mm"
        if dpi == 150:
            shutil.copy(pages[0], screenshot_dir / f"toernooi-card-{size}-printed-150dpi.png")
