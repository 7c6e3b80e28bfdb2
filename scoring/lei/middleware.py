"""The viewers' poll answered before the session, locale, CSRF, auth and URL middleware when it
needs no drawing: a 304, or the sheet another viewer of the table kept
(``viewer_views.viewer_poll``).

Polls are 19 of 20 requests on a Friday night; without this the load cost 12-14 % more CPU a
request (BENCHMARKS.md, "Ablation"). It answers the anonymous only: a request with a login's
cookie may be a club member's, who sees every name in full (``viewer_views``), and that needs
the session and auth middleware. It adds what the skipped middleware would add to those
answers (``Content-Language``, ``Content-Length``) and checks the host as they do;
``tests/lei/test_viewer_poll_middleware.py`` compares its answers with the view's, header by header.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import get_language_from_request

from scoring.lei import viewer_views


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
        tv = viewer_views.PAGE_POLL_QUERIES.get(meta.get("QUERY_STRING", ""))
        if (
            tv is not None
            and request.method == "GET"
            and meta.get("HTTP_HX_REQUEST") == "true"
            and settings.SESSION_COOKIE_NAME not in request.COOKIES
            and (match := self.path.fullmatch(request.path))
        ):
            request.get_host()  # DisallowedHost (400) for a host not allowed, as everywhere
            language = get_language_from_request(request)
            response = viewer_views.viewer_poll(request, match[1], tv, language)
            if response is not None:
                response.headers.setdefault("Content-Language", language)
                response["Content-Length"] = str(len(response.content))
                return response
        return self.get_response(request)
