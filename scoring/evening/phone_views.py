"""The check-in page a player's own phone opens from the evening's QR: no account, no list of
the club's names. The player types part of their name (``selectors.search``: at least three
letters, a few matches, initials for who asked for them) and taps it; someone new adds
themselves as a guest for the organiser to confirm. The phone is known by a cookie of its own,
so one phone checks in at most ``services.PHONE_LIMIT`` people an evening."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from scoring import access
from scoring.evening import flood, selectors, services
from scoring.writes import ServiceError

PHONE_COOKIE = "lei_telefoon"
PHONE_SALT = "scoring.evening.phone"
PHONE_DAYS = 365


def phone_of(request: HttpRequest) -> tuple[str, bool]:
    """This phone's id, and whether it is new (to be set as a cookie)."""
    phone = request.get_signed_cookie(PHONE_COOKIE, default="", salt=PHONE_SALT)
    if phone and len(phone) <= 40:
        return phone, False
    return secrets.token_urlsafe(12), True


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.checkin_phone)
def checkin_phone(request: HttpRequest, desk: access.CheckinDesk) -> HttpResponse:
    evening = desk.evening
    if evening is None:
        response = render(request, "scoring/evening/phone_closed.html", status=410)
        patch_cache_control(response, no_store=True)
        return response
    phone, new = phone_of(request)
    status = retry_after = 0
    question = None  # "Bedoel je Kees Bakker?" before a second player is made for one person
    if request.method == "POST":
        try:
            if "guest" in request.POST:
                entry = services.checkin_guest(
                    evening=evening,
                    token=desk.token,
                    name=request.POST["guest"],
                    phone=phone,
                    source=flood.address_key(request),
                    sure=request.POST.get("zeker") == "1",
                )
                done = gettext("Welkom, %(name)s! De organisator bevestigt je aanmelding zo.") % {
                    "name": entry.player.name
                }
            else:
                entry = services.checkin_by_phone(
                    evening=evening,
                    token=desk.token,
                    player_id=request.POST.get("player", ""),
                    phone=phone,
                )
                done = gettext("%(name)s is aangemeld. Veel plezier!") % {
                    "name": entry.player.public_name()
                }
        except flood.GuestFlood as error:
            # The page again, not a redirect: the 429 and its wait are what a script reads.
            messages.error(request, str(error))
            status = 429
            retry_after = error.seconds
        except services.NameLooksLike as like:
            question = {"typed": like.typed, "players": like.players}
        except ServiceError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, done)
    if request.method == "POST" and not status and question is None:
        response = redirect(request.path)
    else:
        typed = request.GET.get("naam", "")[:80]
        found, note = selectors.search(evening, typed) if typed else ([], "")
        mine = selectors.by_phone(evening, phone)
        response = render(
            request,
            "scoring/evening/phone.html",
            {
                "evening": evening,
                "typed": typed,
                "found": found,
                "note": note,
                "mine": mine,
                "left": max(services.PHONE_LIMIT - len(mine), 0),
                "search_min": selectors.SEARCH_MIN,
                "question": question,
            },
            status=status or 200,
        )
        if status:
            response["Retry-After"] = str(retry_after)
    if new:
        response.set_signed_cookie(
            PHONE_COOKIE,
            phone,
            salt=PHONE_SALT,
            max_age=PHONE_DAYS * 24 * 3600,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    patch_cache_control(response, no_store=True, private=True)
    return response
