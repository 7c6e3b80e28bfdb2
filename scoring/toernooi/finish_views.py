"""The finish's pages (``scoring/toernooi/finish.py``): the prize list on the club's public
pages unless the organiser keeps it back, the final standings as CSV (the organiser's, with
full names, and the public one, with initials where a player asked), and the organiser's
switch that shows or hides the prize list."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST, require_safe

from scoring import access
from scoring.access import Viewer
from scoring.http import csv_response, private_response
from scoring.models import Player, Tournament
from scoring.toernooi import finish
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi.room_views import tournament_of


def _public(viewer: Viewer, pk: int) -> Tournament:
    """The club's tournament ``pk`` whose prize list is public (else a 404, for members too:
    a prize list kept back is kept for the prize-giving)."""
    tournament = tournament_of(viewer, pk)
    if not tournament.prizes_public:
        raise Http404("the prize list is not public")
    return tournament


@require_safe
@access.requires(access.league_viewer)
def public_prizes(request: HttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The prize list for everyone who may see the club's standings, once the tournament is
    over; before that the page says when it comes. Queries: the club, the tournament, the
    standings' three and the final table's places (``finish.prize_list``)."""
    tournament = _public(viewer, pk)
    over = finish.is_over(tournament)
    rows = finish.prize_list(tournament) if over else []
    return private_response(
        render(
            request,
            "scoring/toernooi/public_prizes.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "tournament": tournament,
                "over": over,
                "lines": finish.lines(rows, lambda p: viewer.name(p.name, p.public_initials)),
                "shared": any(row.shared for row in rows),
            },
        )
    )


def _csv(
    tournament: Tournament,
    rows: list[finish.FinishRow],
    name: Callable[[Player], str],
    filename: str,
) -> HttpResponse:
    response, writer = csv_response(filename)
    writer.writerow(finish.CSV_HEADER)
    for row in finish.csv_rows(tournament, rows, name):
        writer.writerow(row)
    return response


@require_safe
@access.requires(access.league_viewer)
def public_csv(request: HttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    """The order the room sees as CSV (the final order once the tournament is over; its
    ``final`` column says which), with the public page's names."""
    tournament = _public(viewer, pk)
    rows = finish.room_order(tournament, tournament_selectors.tournament_standings(tournament))
    return _csv(
        tournament,
        rows,
        lambda p: viewer.name(p.name, p.public_initials),
        f"{viewer.club.slug}-toernooi-{tournament.pk}-uitslag.csv",
    )


@require_safe
@access.requires(access.organiser)
def organiser_csv(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The organiser's CSV of the prize list: the final order, with every name in full."""
    rows = finish.prize_list(tournament)
    return _csv(
        tournament,
        rows,
        lambda p: p.name,
        f"{tournament.club.slug}-toernooi-{tournament.pk}-uitslag.csv",
    )


@require_POST
@access.requires(access.organiser)
def prizes_public_set(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Show (``public=1``) or hide (``public=0``) the prize list on the public pages."""
    value = request.POST.get("public", "")
    if value not in ("0", "1"):
        messages.error(request, gettext("Kies of de prijslijst openbaar is."))
        return redirect("tournament_prizes", tournament.pk)
    finish.tournament_prizes_public_set(tournament=tournament, public=value == "1")
    messages.success(
        request,
        gettext("De prijslijst is openbaar.")
        if value == "1"
        else gettext("De prijslijst is verborgen: alleen de organisator ziet haar."),
    )
    return redirect("tournament_prizes", tournament.pk)
