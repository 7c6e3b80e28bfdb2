"""The archive of played games, one game's sheet, and the evening view (every table of one
day, polled while it is looked at)."""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Exists, Max, Min, OuterRef, Prefetch, Q, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers

from scoring import access, svg
from scoring.access import Viewer
from scoring.days import evening_day
from scoring.http import HtmxHttpRequest, id_from, private_response
from scoring.league.picture_views import evening_open_graph, game_open_graph
from scoring.league.views import viewer_link
from scoring.models import (
    Player,
    RoundScore,
    Seat,
    Session,
    SessionResult,
)

ARCHIVE_PAGE_SIZE = 25
# A game's page shows the last rounds of its sheet and the earlier ones a page at a time, so
# that a session of a thousand rounds is as light as one of ten.
SHEET_ROUNDS_SHOWN = 30
EVENING_POLL_SECONDS = 5
# The tables of an evening on one page of the TV: a club night fits on it; a toernooi's day of a
# hundred tables is paged, so that no poll carries them all.
EVENING_TABLES_SHOWN = 24
# The evenings a club can have played: other dates are a 404, and the page's previous/next
# links go to the evenings the club played (``_neighbours``).
FIRST_EVENING = datetime.date(1900, 1, 1)
LAST_EVENING = datetime.date(2999, 12, 31)


