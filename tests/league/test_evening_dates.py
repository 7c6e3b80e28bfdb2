"""The evening page answers every date in its URL: the evenings a club can have played are
pages, every other date is a 404, never a server error."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.league.archive_views import FIRST_EVENING, LAST_EVENING


def _evening(client, club, day: str):
    return client.get(reverse("league_evening", args=[club.slug, day]))


@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31", "1899-12-31", "3000-01-01"])
def test_an_evening_outside_the_supported_dates_is_not_found(client, public_club, day):
    assert _evening(client, public_club, day).status_code == 404


@pytest.mark.parametrize(
    "day", ["99999-01-01", "2026-02-30", "-2026-01-01", "2026-1-1x", "x" * 400]
)
def test_an_evening_that_is_no_date_is_not_found(client, public_club, day):
    assert _evening(client, public_club, day).status_code == 404


def test_the_first_and_last_evenings_have_no_link_past_them(client, public_club):
    first = _evening(client, public_club, FIRST_EVENING.isoformat())
    assert first.status_code == 200
    assert "1899-12-31" not in first.content.decode()
    assert "1900-01-02" in first.content.decode()
    last = _evening(client, public_club, LAST_EVENING.isoformat())
    assert last.status_code == 200
    assert "3000-01-01" not in last.content.decode()
    assert "2999-12-30" in last.content.decode()
