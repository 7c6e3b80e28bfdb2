"""The evening's day turns at 06:00, not at midnight (scoring/days.py): a game started at half
past twelve is one of the evening before, on its TV page and in its season, and a second
"Clubavond beginnen" after midnight gives the evening under way back instead of a new one that
would close its QR."""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.days import evening_day
from scoring.evening import services
from scoring.lei import services as lei_services
from scoring.models import ClubMembership, Evening, Season
from tests.builders import PEOPLE

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
FRIDAY = datetime.date(2026, 11, 27)


def at(day: int, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime(2026, 11, day, hour, minute, tzinfo=AMSTERDAM)


@pytest.mark.parametrize(
    ("now", "day"),
    [
        (at(27, 20), FRIDAY),
        (at(27, 23, 59), FRIDAY),
        (at(28, 0, 30), FRIDAY),
        (at(28, 5, 59), FRIDAY),
        (at(28, 6), datetime.date(2026, 11, 28)),
        # the site's time zone decides, not the clock's: 23:30 UTC is 00:30 in Amsterdam
        (datetime.datetime(2026, 11, 27, 23, 30, tzinfo=datetime.UTC), FRIDAY),
        (datetime.datetime(2026, 11, 28, 4, 59, tzinfo=datetime.UTC), FRIDAY),
        (datetime.datetime(2026, 11, 28, 5, 0, tzinfo=datetime.UTC), datetime.date(2026, 11, 28)),
    ],
)
def test_the_evenings_day_turns_at_six_in_the_morning(settings, now, day):
    settings.TIME_ZONE = "Europe/Amsterdam"
    assert evening_day(now) == day


@pytest.fixture
def half_past_twelve(settings, monkeypatch):
    """Saturday 00:30 in Amsterdam, Friday's evening still under way."""
    settings.TIME_ZONE = "Europe/Amsterdam"
    monkeypatch.setattr(timezone, "now", lambda: at(28, 0, 30).astimezone(datetime.UTC))


def test_a_game_started_after_midnight_is_one_of_the_evening_before(
    client, club, people, half_past_twelve
):
    autumn = Season.objects.create(
        club=club, name="Najaar", starts_on="2026-09-01", ends_on=datetime.date(2026, 11, 27)
    )
    Season.objects.create(club=club, name="Winter", starts_on="2026-11-28")
    session = lei_services.session_start(club=club, players=PEOPLE[:4])
    assert session.played_on == FRIDAY
    assert lei_services.running_season(club) == autumn  # the new-game form offers Friday's
    club.standings_public = True
    club.save()
    tonight = client.get(reverse("league_evening_today", args=[club.slug]))
    assert tonight["Location"] == reverse("league_evening", args=[club.slug, "2026-11-27"])


def test_beginning_the_club_evening_again_after_midnight_gives_the_one_under_way(
    client, club, django_user_model, half_past_twelve
):
    user = django_user_model.objects.create_user("beheer")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client.force_login(user)
    friday = services.evening_create(club=club, date=FRIDAY)  # begun at eight
    page = client.get(reverse("evening_new")).content.decode()
    assert 'value="2026-11-27"' in page  # the form offers Friday
    answer = client.post(reverse("evening_new"), {"club": club.pk, "date": "2026-11-27"})
    assert answer["Location"] == reverse("evening_page", args=[friday.pk])
    assert list(Evening.objects.all()) == [friday]
    friday.refresh_from_db()
    assert friday.checkin_token  # its QR still checks people in
    assert services.evening_create(club=club) == friday


def test_the_new_toernooi_form_offers_the_evening_under_way(
    client, club, django_user_model, half_past_twelve
):
    user = django_user_model.objects.create_user("beheer")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client.force_login(user)
    page = client.get(reverse("tournament_new")).content.decode()
    assert 'value="2026-11-27"' in page
