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
and with far-future caching (``CompressedManifestStaticFilesStorage`` when DEBUG is off).

The viewers' sheet is compressed once per version, when the first poll of a table draws it,
and kept (``RenderedSheet``); the table's other viewers are sent those bytes (``kept_answer``):
without it the Friday-night mix costs 80 % more CPU a request (BENCHMARKS.md, "Ablation"). It
carries no secret and reflects nothing a request sends, so BREACH has nothing to read there.
"""

from __future__ import annotations

import gzip

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.middleware.gzip import re_accepts_gzip
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string


def no_compression(response: HttpResponseBase) -> HttpResponseBase:
    """Mark an answer that carries a long-lived secret: it is sent as it is."""
    response.no_compression = True
    return response


class GZipMiddleware(DjangoGZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if getattr(response, "no_compression", False):
            return response
        return super().process_response(request, response)


def compress_once(content: bytes) -> bytes:
    """gzip an answer that is kept and sent to many as it is. Only for one without a secret."""
    return compress_string(content)


def kept_answer(request: HttpRequest, gzipped: bytes) -> HttpResponse:
    """The answer with a body that was compressed once (``compress_once``): those bytes, or,
    for a client that does not take gzip, the text they hold."""
    if re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        response = HttpResponse(gzipped)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(gzipped))
    patch_vary_headers(response, ("Accept-Encoding",))
    return response
