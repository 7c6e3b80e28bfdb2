"""The lei as a picture for a group chat: a card of 1200x630 (a phone's chat preview, Open
Graph's size) drawn as SVG from the pages' own pictures (``scoring.svg``'s turfjes and the
toepkoning's crown of ``static/icons/crown.svg``), then to PNG by resvg.

Pure functions over a ``Card`` of plain text: the views decide the names (as their page shows
them to that audience, initials where asked) and the language (the club's). Text is drawn in
the bundled DejaVu Sans (``scoring/fonts/``, with its licence) and nothing else, so a server
without fonts draws the same picture; each name is measured in that font and set smaller, or
on two lines, until it fits its column: a name is never cut.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import resvg_py
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from PIL import ImageFont

from scoring import svg
from scoring.http import private_response

__all__ = [
    "HEIGHT",
    "WIDTH",
    "Card",
    "Line",
    "card_png",
    "card_svg",
    "description",
    "open_graph",
    "png_response",
]

WIDTH, HEIGHT = 1200, 630
FONTS = Path(__file__).resolve().parent / "fonts"
FONT = FONTS / "DejaVuSans.ttf"
FONT_BOLD = FONTS / "DejaVuSans-Bold.ttf"
FAMILY = "DejaVu Sans"
SLATE, CHALK, MUTED, GOLD = "#1f2a26", "#f4f1e8", "#b8c4bd", "#e0b020"
MARGIN = 40
TOP = 150  # the first line's top, under the club's name and the heading
BOTTOM = 590  # the last line's bottom, above the footer
LINE_MAX = 64  # a line's height with few lines
NAME_MIN = 17  # below this a name goes on two lines (a chat preview is small)
MAX_LINES = 8
TURFJES_LEFT = 690
CROWN = "M2 6l5 5 5-9 5 9 5-5-2 12H4z"  # static/icons/crown.svg, 24x20


@dataclass(frozen=True)
class Line:
    """One line of the card: a player (or a table) with their place."""

    place: str
    name: str
    total: int | None = None  # drawn as turfjes with the number beside them
    points: str = ""  # written at the right instead (a toernooi's points)
    toepkoning: bool = False
    out: bool = False  # over the maximum: drawn muted, as the sheet crosses them out


@dataclass(frozen=True)
class Card:
    title: str  # the club
    heading: str  # what this is: a game, an evening, a toernooi
    lines: Sequence[Line] = field(default_factory=tuple)
    more: str = ""  # what did not fit, in words ("en nog 12 spelers")
    place_width: int = 110  # wider for an evening's table labels


@lru_cache(maxsize=4)
def _font(bold: bool) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_BOLD if bold else FONT), 100)


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """How wide ``text`` is drawn at ``size`` px in the card's font (scaled from 100 px, with
    2 % to spare for the rounding of a smaller size)."""
    return _font(bold).getlength(text) * size / 100 * 1.02


def _fit(text: str, size: float, width: float, *, bold: bool = False) -> float:
    """The largest size up to ``size`` at which ``text`` is at most ``width`` wide."""
    measured = text_width(text, size, bold=bold)
    return size if measured <= width else size * width / measured


def _split(name: str) -> tuple[str, str]:
    """A name in two halves at the space nearest its middle (dropped), or at its middle."""
    spaces = [i for i, c in enumerate(name) if c == " "]
    if not spaces:
        return name[: len(name) // 2], name[len(name) // 2 :]
    cut = min(spaces, key=lambda i: abs(i - len(name) / 2))
    return name[:cut], name[cut + 1 :]


def _text(x: float, y: float, text: str, size: float, **attrs: str) -> SafeString:
    extra = format_html_join("", ' {}="{}"', ((k.replace("_", "-"), v) for k, v in attrs.items()))
    return format_html(
        '<text x="{}" y="{}" font-size="{}"{}>{}</text>',
        svg._n(x),
        svg._n(y),
        svg._n(size),
        extra,
        text,
    )


def _name(x: float, top: float, height: float, width: float, size: float, line: Line) -> SafeString:
    """A name in its column at the card's name size, or smaller where it does not fit; a name
    that would get smaller than ``NAME_MIN`` goes on two lines (``data-name`` keeps the whole
    name, for the tests)."""
    colour = MUTED if line.out else CHALK
    name = line.name
    size = _fit(name, size, width, bold=True)
    halves = _split(name)
    texts = [_text(x, top + height / 2 + size * 0.36, name, size)]
    if size < NAME_MIN and len(name) > 1:
        small = min(_fit(half, height * 0.4, width, bold=True) for half in halves)
        if small > size:
            texts = [
                _text(x, top + height * 0.46, halves[0], small),
                _text(x, top + height * 0.46 + small * 1.05, halves[1], small),
            ]
    return format_html(
        '<g class="name" data-name="{}" data-width="{}" font-weight="700" fill="{}">{}</g>',
        name,
        svg._n(width),
        colour,
        format_html_join("", "{}", ((t,) for t in texts)),
    )


def _name_width(line: Line, place_width: int) -> float:
    """The room a line's name has: up to the turfjes, the points or the right margin."""
    x = MARGIN + place_width
    if line.total is not None:
        return TURFJES_LEFT - 20 - x
    if line.points:
        return WIDTH - MARGIN - 240 - x
    return WIDTH - MARGIN - x


