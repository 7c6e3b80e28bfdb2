"""The score chart on the tablet: the line where a player is out keeps its label in sight."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.lei import services
from scoring.models import ClubMembership
from tests.browser.test_tournament import login
from tests.conftest import make_club, make_session, play_rounds

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(768, 1024), (1024, 768)])
def test_the_dood_bij_label_is_inside_the_chart_on_a_tablet(page, base_url, screenshot_dir, size):
    club = make_club()
    user = get_user_model().objects.create_user("teller", password="een-lang-wachtwoord")
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    session = make_session(club, players=["Anne", "Bas", "Cees", "Dirk"])
    # Closing time before anyone is out: the line where a player is out tops the chart.
    play_rounds(session, ["Anne", "Bas", "Anne"])
    services.session_finish(session=session)
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    login(page, base_url, "teller", "een-lang-wachtwoord")
    page.goto(base_url + reverse("tablet", args=[session.pk]))
    label = page.locator(".lei-chart__max-label")
    label.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / f"tablet-chart-{width}x{height}.png")
    assert label.text_content().startswith("dood bij")
    text = label.bounding_box()
    chart = page.locator(".lei-chart").bounding_box()
    assert text["y"] >= chart["y"], "the label sticks out above the chart"
    assert text["x"] + text["width"] <= chart["x"] + chart["width"]
