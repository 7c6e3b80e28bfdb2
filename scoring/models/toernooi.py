"""Tournaments: who checked in, the series, their tables and seats; each table's game is an
ordinary ``Session``."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models.clubs import Club, Player, Season
from scoring.models.lei import Session


def default_table_points() -> list[int]:
    """Table points by place at a table: 1st 10, 2nd 7, 3rd 5, 4th 3, 5th 1."""
    return [10, 7, 5, 3, 1]


class Tournament(models.Model):
    """A toernooi: series of table draws; each table's game is an ordinary ``Session``.

    The standings are computed from the tables' ``SessionResult`` rows
    (``scoring.toernooi.selectors.tournament_standings``), never stored, so a correction of a
    table's
    game is in the standings at once.
    """

    class EndMode(models.TextChoices):
        TOEPKONING = "toepkoning", _("tot de toepkoning")
        ROUNDS = "rounds", _("na een aantal rondes")
        TIME = "time", _("op een tijd")

    class Status(models.TextChoices):
        OPEN = "open", _("bezig")
        FINISHED = "finished", _("afgelopen")

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="tournaments", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournaments",
        verbose_name=_("season"),
    )
    name = models.CharField(_("name"), max_length=100)
    date = models.DateField(_("datum"), default=timezone.localdate)
    # As a session: empty preset = the club's house rules (with ``rules`` on top of the club's
    # own overrides); a named preset = that preset and ``rules`` only.
    preset = models.CharField(_("preset"), max_length=30, blank=True)
    rules = models.JSONField(_("rule overrides"), default=dict, blank=True)
    series_count = models.PositiveSmallIntegerField(_("aantal series"), default=4)
    end_mode = models.CharField(
        _("een tafel speelt"), max_length=12, choices=EndMode.choices, default=EndMode.TOEPKONING
    )
    end_rounds = models.PositiveSmallIntegerField(_("rondes per spel"), null=True, blank=True)
    end_time = models.TimeField(_("spellen eindigen om"), null=True, blank=True)
    table_points = models.JSONField(_("tafelpunten per plaats"), default=default_table_points)
    table_size = models.PositiveSmallIntegerField(
        _("tafelgrootte"), choices=[(4, "4"), (5, "5")], default=4
    )
    # The tables' games count for the club's ratings (scoring/ratings/) unless the organiser
    # says not to (a fun toernooi, guests from elsewhere).
    rated = models.BooleanField(
        _("telt mee voor de rating"),
        default=True,
        help_text=_("De uitslagen van de tafels tellen mee voor de rating van de club."),
    )
    final_table = models.BooleanField(_("finaletafel voor de beste vier"), default=True)
    # The prize list (and the final standings as CSV) on the club's public pages; the
    # organiser may keep it for the prize-giving (scoring/toernooi/finish.py).
    prizes_public = models.BooleanField(_("prijslijst openbaar"), default=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("toernooi")
        verbose_name_plural = _("toernooien")
        constraints = [
            models.CheckConstraint(
                condition=Q(series_count__gte=1) & Q(series_count__lte=20),
                name="tournament_series_count_range",
            ),
            models.CheckConstraint(
                condition=Q(table_size__in=[4, 5]), name="tournament_table_size_valid"
            ),
            models.CheckConstraint(
                condition=Q(end_mode__in=["toepkoning", "rounds", "time"]),
                name="tournament_end_mode_valid",
            ),
            models.CheckConstraint(
                condition=~Q(end_mode="rounds") | Q(end_rounds__gte=1),
                name="tournament_rounds_mode_has_rounds",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "finished"]), name="tournament_status_valid"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="tournament_name_not_empty"),
        ]
        indexes = [models.Index(fields=["club", "-date"], name="tournament_club_date")]

    def __str__(self) -> str:
        return f"{self.name} ({self.date})"


class TournamentEntry(models.Model):
    """A player checked in to a toernooi: present from ``from_series`` on, and up to
    ``withdrawn_after`` when they left (their played series keep counting)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("toernooi")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
        verbose_name=_("player"),
    )
    from_series = models.PositiveSmallIntegerField(_("speelt vanaf serie"), default=1)
    withdrawn_after = models.PositiveSmallIntegerField(
        _("teruggetrokken na serie"), null=True, blank=True
    )
    checked_in_at = models.DateTimeField(_("aangemeld"), default=timezone.now)

    class Meta:
        ordering = ["tournament", "player__name"]
        verbose_name = _("deelnemer")
        verbose_name_plural = _("deelnemers")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="tournamententry_one_per_player"
            ),
            models.CheckConstraint(
                condition=Q(from_series__gte=1), name="tournamententry_from_series_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.player}"

    def plays_in(self, number: int) -> bool:
        """Present for series ``number``: checked in for it and not withdrawn before it."""
        return self.from_series <= number and (
            self.withdrawn_after is None or self.withdrawn_after >= number
        )


class Series(models.Model):
    """A serie: one draw of the tables. ``final`` marks the final table's series (one table,
    numbered after the regular series). Drawn → the organiser may swap → started (each table a
    session) → finished when every table's game is over."""

    class State(models.TextChoices):
        DRAWN = "drawn", _("geloot")
        RUNNING = "running", _("bezig")
        FINISHED = "finished", _("klaar")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="series", verbose_name=_("toernooi")
    )
    number = models.PositiveSmallIntegerField(_("number"))
    final = models.BooleanField(_("finaletafel"), default=False)
    seed = models.BigIntegerField(_("lotnummer"))
    state = models.CharField(
        _("toestand"), max_length=10, choices=State.choices, default=State.DRAWN
    )
    # Pairs that meet again in this draw because no draw avoided it: [[player id, id], ...].
    repeat_pairs = models.JSONField(_("herhaalde paren"), default=list, blank=True)
    drawn_at = models.DateTimeField(_("geloot op"), default=timezone.now)
    # One more with every new draw or swap: a page acts on the draw it shows, so the second of
    # two organisers redrawing at once is told instead of redrawing again
    # (scoring/toernooi/services.py, ``DrawChanged``).
    draw_version = models.PositiveIntegerField(_("versie van de indeling"), default=1)
    # The round timer of a series played "at a time" (scoring/toernooi/clock.py): kept here,
    # not in a browser, so that every TV shows the same time left and a reload keeps it.
    clock_ends_at = models.DateTimeField(_("klok loopt tot"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        verbose_name = _("serie")
        verbose_name_plural = _("series")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="series_number_unique_in_tournament"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="series_number_positive"),
            models.CheckConstraint(
                condition=Q(state__in=["drawn", "running", "finished"]), name="series_state_valid"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(tournament)s: serie %(number)s") % {
            "tournament": self.tournament,
            "number": self.number,
        }


class TournamentTable(models.Model):
    """A tafel of a series; its game is ``session`` once the series has started."""

    series = models.ForeignKey(
        Series, on_delete=models.CASCADE, related_name="tables", verbose_name=_("serie")
    )
    number = models.PositiveSmallIntegerField(_("number"))
    dealer = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("eerste deler"),
    )
    # A table's game is part of the toernooi's standings: deleting it would silently change
    # them, so the session is kept while its table exists.
    session = models.OneToOneField(
        Session,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournament_table",
        verbose_name=_("session"),
    )

    class Meta:
        ordering = ["series", "number"]
        verbose_name = _("tafel")
        verbose_name_plural = _("tafels")
        constraints = [
            models.UniqueConstraint(
                fields=["series", "number"], name="tournamenttable_number_unique_in_series"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1), name="tournamenttable_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(series)s, tafel %(number)s") % {
            "series": self.series,
            "number": self.number,
        }


class TableSeat(models.Model):
    """A player's seat at a table of a series; one seat per player per series."""

    series = models.ForeignKey(
        Series, on_delete=models.CASCADE, related_name="seats", verbose_name=_("serie")
    )
    table = models.ForeignKey(
        TournamentTable, on_delete=models.CASCADE, related_name="seats", verbose_name=_("tafel")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="table_seats", verbose_name=_("player")
    )
    position = models.PositiveSmallIntegerField(_("position"))  # 1 = first seat, clockwise

    class Meta:
        ordering = ["table", "position"]
        verbose_name = _("tafelplaats")
        verbose_name_plural = _("tafelplaatsen")
        constraints = [
            models.UniqueConstraint(fields=["series", "player"], name="tableseat_once_per_series"),
            models.UniqueConstraint(fields=["table", "position"], name="tableseat_position_unique"),
            models.CheckConstraint(
                condition=Q(position__gte=1), name="tableseat_position_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.position}. {self.player}"
