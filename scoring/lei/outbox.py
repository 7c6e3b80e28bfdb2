"""Whose taps the tablet's outbox (static/js/lei.js) keeps and sends.

A browser may be handed from one person to another with taps still waiting (a tablet passed to
another club member, a sign-in as someone else). The outbox keeps each tap with the opaque id of
the person whose page took it (``person_id``, in the tablet page), and sends it with that id in
``X-Lei-Person``; a tap view answers a tap of another person than the one now signed in with a
403 (``X-Lei-Other-Person``) and records nothing; the page then drops that person's kept pages
and, drawn again for the one signed in now, names the taps still waiting and whose they are,
with the way for that person to send them (log in here again). So one person's taps are never
sent in another's name, whatever the page in front of them still shows.

Signing out on purpose (the site's logout or the admin's) ends that person's waiting taps too:
the answer to it carries a cookie naming them (``SIGNED_OUT``, read by static/js/lei.js), and
the next tablet page, or one left open, drops their taps and kept lei and says how many. A
login that only ended (expired, its cookie gone) leaves no such mark: its taps wait for the
same person to log in again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext

HEADER = "X-Lei-Person"
SIGNED_OUT = "lei-signed-out"  # the people who signed out here on purpose, "."-separated


def person_id(user) -> str:
    """An opaque id per account (no name in clear, the same on every visit); "anon" for a tablet
    that holds a scorer link without an account."""
    if not user.is_authenticated:
        return "anon"
    return salted_hmac("scoring.lei.outbox-person", str(user.pk)).hexdigest()[:20]


def same_person(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A tap view (after ``access.requires``): refuses a tap the outbox kept for someone else.
    A request without the header (htmx, a browser without JavaScript) is not the outbox's."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        sent = request.headers.get(HEADER)
        if sent is not None and not constant_time_compare(sent, person_id(request.user)):
            refused = HttpResponseForbidden(
                gettext("Niet verstuurd: deze tik is van iemand anders op deze browser.")
            )
            refused["X-Lei-Other-Person"] = "1"
            return refused
        return view(request, *args, **kwargs)

    return wrapped


@receiver(user_logged_out)
def _note_signed_out(sender, request: HttpRequest | None, user, **kwargs: Any) -> None:
    if request is not None and user is not None:
        request.lei_signed_out = person_id(user)


def signed_out_mark(get_response: Callable[[HttpRequest], HttpResponse]):
    """Middleware: the answer to a sign-out (any logout view: Django's signal says which) names
    the person in ``SIGNED_OUT``, readable by the tablet's script; every other request passes
    untouched, without reading the session."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        person = getattr(request, "lei_signed_out", None)
        if person:
            earlier = request.COOKIES.get(SIGNED_OUT, "").split(".")
            others = [p for p in earlier if p and p != person][-4:]
            response.set_cookie(
                SIGNED_OUT,
                ".".join([*others, person]),
                max_age=60 * 60 * 24 * 30,
                secure=settings.SESSION_COOKIE_SECURE,
                samesite="Lax",
            )
        return response

    return middleware
