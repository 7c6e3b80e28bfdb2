"""The standings on the club's own website: an embeddable page of the current season's
standings and one of an evening's results, which only the sites the club admin names
(``Club.embed_origins``) may show in a frame; and the same data as a small read-only JSON
feed. Only for clubs that publish their standings, and always as the public sees them
(initials where a player asked): a frame on another site is the public.

Every other page keeps ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``
(toepen_site/settings.py); these pages replace the first with exactly the named origins and
drop the second (which cannot name an origin)."""

from __future__ import annotations

import datetime
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from scoring import access, names
from scoring.days import evening_day
from scoring.league import standings
from scoring.models import Club, Season, Session, SessionResult

FEED_SECONDS = 300  # how long a site (or its visitors' browsers) may keep the feed


def _season_rows(club: Club) -> tuple[Season | None, list[dict[str, Any]]]:
    """The latest season's ranked players, names as the public sees them."""
    season = club.seasons.order_by("-starts_on", "-id").first()
    if season is None:
        return None, []
    table = standings.season_standings(season)
    return season, [
        {
            "place": row.rank,
            "shared": row.tied,
            "name": names.display_name(row.name, row.public_initials, full=False),
            "sessions": row.sessions,
            "points": row.points,
            "toepkoningen": row.toepkoningen,
        }
        for row in table.rows
        if row.section == standings.RANKED
    ]


def _evening_rows(club: Club, date: datetime.date) -> list[dict[str, Any]]:
    """The evening's tables with their players in place order, as the public sees them."""
    sessions = list(Session.objects.filter(club=club, played_on=date).order_by("table_label", "id"))
    tables: dict[int, dict[str, Any]] = {
        s.pk: {
            "table": s.table_label,
            "finished": s.status != Session.Status.RUNNING,
            "players": [],
        }
        for s in sessions
    }
    for r in (
        SessionResult.objects.filter(session__in=sessions, player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ):
        tables[r.session_id]["players"].append(
            {
                "place": r.place,
                "name": names.display_name(r.player.name, r.player.public_initials, full=False),
                "strafpunten": r.total,
                "toepkoning": r.toepkoning,
            }
        )
    return list(tables.values())


def _day(day: str | None) -> datetime.date:
    if not day:
        return evening_day()
    try:
        return datetime.date.fromisoformat(day)
    except ValueError:
        raise Http404("not a date of an evening") from None


def _framed(request: HttpRequest, club: Club, template: str, context: dict) -> HttpResponse:
    """An embed page, framed only by the club's named origins: none named is a 404, so that
    nobody finds a page no site may show."""
    origins = club.frame_origins
    if not origins:
        raise Http404("the club names no site")
    response = render(request, template, {"club": club, **context})
    response._csp_replace = {"frame-ancestors": origins}
    patch_cache_control(response, public=True, max_age=FEED_SECONDS)
    return response


@require_safe
@xframe_options_exempt
@access.requires(access.published_club)
def embed_standings(request: HttpRequest, club: Club) -> HttpResponse:
    season, rows = _season_rows(club)
    return _framed(request, club, "scoring/league/embed.html", {"season": season, "rows": rows})


@require_safe
@xframe_options_exempt
@access.requires(access.published_club)
def embed_evening(request: HttpRequest, club: Club, day: str | None = None) -> HttpResponse:
    date = _day(day)
    return _framed(
        request,
        club,
        "scoring/league/embed.html",
        {"date": date, "tables": _evening_rows(club, date)},
    )


def _feed(data: dict[str, Any]) -> JsonResponse:
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    patch_cache_control(response, public=True, max_age=FEED_SECONDS)
    response["Access-Control-Allow-Origin"] = "*"  # public data, read by any site's script
    return response


@require_safe
@access.requires(access.published_club)
def standings_feed(request: HttpRequest, club: Club) -> JsonResponse:
    """``{"club", "season", "standings": [{"place", "shared", "name", "sessions", "points",
    "toepkoningen"}]}``."""
    season, rows = _season_rows(club)
    return _feed(
        {
            "club": club.name,
            "season": season.name if season else None,
            "standings": rows,
        }
    )


@require_safe
@access.requires(access.published_club)
def evening_feed(request: HttpRequest, club: Club, day: str) -> JsonResponse:
    """``{"club", "date", "tables": [{"table", "finished", "players": [{"place", "name",
    "strafpunten", "toepkoning"}]}]}``."""
    date = _day(day)
    return _feed({"club": club.name, "date": date.isoformat(), "tables": _evening_rows(club, date)})
