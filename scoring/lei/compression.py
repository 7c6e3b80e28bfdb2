"""gzip for the app's own answers, minding BREACH.

BREACH reads a secret out of compressed HTTPS responses by watching their length while it makes
the browser send guesses that are reflected in the same response. Django's ``GZipMiddleware``
blunts it with "Heal the Breach" (a random number of random bytes in every gzip header), and
Django's CSRF token is masked afresh in every response, so it gives nothing away. What is left
is a long-lived secret on a page that also reflects request input: the secret scorer link (and
its QR code) next to the language form's ``next`` (the request's path and query). The one answer
that carries it, the links "Deel" fetches on the tablet (``views.session_share``), is sent
uncompressed (``no_compression``); the tablet page itself carries no scorer link and is
compressed like every other answer, the tablet's HTMX fragments and the viewers' sheet included.

Static files are not seen here: whitenoise answers them before this middleware, precompressed
and with far-future caching (``toepen_site.staticfiles.MinifiedManifestStorage`` when DEBUG is
off). The push streams (``scoring/push/views.py``) are not compressed either: each event must
reach the page as it is written, not when a compressor's buffer fills.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware


def no_compression(response: HttpResponseBase) -> HttpResponseBase:
    """Mark an answer that is sent as it is: one that carries a long-lived secret, or a stream
    of events."""
    response.no_compression = True
    return response


class GZipMiddleware(DjangoGZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if getattr(response, "no_compression", False):
            return response
        return super().process_response(request, response)
