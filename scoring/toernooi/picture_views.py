"""A toernooi's standings as a picture for a group chat (``scoring.picture``): the first
places with their table points, the winner crowned once it is over, names as the standings'
page shows them to the one who asks; and that page's Open Graph tags (public clubs only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import formats, translation
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from scoring import access, names, picture
from scoring.access import Viewer
from scoring.models import Club, Player, Tournament
from scoring.toernooi import finish
from scoring.toernooi import selectors as tournament_selectors


def standings_card(
    club: Club, tournament: Tournament, lines: Sequence[dict[str, Any]], over: bool
) -> picture.Card:
    """``lines``: the standings as the page draws them (``finish.lines``)."""
    drawn = [
        picture.Line(
            place=f"{line['place']}.",
            name=line["name"],
            points=gettext("%(n)s punten") % {"n": line["row"].table_points},
            toepkoning=over and i == 0,
            out=line["row"].withdrawn,
        )
        for i, line in enumerate(lines[: picture.MAX_LINES])
    ]
    word = gettext("eindstand") if over else gettext("tussenstand")
    day = formats.date_format(tournament.date, "j F Y")
    more = ""
    if len(lines) > picture.MAX_LINES:
        more = gettext("en nog %(n)s spelers") % {"n": len(lines) - picture.MAX_LINES}
    return picture.Card(
        title=club.name, heading=f"{tournament.name} — {word} — {day}", lines=drawn, more=more
    )


def _public(player: Player) -> str:
    return names.display_name(player.name, player.public_initials, full=False)


def standings_open_graph(
    request: HttpRequest,
    club: Club,
    tournament: Tournament,
    rows: Sequence[finish.FinishRow],
    over: bool,
) -> dict[str, object] | None:
    """The standings page's tags, drawn for the public, where the club publishes (``rows``:
    the page's ``finish.room_order``)."""
    if not club.standings_public:
        return None
    with translation.override(club.language):
        card = standings_card(club, tournament, finish.lines(rows, _public), over)
        path = reverse("tournament_standings_picture", args=[club.slug, tournament.pk])
        return picture.open_graph(request, card, path)


@require_safe
@access.requires(access.league_viewer)
def standings_picture(request: HttpRequest, viewer: Viewer, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, club=viewer.club, pk=pk)
    standings = tournament_selectors.tournament_standings(tournament)
    rows = finish.room_order(tournament, standings)
    lines = finish.lines(rows, lambda p: viewer.name(p.name, p.public_initials))
    over = finish.is_over(tournament)
    with translation.override(viewer.club.language):
        return picture.png_response(standings_card(viewer.club, tournament, lines, over))
