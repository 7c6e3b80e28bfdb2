"""The Django admin for clubs: every queryset scoped to the clubs of the person looking.

Who sees what
-------------
- A superuser sees and changes everything, as in any Django admin.
- A **club admin** is an active staff user with a ``ClubMembership`` of role ``admin``: the role
  as ``scoring/access.py`` defines it (``access.admin_club_ids``), the same that organises the
  club's tournaments. They see and change only their own clubs' objects. They add members by
  invitation (a link the invited person takes up, signed in: ``ClubInvitation``), never by
  typing a username: a form that says whether a username exists tells who has an account on
  the site. Their rights come from
  that role, not from Django's per-user permission table: an admin of a club may view, add,
  change and delete what the ``has_*_permission`` methods below allow, without any
  ``auth.Permission`` rows. That keeps one source of truth (the membership) and makes "stop
  being admin of this club" one click.
- Any other staff user sees nothing of scoring.

How
---
``ClubScopedAdmin`` is the one place of the scoping. Each admin names its path to the club
(``club_path = "session__club"``) and the base class filters ``get_queryset`` by it. Everything
the admin does goes through that queryset: changelists, change/delete/history pages, actions,
autocomplete (the autocomplete view asks the target model's admin for its queryset) and raw id
lookups (the changelist of the target). Foreign-key choices are the target admin's scoped
queryset, and a page for an object outside the scope is a 404 (the same answer as for an object
that does not exist, so ids of other clubs cannot be probed).

Writes that change a score never happen here: sessions, rounds and their projection are changed
through ``scoring.lei.services`` (corrections, finishing, locking, scorer links, merging players),
which lock, version, replay with the engine and audit.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import TO_FIELD_VAR, IncorrectLookupParameters
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import writes
from scoring.access import admin_club_ids, admin_memberships_of
from scoring.clubs import services as club_services
from scoring.clubs.admin_forms import (
    ClubForm,
    ClubInvitationForm,
    ClubMembershipForm,
    MergeForm,
    PlayerForm,
    SeasonForm,
)
from scoring.http import ID
from scoring.lei import funnel
from scoring.lei.compression import no_compression
from scoring.models import (
    Club,
    ClubInvitation,
    ClubMembership,
    Player,
    Season,
)
from scoring.ratings.services import ratings_refresh
from scoring.svg import qr_svg


def scope(request: HttpRequest, queryset: QuerySet, club_path: str) -> QuerySet:
    """``queryset`` narrowed to the clubs of ``request.user``, following ``club_path``."""
    ids = admin_club_ids(request)
    if ids is None:
        return queryset
    if not ids:
        return queryset.none()
    return queryset.filter(**{f"{club_path}__in": ids})


def club_id_of(obj: Any, club_path: str) -> int | None:
    """The club id of ``obj`` by following ``club_path`` (``"pk"`` for a club itself)."""
    if club_path == "pk":
        return obj.pk
    *steps, last = club_path.split("__")
    for step in steps:
        obj = getattr(obj, step, None)
        if obj is None:
            return None
    return getattr(obj, f"{last}_id", None)


def service_error_message(error: writes.ServiceError) -> str:
    """A refusal of the services in the admin's language."""
    if isinstance(error, funnel.StaleVersion):
        return gettext("The sheet changed meanwhile (it is at version %(version)s): try again.") % {
            "version": error.version
        }
    if isinstance(error, funnel.SessionLocked):
        return gettext("The session is locked: unlock it to change it.")
    if isinstance(error, funnel.NotFinished):
        return gettext("Only a finished session can be locked.")
    if isinstance(error, funnel.ResultClosed) and error.reopen:
        return gettext(
            "The organiser closed this game's toernooi series: after this change the game would"
            " play on, so reopen the series first (on the toernooi's series page)."
        )
    if isinstance(error, funnel.KeyReused):
        return gettext(
            "This form was sent before with other contents, so nothing was saved: open the "
            "page again and make the change there."
        )
    return str(error)


# --- the scoping base classes ------------------------------------------------------------------


