"""The viewers' poll, answered before most of the middleware when it needs no drawing.

Every phone and TV in the pub asks ``/kijk/<link>/`` every few seconds: on a Friday night
that is nearly all of the requests (BENCHMARKS.md, "Friday night at scale"). Nearly all of
those answers are a 304, or the sheet another viewer of the table drew, and they take one
query (``views.viewer_poll``). What the middleware below this one would do for them — the
session, the language's activation, CSRF, the user, messages, htmx's details, URL routing —
was half of the CPU of such a request, and none of it changes the answer.

So ``ViewerPollMiddleware`` sits after the middleware that checks or marks every answer
(``SecurityMiddleware``'s redirect and headers, ``X-Frame-Options``, the CSP) and answers the
poll as the page makes it itself. It adds what the skipped middleware would add to those two
answers: ``Content-Language`` (``LocaleMiddleware``) and ``Content-Length``
(``CommonMiddleware``). It checks the host as ``CommonMiddleware`` does and takes the language
as ``LocaleMiddleware`` does. Anything else — a first draw, an unknown link or session, another
method or query string, a request without ``HX-Request`` — goes on to the view as before.
``tests/test_viewer_poll_middleware.py`` sends the same requests both ways and compares the
answers, header by header.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import get_language_from_request

from scoring import views


class ViewerPollMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._path: re.Pattern[str] | None = None

    @property
    def path(self) -> re.Pattern[str]:
        """The viewer's URL as a pattern, from the URLconf (read once it is loaded)."""
        if self._path is None:
            prefix, _, suffix = reverse("viewer", args=["0"]).rpartition("0")
            self._path = re.compile(f"{re.escape(prefix)}([^/]+){re.escape(suffix)}")
        return self._path

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        tv = views.PAGE_POLL_QUERIES.get(meta.get("QUERY_STRING", ""))
        if (
            tv is not None
            and request.method == "GET"
            and meta.get("HTTP_HX_REQUEST") == "true"
            and (match := self.path.fullmatch(request.path))
        ):
            request.get_host()  # DisallowedHost (400) for a host not allowed, as everywhere
            language = get_language_from_request(request)
            response = views.viewer_poll(request, match[1], tv, language)
            if response is not None:
                response.headers.setdefault("Content-Language", language)
                response["Content-Length"] = str(len(response.content))
                return response
        return self.get_response(request)
