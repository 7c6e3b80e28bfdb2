"""The club's ratings page and its CSV: public under the standings' rules
(``access.league_viewer``), names by ``Viewer.name`` (initials for who asked), guests apart."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from scoring import access, figures
from scoring.access import Viewer
from scoring.http import csv_response, private_response
from scoring.ratings import selectors
from scoring.ratings.services import ratings_fresh


def _lines(viewer: Viewer, rows: list[selectors.RatingRow]) -> list[dict]:
    return [
        {
            "row": row,
            "name": viewer.name(row.name, row.public_initials),
            "rating": figures.shown_rating(row.rating),  # the CSV's figure rounded: 23,5 in Dutch
            # A guest a scorer link added has no public player page until the club confirms.
            "linked": row.confirmed or viewer.member,
        }
        for row in rows
    ]


@require_safe
@access.requires(access.league_viewer)
def club_ratings(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Queries: 1. the club (and membership); 2-3. the history's key and the one the ratings
    were computed from (a recompute when they differ); 4. the ratings with their players."""
    ratings_fresh(club_id=viewer.club.pk)
    members, guests = selectors.club_ratings(viewer.club.pk)
    return private_response(
        render(
            request,
            "scoring/ratings/club.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "members": _lines(viewer, members),
                "guests": _lines(viewer, guests),
            },
        )
    )


@require_safe
@access.requires(access.league_viewer)
def club_ratings_csv(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    ratings_fresh(club_id=viewer.club.pk)
    members, guests = selectors.club_ratings(viewer.club.pk)
    response, writer = csv_response(f"{viewer.club.slug}-rating.csv")
    writer.writerow(["rank", "player", "guest", "rating", "mu", "sigma", "games"])
    for row in [*members, *guests]:
        writer.writerow(
            [
                row.rank,
                viewer.name(row.name, row.public_initials),
                int(row.is_guest),
                # Decimals, not formatted text: a negative rating is a number, no formula.
                figures.rounded(row.rating, figures.RATING_PLACES),
                figures.rounded(row.mu, figures.RATING_PLACES),
                figures.rounded(row.sigma, figures.RATING_PLACES),
                row.games,
            ]
        )
    return response
