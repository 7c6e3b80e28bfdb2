"""The viewers: the read-only lei behind the signed viewer link, on a phone or as the TV
(``?tv=1``), and its poll, answered 304 while the session's version is unchanged.

The link shows names as the league pages do: initials for the players who asked for them (and
for guests the club has not confirmed), every name in full for the club's members. A renewed
or revoked link answers 410 with a page that says so."""

from __future__ import annotations

from typing import Any

from django.http import (
    Http404,
    HttpResponse,
    HttpResponseForbidden,
    HttpResponseNotModified,
)
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_http_methods

from scoring import access
from scoring.http import HtmxHttpRequest
from scoring.lei import jinja
from scoring.lei.tablet import Lei, build_lei, shown_until
from scoring.models import Session, hotsql
from scoring.names import public_names
from scoring.sessionfile import file_from_rows, public_file


def _variant(language: str, tv: bool, full: bool = False) -> str:
    """What a sheet is drawn for besides its version: the language, the TV mode and the
    audience (``-club``: the club's members, who see every name in full)."""
    return f"{language}{'-tv' if tv else ''}{'-club' if full else ''}"


def _drawing(session: Session, tv: bool, full: bool) -> str:
    """What a drawing of the sheet is: the session, its version and the variant."""
    return f"lei-{session.pk}-{session.version}-{_variant(get_language(), tv, full)}"


@require_http_methods(["GET", "HEAD", "POST"])
def viewer(request: HtmxHttpRequest, signed: str) -> HttpResponse:
    """The read-only sheet for phones and the pub TV. Its part comes over the page's push
    stream (scoring/push/); where there is none, the page polls it every 3 s with
    If-None-Match while it is looked at (static/js/poll.js).

    The ETag is made from the session id, its version, the language, TV mode and audience, so
    an unchanged sheet costs the session's one query and a 304; a changed one is drawn."""
    if request.method == "POST":
        return HttpResponseForbidden(gettext("Meekijken kan alleen lezen."))
    pk, key = access.viewer_link(signed)
    query = request.META.get("QUERY_STRING", "")
    tv = bool(query) and request.GET.get("tv") == "1"  # a poll without a query parses none
    full = access.sees_full_names(request, pk)
    session = Session.objects.select_related("club").filter(pk=pk).first()
    if session is None:
        raise Http404("no such session")
    if session.viewer_key != key:
        return _link_gone(request)
    base = _drawing(session, tv, full)
    etag = f'"{base}-{"live" if request.htmx else "page"}"'
    # As Django's ConditionalGetMiddleware compares: weakly (a gzipped answer's ETag is weak).
    asked = parse_etags(request.META.get("HTTP_IF_NONE_MATCH", ""))
    if etag in {e.removeprefix("W/") for e in asked}:
        return _viewer_headers(HttpResponseNotModified(), etag)
    lei = _viewer_lei(session, *hotsql.seats_and_rounds(pk), full=full)
    lei.until = shown_until(request.GET.get("tot")) if query else None
    return _viewer_headers(_viewer_render(request, session, lei, tv, full), etag)


def viewer_part_html(session: Session, lei: Lei, *, tv: bool, path: str, full: bool = False) -> str:
    """The viewer's ``#live`` for ``path`` (the part's own path and query, which its poll asks
    again), in the active language, without a request: what the page draws in its place, the
    poll's answer and what a push stream sends. ``lei.until`` is the sheet's page (``?tot=``);
    ``full``: drawn for the club's members (every name in full)."""
    base = _drawing(session, tv, full)
    # The pages of a long sheet's folded rounds (``Lei.folded_before``).
    page = path.partition("?")[0] + ("?tv=1" if tv else "")
    context = {
        "lei": lei,
        "session": session,
        "path": path,
        # The poll sends If-None-Match itself (static/js/poll.js) with the fragment's ETag.
        "live_etag": f'"{base}-live"',
        "sheet_url": page,
        "sheet_tot": page + ("&tot=" if tv else "?tot="),
    }
    context["sheet_html"] = viewer_sheet(lei, path, context)
    return jinja.render("scoring/lei/viewer_live.html", context)


# The viewer's sheet (its totals and rounds) as last drawn, by what it is drawn from
# (``Lei.sheet_key``: the log without the open round, the columns, the state, the language) and
# the part's path (its links to earlier rounds): a knock or a fold changes the live line above
# the sheet, not the sheet, and most changes are one. 512: a Friday night's tables times their
# audiences, about 15 KB each. Gain: a change costs 0.89 (batches 0.83 to 0.92) of what it cost
# with the sheet drawn every time (``make bench-change``, 2026-11-29).
SHEETS = jinja.Kept(512)


def viewer_sheet(lei: Lei, path: str, context: dict[str, Any]) -> str:
    """The viewer's sheet of ``lei`` at ``path``: drawn, or as drawn before from the same."""

    def draw() -> str:
        return jinja.render("scoring/lei/viewer_sheet.html", context)

    if not lei.sheet_key:  # the pot game's sheet shows the open round's bids: always drawn
        return draw()
    return SHEETS.get((lei.sheet_key, path), draw)


def _viewer_lei(session: Session, seats: list, rounds: list, *, full: bool) -> Lei:
    return viewer_lei(session, seats, file_from_rows(session, seats, rounds), full=full)


def viewer_lei(session: Session, seats: list, data: dict, *, full: bool, result: Any = None) -> Lei:
    """The lei of the log ``data`` as this viewer may see it: for the public, the players who
    asked for initials (and the sides named after them) renamed in the log before it is
    replayed, so that no name, total, live line or toepkoning shows them in full. ``result``:
    the replay of ``data`` as it is, when the caller has it (a write: ``scoring/lei/drawn.py``)."""
    if not full:
        renames = public_renames(seats)
        if renames:
            data, result = public_file(data, renames), None
    return build_lei(session, data, result)


def public_renames(seats: list) -> dict[str, str]:
    """The public names of the players at ``seats`` who asked for initials (``public_names``)."""
    return public_names((s.player.name, s.player.public_initials) for s in seats)


def _link_gone(request: HtmxHttpRequest) -> HttpResponse:
    """410: the link was renewed or revoked. A poll of the open page reloads it (htmx reads
    ``HX-Refresh`` whatever the status), so the phone or TV shows this page and stops."""
    response = render(request, "scoring/lei/viewer_gone.html", status=410)
    if request.htmx:
        response["HX-Refresh"] = "true"
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("HX-Request", "Cookie", "Accept-Language"))
    return response


def _viewer_headers(response: HttpResponse, etag: str) -> HttpResponse:
    response["ETag"] = etag  # weak once GZipMiddleware compresses the answer
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("HX-Request", "Cookie", "Accept-Language"))
    return response


def _viewer_render(
    request: HtmxHttpRequest, session: Session, lei: Lei, tv: bool, full: bool
) -> HttpResponse:
    """Render the viewer's page, or its part alone for htmx (the poll and the push stream)."""
    live = viewer_part_html(session, lei, tv=tv, path=request.get_full_path(), full=full)
    if request.htmx:
        return HttpResponse(live)
    return render(request, "scoring/lei/viewer.html", {"session": session, "tv": tv, "live": live})
