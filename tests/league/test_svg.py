"""The pictures of the lei: tally marks, the stake die and the score chart (scoring/svg.py)."""

import re
import xml.etree.ElementTree as ET

import pytest
from django.template import Context, Template
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from scoring.svg import (
    CHART_COLOURS,
    QR_QUIET_ZONE,
    TURFJES_MAX,
    die,
    qr_svg,
    score_chart,
    tally_from_results,
    turfjes,
)
from tests.builders import tap

SVG = "{http://www.w3.org/2000/svg}"


def parse(markup: str) -> ET.Element:
    """Parse an SVG fragment as XML: well-formed, or the test fails."""
    markup = markup.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    return ET.fromstring(markup)  # noqa: S314 - our own output, not untrusted input


def strokes(markup: str) -> list[str]:
    """The strokes of the tally: each subpath of the first path starts with M."""
    paths = parse(markup).findall(f"{SVG}path")
    if not paths:
        return []
    return re.findall(r"M[^M]*", paths[0].get("d"))


def crossing(stroke: str) -> bool:
    """Upright strokes are drawn with V, the minus sign with h, the crossing stroke with L."""
    return "V" not in stroke and "h" not in stroke


def assert_accessible(markup: str, label: str) -> None:
    root = parse(markup)
    assert root.get("role") == "img"
    assert root.get("aria-label") == label
    assert root.find(f"{SVG}title").text == label
    assert re.fullmatch(r"0 0 [\d.]+ [\d.]+", root.get("viewBox"))


# --- turfjes -----------------------------------------------------------------------------


def test_seven_is_one_crossed_group_and_two_strokes():
    svg = turfjes(7, label="Anne: 7")
    marks = strokes(svg)
    assert len(marks) == 7
    assert [crossing(m) for m in marks] == [False] * 4 + [True] + [False] * 2
    assert_accessible(svg, "Anne: 7")


@pytest.mark.parametrize(
    ("total", "groups", "rest"),
    [(0, 0, 0), (1, 0, 1), (4, 0, 4), (5, 1, 0), (10, 2, 0), (13, 2, 3)],
)
def test_groups_of_five_are_four_strokes_crossed_by_a_fifth(total, groups, rest):
    marks = strokes(turfjes(total, label=str(total)))
    assert len(marks) == total
    assert sum(crossing(m) for m in marks) == groups
    assert marks[5 * groups :] == [m for m in marks[5 * groups :] if not crossing(m)]
    assert len(marks) - 5 * groups == rest


def test_all_strokes_are_one_path_and_ten_is_a_few_hundred_bytes():
    svg = turfjes(10, label="Anne: 10 strafpunten")
    assert svg.count("<path") == 1
    assert len(svg.encode()) < 450


def test_a_longer_tally_is_wider_but_just_as_high():
    widths, heights = [], []
    for total in (1, 5, 6, 20):
        _, _, width, height = parse(turfjes(total, label="x")).get("viewBox").split()
        widths.append(float(width))
        heights.append(float(height))
    assert widths == sorted(widths)
    assert len(set(widths)) == 4
    assert len(set(heights)) == 1


def test_negative_total_is_a_minus_sign_and_marks():
    svg = turfjes(-2, label="Anne: -2")
    marks = strokes(svg)
    assert marks[0].endswith("h9")  # the minus sign, across
    assert len(marks) == 3
    assert not any(crossing(m) for m in marks)
    assert_accessible(svg, "Anne: -2")


def test_jack_dots_are_drawn_and_joined_to_the_next_stroke():
    # 1, 1, boer (-1), 1: three strokes and a dot after the second one; total 2.
    total, dots = tally_from_results([1, 1, -1, 1])
    assert (total, dots) == (2, [2])
    svg = turfjes(total, jack_dots=dots, label="Anne: 2")
    marks = strokes(svg)
    assert len(marks) == 3
    dot_path = parse(svg).findall(f"{SVG}path")[1].get("d")
    (dot_x, dot_y) = re.fullmatch(r"M([\d.]+) ([\d.]+)h0", dot_path).groups()
    assert marks[2].endswith(f"L{dot_x} {dot_y}")  # the third stroke reaches the dot
    assert not marks[1].endswith(f"L{dot_x} {dot_y}")


def test_a_fresh_dot_stands_alone_until_the_next_point():
    total, dots = tally_from_results([2, -1])
    assert (total, dots) == (1, [2])
    svg = turfjes(total, jack_dots=dots, label="1")
    assert strokes(svg) == ["M6 30V8", "M13 30V8"]  # nothing joined yet
    assert parse(svg).findall(f"{SVG}path")[1].get("d") == "M16.5 3h0"


def test_the_label_is_escaped():
    svg = turfjes(3, label='<script>"x"</script>')
    assert "<script>" not in svg
    assert_accessible(svg, '<script>"x"</script>')


