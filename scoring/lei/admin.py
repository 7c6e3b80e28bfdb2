"""The admin of sessions, rounds and their projection: read-only lists and corrections that
go through the engine (``scoring.lei.services``), never a hand-typed score."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from scoring import access, writes
from scoring.admin_base import ClubScopedAdmin, ReadOnlyTabularInline, refusal_message, scope
from scoring.engine import Refusal
from scoring.lei import akkoord, funnel, seals, services
from scoring.lei.admin_forms import (
    EventForm,
    EventFormSet,
    PresenceForm,
    SessionForm,
    service_error_message,
)
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
from scoring.ratings.services import ratings_refresh

# A session's page shows its last rounds; all of them are in the rounds' list, a page at a time,
# so that a session of a thousand rounds opens as fast as one of ten.
ROUNDS_SHOWN = 30
# An audit entry's page shows this many characters of what it kept before and after; an import
# keeps the whole session file, which is downloaded whole from the page.
AUDIT_SHOWN_CHARACTERS = 10_000
# The sessions a list of the audit log or of rounds offers to filter on: the latest ones (and
# the one chosen); any other is found by its table in the search, or from its own page.
SESSIONS_LISTED = 10


def admin_actor(request: HttpRequest) -> writes.Actor:
    """Whoever changes a session here administers its club (``ClubScopedAdmin``), so they may
    correct a game whose toernooi series was closed."""
    return writes.Actor(user=request.user, club_admin=True)


class SeatInline(ReadOnlyTabularInline):
    model = Seat
    club_path = "session__club"
    fields = ["position", "player", "side"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Each row is titled by the seat's player: a join, not a query per row.
        return super().get_queryset(request).select_related("player")


class RoundInline(ReadOnlyTabularInline):
    model = Round
    club_path = "session__club"
    fields = ["number", "summary", "correct_link"]
    verbose_name_plural = _("last rounds")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        """The last ``ROUNDS_SHOWN`` rounds of the session; each row's title names the session
        and its club, so they are joined."""
        last = (
            Round.objects.filter(session=OuterRef("session"))
            .order_by("-number")
            .values("number")[:1]
        )
        return (
            super()
            .get_queryset(request)
            .filter(number__gt=Subquery(last) - ROUNDS_SHOWN)
            .select_related("session__club")
        )

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

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("session__club", "player")


def round_summary(round_: Round) -> str:
    parts = [f"{event.get('type')} {event.get('player', '')}".strip() for event in round_.events]
    return ", ".join(parts) or "—"


class SessionListFilter(admin.SimpleListFilter):
    """The session of an audit entry or a round, offered from the latest ``SESSIONS_LISTED``
    sessions in scope and the chosen one: one or two queries however many sessions a club has
    played (Django's related filter lists them all, each looking up its club for its name).
    The parameter is the one of Django's own filter, so links to ``?session__id__exact=`` keep
    working."""

    title = _("session")
    parameter_name = "session__id__exact"

    def _chosen(self) -> int | None:
        value = self.value()
        if value is None:
            return None
        if not (value.isascii() and value.isdigit() and len(value) <= 18):
            # Django's answer to a filter it cannot read: the list again, with a warning.
            raise IncorrectLookupParameters(value)
        return int(value)

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin):
        sessions = scope(request, Session.objects.select_related("club"), "club")
        listed = list(sessions.order_by("-played_on", "-pk")[:SESSIONS_LISTED])
        chosen = self._chosen()
        if chosen is not None:
            listed += [s for s in sessions.filter(pk=chosen) if s not in listed]
        return [(str(s.pk), str(s)) for s in listed]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        chosen = self._chosen()
        return queryset if chosen is None else queryset.filter(session_id=chosen)


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
    list_display = [
        "played_on",
        "table_label",
        "club",
        "status",
        "agreement",
        "season",
        "winner",
        "version",
    ]
    list_filter = [
        "status",
        "agreement",  # the disputed games, for the club admin (scoring/lei/akkoord.py)
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
        "agreement",
        "dispute_note",
        "version",
        "scorer_link",
        "viewer_link",
        "created_at",
        "updated_at",
        "rounds_link",
        "audit_link",
    ]
    inlines = [SeatInline, RoundInline, SessionResultInline]
    actions = [
        "accept_results",
        "finish_sessions",
        "reopen_sessions",
        "lock_sessions",
        "unlock_sessions",
        "rotate_scorer_tokens",
        "revoke_scorer_tokens",
        "renew_viewer_links",
        "revoke_viewer_links",
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
        if "played_on" in form.changed_data:
            ratings_refresh(club_id=obj.club_id)  # the games are rated in the order played

    def delete_model(self, request: HttpRequest, obj: Session) -> None:
        # The ratings follow in the delete itself, not in the next page that finds them stale.
        super().delete_model(request, obj)
        ratings_refresh(club_id=obj.club_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        club_ids = sorted(set(queryset.values_list("club_id", flat=True)))
        super().delete_queryset(request, queryset)
        for club_id in club_ids:
            ratings_refresh(club_id=club_id)

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

    @admin.display(description=_("rounds"))
    def rounds_link(self, session: Session) -> str:
        """How many rounds; past ``ROUNDS_SHOWN``, the page shows the last ones and links to
        all of them, a page at a time."""
        if session.pk is None:
            return "—"
        count = session.rounds.count()
        if count <= ROUNDS_SHOWN:
            shown = ngettext("%(count)s round, all below.", "%(count)s rounds, all below.", count)
            return shown % {"count": count}
        return format_html(
            '{} <a href="{}?session__id__exact={}">{}</a>',
            gettext("%(count)s rounds; the last %(shown)s are below.")
            % {"count": count, "shown": ROUNDS_SHOWN},
            reverse("admin:scoring_round_changelist"),
            session.pk,
            gettext("All rounds, a page at a time"),
        )

    @admin.display(description=_("viewer link"))
    def viewer_link(self, session: Session) -> str:
        path = access.session_viewer_path(session)
        if path is None:
            return gettext("revoked")
        return format_html('<a href="{}">{}</a>', path, gettext("Watch the lei"))

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
        """Run one service on each selected session; refusals are reported per session, and a
        session the service left as it was (it answers False) is not counted."""
        count = 0
        for session in queryset.order_by("pk"):
            try:
                changed = write(session)
            except Refusal as refusal:
                self.message_user(request, f"{session}: {refusal_message(refusal)}", messages.ERROR)
            except writes.ServiceError as error:
                self.message_user(
                    request, f"{session}: {service_error_message(error)}", messages.ERROR
                )
            else:
                count += changed is not False
        if count:
            self.message_user(request, done % {"count": count}, messages.SUCCESS)

    @admin.action(description=_("Accept the selected results"), permissions=["change"])
    def accept_results(self, request: HttpRequest, queryset: QuerySet) -> None:
        """A disputed game (or one the table did not answer) counts once its admin accepts
        it; the dispute's words stay, and the audit log has both (scoring/lei/akkoord.py)."""
        self._each(
            request,
            queryset,
            lambda s: akkoord.session_accept(session=s, actor=admin_actor(request)),
            gettext("Results accepted: %(count)s."),
        )

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
            lambda s: seals.session_lock(session=s, actor=admin_actor(request)),
            gettext("Sessions locked: %(count)s."),
        )

    @admin.action(description=_("Unlock the selected sessions"), permissions=["change"])
    def unlock_sessions(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: seals.session_unlock(session=s, actor=admin_actor(request)),
            gettext("Sessions unlocked: %(count)s."),
        )

    @admin.action(description=_("Renew the scorer link"), permissions=["change"])
    def rotate_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: seals.session_rotate_token(session=s, actor=admin_actor(request)),
            gettext("Scorer links renewed: %(count)s. The old links no longer work."),
        )

    @admin.action(description=_("Revoke the scorer link"), permissions=["change"])
    def revoke_scorer_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: seals.session_revoke_token(session=s, actor=admin_actor(request)),
            gettext("Scorer links revoked: %(count)s."),
        )

    @admin.action(description=_("Renew the viewer link"), permissions=["change"])
    def renew_viewer_links(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: seals.session_renew_viewer_link(session=s, actor=request.user),
            gettext("Viewer links renewed: %(count)s. The old links no longer work."),
        )

    @admin.action(description=_("Revoke the viewer link"), permissions=["change"])
    def revoke_viewer_links(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            lambda s: seals.session_revoke_viewer_link(session=s, actor=request.user),
            gettext("Viewer links revoked: %(count)s."),
        )


