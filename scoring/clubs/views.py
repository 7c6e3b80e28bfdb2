"""The page of a club's invitation (``/uitnodiging/<token>/``): whoever opens the link, signed in,
sees which club invites them and as what, and takes it up with one button
(``services.invitation_accept``); the admin made it in the club's admin
(scoring/clubs/admin.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from scoring import access
from scoring.clubs import services
from scoring.http import no_compression
from scoring.models import ClubInvitation

ACCEPTED = "ja"  # what the page's button sends: an empty POST takes nothing up


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.invitee)
def invitation_accept(request: HttpRequest, invitation: ClubInvitation) -> HttpResponse:
    user = request.user
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
    # page (toepen_site/middleware.py, BREACH).
    return no_compression(response)
