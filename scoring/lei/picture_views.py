"""The tablet's "Delen": the game as a picture (``scoring.lei.cards``), names as the tablet
shows them (in full: it is the table's own screen), in the club's language."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils import translation
from django.views.decorators.http import require_safe

from scoring import access, picture
from scoring.http import HtmxHttpRequest
from scoring.lei.cards import session_card


@require_safe
@access.requires(access.scorer)
def session_picture(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    session = scorer.session
    club = session.club
    results = [
        (r, r.player.name)
        for r in session.results.filter(player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ]
    with translation.override(club.language):
        return picture.png_response(session_card(club, session, results))