# --- rounds: corrected through the engine ------------------------------------------------------


@admin.register(Round)
class RoundAdmin(ClubScopedAdmin):
    """A round's page is its correction form: rows of events, then ``round_replace_events``."""

    club_path = "session__club"
    addable = False  # rounds are played at the table
    deletable = False  # a round is corrected, never cut out of the log
    list_display = ["__str__", "number", "summary"]
    list_filter = [SessionListFilter, ("session__club", admin.RelatedOnlyFieldListFilter)]
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
    internal = True
    club_path = "round__session__club"
    read_only = True
    list_display = ["round", "player", "side", "points", "stake", "won", "folded", "total"]
    list_filter = ["won", "folded", "eliminated"]
    search_fields = ["player__name", "side"]
    list_select_related = ["round__session__club", "player"]


@admin.register(SessionResult)
class SessionResultAdmin(ClubScopedAdmin):
    internal = True
    club_path = "session__club"
    read_only = True
    list_display = ["session", "place", "player", "side", "total", "rounds_won", "toepkoning"]
    list_filter = ["toepkoning", ("session__season", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__name", "side"]
    list_select_related = ["session__club", "player"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ClubScopedAdmin):
    listed = False  # a game's page links to its entries
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
        SessionListFilter,
        ("user", admin.RelatedOnlyFieldListFilter),
        "by_scorer_token",
        ("club", admin.RelatedOnlyFieldListFilter),
    ]
    date_hierarchy = "at"
    search_fields = ["user__username", "session__table_label"]
    list_select_related = ["session__club", "tournament", "user", "club"]
    fields = [
        "at",
        "action",
        "session",
        "round_number",
        "user",
        "by_scorer_token",
        "club",
        "before_shown",
        "after_shown",
    ]
    readonly_fields = ["before_shown", "after_shown"]

    def get_urls(self):
        download = path(
            "<path:object_id>/file/",
            self.admin_site.admin_view(self.file_view),
            name="scoring_auditentry_file",
        )
        return [download, *super().get_urls()]

    def file_view(self, request: HttpRequest, object_id: str) -> JsonResponse:
        """The whole entry, what it kept before and after, as a JSON file."""
        entry = self.object_or_404(request, object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        response = JsonResponse(
            {
                "at": entry.at.isoformat(),
                "action": entry.action,
                "session": entry.session_id,
                "round": entry.round_number,
                "before": entry.before,
                "after": entry.after,
            },
            json_dumps_params={"ensure_ascii": False, "indent": 1},
        )
        response["Content-Disposition"] = f'attachment; filename="audit-{entry.pk}.json"'
        return response

    @admin.display(description=_("before"))
    def before_shown(self, entry: AuditEntry) -> str:
        return self._shown(entry, entry.before)

    @admin.display(description=_("after"))
    def after_shown(self, entry: AuditEntry) -> str:
        return self._shown(entry, entry.after)

    def _shown(self, entry: AuditEntry, value: Any) -> str:
        if value is None:
            return "—"
        text = json.dumps(value, ensure_ascii=False)
        if len(text) <= AUDIT_SHOWN_CHARACTERS:
            return text
        more = len(text) - AUDIT_SHOWN_CHARACTERS
        return format_html(
            '{}… <a href="{}" download>{}</a>',
            text[:AUDIT_SHOWN_CHARACTERS],
            reverse("admin:scoring_auditentry_file", args=[entry.pk]),
            ngettext(
                "%(count)s character more: download the whole entry",
                "%(count)s characters more: download the whole entry",
                more,
            )
            % {"count": more},
        )


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ClubScopedAdmin):
    internal = True
    club_path = "session__club"
    read_only = True
    list_display = ["key", "session", "created_at"]
    search_fields = ["key"]
    list_select_related = ["session__club"]
