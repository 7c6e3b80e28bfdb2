"""Server-rendered SVG pictures of the lei: tally marks (turfjes), the stake die, the score chart.

Pure functions: no models, no request, no JavaScript. Each returns a ``SafeString`` of one
``<svg>`` element, built with escaping (``format_html``/``escape``), so the templates can output
it as it is (see ``scoring/templatetags/lei.py``). Every picture:

- is accessible: ``role="img"``, an ``aria-label`` and a ``<title>`` with the given label;
- is sized by its ``viewBox`` (``width``/``height`` give the natural size; CSS scales them, see
  the ``.lei-turfjes``, ``.lei-die`` and ``.lei-chart`` rules in ``static/css/lei.css``);
- draws with ``currentColor`` or CSS classes, so the light and the dark (TV) theme both work;
- has no ``style`` attributes and no scripts, so a strict Content-Security-Policy allows it.

The tally marks are sent on every tap (one per player in the sheet), so they are kept to a few
hundred bytes: all strokes are one ``<path>`` with a combined ``d``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from itertools import groupby

import segno
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

__all__ = [
    "CHART_COLOURS",
    "QR_QUIET_ZONE",
    "die",
    "qr_svg",
    "score_chart",
    "tally_from_results",
    "turfjes",
]


def _n(value: float) -> str:
    """A number for SVG markup, as short as possible: 3, 3.5, -0.25."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# --- Turfjes (tally marks) ---------------------------------------------------------------

# The geometry of one group on the lei, in viewBox units: four vertical strokes STEP apart from
# y=TOP to y=BOTTOM, crossed by a fifth stroke from lower left to upper right. Groups are PITCH
# apart. Jack dots sit above the strokes at y=DOT_Y.
_STEP = 7
_PITCH = 36
_TOP = 8
_BOTTOM = 30
_DOT_Y = 3
_HEIGHT = 34
_LEFT = 6
_MINUS_WIDTH = 14
_CROSS_FROM = (-3, 25)  # relative to the group's first stroke
_CROSS_TO = (24, 13)
# No tally draws more strokes than this: a larger total is written as a number, so that a
# picture stays a few hundred bytes whatever the total (ten crossed groups are still counted
# at a glance; nobody counts a hundred strokes).
TURFJES_MAX = 50


