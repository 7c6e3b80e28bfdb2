"""The page of a club's invitation (``/uitnodiging/<token>/``): whoever opens the link, signed in,
sees which club invites them and as what, and takes it up with one button
(``services.invitation_accept``); the admin made it in the club's admin
(scoring/clubs/admin.py)."""

from __future__ import annotations

import re
import secrets

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from scoring.clubs import services
from scoring.lei.compression import no_compression
from scoring.models import ClubInvitation

# What a token can be (``new_invitation_token``: URL-safe base64); anything else is no
# invitation, and never reaches the database (a NUL byte there is an error on PostgreSQL).
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
ACCEPTED = "ja"  # what the page's button sends: an empty POST takes nothing up


def _invitation(token: str) -> ClubInvitation:
    found = None
    if TOKEN.fullmatch(token):
        found = ClubInvitation.objects.select_related("club", "player").filter(token=token).first()
    # The lookup is by an indexed equality; compare_digest guards the final comparison too.
    if found is None or not secrets.compare_digest(found.token, token):
        raise Http404("no such invitation")
    return found


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, token: str) -> HttpResponse:
    invitation = _invitation(token)
    user = request.user
    if not user.is_authenticated:
        if request.method == "POST":
            return HttpResponseForbidden(gettext("Log eerst in om de uitnodiging aan te nemen."))
        return redirect_to_login(request.get_full_path())
    if request.method == "POST" and request.POST.get("confirm") == ACCEPTED:
        try:
            services.invitation_accept(invitation=invitation, user=user)
        except services.InvitationClosed:
            invitation.refresh_from_db()
        else:
            messages.success(
                request,
                gettext("Welkom bij %(club)s: je bent nu lid.") % {"club": invitation.club.name},
            )
            return redirect("league_club", slug=invitation.club.slug)
    mine = invitation.accepted_by_id is not None and invitation.accepted_by_id == user.pk
    closed = not invitation.is_open and not mine
    context = {"invitation": invitation, "mine": mine, "closed": closed}
    response = render(
        request, "scoring/clubs/invitation.html", context, status=410 if closed else 200
    )
    # The secret link is on this page (the form's address): not compressed, as the tablet's
    # page (scoring/lei/compression.py, BREACH).
    return no_compression(response)
