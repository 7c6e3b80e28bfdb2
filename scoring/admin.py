"""The Django admin for clubs: every queryset scoped to the clubs of the person looking.

Who sees what
-------------
- A superuser sees and changes everything, as in any Django admin.
- A **club admin** is an active staff user with a ``ClubMembership`` of role ``admin``. They see
  and change only their own clubs' objects. Their rights come from that role, not from Django's
  per-user permission table: an admin of a club may view, add, change and delete what the
  ``has_*_permission`` methods below allow, without any ``auth.Permission`` rows. That keeps one
  source of truth (the membership) and makes "stop being admin of this club" one click.
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
through ``scoring.services`` (corrections, finishing, locking, scorer links, merging players),
which lock, version, replay with the engine and audit.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import TO_FIELD_VAR
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import services, tournaments
from scoring.engine import Refusal
from scoring.forms_admin import (
    ClubForm,
    ClubMembershipForm,
    EventForm,
    EventFormSet,
    MergeForm,
    PlayerForm,
    PresenceForm,
    SeasonForm,
    SessionForm,
    refusal_message,
)
from scoring.models import (
    AuditEntry,
    Club,
    ClubMembership,
    IdempotencyKey,
    Player,
    Round,
    RoundScore,
    Season,
    Seat,
    Series,
    Session,
    SessionResult,
    Tournament,
    TournamentEntry,
    TournamentTable,
)

# --- who administers which clubs ---------------------------------------------------------------


def admin_club_ids(request: HttpRequest) -> frozenset[int] | None:
    """The ids of the clubs this user administers; ``None`` for a superuser (all clubs).

    Asked once per request and remembered on it: every admin on a page asks again.
    """
    user = request.user
    if not (user.is_active and user.is_staff):
        return frozenset()
    if user.is_superuser:
        return None
    cached = getattr(request, "_scoring_admin_club_ids", None)
    if cached is None:
        cached = frozenset(
            ClubMembership.objects.filter(user=user, role=ClubMembership.Role.ADMIN).values_list(
                "club_id", flat=True
            )
        )
        request._scoring_admin_club_ids = cached
    return cached


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


def service_error_message(error: services.ServiceError) -> str:
    """A refusal of the services in the admin's language."""
    if isinstance(error, services.StaleVersion):
        return gettext("The sheet changed meanwhile (it is at version %(version)s): try again.") % {
            "version": error.version
        }
    if isinstance(error, services.SessionLocked):
        return gettext("The session is locked: unlock it to change it.")
    if isinstance(error, services.NotFinished):
        return gettext("Only a finished session can be locked.")
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


class ClubScopedAdmin(ClubScopedPermissions, admin.ModelAdmin):
    """A model admin that shows only the objects of the clubs of the person looking.

    Set ``club_path`` to the lookup from the model to its club (``"club"``,
    ``"session__club"``, ``"round__session__club"``, ``"pk"`` for the club itself).
    """

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope(request, super().get_queryset(request), self.club_path)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        fields = list(super().get_readonly_fields(request, obj))
        # Once made, an object stays in its club: moving it would take its history along.
        if obj is not None and self.club_path == "club" and "club" not in fields:
            fields.append("club")
        return fields

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


