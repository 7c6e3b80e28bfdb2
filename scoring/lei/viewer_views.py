"""The viewers: the read-only lei behind the signed viewer link, on a phone or as the TV
(``?tv=1``), and its poll, answered 304 while the session's version is unchanged.

The link shows names as the league pages do: initials for the players who asked for them (and
for guests the club has not confirmed), every name in full for the club's members. A renewed
or revoked link answers 410 with a page that says so."""

from __future__ import annotations

import contextlib
import re

from django.db import IntegrityError
from django.db.models import Exists, OuterRef, Subquery
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseForbidden,
    HttpResponseNotModified,
)
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_http_methods

from scoring import access
from scoring.http import HtmxHttpRequest
from scoring.lei import compression
from scoring.lei.sessionfile import file_from_rows, public_file
from scoring.lei.tablet import Lei, build_lei, shown_until
from scoring.models import RenderedSheet, Round, RoundScore, Seat, Session
from scoring.names import public_names

# The viewer's ETags: "lei-<session>-<version>-<language>[-tv][-club]-<live|page>".
_ETAG = re.compile(r'"lei-(\d+)-(\d+)-([a-z-]+)-(live|page)"')
# The query strings of the poll as the viewer's page makes it (the fragment's hx-get): only
# those answers are kept and served from the copy.
PAGE_POLL_QUERIES = ("", "tv=1")


class LinkGone(Exception):
    """The viewer link was renewed or revoked: the session's key is not the link's."""


def _variant(language: str, tv: bool, full: bool = False) -> str:
    """What a kept sheet is drawn for besides its version: the language, the TV mode and the
    audience (``-club``: the club's members, who see every name in full)."""
    return f"{language}{'-tv' if tv else ''}{'-club' if full else ''}"


@require_http_methods(["GET", "HEAD", "POST"])
def viewer(request: HtmxHttpRequest, signed: str) -> HttpResponse:
    """The read-only sheet for phones and the pub TV, polled every 3 s with If-None-Match
    while it is looked at (static/js/poll.js).

    The ETag is made from the session id, its version and the language before anything else
    is done (one query), so an unchanged sheet costs one indexed lookup and a 304. A changed
    sheet is rendered once per version (and language, TV mode and audience) and kept in
    RenderedSheet; the other viewers of the table get that copy in the same one query.
    """
    if request.method == "POST":
        return HttpResponseForbidden(gettext("Meekijken kan alleen lezen."))
    pk, key = access.viewer_link(signed)
    query = request.META.get("QUERY_STRING", "")
    tv = bool(query) and request.GET.get("tv") == "1"  # a poll without a query parses none
    full = access.sees_full_names(request, pk)
    variant = _variant(get_language(), tv, full)
    mode = "live" if request.htmx else "page"
    # A fragment for any other query string (it is in the fragment's hx-get) is rendered for
    # its asker alone.
    keep = request.htmx and query in PAGE_POLL_QUERIES
    try:
        response = _viewer_answer_undrawn(request, pk, key, variant, mode, keep=keep)
        if response is not None:
            return response
        session = Session.objects.select_related("club").filter(pk=pk).first()
        if session is None:
            raise Http404("no such session")
        if session.viewer_key != key:
            raise LinkGone()
    except LinkGone:
        return _link_gone(request)
    base = f"lei-{pk}-{session.version}-{variant}"  # it may have moved on since: what is drawn
    lei = _viewer_lei(session, *_log(pk), full=full)
    lei.until = shown_until(request.GET.get("tot")) if query else None
    response = _viewer_render(request, session, lei, tv, base, variant, keep=keep)
    return _viewer_headers(response, f'"{base}-{mode}"')


def _log(pk: int) -> tuple[list[Seat], list[Round]]:
    """The session's seats in order with their players, and its rounds in order, each with
    ``scored``: whether its scores are stored."""
    seats = Seat.objects.filter(session_id=pk).select_related("player").order_by("position")
    scored = Exists(RoundScore.objects.filter(round=OuterRef("pk")))
    rounds = Round.objects.filter(session_id=pk).annotate(scored=scored).order_by("number")
    return list(seats), list(rounds)


def _viewer_lei(session: Session, seats: list, rounds: list, *, full: bool) -> Lei:
    """The lei as this viewer may see it: for the public, the players who asked for initials
    (and the sides named after them) renamed in the log before it is replayed, so that no
    name, total, live line or toepkoning shows them in full."""
    data = file_from_rows(session, seats, rounds)
    if not full:
        renames = public_names((s.player.name, s.player.public_initials) for s in seats)
        if renames:
            data = public_file(data, renames)
    return build_lei(session, data)