def _stroke(index: int, x0: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The (start, top) of the stroke with this 0-based index; start is where the pen goes down."""
    group, place = divmod(index, 5)
    gx = x0 + group * _PITCH
    if place < 4:
        x = gx + place * _STEP
        return (x, _BOTTOM), (x, _TOP)
    return (gx + _CROSS_FROM[0], _CROSS_FROM[1]), (gx + _CROSS_TO[0], _CROSS_TO[1])


@lru_cache(maxsize=1024)
def _stroke_path(index: int, x0: float) -> tuple[str, float]:
    """The path of the stroke with this 0-based index, and its rightmost x. The same strokes
    make every picture: a new total after a round is drawn from these, not number by number."""
    start, top = _stroke(index, x0)
    if start[0] == top[0]:  # an upright stroke: the shortest path command
        return f"M{_n(start[0])} {_n(start[1])}V{_n(top[1])}", start[0]
    return f"M{_n(start[0])} {_n(start[1])}L{_n(top[0])} {_n(top[1])}", max(start[0], top[0])


def tally_from_results(results: Iterable[int]) -> tuple[int, list[int]]:
    """What the lei shows for a player's round results, in order: ``(total, jack_dots)``.

    On a chalk lei a point is never wiped out: a point scored is a stroke and a point taken off
    (the boer rule, RULES.md §6) is a dot by the last stroke. So positive results add strokes and
    negative results add dots at the current stroke count.

    >>> tally_from_results([1, 2, -1, 1])
    (3, [3])
    """
    strokes = 0
    taken_off = 0
    dots: list[int] = []
    for result in results:
        if result > 0:
            strokes += result
        elif result < 0:
            taken_off -= result
            # Past TURFJES_MAX the tally is a number anyway: no need to keep every dot.
            room = TURFJES_MAX + 1 - len(dots)
            dots += [strokes] * min(-result, max(room, 0))
    return strokes - taken_off, dots


def turfjes(total: int, *, jack_dots: Sequence[int] = (), label: str) -> SafeString:
    """A total drawn as tally marks, the way it is chalked on a lei.

    Points are strokes in groups of five: four upright strokes crossed by a fifth. ``jack_dots``
    are the deductions of the boer rule, as stroke counts: a dot at ``p`` was chalked after the
    p-th stroke, above it; the next stroke, if any, starts from the dot (joined to it, as the
    chalk is drawn on a real lei). A dot takes one point off, so the lei shows
    ``total + len(jack_dots)`` strokes (see ``tally_from_results`` to get both from the round
    results). Positions beyond the last stroke are drawn after it.

    A negative total (possible with the boer rule) is drawn as a chalk minus sign followed by
    ``-total`` strokes, without dots: that is the clearest reading for the table, and the
    number is in the label anyway. So is a total that ``jack_dots`` does not explain.

    ``label`` is the accessible name (for example "Anne: 7 strafpunten"); it is escaped.

    >>> svg = turfjes(7, label="Anne: 7")
    >>> svg.count("M"), "<title>Anne: 7</title>" in svg  # 5 + 2 strokes, one path
    (7, True)

    More than ``TURFJES_MAX`` strokes are not drawn: the total is written as a number instead,
    so that no total makes a large picture.

    >>> "<path" in turfjes(1000, label="Anne: 1000"), ">1000</text>" in turfjes(1000, label="x")
    (False, True)

    The same totals are drawn again on every tap's answer and every viewer's sheet until the
    round ends, so a worker keeps the last few thousand pictures it drew (a pure function).
    """
    return _turfjes(int(total), tuple(jack_dots), str(label))


@lru_cache(maxsize=4096)
def _turfjes(total: int, jack_dots: tuple[int, ...], label: str) -> SafeString:
    parts: list[str] = []
    dot_parts: list[str] = []
    x0 = _LEFT
    negative = total < 0
    if negative:
        parts.append(f"M2 {_n((_TOP + _BOTTOM) / 2)}h9")
        x0 += _MINUS_WIDTH
        strokes, dots = -total, []
    else:
        dots = sorted(max(0, int(p)) for p in jack_dots)
        strokes = total + len(dots)
    if strokes > TURFJES_MAX:
        return _number(total, label)
    dots = [min(p, strokes) for p in dots]

    # Where each dot sits, and the stroke (0-based) that is joined to it.
    joined: dict[int, tuple[float, float]] = {}
    right = float(x0)
    for k, position in enumerate(dots):
        same_before = k - dots.index(position)  # dots already drawn at this position
        # Half a step right of the stroke it follows (left of the first stroke for 0).
        x = x0 - 3.5 if position == 0 else _stroke(position - 1, x0)[1][0] + 3.5
        x += same_before * 4
        dot_parts.append(f"M{_n(x)} {_DOT_Y}h0")
        right = max(right, x + 3)
        if position < strokes:
            joined[position] = (x, _DOT_Y)

    for index in range(strokes):
        path, stroke_right = _stroke_path(index, x0)
        parts.append(path)
        if index in joined:
            dx, dy = joined[index]
            parts.append(f"L{_n(dx)} {_n(dy)}")
        right = max(right, stroke_right)

    width = _n(right + 4) if strokes or dots else "8"
    paths = []
    if parts:
        paths.append(format_html('<path d="{}"/>', "".join(parts)))
    if dot_parts:
        paths.append(format_html('<path stroke-width="6" d="{}"/>', "".join(dot_parts)))
    return format_html(
        '<svg class="lei-turfjes" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="{label}" fill="none" stroke="currentColor" stroke-width="3" '
        'stroke-linecap="round" stroke-linejoin="round"><title>{label}</title>{paths}</svg>',
        w=width,
        h=_HEIGHT,
        label=label,
        paths=_join(paths),
    )


def _number(total: int, label: str) -> SafeString:
    """A total too large for tally marks, as a number of the same height."""
    text = str(total).replace("-", "\u2212")  # a minus sign, as wide as the digits
    width = 8 + 15 * len(text)
    return format_html(
        '<svg class="lei-turfjes lei-turfjes--number" viewBox="0 0 {w} {h}" width="{w}" '
        'height="{h}" role="img" aria-label="{label}"><title>{label}</title>'
        '<text x="4" y="27" font-family="system-ui,sans-serif" font-weight="700" '
        'font-size="26" fill="currentColor">{text}</text></svg>',
        w=width,
        h=_HEIGHT,
        label=label,
        text=text,
    )


# --- Die (the stake) ---------------------------------------------------------------------

_PIPS = {
    1: ["cc"],
    2: ["tl", "br"],
    3: ["tl", "cc", "br"],
    4: ["tl", "tr", "bl", "br"],
    5: ["tl", "tr", "cc", "bl", "br"],
    6: ["tl", "tr", "ml", "mr", "bl", "br"],
}
_PIP_X = {"l": 28, "c": 50, "r": 72}
_PIP_Y = {"t": 28, "m": 50, "c": 50, "b": 72}


def die(stake: int, *, label: str) -> SafeString:
    """The stake as a large die face: pips for 1 to 6, the number on the face beyond 6.

    The face is ``.lei-die__face`` and the pips or number ``.lei-die__pips`` (themed in
    lei.css; white face with black pips without it). ``label`` is the accessible name, for
    example "Inzet: 3".

    >>> die(3, label="Inzet: 3").count("h0")  # three pips
    3
    >>> ">8</text>" in die(8, label="Inzet: 8")
    True
    """
    if stake < 1:
        raise ValueError(f"a stake is at least 1, not {stake}")
    if stake in _PIPS:
        d = "".join(f"M{_PIP_X[p[1]]} {_PIP_Y[p[0]]}h0" for p in _PIPS[stake])
        face = format_html(
            '<path class="lei-die__pips" d="{}" stroke="#000" stroke-width="17" '
            'stroke-linecap="round"/>',
            d,
        )
    else:
        size = 60 if stake < 10 else 46 if stake < 100 else 32 if stake < 1000 else 24
        face = format_html(
            '<text class="lei-die__pips" x="50" y="52" text-anchor="middle" '
            'dominant-baseline="central" font-family="system-ui,sans-serif" font-weight="700" '
            'font-size="{}" fill="#000">{}</text>',
            size,
            stake,
        )
    return format_html(
        '<svg class="lei-die" viewBox="0 0 100 100" width="100" height="100" role="img" '
        'aria-label="{label}"><title>{label}</title>'
        '<rect class="lei-die__face" x="4" y="4" width="92" height="92" rx="16" fill="#fff" '
        'stroke="#000" stroke-width="4"/>{face}</svg>',
        label=label,
        face=face,
    )


# --- Score chart -------------------------------------------------------------------------

# Eight colours, one per seat, each with a contrast of at least 3:1 against both the light
# chalk-white page and the dark slate TV background (WCAG 1.4.11 for graphics). Seats 5-8 are
# also dashed, so the lines can be told apart without colour.
CHART_COLOURS = (
    "#d6455d",  # red
    "#2c8ad2",  # blue
    "#cc6a10",  # orange
    "#0e9a56",  # green
    "#b05fd1",  # violet
    "#868c00",  # olive
    "#d05fa8",  # pink
    "#7f7f7f",  # grey
)
_DASHES = ("", "", "", "", "7 4", "7 4", "2 4", "2 4")

_W = 320  # viewBox width: on a 375 px phone the 13-unit text is about 13 px
_PLOT = (30, 10, 310, 170)  # left, top, right, bottom of the plot area
_TEXT_HEIGHT = 10  # what the chart's 13-unit text rises above its baseline
_LEGEND_ROW = 18
_NAME_MAX = 16


def _nice_step(span: float, ticks: int = 5) -> int:
    raw = max(span / ticks, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover


def _short(name: str) -> str:
    return name if len(name) <= _NAME_MAX else name[: _NAME_MAX - 1] + "…"


def score_chart(
    series: Mapping[str, Sequence[int | Decimal]],
    *,
    max_points: int | None,
    labels: Mapping[str, str],
) -> SafeString:
    """A line chart of each player's running total per round, with a legend.

    ``series`` maps a player's name (user input: it is escaped) to their totals, starting with
    the total at the start (round 0, usually 0) and then the total after each round: x is the
    round 0..n, y the total. A player who joined late or went out may have a shorter list; it is
    drawn from round 0 as far as it goes. The order of ``series`` is the seat order and gives
    the colours (``CHART_COLOURS``; seats 5-8 are also dashed).

    ``max_points`` draws a horizontal line where a player is out (``None``: no line).

    ``labels`` holds the (translated) words: ``title`` (the accessible name, required),
    ``round`` (the x axis, optional) and ``max`` (the label of the max line, optional; it may
    contain ``{max}``).

    The legend lists each name with its last total, two columns wide, so the chart stays
    readable at 375 px.

    >>> svg = score_chart({"Anne": [0, 1, 3], "<b>Bas</b>": [0, 2, 2]}, max_points=10,
    ...                   labels={"title": "Stand"})
    >>> "&lt;b&gt;Bas&lt;/b&gt;" in svg and "<b>" not in svg
    True
    """
    title = labels["title"]
    names = list(series)
    values = [float(v) for totals in series.values() for v in totals]
    rounds = max((len(totals) for totals in series.values()), default=1) - 1
    rounds = max(rounds, 1)
    low = min([0, *values])
    high = max([1, *values, *([max_points] if max_points is not None else [])])
    step = _nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    left, top, right, bottom = _PLOT

    def x_at(round_number: int) -> float:
        return left + (right - left) * round_number / rounds

    def y_at(total: float) -> float:
        return bottom - (bottom - top) * (total - low) / (high - low)

    lines: list[str] = []  # drawn with stroke, no fill
    texts: list[str] = []
    # Grid and y ticks.
    grid = []
    for tick in range(low, high + 1, step):
        y = _n(y_at(tick))
        grid.append(f"M{left} {y}H{right}")
        texts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end">{}</text>', left - 4, _n(float(y) + 4), tick
            )
        )
    lines.append(
        format_html(
            '<path class="lei-chart__grid" d="{}" stroke="#888" stroke-opacity=".35" '
            'stroke-width="1"/>',
            "".join(grid),
        )
    )
    # X ticks: at most about 8 labels.
    x_step = max(1, math.ceil(rounds / 8))
    for round_number in range(0, rounds + 1, x_step):
        texts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="middle">{}</text>',
                _n(x_at(round_number)),
                bottom + 14,
                round_number,
            )
        )
    if labels.get("round"):
        texts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end">{}</text>',
                right,
                bottom + 28,
                labels["round"],
            )
        )
    # The line where a player is out.
    if max_points is not None:
        y = y_at(max_points)
        lines.append(
            format_html(
                '<path class="lei-chart__max" d="M{} {}H{}" stroke="currentColor" '
                'stroke-width="2" stroke-dasharray="6 4"/>',
                left,
                _n(y),
                right,
            )
        )
        max_label = labels.get("max", "{max}").replace("{max}", str(max_points))
        # Above the line, unless the line is the plot's top: then below it, inside the picture.
        label_y = y - 5 if y - 5 - _TEXT_HEIGHT >= 0 else y + 5 + _TEXT_HEIGHT
        texts.append(
            format_html(
                '<text class="lei-chart__max-label" x="{}" y="{}">{}</text>',
                left + 4,
                _n(label_y),
                max_label,
            )
        )
    # One line per player, then the legend below the plot: one column for up to four players,
    # two columns for more.
    legend_top = bottom + 44
    per_column = 4 if len(names) <= 4 else math.ceil(len(names) / 2)
    summary = []
    for seat, name in enumerate(names):
        totals = list(series[name])
        colour = CHART_COLOURS[seat % len(CHART_COLOURS)]
        dash = _DASHES[seat % len(_DASHES)]
        dash_attr = format_html(' stroke-dasharray="{}"', dash) if dash else ""
        if totals:
            d = "M" + "L".join(f"{_n(x_at(i))} {_n(y_at(float(t)))}" for i, t in _sampled(totals))
            if len(totals) == 1:
                d += "h0"
            lines.append(
                format_html(
                    '<path class="lei-chart__line" d="{}" stroke="{}"{}/>', d, colour, dash_attr
                )
            )
        # In the reader's language, as the page beside it: a rating of 7,9 is not "7.9" in Dutch.
        last = number_format(totals[-1] if totals else 0)
        summary.append(f"{name}: {last}")
        column, row = divmod(seat, per_column)
        lx = left + column * 145
        ly = legend_top + row * _LEGEND_ROW
        lines.append(
            format_html(
                '<path class="lei-chart__line" d="M{} {}h20" stroke="{}"{}/>',
                lx,
                ly - 4,
                colour,
                dash_attr,
            )
        )
        texts.append(
            format_html('<text x="{}" y="{}">{} ({})</text>', lx + 26, ly, _short(name), last)
        )
    height = legend_top + max(min(len(names), per_column), 1) * _LEGEND_ROW - 8
    return format_html(
        '<svg class="lei-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="{title}" font-family="system-ui,sans-serif" font-size="13" '
        'fill="currentColor"><title>{title}</title><desc>{desc}</desc>'
        '<g fill="none" stroke-width="3" stroke-linecap="round" stroke-linejoin="round">'
        "{lines}</g>{texts}</svg>",
        w=_W,
        h=height,
        title=title,
        desc="; ".join(summary),
        lines=_join(lines),
        texts=_join(texts),
    )


# A line has at most this many points: a session of thousands of rounds is drawn from every
# n-th round (and the last), so the chart stays small; 280 units wide cannot show more anyway.
_CHART_POINTS = 300


def _sampled(totals: Sequence[int]) -> list[tuple[int, int]]:
    """(round, total) of the rounds a line is drawn through."""
    if len(totals) <= _CHART_POINTS:
        return list(enumerate(totals))
    step = math.ceil(len(totals) / _CHART_POINTS)
    picked = list(range(0, len(totals), step))
    if picked[-1] != len(totals) - 1:
        picked.append(len(totals) - 1)
    return [(i, totals[i]) for i in picked]


def _join(parts: Iterable[str]) -> SafeString:
    """Join pieces that were each built with format_html (so each is already escaped)."""
    return mark_safe("".join(parts))  # noqa: S308


# --- QR codes ------------------------------------------------------------------------------

# Modules of white round the symbol: a reader needs four to find it (ISO/IEC 18004), and a
# printed card or a screen may put anything right next to the picture.
QR_QUIET_ZONE = 4
_QR_MODULE_PX = 4  # the natural size of a module, where no CSS sizes the picture


def qr_svg(url: str, label: str) -> SafeString:
    """A QR code of ``url`` (error correction M), quiet zone included, for any box.

    The ``viewBox`` counts modules, with the quiet zone inside it, so CSS may scale the picture
    to any square (a table card's 50 mm, the tablet's share panel) and nothing is cut off;
    ``width``/``height`` are only its natural size. The white background covers the quiet zone,
    so the code scans on the dark TV theme too. Each dark run of a row is one stroke of a single
    ``<path>``, which keeps a 50-card page small.

    >>> svg = qr_svg("https://lei.example.nl/tafel/x/", "Scoren aan tafel 1")
    >>> 'viewBox="0 0 37 37"' in svg  # 29 modules, and 4 of white on either side
    True
    """
    code = segno.make(url, error="m")
    size = code.symbol_size(border=QR_QUIET_ZONE)[0]
    runs: list[str] = []
    for y, row in enumerate(code.matrix_iter(border=QR_QUIET_ZONE)):
        x = 0
        for dark, group in groupby(row, key=bool):
            length = sum(1 for _ in group)
            if dark:
                runs.append(f"M{x} {y}.5h{length}")
            x += length
    return format_html(
        '<svg class="qr" viewBox="0 0 {size} {size}" width="{px}" height="{px}" role="img" '
        'aria-label="{label}" shape-rendering="crispEdges"><title>{label}</title>'
        '<rect width="{size}" height="{size}" fill="#fff"/>'
        '<path stroke="#17201d" stroke-width="1" d="{d}"/></svg>',
        size=size,
        px=size * _QR_MODULE_PX,
        label=label,
        d="".join(runs),
    )


def worded_score_chart(
    series: Mapping[str, Sequence[int]],
    max_points: int | str | None = None,
    title: str = "",
) -> SafeString:
    """``score_chart`` with its words in the reader's language, as the pages show it (the
    ``{% score_chart %}`` tag, and the views that send the chart on its own)."""
    labels = {
        "title": title or gettext("Stand per ronde"),
        "round": gettext("ronde"),
        # Translators: the line in the score chart where a player is out; keep {max}.
        "max": gettext("dood bij {max}"),
    }
    max_points = None if max_points in (None, "") else int(max_points)
    return score_chart(series, max_points=max_points, labels=labels)
