"""The room's pages of a toernooi: the public standings and the TV, league pages that show
initials where a player asked for them."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from scoring import access
from scoring.access import Viewer
from scoring.http import HtmxHttpRequest, private_response
from scoring.models import Series, Tournament
from scoring.toernooi import finish
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi.picture_views import standings_open_graph

TV_POLL_SECONDS = 8  # each poll turns the TV's page when the standings need more than one
TV_ROWS_PER_COLUMN = 20  # rows of 3 % of the screen's height: readable from 10 m
TV_ROWS_PER_PAGE = 2 * TV_ROWS_PER_COLUMN  # 40 players on one screen, beside the tables too
TV_BIG_TABLES = 4  # this many or fewer: their names as large as the standings'
# More tables are listed a row each, their names two to a line (static/css/toernooi.css,
# .tv-tables--compact): a row of 4 players is two lines, of 5 three. A page holds the rows
# that fit the screen's height beside the standings, in lines of names (2.4 % of the height
# each, a row's border and gap about half a line): 14 tables of four, 10 of five.
TV_TABLE_LINES = 35
TV_TABLE_LINES_WITH_CLOCK = 30  # the round timer takes the height of some five lines
# A name of more letters than this does not fit half the standings' width, nor half a table's
# row: then the standings take one column of the whole width and the tables one name a line,
# each name whole (40 letters at most, scoring/names.py) rather than cut to its first 13,
# where "Johanna van …" three times told nobody apart (tests/browser/test_tournament_tv.py).
TV_HALF_NAME = 15


def tournament_of(viewer: Viewer, pk: int) -> Tournament:
    """The club's tournament ``pk`` (``access.league_viewer`` said who may see the club)."""
    tournament = Tournament.objects.filter(club=viewer.club, pk=pk).first()
    if tournament is None:
        raise Http404("no such tournament")
    return tournament


def _lines(
    viewer: Viewer, tournament: Tournament, standings: tournament_selectors.Standings
) -> list[dict[str, Any]]:
    """The order the room sees (``finish.room_order``), names as the viewer may see them."""
    rows = finish.room_order(tournament, standings)
    return finish.lines(rows, lambda p: viewer.name(p.name, p.public_initials))


def table_pages(
    tables: list[dict[str, Any]], lines: int, *, per_line: int = 2
) -> list[list[dict[str, Any]]]:
    """The tables in pages of at most ``lines`` lines of names (``TV_TABLE_LINES``), with
    ``per_line`` names a line."""
    pages: list[list[dict[str, Any]]] = [[]]
    used = 0.0
    for table in tables:
        cost = (len(table["players"]) + per_line - 1) // per_line + 0.5
        if pages[-1] and used + cost > lines:
            pages.append([])
            used = 0.0
        pages[-1].append(table)
        used += cost
    return pages


@require_safe
@access.requires(access.league_viewer)
def standings_page(request: HttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The standings after every series, provisional while one runs.

    Queries: 1. the club (and whether the one asking is a member); 2. the tournament;
    3-5. the standings (``tournament_selectors.tournament_standings``: the entries with their
    players, the series' states, every table result); once the tournament is over 6. the
    final table's places (``finish.final_order``): as many for 12 players as for 100."""
    tournament = tournament_of(viewer, pk)
    standings = tournament_selectors.tournament_standings(tournament)
    rows = finish.room_order(tournament, standings)
    over = finish.is_over(tournament)
    return private_response(
        render(
            request,
            "scoring/toernooi/standings.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "tournament": tournament,
                "standings": standings,
                "over": over,
                "lines": finish.lines(rows, lambda p: viewer.name(p.name, p.public_initials)),
                "og": standings_open_graph(request, viewer.club, tournament, rows, over),
            },
        )
    )


@require_safe
@access.requires(access.league_viewer)
def tv_page(request: HtmxHttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The room's TV: the standings and the tables of the series drawn or playing, large.

    The page polls itself (HTMX); standings longer than one screen, and tables more than fit
    beside them, are split into pages and each poll shows the next one (``?pagina=``), so
    nobody has to scroll a TV. Once the tournament is over it shows the final order."""
    tournament = tournament_of(viewer, pk)
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
    # One page number turns both lists: each shows its own page of it, round and round.
    lines = _lines(viewer, tournament, standings)
    names = [line["name"] for line in lines] + [n for t in tables for n in t["players"]]
    wide = any(len(name) > TV_HALF_NAME for name in names)
    per_column = TV_ROWS_PER_COLUMN
    paginator = Paginator(lines, per_column if wide else TV_ROWS_PER_PAGE)
    big = len(tables) <= TV_BIG_TABLES
    clock_shown = current is not None and current.clock_ends_at is not None
    pages = (
        [tables]
        if big
        else table_pages(
            tables,
            TV_TABLE_LINES_WITH_CLOCK if clock_shown else TV_TABLE_LINES,
            per_line=1 if wide else 2,
        )
    )
    cycle = max(paginator.num_pages, len(pages))
    try:
        number = int(request.GET.get("pagina", 1))
    except ValueError:
        number = 1
    if not 1 <= number <= cycle:  # not a page (any more): the TV starts again from the top
        number = 1
    page = paginator.page((number - 1) % paginator.num_pages + 1)
    shown = page.object_list
    table_page = (number - 1) % len(pages)
    shown_tables = pages[table_page]
    context = {
        "viewer": viewer,
        "club": viewer.club,
        "tournament": tournament,
        "standings": standings,
        "over": finish.is_over(tournament),
        "lines": shown,
        "columns": [shown[i : i + per_column] for i in range(0, len(shown), per_column)],
        "wide": wide,
        "compact": not big,
        "big": big,
        "page": page.number,
        "pages": paginator.num_pages,
        "table_page": table_page + 1,
        "table_pages": len(pages),
        "next_page": number + 1 if number < cycle else 1,
        "current": current,
        "tables": shown_tables,
        "table_count": len(tables),
        "table_first": shown_tables[0]["number"] if shown_tables else None,
        "table_last": shown_tables[-1]["number"] if shown_tables else None,
        "poll_seconds": TV_POLL_SECONDS,
    }
    template = "scoring/toernooi/tv.html" + ("#board" if request.htmx else "")
    return private_response(render(request, template, context))
