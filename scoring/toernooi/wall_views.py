"""The wall and the clock, from the organiser's side: the seating sheet of a series to hang up
(one A4, every table with its players in big type) and the round timer that the TVs show for
a series played "at a time" (``scoring/toernooi/clock.py``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST, require_safe

from scoring import access
from scoring.models import Series, Tournament
from scoring.toernooi import clock
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi.seating import sheet_density
from scoring.toernooi.services import TournamentError
from scoring.toernooi.views import series_of, series_write


@require_safe
@access.requires(access.organiser)
def series_sheet(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The seating of a series on one A4 to hang up: every table, its players in seat order
    and who deals first, in the largest type that fits (``scoring/toernooi/seating.py``).
    Queries: the tournament (access), the series, the tables' three (``series_overview``), as
    many for 12 players as for 200."""
    series = series_of(tournament, number)
    series.tournament = tournament  # already read by access.organiser: not again
    overview = tournament_selectors.series_overview(series)
    return render(
        request,
        "scoring/toernooi/seating.html",
        {
            "tournament": tournament,
            "series": series,
            "tables": overview,
            "density": sheet_density(overview),
            "players": sum(len(status.players) for status in overview),
        },
    )


@require_POST
@access.requires(access.organiser)
def series_clock(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Start (``action=start`` with ``minutes``) or stop (``action=stop``) the round timer."""
    action = request.POST.get("action", "")

    def write(series: Series) -> str:
        if action == "start":
            minutes = _minutes(request.POST.get("minutes", ""))
            clock.series_clock_start(series=series, minutes=minutes, actor=request.user)
            text = ngettext(
                "De klok loopt: %(minutes)s minuut.", "De klok loopt: %(minutes)s minuten.", minutes
            )
            return text % {"minutes": minutes}
        if action == "stop":
            clock.series_clock_stop(series=series, actor=request.user)
            return gettext("De klok is gestopt.")
        raise TournamentError(gettext("Onbekende actie."))

    return series_write(request, tournament, number, write)


def _minutes(text: str) -> int:
    """The minutes typed; 0 (which the clock refuses, saying why) when it is no whole number."""
    text = text.strip()
    if not text.isdecimal() or len(text) > 4:
        return 0
    return int(text)
