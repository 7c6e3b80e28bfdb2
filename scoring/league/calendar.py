"""The club's calendar as an iCalendar feed (RFC 5545, written by ``icalendar``): its club
evenings, toernooien and the start and end of its seasons, each a day-long event, for a phone's
calendar to subscribe to (the club page's webcal link). Only for clubs that publish; it holds
no names of players, only the club's dates."""

from __future__ import annotations

import datetime

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_safe
from icalendar import Calendar, Event

from scoring import access
from scoring.league.embed_views import FEED_SECONDS
from scoring.models import Club, Evening, Tournament

# A subscribed calendar shows the coming months; a year back keeps the feed small.
DAYS_BACK = 366
ONE_DAY = datetime.timedelta(days=1)


def _event(uid: str, day: datetime.date, summary: str, url: str) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", datetime.datetime.now(datetime.UTC))
    event.add("dtstart", day)  # a date: a day-long event, in every time zone
    event.add("dtend", day + ONE_DAY)
    event.add("summary", summary)
    event.add("url", url)
    return event


def club_calendar(request: HttpRequest, club: Club) -> Calendar:
    host = request.get_host()
    since = datetime.date.today() - datetime.timedelta(days=DAYS_BACK)
    calendar = Calendar()
    calendar.add("prodid", "-//De digitale lei//toepen//NL")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", club.name)
    calendar.add("x-published-ttl", f"PT{FEED_SECONDS // 60}M")
    for evening in Evening.objects.filter(club=club, date__gte=since, tournament__isnull=True):
        calendar.add_component(
            _event(
                f"evening-{evening.pk}@{host}",
                evening.date,
                gettext("Clubavond %(club)s") % {"club": club.name},
                request.build_absolute_uri(
                    reverse("league_evening", args=[club.slug, evening.date.isoformat()])
                ),
            )
        )
    for tournament in Tournament.objects.filter(club=club, date__gte=since):
        calendar.add_component(
            _event(
                f"tournament-{tournament.pk}@{host}",
                tournament.date,
                f"{tournament.name} — {club.name}",
                request.build_absolute_uri(
                    reverse("tournament_standings", args=[club.slug, tournament.pk])
                ),
            )
        )
    for season in club.seasons.all():
        url = request.build_absolute_uri(reverse("league_season", args=[club.slug, season.pk]))
        if season.starts_on >= since:
            summary = gettext("Begin seizoen %(season)s") % {"season": season.name}
            calendar.add_component(
                _event(f"season-{season.pk}-start@{host}", season.starts_on, summary, url)
            )
        if season.ends_on and season.ends_on >= since:
            summary = gettext("Einde seizoen %(season)s") % {"season": season.name}
            calendar.add_component(
                _event(f"season-{season.pk}-end@{host}", season.ends_on, summary, url)
            )
    return calendar


@require_safe
@access.requires(access.published_club)
def calendar_feed(request: HttpRequest, club: Club) -> HttpResponse:
    with translation.override(club.language):
        body = club_calendar(request, club).to_ical()
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{club.slug}.ics"'
    response["Cache-Control"] = f"public, max-age={FEED_SECONDS}"
    return response
