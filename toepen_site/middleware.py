"""For every app server behind the proxy: the tablet URLs' body limit, gzip minding BREACH, the
client's address and what django-axes counts a failed login by, and a lost database
connection answered as a moment's trouble (503), not a server error.

The Content-Security-Policy is django-csp's, configured in ``settings.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.functional import SimpleLazyObject, empty
from django.utils.translation import gettext

logger = logging.getLogger(__name__)


class TapBodyLimitMiddleware:
    """A 413 for a POST to a tablet URL whose body is larger than any tap, before anything reads
    the body: CSRF's check would parse it (a 10 MB multipart upload went to a temporary file)
    and every worker would pay for it. A tap is a few hundred bytes; a round's correction form
    is a row per event. Only the announced ``Content-Length`` is looked at: without one Django
    reads no body at all."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST":
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.TAP_BODY_LIMIT:
                limit = _tap_body_limit(request.path_info)
                if limit is not None and length > limit:
                    return _too_large(request, limit)
        return self.get_response(request)


def _tap_body_limit(path: str) -> int | None:
    """The body limit of the tablet URL ``path``; None for any other URL."""
    try:
        name = resolve(path).url_name
    except Resolver404:
        return None
    if name == "round_edit":
        return settings.ROUND_EDIT_BODY_LIMIT
    return settings.TAP_BODY_LIMIT if name in TAP_URLS else None


TAP_URLS = frozenset(
    ["session_event", "session_undo", "session_presence", "session_finish", "scorer_link_change"]
)


def _too_large(request: HttpRequest, limit: int) -> HttpResponse:
    # Before LocaleMiddleware: the language is taken here as it would take it.
    with translation.override(translation.get_language_from_request(request)):
        text = gettext("Dit verzoek is te groot: hoogstens %(limit)s bytes.") % {"limit": limit}
    response = HttpResponse(text, status=413, content_type="text/plain; charset=utf-8")
    response["Connection"] = "close"  # the rest of the body is not read
    return response


class NulCharacterMiddleware:
    """A 400 for a request with a NUL character (U+0000) in its path, its query string, a header
    (cookies included) or a form field, before any view reads it.

    PostgreSQL stores no NUL in text, so a NUL that reached a query was a server error wherever
    it did: a scorer link, the archive's table filter, the player search, the admin's filters
    and autocomplete, a session cookie, a failed login's browser name. No person types one and
    no browser sends one. One guard here keeps every view, filter and form that is added later
    safe too, where a check in each would be forgotten in the next; the forms' own NUL check
    (Django's ``ProhibitNullCharactersValidator``) stays for text that does not come over HTTP.

    After the body limit (``TapBodyLimitMiddleware``): a body too large is refused unread."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _holds_nul(request):
            return _nul_refused(request)
        return self.get_response(request)


def _holds_nul(request: HttpRequest) -> bool:
    meta = request.META
    # The query string as sent: "%00" is the only way to write a NUL in it, besides a NUL.
    query = meta.get("QUERY_STRING", "")
    if "\x00" in request.path_info or "%00" in query or "\x00" in query:
        return True
    if any("\x00" in value for key, value in meta.items() if key.startswith("HTTP_")):
        return True
    # A quoted cookie may write a NUL as the escape \000: look at the cookies as parsed.
    if any("\x00" in key or "\x00" in value for key, value in request.COOKIES.items()):
        return True
    if request.method == "POST" and request.content_type in FORM_TYPES:
        return any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.POST.lists()
        )
    return False


FORM_TYPES = frozenset(["application/x-www-form-urlencoded", "multipart/form-data"])


def _nul_refused(request: HttpRequest) -> HttpResponse:
    # Before LocaleMiddleware: the language is taken here as it would take it.
    with translation.override(translation.get_language_from_request(request)):
        text = gettext(
            "Dit verzoek bevat een NUL-teken (U+0000); dat hoort in geen adres, formulier of "
            "cookie. Er is niets gewijzigd."
        )
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


class HtmxVaryMiddleware:
    """``Vary: HX-Request`` on every answer to a GET: one address answers htmx with a part and a
    plain request with the whole page (the tablet, the viewers, the archive), and a browser's
    cache keeps one answer an address. Without it, Back then Forward on the tablet showed the
    round panel the last tap had fetched as if it were the page: bare, unstyled, stale."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method in ("GET", "HEAD"):
            patch_vary_headers(response, ["HX-Request"])
        return response