def _day(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


@require_safe
@access.requires(access.league_viewer)
def archive(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Queries: 1. club; 2. the players to filter on; 3. the table labels; 4. the count;
    5. the page of sessions; 6. their results with the players."""
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


def _until(value: str | None, last: int) -> int:
    """The last round of the sheet's page asked for (``?tot=``), within the session's rounds;
    the session's last round when none is asked for or the value is no round number."""
    if value and value.isascii() and value.isdigit() and len(value) <= 5:
        return min(max(int(value), 1), last)
    return last


@require_safe
@access.requires(access.league_viewer)
def session_page(request: HtmxHttpRequest, viewer: Viewer, session_id: int) -> HttpResponse:
    """A session's lei, read-only: its result, its chart and the last ``SHEET_ROUNDS_SHOWN``
    rounds of the sheet; earlier rounds come a page at a time (``?tot=<round>``), for htmx as
    the ``#rounds`` partial alone. Queries: 1. club; 2. session, with its last scored round;
    3. seats with players; 4. the page's round scores; the whole page also 5. results with
    players and 6. every round's totals, for the chart."""
    last_scored = (
        RoundScore.objects.filter(round__session=OuterRef("pk"), player__isnull=False)
        .order_by("-round__number")
        .values("round__number")[:1]
    )
    session = get_object_or_404(
        Session.objects.select_related("season").annotate(last_scored=Subquery(last_scored)),
        pk=session_id,
        club=viewer.club,
    )
    seats = list(session.seats.select_related("player").order_by("position"))
    names = [viewer.name(seat.player.name, seat.player.public_initials) for seat in seats]
    scored = RoundScore.objects.filter(round__session=session, player__isnull=False)
    last = session.last_scored or 0
    until = _until(request.GET.get("tot"), last)
    first = max(until - SHEET_ROUNDS_SHOWN + 1, 1)
    column = {seat.player_id: i for i, seat in enumerate(seats)}
    sheet: dict[int, SheetRow] = {}
    page = scored.filter(round__number__range=(first, until)).select_related("round")
    for score in page.order_by("round__number", "id"):
        row = sheet.setdefault(
            score.round.number, SheetRow(score.round.number, [None] * len(seats))
        )
        row.cells[column[score.player_id]] = score
    earlier = first - 1 if first > 1 else None
    context = {
        "viewer": viewer,
        "club": viewer.club,
        "session": session,
        "names": names,
        "seats": seats,
        "sheet": [sheet[n] for n in sorted(sheet)],
        "earlier": earlier,
        "earlier_first": max((earlier or 0) - SHEET_ROUNDS_SHOWN + 1, 1),
        "later": min(until + SHEET_ROUNDS_SHOWN, last) if until < last else None,
    }
    if request.htmx:
        response = render(request, "scoring/league/session.html#rounds", context)
        patch_vary_headers(response, ["HX-Request"])
        return private_response(response)
    results = [
        (r, viewer.name(r.player.name, r.player.public_initials))
        for r in session.results.filter(player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ]
    start = session.start or {}
    series: dict[str, list[int]] = {}
    for seat, name in zip(seats, names, strict=True):
        label = name
        while label in series:
            label += "'"
        series[label] = [int(start.get(seat.player.name, 0))]
    labels = list(series)
    for player_id, total in scored.order_by("round__number", "id").values_list(
        "player_id", "total"
    ):
        series[labels[column[player_id]]].append(total)
    chart = svg.worded_score_chart(series, session.rules.get("max_points"))
    response = render(
        request,
        "scoring/league/session.html",
        {
            **context,
            "results": results,
            "chart": chart,
            "viewer_link": viewer_link(session) if viewer.member else None,
            "og": game_open_graph(request, viewer.club, session, [r for r, _name in results]),
        },
    )
    patch_vary_headers(response, ["HX-Request"])
    return private_response(response)


@require_safe
@access.requires(access.league_viewer)
def evening_today(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    return redirect("league_evening", slug=viewer.club.slug, day=evening_day().isoformat())


def _evening_of(request: HtmxHttpRequest, viewer: Viewer, day: str) -> tuple[datetime.date, Page]:
    """The date and the page of the evening's sessions asked for (``?pagina=``), read once a
    request: for the ETag (``condition``) and then for the page."""
    read = getattr(request, "_evening", None)
    if read is None:
        date = _day(day)
        if date is None or not FIRST_EVENING <= date <= LAST_EVENING:
            raise Http404("not a date of an evening")
        sessions = Session.objects.filter(club=viewer.club, played_on=date)
        paginator = Paginator(list(sessions.order_by("table_label", "id")), EVENING_TABLES_SHOWN)
        read = request._evening = (date, paginator.get_page(request.GET.get("pagina")))
        # The whole page pages over the evenings the club played, never into empty days; the
        # polled fragment has no such links and so no such query.
        request._neighbours = {} if request.htmx else _neighbours(viewer, date)
    return read


def _neighbours(viewer: Viewer, date: datetime.date) -> dict[str, datetime.date | None]:
    """The club's evenings just before and after ``date`` (one query)."""
    return Session.objects.filter(club=viewer.club).aggregate(
        previous=Max("played_on", filter=Q(played_on__lt=date)),
        next=Min("played_on", filter=Q(played_on__gt=date)),
    )


def _evening_etag(request: HtmxHttpRequest, viewer: Viewer, day: str) -> str:
    """Changes with every write to any table of the page shown (each bumps its session's
    version), a new table, the language, who looks, and page or fragment."""
    _date, page = _evening_of(request, viewer, day)
    state = ",".join(f"{s.pk}:{s.version}:{s.status}" for s in page.object_list)
    pages = f"{page.number}/{page.paginator.num_pages}/{page.paginator.count}"
    around = ",".join(str(day) for day in request._neighbours.values())
    parts = [
        state,
        pages,
        around,
        get_language() or "",
        str(viewer.member),
        str(bool(request.htmx)),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


@require_safe
@access.requires(access.league_viewer)
@cache_control(private=True, no_cache=True)
@vary_on_headers("HX-Request", "Accept-Language", "Cookie")
@condition(etag_func=_evening_etag)
def evening(request: HtmxHttpRequest, viewer: Viewer, day: str) -> HttpResponse:
    """Every table of one evening, for the TV at the bar, ``EVENING_TABLES_SHOWN`` a page
    (``?pagina=``: a toernooi's day has a hundred); HTMX polls the page shown. Its answers, the
    304s included, are private as ``scoring.http.private_response`` makes them (members see full
    names) and vary by fragment and language.

    Queries: 1. club; 2. the evening's sessions (the page's versions make the ETag: a poll
    while nothing changed ends here with a 304); 2b. on the whole page only, the evenings
    before and after (its links); 3. the page's results with the players."""
    date, page = _evening_of(request, viewer, day)
    sessions = list(page.object_list)
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
    og = None
    if request.htmx:
        template += "#tables"
    else:
        og = evening_open_graph(request, viewer.club, date, page, tables)
    return render(
        request,
        template,
        {
            "viewer": viewer,
            "club": viewer.club,
            "date": date,
            "tables": tables,
            "page": page,
            "poll_seconds": EVENING_POLL_SECONDS,
            **request._neighbours,
            "og": og,
        },
    )