def _link_gone(request: HtmxHttpRequest) -> HttpResponse:
    """410: the link was renewed or revoked. A poll of the open page reloads it (htmx reads
    ``HX-Refresh`` whatever the status), so the phone or TV shows this page and stops."""
    response = render(request, "scoring/lei/viewer_gone.html", status=410)
    if request.htmx:
        response["HX-Refresh"] = "true"
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("HX-Request", "Cookie", "Accept-Language"))
    return response


def _viewer_answer_undrawn(
    request: HttpRequest, pk: int, key: str, variant: str, mode: str, *, keep: bool
) -> HttpResponse | None:
    """From the poll's one query: a 304, or the kept copy (if ``keep``); None: draw it.
    ``LinkGone`` when the link's ``key`` is no longer the session's."""
    asked = request.META.get("HTTP_IF_NONE_MATCH", "")
    seen = max(
        (
            int(v)
            for p, v, var, m in _ETAG.findall(asked)
            if (int(p), var, m) == (pk, variant, mode)
        ),
        default=-1,
    )
    # The session's version makes the ETag; the sheet another viewer kept for this version comes
    # along; the viewer link's key says whether the asker's link still works.
    kept_sheet = RenderedSheet.objects.filter(
        session=OuterRef("pk"), variant=variant if keep else "", version=OuterRef("version")
    )
    found = (
        Session.objects.filter(pk=pk)
        .annotate(kept=Subquery(kept_sheet.values("gzipped")[:1]))
        .values_list("version", "kept", "viewer_key")
        .first()
    )
    if found is None:
        raise Http404("no such session")
    version, kept, session_key = found
    if version == seen:
        kept = None
    if session_key != key:
        raise LinkGone()
    etag = f'"lei-{pk}-{version}-{variant}-{mode}"'
    if etag in asked:
        return _viewer_headers(HttpResponseNotModified(), etag)
    if kept is not None:
        # Another viewer of this table drew this version; it was compressed then, once.
        return _viewer_headers(compression.kept_answer(request, bytes(kept)), etag)
    return None


def _viewer_headers(response: HttpResponse, etag: str) -> HttpResponse:
    # Weak when compressed, as Django's GZipMiddleware makes it for the answers it compresses.
    response["ETag"] = f"W/{etag}" if response.get("Content-Encoding") == "gzip" else etag
    response["Cache-Control"] = "no-cache"
    patch_vary_headers(response, ("HX-Request", "Cookie", "Accept-Language"))
    return response


def _viewer_render(
    request: HtmxHttpRequest,
    session: Session,
    lei: Lei,
    tv: bool,
    base: str,
    variant: str,
    *,
    keep: bool,
) -> HttpResponse:
    """Render the viewer's page or fragment; the fragment is kept for the other viewers."""
    # The poll sends If-None-Match itself (static/js/poll.js) with the fragment's ETag.
    page = request.path + ("?tv=1" if tv else "")
    context = {
        "lei": lei,
        "session": session,
        "tv": tv,
        "live_etag": f'"{base}-live"',
        # The pages of a long sheet's folded rounds (``Lei.folded_before``).
        "sheet_url": page,
        "sheet_tot": page + ("&tot=" if tv else "?tot="),
    }
    if not request.htmx:
        return render(request, "scoring/lei/viewer.html", context)
    response = render(request, "scoring/lei/viewer.html#live", context)
    if not keep:
        return response
    # Compressed once, for every viewer of the table (scoring/lei/compression.py says why that is
    # safe here), and kept in one statement, whoever gets here first (INSERT ... ON CONFLICT).
    gzipped = compression.compress_once(response.content)
    _keep_sheet(session.pk, variant, session.version, gzipped)
    return compression.kept_answer(request, gzipped)


def _keep_sheet(session_id: int, variant: str, version: int, gzipped: bytes) -> None:
    # A session deleted meanwhile has nothing kept (only in autocommit, as views run: inside a
    # transaction the foreign key is checked when it commits); this viewer still gets it drawn.
    with contextlib.suppress(IntegrityError):
        RenderedSheet.objects.bulk_create(
            [
                RenderedSheet(
                    session_id=session_id, variant=variant, version=version, gzipped=gzipped
                )
            ],
            update_conflicts=True,
            unique_fields=["session", "variant"],
            update_fields=["version", "gzipped"],
        )