class PrivatePagesMiddleware:
    """``Cache-Control: private`` on every answer that looked at who is asking and found a
    member: such a page may show them more than a stranger (full names, their clubs), and a
    shared cache must never hand it to someone else. An answer that never looked at the user
    (the lazy ``request.user`` untouched) is the same for everyone and keeps its own headers,
    and this costs no query. An answer that is ``no-store`` already is left as it is."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if _a_member_asked(request):
            control = response.get("Cache-Control", "")
            if "no-store" not in control and "private" not in control:
                patch_cache_control(response, private=True)
            patch_vary_headers(response, ["Cookie"])
        return response


def _a_member_asked(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is None:
        return False
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return False  # nothing in this answer depended on who asked
    return bool(user.is_authenticated)


def client_ip(request: HttpRequest) -> str | None:
    """The client's address for the login rate limit (django-axes' ``AXES_CLIENT_IP_CALLABLE``).

    Behind ``TRUSTED_PROXY_COUNT`` proxies (the setting, from the environment) the address is
    the one the outermost trusted proxy saw: counted from the right of ``X-Forwarded-For``,
    because everything to its left was written by the client and may be forged. With no
    trusted proxy it is ``REMOTE_ADDR``. Example, one proxy: ``X-Forwarded-For: 6.6.6.6,
    203.0.113.9`` gives ``203.0.113.9`` (the forged ``6.6.6.6`` is ignored).
    """
    count = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if count > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= count:
            return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def login_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username django-axes records a failed login under (``AXES_USERNAME_CALLABLE``).

    As typed, but cut to 150 characters, the longest username there is, and without NUL
    characters: Django's login form lets any length through to ``authenticate``, and axes'
    column holds 255, so a longer name was a server error on PostgreSQL (which also refuses a
    NUL in text). Names that agree in their first 150 characters share one count.
    """
    source = credentials if credentials else request.POST
    name = source.get(settings.AXES_USERNAME_FORM_FIELD)
    if not isinstance(name, str):
        return None
    return name.replace("\x00", "")[:150]


# --- gzip for the app's own answers, minding BREACH ---------------------------------------------
#
# BREACH reads a secret out of compressed HTTPS responses by watching their length while it makes
# the browser send guesses that are reflected in the same response. Django's ``GZipMiddleware``
# blunts it with "Heal the Breach" (a random number of random bytes in every gzip header), and
# Django's CSRF token is masked afresh in every response, so it gives nothing away. What is left
# is a long-lived secret on a page that also reflects request input: the secret scorer link (and
# its QR code) next to the language form's ``next`` (the request's path and query). The answers
# that carry one are sent uncompressed (``scoring.http.no_compression``): the links "Deel" fetches
# on the tablet (``scoring.lei.views.session_share``), a club invitation's page and link
# (``scoring/clubs/``), the toernooi's printed table cards; the tablet page itself carries no
# scorer link and is compressed like every other answer, the tablet's HTMX fragments and the
# viewers' sheet included.
#
# Static files are not seen here: whitenoise answers them before this middleware, precompressed
# and with far-future caching (``toepen_site.staticfiles.MinifiedManifestStorage`` when DEBUG is
# off). The push streams (``scoring/push/views.py``) are not compressed either: each event must
# reach the page as it is written, not when a compressor's buffer fills.


class GZipMiddleware(DjangoGZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        # Marked by scoring.http.no_compression.
        if getattr(response, "no_compression", False):
            return response
        return super().process_response(request, response)


class DatabaseGoneMiddleware:
    """A 503 with ``Retry-After`` in the person's language for a request whose database
    connection was lost mid-way (PostgreSQL restarted or failed over, the connection ended by
    the server): django.db's ``OperationalError`` or ``InterfaceError``, not a 500.

    What a write does it does inside a transaction, so a lost connection stored nothing or the
    whole write: the same request again is safe, and the tablet's outbox (static/js/lei.js)
    sends a tap again on any 5xx with its key, which stores it once. Django replaces the broken
    connection when the request ends (``CONN_HEALTH_CHECKS``), so the retry finds a new one.
    Other errors stay 500s: a bug must not look like a moment's trouble."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning(
            "database connection lost: %s %s", request.method, request.path, exc_info=True
        )
        text = gettext(
            "De verbinding met de database viel even weg. Er is niets dubbel opgeslagen:"
            " probeer het over een paar seconden nog eens (de tablet doet dat zelf)."
        )
        response = HttpResponse(text, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(DATABASE_RETRY_SECONDS)
        patch_cache_control(response, no_store=True)
        return response


DATABASE_RETRY_SECONDS = 2  # a restart or failover takes a few seconds
