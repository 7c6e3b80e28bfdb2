"""The Django admin for clubs and their people: clubs, memberships, invitations, players (merging
and renaming), seasons, and the site's accounts.

Every page is scoped to the clubs of the person looking (``scoring/admin_base.py`` says who sees
what, and how). A club admin adds members by invitation (a link the invited person takes up,
signed in: ``ClubInvitation``), never by typing a username: a form that says whether a username
exists tells who has an account on the site.

Writes that change a score never happen here: sessions, rounds and their projection are changed
through ``scoring.lei.services`` (corrections, finishing, locking, scorer links, merging players),
which lock, version, replay with the engine and audit.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.admin_base import ClubScopedAdmin, ClubScopedInline, SelectionChecked
from scoring.clubs import services as club_services
from scoring.clubs.admin_forms import (
    ClubForm,
    ClubInvitationForm,
    ClubMembershipForm,
    MergeForm,
    PlayerForm,
    SeasonForm,
)
from scoring.http import no_compression
from scoring.models import (
    Club,
    ClubInvitation,
    ClubMembership,
    Player,
    Season,
)
from scoring.ratings.services import ratings_refresh
from scoring.svg import qr_svg

# --- clubs and their people --------------------------------------------------------------------


class MembershipInline(ClubScopedInline, admin.TabularInline):
    model = ClubMembership
    form = ClubMembershipForm
    club_path = "club"
    parent_club_path = "pk"
    extra = 0
    fields = ["user", "role"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Each row shows its member's username and knows its club: joins, not a query per row.
        return super().get_queryset(request).select_related("user", "club")

    # A club admin changes a member's role or ends the membership; new members come by
    # invitation (ClubInvitationAdmin), never by a username typed here.
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return [] if request.user.is_superuser else ["user"]


@admin.register(Club)
class ClubAdmin(ClubScopedAdmin):
    form = ClubForm
    club_path = "pk"
    # A club admin keeps their club; making and removing clubs is for the site's superusers.
    addable = False
    deletable = False
    list_display = ["name", "slug", "preset", "standings_public", "players_count"]
    ordering = ["name"]  # explicit: a counted queryset drops the model's default order
    search_fields = ["name", "slug"]
    inlines = [MembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(players_count=Count("players"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return [] if request.user.is_superuser else ["slug", "created_at"]

    def save_model(self, request: HttpRequest, obj: Club, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and "agreement_rule" in form.changed_data:
            # Which games count is which games are rated: the ratings follow in this save.
            ratings_refresh(club_id=obj.pk)

    @admin.display(description=_("players"), ordering="players_count")
    def players_count(self, club: Club) -> int:
        return club.players_count


@admin.register(ClubMembership)
class ClubMembershipAdmin(ClubScopedAdmin):
    form = ClubMembershipForm
    list_display = ["user", "club", "role"]
    list_filter = ["role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["user__username", "club__name"]
    list_select_related = ["user", "club"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser  # a club admin invites (ClubInvitationAdmin)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        fields = super().get_readonly_fields(request, obj)
        return fields if request.user.is_superuser else [*fields, "user"]


@admin.register(ClubInvitation)
class ClubInvitationAdmin(ClubScopedAdmin):
    """An invitation's page shows its link and QR code to send the one invited; once taken up
    (or expired) it is a record of who joined, as what, invited by whom."""

    form = ClubInvitationForm
    list_display = ["__str__", "club", "role", "player", "state", "expires_at"]
    list_filter = ["role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["note", "player__name"]
    list_select_related = ["club", "player"]
    change_form_template = "admin/scoring/clubinvitation/change_form.html"
    FACTS = ["state", "created_by", "created_at", "accepted_by", "accepted_at"]

    def get_fields(self, request: HttpRequest, obj: Any = None):
        return ["club", "role", "player", "note", "expires_at", *(self.FACTS if obj else [])]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        if obj is not None and obj.accepted_at is not None:  # what happened, kept as it was
            return self.get_fields(request, obj)
        return [*super().get_readonly_fields(request, obj), *self.FACTS]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("created_by", "accepted_by")

    @admin.display(description=_("state"))
    def state(self, invitation: ClubInvitation) -> str:
        if invitation.accepted_at is not None:
            return gettext("accepted")
        return gettext("open") if invitation.is_open else gettext("expired")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None):
        """Made: on to its own page, where its link is."""
        self.message_user(
            request,
            gettext("The invitation is made: send its link below to the one you invite."),
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:scoring_clubinvitation_change", args=[obj.pk]))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        invitation = self.object_or_404(request, object_id)
        url = request.build_absolute_uri(reverse("invitation_accept", args=[invitation.token]))
        context = {
            **(extra_context or {}),
            "invitation_url": url,
            "invitation_qr": qr_svg(url, gettext("Invitation")),
            "invitation_open": invitation.is_open,
        }
        response = super().change_view(request, object_id, form_url, context)
        # The secret link is on this page: not compressed (toepen_site/middleware.py, BREACH).
        return no_compression(response)


@admin.register(Player)
class PlayerAdmin(ClubScopedAdmin):
    form = PlayerForm
    list_display = ["name", "club", "is_guest", "confirmed", "sessions_played", "user"]
    ordering = ["name", "pk"]
    list_filter = ["is_guest", "confirmed", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    list_select_related = ["club", "user"]
    actions = ["merge_players", "confirm_guests"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(sessions_played=Count("seats"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        # A club admin links a player to an account by invitation, not by a typed username.
        fields = super().get_readonly_fields(request, obj)
        return fields if request.user.is_superuser else [*fields, "user"]

    @admin.display(description=_("sessions played"), ordering="sessions_played")
    def sessions_played(self, player: Player) -> int:
        return player.sessions_played

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        """A session's events name its players, so a new name goes through the service that
        rewrites it there too; saving the field alone would cut the player off their games."""
        if change and "name" in form.changed_data:
            new_name = obj.name
            obj.name = form.initial["name"]
            club_services.player_rename(player=obj, name=new_name, actor=request.user)
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Confirm the selected guests"), permissions=["change"])
    def confirm_guests(self, request: HttpRequest, queryset: QuerySet) -> None:
        """Guests a scorer link added are not public until a member of the club confirms
        them (``club_services.guests_confirm``)."""
        count = club_services.guests_confirm(players=queryset, actor=request.user)
        self.message_user(
            request, gettext("Guests confirmed: %(count)s.") % {"count": count}, messages.SUCCESS
        )

    @admin.action(description=_("Merge two players into one"), permissions=["change"])
    def merge_players(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        """Two selected players of one club become one: a confirmation page asks who stays."""
        players = queryset.order_by("name")
        if len(players) != 2:
            self.message_user(
                request, gettext("Select exactly two players to merge."), messages.WARNING
            )
            return None
        form = MergeForm(request.POST if "keep" in request.POST else None, players=players)
        if form.is_valid():
            keep = form.cleaned_data["keep"]
            remove = next(p for p in players if p.pk != keep.pk)
            removed_name = remove.name
            try:
                club_services.player_merge(keep=keep, remove=remove, actor=request.user)
            except club_services.MergeRefused as error:
                self.message_user(request, str(error), messages.ERROR)
                return None
            self.log_change(request, keep, [{"merged": {"name": removed_name}}])
            self.message_user(
                request,
                gettext("%(remove)s is now %(keep)s: every session of both is kept.")
                % {"remove": removed_name, "keep": keep.name},
                messages.SUCCESS,
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Merge two players"),
            "opts": self.model._meta,
            "form": form,
            "players": players,
            "action_name": "merge_players",
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/scoring/player/merge_confirmation.html", context)


@admin.register(Season)
class SeasonAdmin(ClubScopedAdmin):
    form = SeasonForm
    list_display = ["name", "club", "starts_on", "ends_on", "sessions_count"]
    ordering = ["-starts_on", "pk"]
    list_filter = [("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    date_hierarchy = "starts_on"
    list_select_related = ["club"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(sessions_count=Count("sessions"))

    @admin.display(description=_("sessions"), ordering="sessions_count")
    def sessions_count(self, season: Season) -> int:
        return season.sessions_count


# The site's accounts keep Django's own admins, with the same check of an action's selection.
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class AccountAdmin(SelectionChecked, UserAdmin):
    pass


@admin.register(Group)
class AccountGroupAdmin(SelectionChecked, GroupAdmin):
    pass