class ClubScopedPermissions:
    """Rights from the club membership (see the module docstring); one set of rules for
    model admins and inlines. ``read_only`` admins show, never write; ``deletable`` says whether
    club admins may delete (superusers follow Django's rules)."""

    club_path = "club"
    read_only = False
    addable = True
    deletable = True

    def _club_ok(self, request: HttpRequest, obj: Any) -> bool:
        ids = admin_club_ids(request)
        if ids is None:
            return True
        if not ids:
            return False
        return obj is None or club_id_of(obj, self.club_path) in ids

    def has_module_permission(self, request: HttpRequest) -> bool:
        return admin_club_ids(request) != frozenset()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._club_ok(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self.read_only and self._club_ok(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self.read_only and self.addable and self._club_ok(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.read_only or not self.deletable:
            return False
        return self._club_ok(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        """A choice of a related object is a choice among the scoped ones."""
        target = self.admin_site._registry.get(db_field.related_model)
        if isinstance(target, ClubScopedAdmin) and "queryset" not in kwargs:
            kwargs["queryset"] = target.get_queryset(request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class SelectionChecked:
    """An action's rows are the ids posted with it, and Django's admin filters by them as they
    are: an id that is none ("abc", 5,000 digits, more than a column holds) was a ValueError or
    an OverflowError there, a 500. Such a selection is refused with a message, as Django refuses
    an empty one, and nothing changes."""

    def response_action(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(ID.fullmatch(value) for value in selected):
            self.message_user(  # type: ignore[attr-defined]
                request,
                gettext("The selection holds something that is no id of a row: nothing changed."),
                messages.WARNING,
            )
            return None
        return super().response_action(request, queryset)  # type: ignore[misc]


class ClubScopedAdmin(SelectionChecked, ClubScopedPermissions, admin.ModelAdmin):
    """A model admin that shows only the objects of the clubs of the person looking.

    Set ``club_path`` to the lookup from the model to its club (``"club"``,
    ``"session__club"``, ``"round__session__club"``, ``"pk"`` for the club itself).
    """

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope(request, super().get_queryset(request), self.club_path)

    def get_changelist_instance(self, request: HttpRequest):
        # The date hierarchy reads ?at__year= into a date: a year of 30 digits is an
        # OverflowError in Django, answered as Django answers any bad filter (``?e=1``).
        try:
            return super().get_changelist_instance(request)
        except OverflowError as error:
            raise IncorrectLookupParameters(error) from error

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        fields = list(super().get_readonly_fields(request, obj))
        # Once made, an object stays in its club: moving it would take its history along.
        if obj is not None and self.club_path == "club" and "club" not in fields:
            fields.append("club")
        return fields

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A new object of an admin of one club is of that club: adding eighteen players is
        eighteen names, not eighteen times the same club chosen (a superuser with one club's
        membership too)."""
        initial = super().get_changeform_initial_data(request)
        if self.club_path == "club" and "club" not in initial:
            ids = admin_club_ids(request)
            if ids is None:
                ids = set(admin_memberships_of(request.user).values_list("club_id", flat=True))
            if len(ids) == 1:
                initial["club"] = next(iter(ids))
        return initial

    def object_or_404(self, request: HttpRequest, object_id: str) -> Any:
        """The object in scope, or 404: the same answer whether it is another club's or gone."""
        to_field = request.POST.get(TO_FIELD_VAR, request.GET.get(TO_FIELD_VAR))
        if to_field and not self.to_field_allowed(request, to_field):
            return None  # Django's own view refuses it (DisallowedModelAdminToField)
        obj = self.get_object(request, unquote(object_id), to_field)
        if obj is None:
            raise Http404(gettext("Not found."))
        return obj

    def change_view(self, request, object_id, form_url="", extra_context=None):
        self.object_or_404(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        self.object_or_404(request, object_id)
        return super().delete_view(request, object_id, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        self.object_or_404(request, object_id)
        return super().history_view(request, object_id, extra_context)


class ClubScopedInline(ClubScopedPermissions):
    """An inline of a club-scoped page: the parent decides the club, the rights are the same.

    Django asks an inline's permissions with the *parent* object, so the club is found from
    it by ``parent_club_path``; ``club_path`` scopes the inline's own rows.
    """

    parent_club_path = "club"

    def _club_ok(self, request: HttpRequest, obj: Any) -> bool:
        ids = admin_club_ids(request)
        if ids is None:
            return True
        return bool(ids) and (obj is None or club_id_of(obj, self.parent_club_path) in ids)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope(request, super().get_queryset(request), self.club_path)


class ReadOnlyTabularInline(ClubScopedInline, admin.TabularInline):
    read_only = True
    extra = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return self.fields or [f.name for f in self.model._meta.fields]


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
        # The secret link is on this page: not compressed (scoring/lei/compression.py, BREACH).
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