@admin.register(Player)
class PlayerAdmin(ClubScopedAdmin):
    form = PlayerForm
    list_display = ["name", "club", "is_guest", "sessions_played", "user"]
    ordering = ["name", "pk"]
    list_filter = ["is_guest", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    list_select_related = ["club", "user"]
    actions = ["merge_players"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(sessions_played=Count("seats"))

    @admin.display(description=_("sessions played"), ordering="sessions_played")
    def sessions_played(self, player: Player) -> int:
        return player.sessions_played

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        """A session's events name its players, so a new name goes through the service that
        rewrites it there too; saving the field alone would cut the player off their games."""
        if change and "name" in form.changed_data:
            new_name = obj.name
            obj.name = form.initial["name"]
            services.player_rename(player=obj, name=new_name, actor=request.user)
        super().save_model(request, obj, form, change)

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
                services.player_merge(keep=keep, remove=remove, actor=request.user)
            except services.MergeRefused as error:
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


# --- sessions ----------------------------------------------------------------------------------


class SeatInline(ReadOnlyTabularInline):
    model = Seat
    club_path = "session__club"
    fields = ["position", "player", "side"]


class RoundInline(ReadOnlyTabularInline):
    model = Round
    club_path = "session__club"
    fields = ["number", "summary", "correct_link"]

    @admin.display(description=_("what happened"))
    def summary(self, round_: Round) -> str:
        return round_summary(round_)

    @admin.display(description=_("correct"))
    def correct_link(self, round_: Round) -> str:
        url = reverse("admin:scoring_round_change", args=[round_.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("Correct this round"))


class SessionResultInline(ReadOnlyTabularInline):
    model = SessionResult
    club_path = "session__club"
    fields = ["place", "player", "side", "total", "rounds_played", "rounds_won", "toepkoning"]


def round_summary(round_: Round) -> str:
    parts = [f"{event.get('type')} {event.get('player', '')}".strip() for event in round_.events]
    return ", ".join(parts) or "—"


class WinnerFilter(admin.SimpleListFilter):
    title = _("winner")
    parameter_name = "winner"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin):
        winners = scope(request, Player.objects.filter(results__toepkoning=True).distinct(), "club")
        return [(str(p.pk), p.name) for p in winners.order_by("name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(results__toepkoning=True, results__player_id=self.value())
        return queryset


@admin.register(Session)
class SessionAdmin(ClubScopedAdmin):
    """Sessions start at the table (``session_start``) or from a file (``import_session``); the
    admin changes only what does not score and runs the session's services as actions."""

    form = SessionForm
    addable = False
    autocomplete_fields = ["season"]
    date_hierarchy = "played_on"
    list_display = ["played_on", "table_label", "club", "status", "season", "winner", "version"]
    list_filter = [
        "status",
        ("season", admin.RelatedOnlyFieldListFilter),
        WinnerFilter,
        "game",
        ("club", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["table_label", "seats__player__name"]
    list_select_related = ["club", "season"]
    readonly_fields = [
        "club",
        "game",
        "preset",
        "rules",
        "first_dealer",
        "teams",
        "start",
        "ended",
        "status",
        "version",
        "scorer_link",
        "created_at",
        "updated_at",
        "audit_link",
    ]
    inlines = [SeatInline, RoundInline, SessionResultInline]
    actions = [
        "finish_sessions",
        "lock_sessions",
        "unlock_sessions",
        "rotate_scorer_tokens",
        "revoke_scorer_tokens",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        winner = SessionResult.objects.filter(session=OuterRef("pk"), toepkoning=True).values(
            name=Coalesce("player__name", "side")
        )[:1]
        return super().get_queryset(request).annotate(winner_name=Subquery(winner))

    def save_model(self, request: HttpRequest, obj: Session, form: Any, change: bool) -> None:
        """Write only what the form changed (season, table, date), and stamp ``updated_at``.

        A whole-row save would also write back the version and status read when the form was
        posted, over a tablet's write that came in meanwhile. The stamp is one of the things
        the key of the kept standings reads (``scoring.standings_cache``), besides the season
        and the date themselves."""
        if form.changed_data:
            obj.updated_at = timezone.now()
            obj.save(update_fields=[*form.changed_data, "updated_at"])

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A locked session is the club's record: unlock it first to throw it away.
        if obj is not None and obj.is_locked:
            return False
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        """A session goes with its whole log: seats, rounds, their scores, its results, its
        keys. Those rows have no delete of their own in the admin (a round is corrected,
        never cut out; the rest is the projection), so Django would count them as "needing
        permission" and refuse every played session. The permission that counts is the one
        checked above, on each session itself (a locked one stays refused, in the bulk action
        too). Its audit entries stay, without the session."""
        deleted, counts, needed, protected = super().get_deleted_objects(objs, request)
        log = {
            m._meta.verbose_name for m in (Seat, Round, RoundScore, SessionResult, IdempotencyKey)
        }
        return deleted, counts, needed - log, protected

    @admin.display(description=_("winner"), ordering="winner_name")
    def winner(self, session: Session) -> str:
        return session.winner_name or "—"

    @admin.display(description=_("scorer link"))
    def scorer_link(self, session: Session) -> str:
        if not session.scorer_token:
            return gettext("revoked")
        return gettext("active (ends in …%(tail)s)") % {"tail": session.scorer_token[-4:]}

    @admin.display(description=_("audit log"))
    def audit_link(self, session: Session) -> str:
        url = reverse("admin:scoring_auditentry_changelist")
        return format_html(
            '<a href="{}?session__id__exact={}">{}</a>',
            url,
            session.pk,
            gettext("Everything written to this session"),
        )

    def _each(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        write: Any,
        done: str,
    ) -> None:
        """Run one service on each selected session; refusals are reported per session."""
        count = 0
        for session in queryset.order_by("pk"):
            try:
                write(session)
            except Refusal as refusal:
                self.message_user(request, f"{session}: {refusal_message(refusal)}", messages.ERROR)
            except services.ServiceError as error:
                self.message_user(
                    request, f"{session}: {service_error_message(error)}", messages.ERROR
                )
            else:
                count += 1
        if count:
            self.message_user(request, done % {"count": count}, messages.SUCCESS)

    @admin.action(description=_("Finish the selected sessions"), permissions=["change"])
    def finish_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_finish(session=s, actor=request.user),
            gettext("Sessions finished: %(count)s."),
        )

    @admin.action(description=_("Lock the selected sessions"), permissions=["change"])
    def lock_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_lock(session=s, actor=request.user),
            gettext("Sessions locked: %(count)s."),
        )

    @admin.action(description=_("Unlock the selected sessions"), permissions=["change"])
    def unlock_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_unlock(session=s, actor=request.user),
            gettext("Sessions unlocked: %(count)s."),
        )

    @admin.action(description=_("Renew the scorer link"), permissions=["change"])
    def rotate_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_rotate_token(session=s, actor=request.user),
            gettext("Scorer links renewed: %(count)s. The old links no longer work."),
        )

    @admin.action(description=_("Revoke the scorer link"), permissions=["change"])
    def revoke_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_revoke_token(session=s, actor=request.user),
            gettext("Scorer links revoked: %(count)s."),
        )


# --- rounds: corrected through the engine ------------------------------------------------------


@admin.register(Round)
class RoundAdmin(ClubScopedAdmin):
    """A round's page is its correction form: rows of events, then ``round_replace_events``."""

    club_path = "session__club"
    addable = False  # rounds are played at the table
    deletable = False  # a round is corrected, never cut out of the log
    list_display = ["__str__", "number", "summary"]
    list_filter = [("session__club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["session__table_label"]
    list_select_related = ["session__club"]

    @admin.display(description=_("what happened"))
    def summary(self, round_: Round) -> str:
        return round_summary(round_)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        round_ = self.object_or_404(request, object_id)
        if not self.has_view_permission(request, round_):
            raise PermissionDenied
        session = round_.session
        can_change = self.has_change_permission(request, round_) and session.game != "pot"
        players = [
            s.player.name for s in session.seats.select_related("player").order_by("position")
        ]
        initial_events = [EventForm.initial_from(e) for e in round_.events]
        for i, initial in enumerate(initial_events, start=1):
            initial["ORDER"] = i
        presence_initial = PresenceForm.initial_from(
            absent=round_.absent, join=round_.join, players=players, version=session.version
        )
        if request.method == "POST":
            if not can_change:
                raise PermissionDenied
            # No initial here: a posted row that happens to equal the row shown at its place is
            # still a row (with initial, Django would drop it from an added row as "unchanged").
            formset = EventFormSet(request.POST, prefix="events", form_kwargs={"players": players})
            presence = PresenceForm(request.POST, initial=presence_initial, players=players)
            if formset.is_valid() and presence.is_valid():
                try:
                    services.round_replace_events(
                        session=session,
                        number=round_.number,
                        events=formset.events(),
                        absent=presence.absent(),
                        join=presence.joining(),
                        version=presence.cleaned_data["version"],
                        key=presence.cleaned_data["key"],
                        actor=request.user,
                    )
                except Refusal as refusal:
                    self.message_user(request, refusal_message(refusal), messages.ERROR)
                except services.StaleVersion as error:
                    self.message_user(request, service_error_message(error), messages.ERROR)
                    return HttpResponseRedirect(request.path)
                except services.ServiceError as error:
                    self.message_user(request, service_error_message(error), messages.ERROR)
                else:
                    self.log_change(request, round_, gettext("Corrected the round's events."))
                    self.message_user(
                        request,
                        gettext("Round %(number)s is corrected; the session is scored again.")
                        % {"number": round_.number},
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:scoring_session_change", args=[session.pk])
                    )
        else:
            formset = EventFormSet(
                initial=initial_events, prefix="events", form_kwargs={"players": players}
            )
            presence = PresenceForm(initial=presence_initial, players=players)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Correct round %(number)s") % {"number": round_.number},
            "subtitle": str(session),
            "opts": self.model._meta,
            "original": round_,
            "session": session,
            "formset": formset,
            "presence": presence,
            "can_change": can_change,
            "is_pot": session.game == "pot",
            "has_view_permission": True,
            "has_change_permission": can_change,
            "media": self.media + formset.media,
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/scoring/round/correct.html", context)


# --- the projection and the trail: read-only ---------------------------------------------------


@admin.register(RoundScore)
class RoundScoreAdmin(ClubScopedAdmin):
    club_path = "round__session__club"
    read_only = True
    list_display = ["round", "player", "side", "points", "stake", "won", "folded", "total"]
    list_filter = ["won", "folded", "eliminated"]
    search_fields = ["player__name", "side"]
    list_select_related = ["round__session__club", "player"]


@admin.register(SessionResult)
class SessionResultAdmin(ClubScopedAdmin):
    club_path = "session__club"
    read_only = True
    list_display = ["session", "place", "player", "side", "total", "rounds_won", "toepkoning"]
    list_filter = ["toepkoning", ("session__season", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__name", "side"]
    list_select_related = ["session__club", "player"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ClubScopedAdmin):
    read_only = True
    list_display = ["at", "action", "session", "round_number", "user", "by_scorer_token", "club"]
    list_filter = [
        "action",
        ("session", admin.RelatedOnlyFieldListFilter),
        ("user", admin.RelatedOnlyFieldListFilter),
        "by_scorer_token",
        ("club", admin.RelatedOnlyFieldListFilter),
    ]
    date_hierarchy = "at"
    search_fields = ["user__username", "session__table_label"]
    list_select_related = ["session__club", "user", "club"]


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ClubScopedAdmin):
    club_path = "session__club"
    read_only = True
    list_display = ["key", "session", "created_at"]
    search_fields = ["key"]
    list_select_related = ["session__club"]


# --- toernooien: made and run on the organiser's screens, looked after here --------------------


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = ["name", "date", "season", "table_points", "final_table"]

    def clean_table_points(self) -> list[int]:
        try:
            return tournaments._checked_points(self.cleaned_data["table_points"])
        except tournaments.TournamentError as error:
            raise forms.ValidationError(str(error)) from error

    def clean_season(self) -> Season | None:
        season = self.cleaned_data.get("season")
        if season is not None and season.club_id != self.instance.club_id:
            raise forms.ValidationError(gettext("Dat seizoen hoort bij een andere club."))
        return season


class TournamentEntryInline(ReadOnlyTabularInline):
    model = TournamentEntry
    club_path = "tournament__club"
    parent_club_path = "club"
    fields = ["player", "from_series", "withdrawn_after", "checked_in_at"]


class SeriesInline(ReadOnlyTabularInline):
    model = Series
    club_path = "tournament__club"
    parent_club_path = "club"
    fields = ["number", "final", "state", "seed", "drawn_at"]
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(ClubScopedAdmin):
    """A toernooi is created, drawn and run on the organiser's screens (``scoring.tournaments``);
    here its name, date, season and table points can be changed, and its standings are shown
    as they are now: a correction of a table's game (on the session's page) is in them at once.
    """

    form = TournamentForm
    addable = False
    list_display = ["name", "date", "club", "status", "series_count", "entries_count"]
    list_filter = ["status", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    date_hierarchy = "date"
    list_select_related = ["club"]
    readonly_fields = [
        "club",
        "status",
        "preset",
        "rules",
        "series_count",
        "end_mode",
        "end_rounds",
        "end_time",
        "table_size",
        "created_at",
        "standings",
    ]
    inlines = [TournamentEntryInline, SeriesInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(entries_count=Count("entries"))

    @admin.display(description=_("deelnemers"), ordering="entries_count")
    def entries_count(self, tournament: Tournament) -> int:
        return tournament.entries_count

    @admin.display(description=_("stand"))
    def standings(self, tournament: Tournament) -> str:
        if tournament.pk is None:
            return "—"
        result = tournaments.tournament_standings(tournament)
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    row.place,
                    row.player.name,
                    row.table_points,
                    row.strafpunten,
                    row.toepkoningen,
                    row.series_played,
                )
                for row in result.rows
            ),
        )
        return format_html(
            "<p>{}</p><table><thead><tr><th>#</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th>"
            "<th>{}</th></tr></thead><tbody>{}</tbody></table>",
            gettext("Voorlopige stand: er speelt nog een serie.")
            if result.provisional
            else gettext("Stand na %(count)s series.") % {"count": result.series_counted},
            gettext("speler"),
            gettext("tafelpunten"),
            gettext("strafpunten"),
            gettext("toepkoningen"),
            gettext("series"),
            rows,
        )


class TournamentTableInline(ReadOnlyTabularInline):
    model = TournamentTable
    club_path = "series__tournament__club"
    parent_club_path = "tournament__club"
    fields = ["number", "players", "dealer", "session_link"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("dealer", "session")

    @admin.display(description=_("spelers"))
    def players(self, table: TournamentTable) -> str:
        seats = table.seats.select_related("player").order_by("position")
        return ", ".join(s.player.name for s in seats)

    @admin.display(description=_("spel"))
    def session_link(self, table: TournamentTable) -> str:
        if table.session_id is None:
            return gettext("nog niet begonnen")
        url = reverse("admin:scoring_session_change", args=[table.session_id])
        return format_html('<a href="{}">{}</a>', url, table.session.get_status_display())


@admin.register(Series)
class SeriesAdmin(ClubScopedAdmin):
    """A series is drawn on the organiser's screen; here its tables link to their games, where
    a round is corrected as any session's."""

    club_path = "tournament__club"
    read_only = True
    list_display = ["__str__", "number", "final", "state", "drawn_at"]
    list_filter = ["state", ("tournament", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["tournament__name"]
    list_select_related = ["tournament__club"]
    inlines = [TournamentTableInline]
