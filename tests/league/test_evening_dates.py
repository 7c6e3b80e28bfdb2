"""The evening page answers every date in its URL: the evenings a club can have played are
pages, every other date is a 404, never a server error."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from scoring.league.archive_views import FIRST_EVENING, LAST_EVENING
from tests.builders import DAY, play


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
    last = _evening(client, public_club, LAST_EVENING.isoformat())
    assert last.status_code == 200
    assert "3000-01-01" not in last.content.decode()


def test_the_evening_pages_over_the_evenings_the_club_played(client, public_club, people):
    """ "Vorige dag"/"Volgende dag" skip the empty days and stop at the first and last evening."""
    for days in (0, 9, 30):
        play(public_club, ["Anne", "Bas", "Cees"], days_later=days)
    first, middle, last = (DAY + datetime.timedelta(days=d) for d in (0, 9, 30))
    page = _evening(client, public_club, middle.isoformat())
    links = _links(page)
    assert links == {"Vorige dag": first.isoformat(), "Volgende dag": last.isoformat()}
    assert _links(_evening(client, public_club, first.isoformat())) == {
        "Volgende dag": middle.isoformat()
    }
    assert _links(_evening(client, public_club, last.isoformat())) == {
        "Vorige dag": middle.isoformat()
    }
    # An empty day in between (a link typed by hand) pages to its neighbours too.
    empty = DAY + datetime.timedelta(days=20)
    assert _links(_evening(client, public_club, empty.isoformat())) == {
        "Vorige dag": middle.isoformat(),
        "Volgende dag": last.isoformat(),
    }


def _links(page) -> dict[str, str]:
    html = page.content.decode()
    return {
        words: day
        for day, words in re.findall(
            r'href="/club/[^/]+/avond/([0-9-]+)/">(Vorige dag|Volgende dag)<', html
        )
    }
