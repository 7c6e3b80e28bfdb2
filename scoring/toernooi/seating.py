"""The seating sheet's type: the largest at which a series' tables fit one A4 page.

The sheet (``templates/scoring/toernooi/seating.html``) is printed by the organiser's browser,
so its size is chosen here, before it is drawn, from an estimate: each name's letters give its
lines at each size (a long name wraps at its spaces, a word longer than a line anywhere), each
row of tables is as high as its longest table. The sizes and columns of ``DENSITIES`` are those
of ``.seating--<name>`` in ``static/css/toernooi.css``; ``tests/browser/test_wall_and_clock.py``
prints sheets of long names and checks that they fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.toernooi.selectors import TableStatus


@dataclass(frozen=True)
class Density:
    """One size of the sheet's type: ``columns`` of tables, the names' and headings' points;
    ``flow`` lists a table's players on lines one after the other instead of one a line."""

    name: str
    columns: int
    name_pt: float
    heading_pt: float
    flow: bool = False


# From the largest type down; the sheet takes the first whose tables fit. Past the last (some
# 40 tables of long names) the sheet goes on to a second page.
DENSITIES = (
    Density("l", 2, 20, 28),
    Density("m", 3, 14, 20),
    Density("s", 4, 11, 15),
    Density("lines", 2, 10, 10, flow=True),
)
_PAGE_MM = (190.0, 277.0)  # A4 less the 10 mm margins of @page seating
_FITS = 0.95  # of the page's height: the estimate's margin
_HEAD_MM = 16.0  # the sheet's heading and its rule
_GAP_MM = 3.0  # between tables, both ways
_BOX_MM = (7.0, 6.0)  # a table's box: padding and border, across and down
_FLOW_MM = 3.0  # a flowing table's padding and rule, down
_PT_MM = 25.4 / 72
_CHAR_EM = 0.6  # a letter of the sans-serif, on average (DejaVu Sans is wide)
_BOLD_EM = 0.67
_INDENT_EM = 1.6  # a box's seat numbers
_LINE_EM = 1.25
_DEALER = "deelt-eerst"  # the badge, in its smaller type, as wide as a word of this length


def sheet_density(tables: Sequence[TableStatus]) -> Density:
    """The largest type at which ``tables`` fit one A4 page; the smallest when none does."""
    for density in DENSITIES:
        if _height(tables, density) <= _PAGE_MM[1] * _FITS:
            return density
    return DENSITIES[-1]


def _height(tables: Sequence[TableStatus], density: Density) -> float:
    name_mm = density.name_pt * _PT_MM
    heading_mm = density.heading_pt * _PT_MM
    column = (_PAGE_MM[0] - _GAP_MM * (density.columns - 1)) / density.columns
    heights = []
    for status in tables:
        dealer = status.dealer.pk if status.dealer else None
        names = [p.name.split() + ([_DEALER] if p.pk == dealer else []) for p in status.players]
        if density.flow:
            # "Tafel 12" beside "1. Anne  2. Bas  ...", as many to a line as fit.
            heading = (len(f"Tafel {status.table.number}") + 1) * _BOLD_EM * heading_mm
            per_line = int((column - heading) / (_CHAR_EM * name_mm))
            # Each name after its seat number, and the room between two names after it.
            words = [
                w
                for seat, name in enumerate(names, 1)
                for w in [f"{seat}.", *name[:-1], name[-1] + "  "]
            ]
            lines = _lines(words, per_line)
            heights.append(lines * name_mm * _LINE_EM + _FLOW_MM)
        else:
            text = column - _BOX_MM[0] - _INDENT_EM * name_mm
            per_line = int(text / (_CHAR_EM * name_mm))
            lines = sum(_lines(name, per_line) for name in names)
            heights.append(heading_mm * 1.1 + lines * name_mm * _LINE_EM + _BOX_MM[1])
    rows = [max(heights[i : i + density.columns]) for i in range(0, len(heights), density.columns)]
    return _HEAD_MM + sum(rows) + _GAP_MM * max(0, len(rows) - 1)


def _lines(words: Sequence[str], per_line: int) -> int:
    """The lines ``words`` take at ``per_line`` letters a line, wrapped at the spaces.

    >>> _lines(["Wilhelmina", "van", "den", "Berg"], 16), _lines(["Schimmelpenninck"], 10)
    (2, 2)
    """
    per_line = max(per_line, 1)
    lines, used = 0, per_line  # as if the line before were full
    for word in words:
        if used + 1 + len(word) <= per_line:
            used += 1 + len(word)
        else:
            chunks = max(1, math.ceil(len(word) / per_line))
            lines += chunks
            used = len(word) - (chunks - 1) * per_line
    return lines
