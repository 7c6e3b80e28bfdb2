"""The admin of sessions, rounds and their projection: read-only lists and corrections that
go through the engine (``scoring.lei.services``), never a hand-typed score."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import writes
from scoring.clubs.admin import ClubScopedAdmin, ReadOnlyTabularInline, scope, service_error_message
from scoring.clubs.admin_forms import (
    EventFormSet,
)
from scoring.engine import Refusal
from scoring.lei import funnel, services
from scoring.lei.admin_forms import EventForm, PresenceForm, SessionForm, refusal_message
from scoring.models import (
    AuditEntry,
    IdempotencyKey,
    Player,
    Round,
    RoundScore,
    Seat,
    Session,
    SessionResult,
)


def admin_actor(request: HttpRequest) -> writes.Actor:
    """Whoever changes a session here administers its club (``ClubScopedAdmin``), so they may
    correct a game whose toernooi series was closed."""
    return writes.Actor(user=request.user, club_admin=True)


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
        "result_closed",
        "version",
        "scorer_link",
        "created_at",
        "updated_at",
        "audit_link",
    ]
    inlines = [SeatInline, RoundInline, SessionResultInline]
    actions = [
        "finish_sessions",
        "reopen_sessions",
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
        the key of the kept standings reads (``scoring.league.standings_cache``), besides the season
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
            except writes.ServiceError as error:
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
            lambda s: services.session_finish(session=s, actor=admin_actor(request)),
            gettext("Sessions finished: %(count)s."),
        )

    @admin.action(description=_("Reopen the selected sessions"), permissions=["change"])
    def reopen_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_reopen(session=s, actor=admin_actor(request)),
            gettext("Sessions reopened: %(count)s."),
        )

    @admin.action(description=_("Lock the selected sessions"), permissions=["change"])
    def lock_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_lock(session=s, actor=admin_actor(request)),
            gettext("Sessions locked: %(count)s."),
        )

    @admin.action(description=_("Unlock the selected sessions"), permissions=["change"])
    def unlock_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_unlock(session=s, actor=admin_actor(request)),
            gettext("Sessions unlocked: %(count)s."),
        )

    @admin.action(description=_("Renew the scorer link"), permissions=["change"])
    def rotate_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_rotate_token(session=s, actor=admin_actor(request)),
            gettext("Scorer links renewed: %(count)s. The old links no longer work."),
        )

    @admin.action(description=_("Revoke the scorer link"), permissions=["change"])
    def revoke_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: services.session_revoke_token(session=s, actor=admin_actor(request)),
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
                        actor=admin_actor(request),
                    )
                except Refusal as refusal:
                    self.message_user(request, refusal_message(refusal), messages.ERROR)
                except funnel.StaleVersion as error:
                    self.message_user(request, service_error_message(error), messages.ERROR)
                    return HttpResponseRedirect(request.path)
                except writes.ServiceError as error:
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
    list_display = [
        "at",
        "action",
        "session",
        "tournament",
        "round_number",
        "user",
        "by_scorer_token",
        "club",
    ]
    list_filter = [
        "action",
        ("session", admin.RelatedOnlyFieldListFilter),
        ("user", admin.RelatedOnlyFieldListFilter),
        "by_scorer_token",
        ("club", admin.RelatedOnlyFieldListFilter),
    ]
    date_hierarchy = "at"
    search_fields = ["user__username", "session__table_label"]
    list_select_related = ["session__club", "tournament", "user", "club"]


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ClubScopedAdmin):
    club_path = "session__club"
    read_only = True
    list_display = ["key", "session", "created_at"]
    search_fields = ["key"]
    list_select_related = ["session__club"]
