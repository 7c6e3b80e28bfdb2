"""What every room's views share about HTTP: the request as django-htmx hands it over, a row's
id read from a query string, and the answer that only its own browser may keep."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
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
