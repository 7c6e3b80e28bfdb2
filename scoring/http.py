"""What every room's views share about HTTP: the request as django-htmx hands it over, a row's
id read from a query string, the answer that only its own browser may keep, an answer sent
uncompressed because it carries a secret (BREACH), CSV that no spreadsheet runs as a formula,
and the pages of a form that could not be taken (logged out meanwhile, or a form older than the
last login)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request as the views get it, through django-htmx's middleware: ``request.htmx`` says
    whether htmx sent it (a tap or a poll wants a fragment, not the page)."""

    htmx: HtmxDetails


def private_response(response: HttpResponse) -> HttpResponse:
    # Members see full names: a shared cache must never hand their page to the public.
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ["Cookie"])
    return response


def no_compression(response: HttpResponseBase) -> HttpResponseBase:
    """Mark an answer that is sent as it is, not gzipped by ``toepen_site.middleware``'s
    ``GZipMiddleware`` (BREACH, explained there): one that carries a long-lived secret, or a
    stream of events."""
    response.no_compression = True
    return response


# A row's id as the URLs take one (scoring/urls.py's IdConverter): 1 to 18 ASCII digits.
ID = re.compile(r"[0-9]{1,18}")


def id_from(value: str | None) -> int | None:
    """The id in a query parameter such as ``?speler=12``, or None when it holds none.

    ``str.isdigit`` is no test: "²" is a digit that ``int`` refuses, and ``int`` reads no number
    of more than 4,300 digits (both were a 500).

    >>> id_from("12"), id_from("²"), id_from("9" * 5000)
    (12, None, None)
    """
    return int(value) if value and ID.fullmatch(value) else None


def page_before(request: HttpRequest) -> str | None:
    """The page of this site the posted form was on (its path and query, from the Referer),
    or None when the browser did not say or it is another site's.

    A form posts to an address that only takes POSTs (``/avonden/1/loten/``): after logging in
    again, the organiser goes back to the page the form was on, not to that address."""
    referer = request.headers.get("Referer", "")
    if not url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    parts = urlsplit(referer)
    page = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    # A path of "//elders.example/" would be read as another site's address.
    return page if url_has_allowed_host_and_scheme(page, allowed_hosts=set()) else None


def login_needed(request: HttpRequest, refusal: str) -> HttpResponse:
    """A form posted by someone whose login ran out: a page in the site's own dress that says
    why, that nothing was saved, and the way to log in and come back to the form's page (403;
    ``X-Login-Needed`` tells a script, the tablet's outbox in static/js/lei.js, whatever the
    language of the words)."""
    back = page_before(request)
    login_url = redirect_to_login(back or "/")["Location"]
    response = _refused(request, refusal=refusal, back=back, login_url=login_url)
    response["X-Login-Needed"] = "1"
    return response


def link_revoked(request: HttpRequest, refusal: str) -> HttpResponse:
    """A scorer link revoked or renewed since this browser opened it: the refusal in words,
    with no login to ask for (410: the link is gone for good; the tablet's outbox in
    static/js/lei.js shows these words)."""
    response = _refused(request, refusal=refusal, revoked=True, back=page_before(request))
    response.status_code = 410
    response["X-Link-Revoked"] = "1"
    return response


def not_allowed(request: HttpRequest, refusal: str) -> HttpResponse:
    """A page someone logged in may not use (a member at the organiser's "Clubavond
    beginnen"): the refusal in the site's own dress, with the way home (403)."""
    # A new language reopens this page; a form posted here goes back to the form's page.
    back = request.get_full_path() if request.method == "GET" else page_before(request)
    return _refused(request, refusal=refusal, signed_in=True, back=back)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a form older than the browser's last login (Django gives a login
    a new CSRF token; another tab logged in again) or whose cookie was cleared. Nothing was
    saved: the way on is the form's page afresh (403, as Django's own page, which the tablet's
    outbox takes as "fetch a new token and send again")."""
    return _refused(request, stale_form=True, back=page_before(request))


def _refused(request: HttpRequest, **context: object) -> HttpResponse:
    """``templates/scoring/refused.html`` with ``context``: 403, kept by no browser or proxy."""
    response = render(request, "scoring/refused.html", context, status=403)
    patch_cache_control(response, no_store=True)
    return response


# --- CSV that a spreadsheet opens safely ---------------------------------------------------------

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV
# injection"): a player named "=HYPERLINK(…)" must open as the text it is.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` as a CSV cell that no spreadsheet runs: text that could start a formula gets a
    leading single quote; numbers (ints and Decimals, a negative total too) stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


class _SafeCsvWriter:
    """``csv.writer`` whose every text cell goes through ``csv_cell``."""

    def __init__(self, response: HttpResponse) -> None:
        self._writer = csv.writer(response)

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([csv_cell(value) for value in row])


def csv_response(filename: str) -> tuple[HttpResponse, _SafeCsvWriter]:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return private_response(response), _SafeCsvWriter(response)