def _line(line: Line, top: float, height: float, place_width: int, name_size: float) -> str:
    colour = MUTED if line.out else CHALK
    parts: list[str] = []
    place_size = _fit(line.place, height * 0.5, place_width - 40, bold=True)
    parts.append(
        _text(MARGIN, top + height / 2 + place_size * 0.36, line.place, place_size, fill=MUTED)
    )
    if line.toepkoning:
        k = height * 0.5 / 20
        parts.append(
            format_html(
                '<path class="crown" fill="{}" d="{}" transform="translate({} {}) scale({})"/>',
                GOLD,
                CROWN,
                svg._n(MARGIN + place_width - 36),
                svg._n(top + height * 0.25),
                svg._n(k),
            )
        )
    x = MARGIN + place_width
    right = WIDTH - MARGIN
    if line.total is not None:
        number = str(line.total).replace("-", "\u2212")
        size = height * 0.5
        parts.append(
            _text(
                right, top + height / 2 + size * 0.36, number, size, fill=colour, text_anchor="end"
            )
        )
        marks = svg.turfjes(line.total, label=f"{line.name}: {line.total}")
        natural = float(marks.split('width="', 1)[1].split('"', 1)[0])
        box_left, box_right = TURFJES_LEFT, right - 90
        scale = min(height * 0.8 / 34, (box_right - box_left) / natural)
        parts.append(
            format_html(
                '<g color="{}" transform="translate({} {}) scale({})">{}</g>',
                colour,
                svg._n(box_left),
                svg._n(top + (height - 34 * scale) / 2),
                svg._n(scale),
                marks,
            )
        )
    elif line.points:
        size = _fit(line.points, height * 0.5, 220)
        parts.append(
            _text(
                right,
                top + height / 2 + size * 0.36,
                line.points,
                size,
                fill=colour,
                text_anchor="end",
            )
        )
    parts.append(_name(x, top, height, _name_width(line, place_width), name_size, line))
    return "".join(parts)


def card_svg(card: Card) -> str:
    """The card as one SVG document of ``WIDTH``x``HEIGHT``."""
    lines = list(card.lines)[:MAX_LINES]
    rows = len(lines) + (1 if card.more else 0)
    height = min(LINE_MAX, (BOTTOM - TOP) / max(rows, 1))
    title_size = _fit(card.title, 46, WIDTH - 2 * MARGIN, bold=True)
    heading_size = _fit(card.heading, 30, WIDTH - 2 * MARGIN)
    body = [
        format_html('<rect width="{}" height="{}" fill="{}"/>', WIDTH, HEIGHT, SLATE),
        _text(MARGIN, 70, card.title, title_size, font_weight="700", fill=CHALK),
        _text(MARGIN, 118, card.heading, heading_size, fill=MUTED),
        format_html(
            '<path d="M{} 134H{}" stroke="{}" stroke-width="2"/>', MARGIN, WIDTH - MARGIN, MUTED
        ),
    ]
    # One size for every name, the largest at which all fit, but not below NAME_MIN: a longer
    # name is set smaller or on two lines on its own.
    fits = [
        _fit(line.name, height * 0.55, _name_width(line, card.place_width), bold=True)
        for line in lines
    ]
    name_size = max(min(fits, default=NAME_MIN), NAME_MIN)
    for i, line in enumerate(lines):
        body.append(_line(line, TOP + i * height, height, card.place_width, name_size))
    if card.more:
        size = min(height * 0.45, 26)
        y = TOP + len(lines) * height + height / 2 + size * 0.36
        body.append(_text(MARGIN + card.place_width, y, card.more, size, fill=MUTED))
    body.append(
        _text(
            WIDTH - MARGIN,
            HEIGHT - 14,
            gettext("De digitale lei"),
            20,
            fill=MUTED,
            text_anchor="end",
        )
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FAMILY}">{"".join(body)}</svg>'
    )


def description(card: Card) -> str:
    """The card in words: the image's alternative text (``og:image:alt``) and its PNG's
    ``Description``, so that what a picture shows can be read (and checked) as text."""
    shown = [
        f"{line.place} {line.name}"
        + (f" {line.total}" if line.total is not None else "")
        + (f" {line.points}" if line.points else "")
        for line in list(card.lines)[:MAX_LINES]
    ]
    text = f"{card.title} — {card.heading}: " + ", ".join(shown)
    return text + (f", {card.more}" if card.more else "")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def card_png(card: Card) -> bytes:
    """The card as PNG, with its ``description`` as an iTXt chunk (UTF-8) before IEND."""
    png = bytes(
        resvg_py.svg_to_bytes(
            svg_string=card_svg(card),
            skip_system_fonts=True,
            font_files=[str(FONT), str(FONT_BOLD)],
            font_family=FAMILY,
            sans_serif_family=FAMILY,
        )
    )
    text = b"Description\x00\x00\x00\x00\x00" + description(card).encode()
    end = png.rindex(b"IEND") - 4
    return png[:end] + _chunk(b"iTXt", text) + png[end:]


def open_graph(request: HttpRequest, card: Card, image_path: str) -> dict[str, object]:
    """The Open Graph tags of a public page whose picture is at ``image_path``
    (``templates/scoring/_open_graph.html``): what a pasted link previews in a chat."""
    return {
        "title": f"{card.title} — {card.heading}",
        "description": description(card),
        "image": request.build_absolute_uri(image_path),
        "url": request.build_absolute_uri(request.path),
        "width": WIDTH,
        "height": HEIGHT,
    }


def png_response(card: Card) -> HttpResponse:
    """The card as a PNG answer, private as the page it is drawn from (members see names in
    full: ``scoring.http.private_response``)."""
    response = HttpResponse(card_png(card), content_type="image/png")
    response["Content-Disposition"] = 'inline; filename="lei.png"'
    return private_response(response)
