"""After a game the tablet asks "klopt de eindstand?" first; the next game comes after."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from scoring.lei import services
from scoring.models import ClubMembership
from tests.browser.test_tournament import login
from tests.builders import make_club, make_session, play_rounds

pytestmark = pytest.mark.browser

SIZES = [(768, 1024), (1024, 768)]  # a tablet upright and on its side


def open_finished_game(page, base_url: str, width: int, height: int) -> None:
    """A scorer's tablet, at this size, on a game closed after three rounds, before anyone is
    out (so the chart's line where a player is out is its top)."""
    club = make_club()
    user = get_user_model().objects.create_user("teller", password="een-lang-wachtwoord")
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    session = make_session(club, players=["Anne", "Bas", "Cees", "Dirk"])
    play_rounds(session, ["Anne", "Bas", "Anne"])
    services.session_finish(session=session)
    page.set_viewport_size({"width": width, "height": height})
    login(page, base_url, "teller", "een-lang-wachtwoord")
    page.goto(base_url + reverse("tablet", args=[session.pk]))


@pytest.mark.parametrize("size", SIZES)
def test_the_table_says_akkoord_before_it_is_offered_the_next_game(
    page, base_url, screenshot_dir, size
):
    width, height = size
    open_finished_game(page, base_url, width, height)

    again = page.get_by_role("button", name="Nieuw spel, zelfde spelers")
    expect(page.locator("#akkoord-question")).to_be_visible()
    page.screenshot(path=screenshot_dir / f"tablet-akkoord-asked-{width}x{height}.png")
    expect(again).to_have_count(0)

    page.get_by_role("button", name="Iedereen akkoord").click()
    answer = page.locator("#akkoord [role=status]")
    expect(answer).to_contain_text("Iedereen akkoord")
    expect(again).to_be_visible()
    page.screenshot(path=screenshot_dir / f"tablet-akkoord-answered-{width}x{height}.png")
    assert again.bounding_box()["y"] > answer.bounding_box()["y"]
