"""What every room's views share about HTTP: the request as django-htmx hands it over, and the
answer that only its own browser may keep."""

from __future__ import annotations

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
