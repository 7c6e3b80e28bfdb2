"""The score chart on the tablet: the line where a player is out keeps its label in sight."""

from __future__ import annotations

import pytest

from tests.browser.pages import SIZES, open_finished_game

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", SIZES)
def test_the_dood_bij_label_is_inside_the_chart_on_a_tablet(page, base_url, screenshot_dir, size):
    width, height = size
    open_finished_game(page, base_url, width, height)  # closed before anyone is out
    label = page.locator(".lei-chart__max-label")
    label.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / f"tablet-chart-{width}x{height}.png")
    assert label.text_content().startswith("dood bij")
    text = label.bounding_box()
    chart = page.locator(".lei-chart").bounding_box()
    assert text["y"] >= chart["y"], "the label sticks out above the chart"
    assert text["x"] + text["width"] <= chart["x"] + chart["width"]
