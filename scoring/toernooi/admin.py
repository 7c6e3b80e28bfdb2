"""The admin of tournaments and their series: looked after here, made and run on the
organiser's screens."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count, OuterRef, Prefetch, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from scoring.admin_base import ClubScopedAdmin, ReadOnlyTabularInline, SettingJSONField
from scoring.models import (
    Season,
    Series,
    TableSeat,
    Tournament,
    TournamentEntry,
    TournamentTable,
)
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = ["name", "date", "season", "table_points", "final_table", "prizes_public", "rated"]
        field_classes = {"table_points": SettingJSONField}

    def clean_table_points(self) -> list[int]:
        try:
            return tournaments.checked_points(self.cleaned_data["table_points"])
        except tournaments.TournamentError as error:
            raise forms.ValidationError(str(error)) from error

    def clean_season(self) -> Season | None:
        season = self.cleaned_data.get("season")
        if season is not None and season.club_id != self.instance.club_id:
            raise forms.ValidationError(gettext("Dat seizoen hoort bij een andere club."))
        return season


# A toernooi's page shows the players who checked in last; all of them are in the list of
# players, a page at a time, so that a toernooi of hundreds opens as fast as one of twelve.
ENTRIES_SHOWN = 30


class TournamentEntryInline(ReadOnlyTabularInline):
    model = TournamentEntry
    club_path = "tournament__club"
    parent_club_path = "club"
    fields = ["player", "from_series", "withdrawn_after", "checked_in_at"]
    verbose_name_plural = _("laatst aangemeld")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        """The ``ENTRIES_SHOWN`` players of the toernooi who checked in last, the latest
        first; each row's title names the toernooi and the player, so they are joined."""
        latest = (
            TournamentEntry.objects.filter(tournament=OuterRef("tournament"))
            .order_by("-checked_in_at", "-pk")
            .values("pk")[:ENTRIES_SHOWN]
        )
        return (
            super()
            .get_queryset(request)
            .filter(pk__in=Subquery(latest))
            .select_related("tournament", "player")
            .order_by("-checked_in_at", "-pk")
        )


class SeriesInline(ReadOnlyTabularInline):
    model = Series
    club_path = "tournament__club"
    parent_club_path = "club"
    fields = ["number", "final", "state", "seed", "drawn_at"]
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("tournament")


@admin.register(Tournament)
class TournamentAdmin(ClubScopedAdmin):
    """A toernooi is created, drawn and run on the organiser's screens
    (``scoring.toernooi.services``);
    here its name, date, season and table points can be changed, and its standings are shown
    as they are now: a correction of a table's game (on the session's page) is in them at once.
    """

    form = TournamentForm
    addable = False
    list_display = ["name", "date", "club", "status", "series_count", "entries_count"]
    list_filter = ["status", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    date_hierarchy = "date"
    # Said again here: the entries count groups the query, and Django leaves Meta.ordering out
    # of a grouped query, so the autocomplete's pages would come unordered.
    ordering = Tournament._meta.ordering
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
        "entries_link",
        "standings",
    ]
    inlines = [TournamentEntryInline, SeriesInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(entries_count=Count("entries"))

    @admin.display(description=_("deelnemers"), ordering="entries_count")
    def entries_count(self, tournament: Tournament) -> int:
        return tournament.entries_count

    @admin.display(description=_("deelnemers"))
    def entries_link(self, tournament: Tournament) -> str:
        """How many players; past ``ENTRIES_SHOWN``, the page shows those who checked in last
        and links to all of them, a page at a time."""
        if tournament.pk is None:
            return "—"
        count = tournament.entries_count
        if count <= ENTRIES_SHOWN:
            shown = ngettext(
                "%(count)s deelnemer, hieronder.",
                "%(count)s deelnemers, allemaal hieronder.",
                count,
            )
            return shown % {"count": count}
        return format_html(
            '{} <a href="{}?tournament__id__exact={}">{}</a>',
            gettext("%(count)s deelnemers; hieronder de %(shown)s die het laatst aangemeld zijn.")
            % {"count": count, "shown": ENTRIES_SHOWN},
            reverse("admin:scoring_tournamententry_changelist"),
            tournament.pk,
            gettext("Alle deelnemers, een pagina per keer"),
        )

    @admin.display(description=_("stand"))
    def standings(self, tournament: Tournament) -> str:
        if tournament.pk is None:
            return "—"
        result = tournament_selectors.tournament_standings(tournament)
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
            pgettext("de punten", "strafpunten"),
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
        # Each row is titled by its series and toernooi and lists its players: joined and
        # fetched at once, not a query per table.
        seats = TableSeat.objects.select_related("player").order_by("position")
        return (
            super()
            .get_queryset(request)
            .select_related("series__tournament", "dealer", "session")
            .prefetch_related(Prefetch("seats", queryset=seats))
        )

    @admin.display(description=_("spelers"))
    def players(self, table: TournamentTable) -> str:
        return ", ".join(s.player.name for s in table.seats.all())

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


@admin.register(TournamentEntry)
class TournamentEntryAdmin(ClubScopedAdmin):
    """The players of a toernooi, a page at a time (its own page shows the last ones checked
    in); they check in and withdraw on the organiser's screens."""

    club_path = "tournament__club"
    read_only = True
    list_display = ["player", "tournament", "from_series", "withdrawn_after", "checked_in_at"]
    list_filter = [("tournament", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__name"]
    list_select_related = ["player", "tournament"]
