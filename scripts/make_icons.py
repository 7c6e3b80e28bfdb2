"""Draw the app icons: a slate in its wooden frame with one group of chalk tally marks.

Writes static/icons/icon.svg and the PNG icons (192, 512, the 180 px apple-touch-icon) with only
the standard library (zlib and struct for PNG), so no image library is needed. The PNGs are
committed; run this again only when the picture changes:

    .venv/bin/python scripts/make_icons.py

The drawing is in a 512 x 512 space. Each pixel's colour comes from signed distances to the
shapes (a rounded rectangle, round-capped strokes), which gives smooth edges without
supersampling. Everything important stays inside the central circle, so the same picture works
as a "maskable" icon.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"

WOOD = (0x8B, 0x5A, 0x2B)
SLATE = (0x1F, 0x2A, 0x26)
CHALK = (0xF6, 0xF4, 0xEC)
SLATE_BOX = (56, 56, 456, 456, 36)  # x0, y0, x1, y1, corner radius
STROKE_WIDTH = 30
# Four upright strokes crossed by a fifth, as on a lei.
STROKES = [((x, 152), (x, 360)) for x in (160, 217, 274, 331)] + [((118, 318), (374, 190))]


def rounded_box_distance(x: float, y: float, box: tuple[int, int, int, int, int]) -> float:
    x0, y0, x1, y1, r = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    qx = abs(x - cx) - ((x1 - x0) / 2 - r)
    qy = abs(y - cy) - ((y1 - y0) / 2 - r)
    outside = math.hypot(max(qx, 0), max(qy, 0))
    return outside + min(max(qx, qy), 0) - r


def segment_distance(x: float, y: float, a: tuple[int, int], b: tuple[int, int]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy) - STROKE_WIDTH / 2


def mix(under: tuple[int, ...], over: tuple[int, ...], alpha: float) -> tuple[int, ...]:
    return tuple(round(u + (o - u) * alpha) for u, o in zip(under, over, strict=True))


def render(size: int) -> bytes:
    """The icon as raw RGB rows, each starting with PNG filter byte 0."""
    scale = 512 / size
    rows = bytearray()
    for py in range(size):
        rows.append(0)
        y = (py + 0.5) * scale
        for px in range(size):
            x = (px + 0.5) * scale
            colour = WOOD
            slate = 0.5 - rounded_box_distance(x, y, SLATE_BOX) / scale
            if slate > 0:
                colour = mix(colour, SLATE, min(slate, 1.0))
            chalk = 0.5 - min(segment_distance(x, y, a, b) for a, b in STROKES) / scale
            if chalk > 0:
                colour = mix(colour, CHALK, min(chalk, 1.0))
            rows += bytes(colour)
    return bytes(rows)


def png(size: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(render(size), 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    x0, y0, x1, y1, r = SLATE_BOX
    d = "".join(f"M{a[0]} {a[1]}L{b[0]} {b[1]}" for a, b in STROKES)
    hex_ = "#{:02x}{:02x}{:02x}".format
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
        f'<rect width="512" height="512" fill="{hex_(*WOOD)}"/>'
        f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="{r}" '
        f'fill="{hex_(*SLATE)}"/>'
        f'<path d="{d}" fill="none" stroke="{hex_(*CHALK)}" stroke-width="{STROKE_WIDTH}" '
        'stroke-linecap="round"/></svg>\n'
    )


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    (ICONS / "icon.svg").write_text(svg())
    for name, size in [("icon-192.png", 192), ("icon-512.png", 512), ("apple-touch-icon.png", 180)]:
        (ICONS / name).write_bytes(png(size))
        print(f"wrote {name} ({size} x {size})")


if __name__ == "__main__":
    main()
