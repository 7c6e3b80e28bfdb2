"""The archive of played games, one game's sheet, and the evening view (every table of one
day, polled while it is looked at)."""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from scoring.models import (
    Player,
    RoundScore,
    Seat,
    Session,
    SessionResult,
)
from scoring.templatetags.lei import score_chart_tag

if TYPE_CHECKING:
    from scoring.http import HtmxHttpRequest
from scoring.access import Viewer, club_viewer
from scoring.http import id_from, private_response
from scoring.league.views import viewer_link

ARCHIVE_PAGE_SIZE = 25
EVENING_POLL_SECONDS = 5
# The evenings a club can have played: other dates are a 404, and the page's previous/next
# links never step outside Python's dates (0001-01-01 minus a day is an OverflowError).
FIRST_EVENING = datetime.date(1900, 1, 1)
LAST_EVENING = datetime.date(2999, 12, 31)
ONE_DAY = datetime.timedelta(days=1)


def _day(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


@require_GET
def archive(request: HttpRequest, slug: str) -> HttpResponse:
    """Queries: 1. club; 2. the players to filter on; 3. the table labels; 4. the count;
    5. the page of sessions; 6. their results with the players."""
    viewer = club_viewer(request, slug)
    sessions = Session.objects.filter(club=viewer.club).select_related("season")
    day = _day(request.GET.get("datum"))
    if day:
        sessions = sessions.filter(played_on=day)
    player_id = id_from(request.GET.get("speler"))
    if player_id is not None:
        sessions = sessions.filter(
            Exists(Seat.objects.filter(session=OuterRef("pk"), player_id=player_id))
        )
    table = request.GET.get("tafel", "").strip()
    if table:
        sessions = sessions.filter(table_label=table)
    season_id = id_from(request.GET.get("seizoen"))
    if season_id is not None:
        sessions = sessions.filter(season_id=season_id)
    sessions = sessions.order_by("-played_on", "-id").prefetch_related(
        Prefetch(
            "results",
            queryset=SessionResult.objects.filter(player__isnull=False)
            .select_related("player")
            .order_by("place", "player__name"),
        )
    )
    players = [
        (pk, viewer.name(name, initials))
        for pk, name, initials in Player.objects.filter(club=viewer.club)
        .order_by("name")
        .values_list("id", "name", "public_initials")
    ]
    tables = list(
        Session.objects.filter(club=viewer.club)
        .exclude(table_label="")
        .order_by("table_label")
        .values_list("table_label", flat=True)
        .distinct()
    )
    page = Paginator(sessions, ARCHIVE_PAGE_SIZE).get_page(request.GET.get("pagina"))
    listed = [
        (s, [(r, viewer.name(r.player.name, r.player.public_initials)) for r in s.results.all()])
        for s in page.object_list
    ]
    query = request.GET.copy()
    query.pop("pagina", None)
    return private_response(
        render(
            request,
            "scoring/league/archive.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "page": page,
                "listed": listed,
                "players": players,
                "tables": tables,
                "filters": {
                    "datum": day.isoformat() if day else "",
                    "speler": player_id,
                    "tafel": table,
                    "seizoen": season_id,
                },
                "query": query.urlencode(),
            },
        )
    )


@dataclass
class SheetRow:
    number: int
    cells: list[RoundScore | None]


@require_GET
def session_page(request: HttpRequest, slug: str, session_id: int) -> HttpResponse:
    """A session's lei, read-only. Queries: 1. club; 2. session; 3. its results with players;
    4. seats (with players) and 5. round scores, for the sheet and the chart."""
    viewer = club_viewer(request, slug)
    session = get_object_or_404(
        Session.objects.select_related("season"), pk=session_id, club=viewer.club
    )
    results = [
        (r, viewer.name(r.player.name, r.player.public_initials))
        for r in session.results.filter(player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ]
    seats = list(session.seats.select_related("player").order_by("position"))
    scores = list(
        RoundScore.objects.filter(round__session=session, player__isnull=False)
        .select_related("round")
        .order_by("round__number", "id")
    )
    column = {seat.player_id: i for i, seat in enumerate(seats)}
    sheet: dict[int, SheetRow] = {}
    for score in scores:
        row = sheet.setdefault(
            score.round.number, SheetRow(score.round.number, [None] * len(seats))
        )
        row.cells[column[score.player_id]] = score
    start = session.start or {}
    series: dict[str, list[int]] = {}
    names = []
    for seat in seats:
        label = viewer.name(seat.player.name, seat.player.public_initials)
        names.append(label)
        while label in series:
            label += "'"
        series[label] = [int(start.get(seat.player.name, 0))]
    labels = list(series)
    for score in scores:
        series[labels[column[score.player_id]]].append(score.total)
    chart = score_chart_tag(series, session.rules.get("max_points"))
    return private_response(
        render(
            request,
            "scoring/league/session.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "session": session,
                "results": results,
                "names": names,
                "seats": seats,
                "sheet": [sheet[n] for n in sorted(sheet)],
                "chart": chart,
                "viewer_link": viewer_link(session) if viewer.member else None,
            },
        )
    )


@require_GET
def evening_today(request: HttpRequest, slug: str) -> HttpResponse:
    club_viewer(request, slug)
    return redirect("league_evening", slug=slug, day=timezone.localdate().isoformat())


@require_GET
def evening(request: HtmxHttpRequest, slug: str, day: str) -> HttpResponse:
    """Every table of one evening, for the TV at the bar; HTMX polls it.

    Queries: 1. club; 2. the evening's sessions (their versions make the ETag: a poll while
    nothing changed ends here with a 304); 3. the results with the players."""
    viewer = club_viewer(request, slug)
    date = _day(day)
    if date is None or not FIRST_EVENING <= date <= LAST_EVENING:
        raise Http404("not a date of an evening")
    sessions = list(
        Session.objects.filter(club=viewer.club, played_on=date).order_by("table_label", "id")
    )
    etag = _evening_etag(request, viewer, sessions)
    if etag in _if_none_match(request):
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return _evening_headers(response)
    results = (
        SessionResult.objects.filter(session__in=sessions, player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    )
    by_session: dict[int, list] = {s.pk: [] for s in sessions}
    for r in results:
        by_session[r.session_id].append((r, viewer.name(r.player.name, r.player.public_initials)))
    tables = [(s, by_session[s.pk]) for s in sessions]
    template = "scoring/league/evening.html"
    if request.htmx:
        template += "#tables"
    response = render(
        request,
        template,
        {
            "viewer": viewer,
            "club": viewer.club,
            "date": date,
            "tables": tables,
            "poll_seconds": EVENING_POLL_SECONDS,
            "previous": date - ONE_DAY if date > FIRST_EVENING else None,
            "next": date + ONE_DAY if date < LAST_EVENING else None,
        },
    )
    response["ETag"] = etag
    return _evening_headers(response)


def _evening_etag(request: HtmxHttpRequest, viewer: Viewer, sessions: list[Session]) -> str:
    """Changes with every write to any table of the evening (each bumps its session's version),
    a new table, the language, who looks, and page or fragment."""
    state = ",".join(f"{s.pk}:{s.version}:{s.status}" for s in sessions)
    parts = [state, get_language() or "", str(viewer.member), str(bool(request.htmx))]
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]
    return f'"{digest}"'


def _if_none_match(request: HttpRequest) -> set[str]:
    header = request.headers.get("If-None-Match", "")
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _evening_headers(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request", "Accept-Language"])
    return private_response(response)
