"""The room's pages of a toernooi: the public standings and the TV, league pages that show
initials where a player asked for them."""

from __future__ import annotations

from typing import Any

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from scoring import access
from scoring.access import Viewer
from scoring.http import HtmxHttpRequest, private_response
from scoring.models import Series, Tournament
from scoring.toernooi import selectors as tournament_selectors

TV_POLL_SECONDS = 8  # each poll turns the TV's page when the standings need more than one
TV_ROWS_PER_COLUMN = 20  # rows of 3 % of the screen's height: readable from 10 m
TV_ROWS_PER_PAGE = 2 * TV_ROWS_PER_COLUMN  # 40 players on one screen, beside the tables too
TV_COMPACT_TABLES = 10  # more tables than this: one line each, so that 25 fit the screen
TV_BIG_TABLES = 4  # this many or fewer: their names as large as the standings'


def _tournament(viewer: Viewer, pk: int) -> Tournament:
    """The club's tournament ``pk`` (``access.league_viewer`` said who may see the club)."""
    tournament = Tournament.objects.filter(club=viewer.club, pk=pk).first()
    if tournament is None:
        raise Http404("no such tournament")
    return tournament


def _lines(viewer: Viewer, standings: tournament_selectors.Standings) -> list[dict[str, Any]]:
    return [
        {
            "place": f"{row.place}=" if row.shared else str(row.place),
            "name": viewer.name(row.player.name, row.player.public_initials),
            "row": row,
        }
        for row in standings.rows
    ]


@require_GET
@access.requires(access.league_viewer)
def standings_page(request: HttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The standings after every series, provisional while one runs.

    Queries: 1. the club (and whether the one asking is a member); 2. the tournament;
    3-5. the standings (``tournament_selectors.tournament_standings``: the entries with their
    players,
    the series' states, every table result): as many for 12 players as for 100."""
    tournament = _tournament(viewer, pk)
    standings = tournament_selectors.tournament_standings(tournament)
    return private_response(
        render(
            request,
            "scoring/toernooi/standings.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "tournament": tournament,
                "standings": standings,
                "lines": _lines(viewer, standings),
            },
        )
    )


@require_GET
@access.requires(access.league_viewer)
def tv_page(request: HtmxHttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The room's TV: the standings and the tables of the series drawn or playing, large.

    The page polls itself (HTMX); standings longer than one screen are split into pages and
    each poll shows the next one (``?pagina=``), so nobody has to scroll a TV."""
    tournament = _tournament(viewer, pk)
    standings = tournament_selectors.tournament_standings(tournament)
    current = (
        tournament.series.filter(state__in=[Series.State.DRAWN, Series.State.RUNNING])
        .order_by("-number")
        .first()
    )
    tables = []
    if current is not None:
        for status in tournament_selectors.series_overview(current):
            tables.append(
                {
                    "number": status.table.number,
                    "players": [viewer.name(p.name, p.public_initials) for p in status.players],
                    "state": status.state,
                }
            )
    paginator = Paginator(_lines(viewer, standings), TV_ROWS_PER_PAGE)
    try:
        page = paginator.page(request.GET.get("pagina", 1))
    except InvalidPage:  # not a page (any more): the TV starts again from the top
        page = paginator.page(1)
    shown = page.object_list
    context = {
        "viewer": viewer,
        "club": viewer.club,
        "tournament": tournament,
        "standings": standings,
        "lines": shown,
        "columns": [
            shown[i : i + TV_ROWS_PER_COLUMN] for i in range(0, len(shown), TV_ROWS_PER_COLUMN)
        ],
        "compact": len(tables) > TV_COMPACT_TABLES,
        "big": len(tables) <= TV_BIG_TABLES,
        "page": page.number,
        "pages": paginator.num_pages,
        "next_page": page.next_page_number() if page.has_next() else 1,
        "current": current,
        "tables": tables,
        "poll_seconds": TV_POLL_SECONDS,
    }
    template = "scoring/toernooi/tv.html" + ("#board" if request.htmx else "")
    return private_response(render(request, template, context))