@given(st.lists(st.integers(min_value=-3, max_value=6), max_size=30))
def test_the_lei_always_shows_the_total(results):
    total, dots = tally_from_results(results)
    assert total == sum(results)
    svg = turfjes(total, jack_dots=dots, label=str(total))
    marks = strokes(svg)
    if max(total + len(dots), -total) > TURFJES_MAX:  # written as a number
        assert parse(svg).find(f"{SVG}text").text == str(total).replace("-", "\u2212")
    elif total >= 0:
        assert len(marks) - len(dots) == total
    else:
        assert len(marks) == -total + 1  # the minus sign and the marks
    parse(svg)


# --- die ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stake", range(1, 9))
def test_die_shows_pips_up_to_six_and_a_number_beyond(stake):
    svg = die(stake, label=f"Inzet: {stake}")
    assert_accessible(svg, f"Inzet: {stake}")
    root = parse(svg)
    assert root.get("viewBox") == "0 0 100 100"
    pips = root.find(f"{SVG}path")
    text = root.find(f"{SVG}text")
    if stake <= 6:
        assert pips.get("d").count("h0") == stake
        assert text is None
    else:
        assert pips is None
        assert text.text == str(stake)


def test_die_refuses_a_stake_below_one():
    with pytest.raises(ValueError, match="at least 1"):
        die(0, label="x")


# --- score chart -------------------------------------------------------------------------

HOSTILE = '<img src=x onerror="alert(1)">&amp;'


def test_chart_escapes_hostile_player_names():
    svg = score_chart(
        {HOSTILE: [0, 1, 2], "Bas": [0, 0, 1]}, max_points=10, labels={"title": "<b>Stand</b>"}
    )
    assert "<img" not in svg
    assert "<b>" not in svg
    assert 'onerror="' not in svg
    root = parse(svg)  # still well-formed XML
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert f"{HOSTILE[:15]}… (2)" in texts
    assert root.find(f"{SVG}title").text == "<b>Stand</b>"
    assert HOSTILE in root.find(f"{SVG}desc").text


def test_chart_has_a_line_per_player_and_a_max_line():
    series = {"Anne": [0, 1, 3, 11], "Bas": [0, 2, 2, 3], "Cees": [0, 0, 1, 1]}
    root = parse(score_chart(series, max_points=10, labels={"title": "Stand"}))
    lines = [p for p in root.iter(f"{SVG}path") if p.get("class") == "lei-chart__line"]
    assert len(lines) == 2 * len(series)  # the line and its legend swatch
    assert [p.get("stroke") for p in lines[::2]] == list(CHART_COLOURS[:3])
    assert len([p for p in root.iter(f"{SVG}path") if p.get("class") == "lei-chart__max"]) == 1
    assert root.get("role") == "img"
    assert len(lines[0].get("d").split("L")) == 4  # rounds 0..3


@pytest.mark.parametrize("totals", [[0, 1, 3], [0, 4, 12]])
def test_the_max_line_label_is_inside_the_picture(totals):
    """The max line is often the plot's top: its label goes under it then, not off the top."""
    root = parse(score_chart({"Anne": totals}, max_points=10, labels={"title": "t", "max": "m"}))
    label = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "lei-chart__max-label")
    assert float(label.get("y")) - 10 >= 0


def test_chart_without_max_points_and_with_negative_totals():
    root = parse(score_chart({"A": [0, -1, -2]}, max_points=None, labels={"title": "t"}))
    assert not [p for p in root.iter(f"{SVG}path") if p.get("class") == "lei-chart__max"]
    ticks = [t.text for t in root.iter(f"{SVG}text")]
    assert "-2" in ticks or "-5" in ticks


def test_chart_with_eight_players_fits_a_phone():
    series = {f"Speler {i}": [0, i, 2 * i] for i in range(8)}
    root = parse(score_chart(series, max_points=10, labels={"title": "t"}))
    _, _, width, height = map(float, root.get("viewBox").split())
    assert width <= 375
    assert height < 320
    assert len({p.get("stroke") for p in root.iter(f"{SVG}path")} & set(CHART_COLOURS)) == 8


# --- template tags -----------------------------------------------------------------------


def test_template_tags_output_the_pictures_unescaped():
    template = Template(
        "{% load lei %}{% turfjes total %}|{% turfjes 2 label=name %}|{% die 3 %}|"
        "{% score_chart series 10 %}"
    )
    with translation.override("nl"):
        html = template.render(Context({"total": 7, "name": "<Anne>", "series": {"<Bas>": [0, 1]}}))
    tally, named, stake, chart = html.split("|")
    assert tally.startswith("<svg")
    assert 'aria-label="7 strafpunten"' in tally
    assert 'aria-label="&lt;Anne&gt;"' in named
    assert 'aria-label="Inzet: 3"' in stake
    assert "&lt;Bas&gt;" in chart
    assert "<Bas>" not in chart


# --- no total makes a large picture --------------------------------------------------------


@pytest.mark.parametrize("total", [51, 1000, -51, -1_000_000, 3_000_000_000])
def test_turfjes_past_fifty_strokes_become_a_number(total):
    svg = turfjes(total, label=f"Anne: {total}")
    assert strokes(svg) == []
    assert parse(svg).find(f"{SVG}text").text == str(total).replace("-", "\u2212")
    assert len(svg.encode()) < 450
    assert_accessible(svg, f"Anne: {total}")


