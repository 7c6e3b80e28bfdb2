"""The viewers: the read-only lei behind the signed viewer link, on a phone or as the TV
(``?tv=1``), and its poll, answered 304 while the session's version is unchanged."""

from __future__ import annotations

import re

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
from scoring.lei import compression, hotsql
from scoring.lei.tablet import Lei, load_lei
from scoring.models import Session

# The viewer's ETags: "lei-<session>-<version>-<language>[-tv]-<live|page>".
_ETAG = re.compile(r'"lei-(\d+)-(\d+)-([a-z-]+)-(live|page)"')
# The query strings of the poll as the viewer's page makes it (the fragment's hx-get), each
# with its TV mode: only those answers are kept and served from the copy.
PAGE_POLL_QUERIES = {"": False, "tv=1": True}


def _variant(language: str, tv: bool) -> str:
    """What a kept sheet is drawn for besides its version: the language and the TV mode."""
    return f"{language}-tv" if tv else language


@require_http_methods(["GET", "HEAD", "POST"])
def viewer(request: HtmxHttpRequest, signed: str) -> HttpResponse:
    """The read-only sheet for phones and the pub TV, polled every 3 s with If-None-Match
    while it is looked at (static/js/poll.js).

    The ETag is made from the session id, its version and the language before anything else
    is done (one query), so an unchanged sheet costs one indexed lookup and a 304. A changed
    sheet is rendered once per version (and language, and TV mode) and kept in RenderedSheet;
    the other viewers of the table get that copy in the same one query. Those two answers to
    the page's own poll are usually given before this view, by ``scoring.lei.middleware``.
    """
    if request.method == "POST":
        return HttpResponseForbidden(gettext("Meekijken kan alleen lezen."))
    pk = access.session_id_from_viewer_token(signed)
    query = request.META.get("QUERY_STRING", "")
    tv = bool(query) and request.GET.get("tv") == "1"  # a poll without a query parses none
    variant = _variant(get_language(), tv)
    mode = "live" if request.htmx else "page"
    # A fragment for any other query string (it is in the fragment's hx-get) is rendered for
    # its asker alone.
    keep = request.htmx and query in PAGE_POLL_QUERIES
    # The middleware asked already and found it must be drawn: not the same query again.
    if not getattr(request, "viewer_poll_missed", False):
        response = _viewer_answer_undrawn(request, pk, variant, mode, keep=keep)
        if response is not None:
            return response
    read = hotsql.session_and_log(pk)
    if read is None:
        raise Http404("no such session")
    session, *log = read
    base = f"lei-{pk}-{session.version}-{variant}"  # it may have moved on since: what is drawn
    lei = load_lei(session, log)
    response = _viewer_render(request, session, lei, tv, base, variant, keep=keep)
    return _viewer_headers(response, f'"{base}-{mode}"')


def viewer_poll(request: HttpRequest, signed: str, tv: bool, language: str) -> HttpResponse | None:
    """The answer to a poll as the viewer's page makes it, when it needs no drawing: a 304, or
    the sheet another viewer of the table drew. None when it must be drawn (and the request
    says so to the view), or for no such session or link: then the view answers it. For
    ``scoring.lei.middleware.ViewerPollMiddleware``."""
    try:
        pk = access.session_id_from_viewer_token(signed)
        response = _viewer_answer_undrawn(request, pk, _variant(language, tv), "live", keep=True)
    except Http404:
        return None
    request.viewer_poll_missed = response is None
    return response


def _viewer_answer_undrawn(
    request: HttpRequest, pk: int, variant: str, mode: str, *, keep: bool
) -> HttpResponse | None:
    """From the poll's one query: a 304, or the kept copy (if ``keep``); None: draw it."""
    asked = request.META.get("HTTP_IF_NONE_MATCH", "")
    seen = max(
        (
            int(v)
            for p, v, var, m in _ETAG.findall(asked)
            if (int(p), var, m) == (pk, variant, mode)
        ),
        default=-1,
    )
    found = hotsql.poll(pk, variant if keep else "", seen)
    if found is None:
        raise Http404("no such session")
    version, kept = found
    etag = f'"lei-{pk}-{version}-{variant}-{mode}"'
    if etag in asked:
        return _viewer_headers(HttpResponseNotModified(), etag)
    if kept is not None:
        # Another viewer of this table drew this version; it was compressed then, once.
        return _viewer_headers(compression.kept_answer(request, kept), etag)
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
    context = {"lei": lei, "session": session, "tv": tv, "live_etag": f'"{base}-live"'}
    if not request.htmx:
        return render(request, "scoring/lei/viewer.html", context)
    response = render(request, "scoring/lei/viewer.html#live", context)
    if not keep:
        return response
    # Compressed once, for every viewer of the table (scoring/lei/compression.py says why that is
    # safe here), and kept in one statement, whoever gets here first (INSERT ... ON CONFLICT).
    gzipped = compression.compress_once(response.content)
    hotsql.keep_sheet(session.pk, variant, session.version, gzipped)
    return compression.kept_answer(request, gzipped)
