"""The league's pictures for a group chat (``scoring.picture``): a game of the archive and an
evening, drawn in the club's language with the names as their pages show them to the one who
asks (initials where asked, for the public); and the Open Graph tags of those pages."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

from django.core.paginator import Page
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import formats, translation
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from scoring import access, names, picture
from scoring.access import Viewer
from scoring.lei.cards import session_card, table_name
from scoring.models import Club, Session, SessionResult

EVENING_TABLES_DRAWN = 8  # the picture's lines; "en nog n tafels" says the rest


def _public(result: SessionResult) -> str:
    return names.display_name(result.player.name, result.player.public_initials, full=False)


def _results(session: Session) -> list[SessionResult]:
    return list(
        session.results.filter(player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    )


def game_open_graph(
    request: HttpRequest, club: Club, session: Session, results: Sequence[SessionResult]
) -> dict[str, object] | None:
    """The tags of a game's page: only where the club publishes, drawn for the public (a link
    pasted in a chat is fetched by a robot that is no member)."""
    if not club.standings_public:
        return None
    with translation.override(club.language):
        card = session_card(club, session, [(r, _public(r)) for r in results])
        path = reverse("league_session_picture", args=[club.slug, session.pk])
        return picture.open_graph(request, card, path)


@require_safe
@access.requires(access.league_viewer)
def session_picture(request: HttpRequest, viewer: Viewer, session_id: int) -> HttpResponse:
    """Queries: 1. club; 2. session; 3. its results with the players."""
    session = get_object_or_404(Session, pk=session_id, club=viewer.club)
    results = [(r, viewer.name(r.player.name, r.player.public_initials)) for r in _results(session)]
    with translation.override(viewer.club.language):
        return picture.png_response(session_card(viewer.club, session, results))


def evening_card(
    club: Club,
    date: datetime.date,
    tables: Sequence[tuple[Session, list[tuple]]],
    total: int | None = None,
) -> picture.Card:
    """One line a table: its toepkoning (or who leads while it runs). ``total``: the evening's
    tables, where ``tables`` holds only the first of them (the page's)."""
    total = len(tables) if total is None else total
    lines = []
    for number, (session, results) in enumerate(tables[:EVENING_TABLES_DRAWN], start=1):
        if not results:
            continue
        first, name = results[0]
        lines.append(
            picture.Line(
                place=table_name(session, number),
                name=name,
                toepkoning=first.toepkoning,
                points=gettext("bezig") if session.status == Session.Status.RUNNING else "",
            )
        )
    more = ""
    if total > EVENING_TABLES_DRAWN:
        more = gettext("en nog %(n)s tafels") % {"n": total - EVENING_TABLES_DRAWN}
    heading = gettext("Toepkoningen van %(day)s") % {"day": formats.date_format(date, "l j F Y")}
    return picture.Card(title=club.name, heading=heading, lines=lines, more=more, place_width=230)


def evening_tables(
    club: Club, date: datetime.date, name: Callable[[SessionResult], str]
) -> list[tuple[Session, list[tuple]]]:
    """The evening's tables with their results in place order, each name as ``name`` gives
    it. Queries: the sessions; their results with the players."""
    sessions = list(Session.objects.filter(club=club, played_on=date).order_by("table_label", "id"))
    by_session: dict[int, list] = {s.pk: [] for s in sessions}
    for r in (
        SessionResult.objects.filter(session__in=sessions, player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ):
        by_session[r.session_id].append((r, name(r)))
    return [(s, by_session[s.pk]) for s in sessions]


def evening_open_graph(
    request: HttpRequest,
    club: Club,
    date: datetime.date,
    page: Page,
    tables: Sequence[tuple[Session, list[tuple]]],
) -> dict[str, object] | None:
    """The evening page's tags, for the public, where the club publishes: on its first page
    from the ``tables`` it drew (the names drawn again as the public sees them), on a later
    one from the evening's first tables read again (2 queries), as its picture has them."""
    if not club.standings_public:
        return None
    if page.number == 1:
        public = [(s, [(r, _public(r)) for r, _name in results]) for s, results in tables]
    else:
        public = evening_tables(club, date, _public)
    with translation.override(club.language):
        card = evening_card(club, date, public, page.paginator.count)
        path = reverse("league_evening_picture", args=[club.slug, date.isoformat()])
        return picture.open_graph(request, card, path)


@require_safe
@access.requires(access.league_viewer)
def evening_picture(request: HttpRequest, viewer: Viewer, day: str) -> HttpResponse:
    """Queries: 1. club; 2. the evening's sessions; 3. their results with the players."""
    try:
        date = datetime.date.fromisoformat(day)
    except ValueError:
        raise Http404("not a date of an evening") from None
    tables = evening_tables(
        viewer.club, date, lambda r: viewer.name(r.player.name, r.player.public_initials)
    )
    with translation.override(viewer.club.language):
        return picture.png_response(evening_card(viewer.club, date, tables))