@pytest.mark.parametrize("total", [50, -50])
def test_fifty_strokes_are_still_drawn(total):
    assert len(strokes(turfjes(total, label="x"))) == 50 + (total < 0)  # and the minus sign


def test_fifty_strokes_and_a_jack_dot_are_a_number():
    assert strokes(turfjes(50, jack_dots=[50], label="x")) == []


def test_a_long_run_of_points_taken_off_keeps_its_total_but_not_every_dot():
    total, dots = tally_from_results([10, -1_000_000, 3])
    assert total == 13 - 1_000_000
    assert len(dots) <= 51


def test_a_chart_of_ten_thousand_rounds_stays_small():
    series = {name: list(range(10_001)) for name in "ABCDEFGH"}
    svg = score_chart(series, max_points=1000, labels={"title": "Stand"})
    assert len(svg.encode()) < 60_000


@pytest.mark.django_db
def test_every_page_of_a_session_with_a_huge_total_stays_small(client, club, user):
    """The tablet, its tap answer, the viewer and the public evening and session pages of a
    session in which Cees reached -50,900 (penalties of -100): each answer stays small."""
    from django.urls import reverse

    from scoring import access
    from scoring.lei import services
    from scoring.models import ClubMembership

    club.standings_public = True
    club.save()
    low = [{"type": "penalty", "player": "Cees", "points": -100, "reason": "x"}] * 499
    data = {
        "format": "toepen/1",
        "players": ["Anne", "Bas", "Cees", "Dirk"],
        "rules": {"max_points": 1000},
        "start": {"Cees": -1000, "Anne": 990},
        "rounds": [{"events": [*low, {"type": "win", "player": "Cees"}]}],
    }
    session = services.session_import(club=club, data=data)
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    client.force_login(user)
    pages = {
        "tablet": reverse("tablet", args=[session.pk]),
        "viewer": reverse("viewer", args=[access.viewer_token(session.pk)]),
        "evening": reverse("league_evening", args=[club.slug, session.played_on.isoformat()]),
        "session": reverse("league_session", args=[club.slug, session.pk]),
    }
    sizes = {}
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, name
        sizes[name] = len(response.content)
    answer = tap(client, session, "knock", "Bas")
    assert answer.status_code == 200
    sizes["tap"] = len(answer.content)
    assert max(sizes.values()) < 100_000, sizes
    html = client.get(pages["viewer"]).content.decode()
    assert ">\u221250900</text>" in html  # Cees's total, written as a number
    assert ">991</text>" in html  # and Anne's


# --- QR codes ----------------------------------------------------------------------------


def draw_qr(markup: str, pixels_per_module: int = 6):
    """The QR picture as its viewBox says, drawn with Pillow: nothing outside the box shows."""
    from PIL import Image, ImageDraw

    root = parse(markup)
    x0, y0, width, height = (int(v) for v in root.get("viewBox").split())
    image = Image.new("L", (width * pixels_per_module, height * pixels_per_module), 128)
    pen = ImageDraw.Draw(image)
    for element in root:
        if element.tag == f"{SVG}rect":
            pen.rectangle((0, 0, image.width, image.height), fill=255)
        elif element.tag == f"{SVG}path":
            for x, y, run in re.findall(r"M(\d+) (\d+)\.5h(\d+)", element.get("d")):
                left, top = (int(x) - x0) * pixels_per_module, (int(y) - y0) * pixels_per_module
                right = left + int(run) * pixels_per_module - 1
                pen.rectangle((left, top, right, top + pixels_per_module - 1), fill=0)
    return image


@pytest.mark.parametrize(
    "url",
    [
        "https://lei.example.nl/tafel/x/",
        "http://testserver/tafel/" + "A" * 43 + "/",
        "https://toernooi.de-gouden-boer.example.nl/tafel/" + "z9" * 30 + "/",
    ],
)
def test_a_qr_code_is_sized_by_its_viewbox_with_the_quiet_zone_inside(url):
    import segno
    import zxingcpp

    markup = qr_svg(url, "Scoren aan tafel 1")
    assert_accessible(markup, "Scoren aan tafel 1")
    root = parse(markup)
    modules = segno.make(url, error="m").symbol_size(border=0)[0]
    side = modules + 2 * QR_QUIET_ZONE
    # The box is the symbol and its quiet zone, so CSS may size it to any square.
    assert root.get("viewBox") == f"0 0 {side} {side}"
    image = draw_qr(markup)
    assert image.getextrema() == (0, 255)  # white background, dark modules, nothing grey left
    quiet = QR_QUIET_ZONE * 6
    ring_white = image.copy()
    ring_white.paste(255, (quiet, quiet, image.width - quiet, image.height - quiet))
    assert ring_white.getextrema() == (255, 255)  # four modules of white all round
    found = zxingcpp.read_barcodes(image)
    assert [code.text for code in found] == [url]


def test_a_qr_codes_label_is_escaped():
    markup = qr_svg("https://lei.example.nl/", '<b>"Tafel" & 1</b>')
    assert "<b>" not in markup
    assert_accessible(markup, '<b>"Tafel" & 1</b>')
