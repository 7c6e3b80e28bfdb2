"""The digital lei's data: clubs and their people, sessions as event logs, and projections.

A session's rounds hold what happened, exactly as in the ``toepen/1`` session file (RULES.md
§14): that log is the truth. ``RoundScore`` and ``SessionResult`` are a projection of it,
rebuilt by ``scoring.services`` from an engine replay after every write, and read by the lei,
the league pages and the admin. Every model reaches its club in at most three steps
(``club``, ``session__club``, ``round__session__club``) so that every admin queryset can be
scoped to the clubs of the person looking.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.sessionfile import session_to_file


def new_scorer_token() -> str:
    return secrets.token_urlsafe(32)


def default_ranking() -> dict[str, Any]:
    """How a season ranks its players; read by the league standings."""
    return {"scoring": "placement", "best_n": None, "tie_breakers": ["wins", "average_place"]}


class Game(models.TextChoices):
    STRAFPUNTEN = "strafpunten", _("strafpunten")
    POT = "pot", _("pottoepen")


class Club(models.Model):
    name = models.CharField(_("name"), max_length=100)
    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    # House rules: a preset of RULES.md §12 plus overrides of single keys. A session copies the
    # resolved rules when it starts, so changing these never rewrites a played session.
    preset = models.CharField(_("preset"), max_length=30, default="standaard")
    rules = models.JSONField(_("rule overrides"), default=dict, blank=True)
    standings_public = models.BooleanField(_("public standings"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(_("name"), max_length=40)
    is_guest = models.BooleanField(_("guest"), default=False)
    public_initials = models.BooleanField(_("only initials in public"), default=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            # Anne and anne are one person at the table: the lei matches names ignoring case.
            models.UniqueConstraint(
                models.F("club"), Lower("name"), name="player_name_unique_in_club_ignoring_case"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def initials(self) -> str:
        return "".join(part[0].upper() + "." for part in self.name.split() if part)

    def public_name(self) -> str:
        return self.initials if self.public_initials else self.name


class ClubMembership(models.Model):
    class Role(models.TextChoices):
        ADMIN = "admin", _("admin")
        SCORER = "scorer", _("scorer")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.SCORER)

    class Meta:
        verbose_name = _("club membership")
        verbose_name_plural = _("club memberships")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "club"], name="membership_unique_per_user_and_club"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["admin", "scorer"]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()}, {self.club})"


class Season(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(_("name"), max_length=60)
    starts_on = models.DateField(_("starts on"))
    ends_on = models.DateField(_("ends on"), null=True, blank=True)
    ranking = models.JSONField(_("ranking"), default=default_ranking, blank=True)

    class Meta:
        ordering = ["-starts_on"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="season_name_unique_in_club"),
            models.CheckConstraint(
                condition=Q(ends_on__isnull=True) | Q(ends_on__gte=models.F("starts_on")),
                name="season_ends_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"


class SessionQuerySet(models.QuerySet):
    def for_club(self, club: Club) -> SessionQuerySet:
        return self.filter(club=club)

    def running(self) -> SessionQuerySet:
        return self.filter(status=Session.Status.RUNNING)

    def finished(self) -> SessionQuerySet:
        """Sessions that are over: finished, and finished ones the club has locked."""
        return self.filter(status__in=[Session.Status.FINISHED, Session.Status.LOCKED])

    def in_season(self, season: Season) -> SessionQuerySet:
        return self.filter(season=season)


class Session(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        LOCKED = "locked", _("locked")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="sessions")
    season = models.ForeignKey(
        Season, on_delete=models.SET_NULL, null=True, blank=True, related_name="sessions"
    )
    table_label = models.CharField(_("table"), max_length=60, blank=True)
    played_on = models.DateField(_("played on"), default=timezone.localdate)
    game = models.CharField(
        _("game"), max_length=12, choices=Game.choices, default=Game.STRAFPUNTEN
    )
    # A snapshot of the fully resolved rules the session is played by (validated by the engine
    # when the session starts): later changes to the club's house rules never rewrite history.
    rules = models.JSONField(_("rules"), default=dict)
    preset = models.CharField(_("preset"), max_length=30, default="standaard")
    first_dealer = models.CharField(_("first dealer"), max_length=40, blank=True)
    teams = models.JSONField(_("teams"), null=True, blank=True)  # {"Noord": ["Anne", "Cees"]}
    start = models.JSONField(_("start totals"), default=dict, blank=True)  # {"Anne": 9}
    ended = models.BooleanField(_("pot shared out"), default=False)  # pot game only
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.RUNNING
    )
    # Bumped by every write; a client sends the version it saw and a stale one is refused.
    version = models.PositiveIntegerField(_("version"), default=0)
    scorer_token = models.CharField(
        _("scorer token"),
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        default=new_scorer_token,
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)

    objects = SessionQuerySet.as_manager()

    class Meta:
        ordering = ["-played_on", "-id"]
        verbose_name = _("session")
        verbose_name_plural = _("sessions")
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["running", "finished", "locked"]),
                name="session_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(game__in=["strafpunten", "pot"]), name="session_game_valid"
            ),
            models.CheckConstraint(
                condition=Q(version__gte=0), name="session_version_not_negative"
            ),
        ]
        indexes = [
            models.Index(fields=["club", "-played_on"], name="session_club_date"),
            models.Index(fields=["season", "status"], name="session_season_status"),
        ]

    def __str__(self) -> str:
        label = f" {self.table_label}" if self.table_label else ""
        return f"{self.club} {self.played_on}{label} (#{self.pk})"

    @property
    def is_locked(self) -> bool:
        return self.status == self.Status.LOCKED

    def to_file(self) -> dict[str, Any]:
        """This session as a ``toepen/1`` session file (RULES.md §14)."""
        return session_to_file(self)


class Seat(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField(_("position"))  # 1 = first seat, clockwise
    side = models.CharField(_("side"), max_length=40, blank=True)  # team toepen only

    class Meta:
        ordering = ["session", "position"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["session", "player"], name="seat_player_unique"),
            models.CheckConstraint(condition=Q(position__gte=1), name="seat_position_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.player}"


class Round(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("number"))
    # Exactly as in the session file: the events in order, who is away, who sits down. A pot
    # round's bids and winner are kept as events too ({"type": "bid", "player", "bid"} and
    # {"type": "win", "player"}), so that the order of the declarations survives (a JSON object
    # in PostgreSQL's jsonb does not keep its order) and undo takes back the last one.
    events = models.JSONField(_("events"), default=list, blank=True)
    absent = models.JSONField(_("absent"), default=dict, blank=True)
    join = models.JSONField(_("join"), default=list, blank=True)

    class Meta:
        ordering = ["session", "number"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "number"], name="round_number_unique_in_session"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.session} round {self.number}"


class RoundScore(models.Model):
    """A player's (or, in team toepen, a side's) result in one finished round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="scores")
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="round_scores"
    )
    side = models.CharField(_("side"), max_length=40, blank=True)
    points = models.IntegerField(_("points"), default=0)
    # The pot game's stake is the winning bid, up to ten million cents (engine/bounds.py).
    stake = models.PositiveIntegerField(_("stake"), default=1)
    won = models.BooleanField(_("won"), default=False)
    folded = models.BooleanField(_("folded"), default=False)
    fold_cost = models.SmallIntegerField(_("fold cost"), null=True, blank=True)
    knocks = models.PositiveSmallIntegerField(_("knocks"), default=0)
    jack_win = models.BooleanField(_("won with a jack"), default=False)
    armoede = models.BooleanField(_("armoede"), default=False)
    absent = models.CharField(_("absent"), max_length=10, blank=True)  # "toilet" | "drinks"
    penalty = models.IntegerField(_("penalty points"), default=0)
    pussy = models.PositiveSmallIntegerField(_("pussy points"), default=0)
    eliminated = models.BooleanField(_("out after this round"), default=False)
    total = models.IntegerField(_("running total"), default=0)

    class Meta:
        ordering = ["round", "id"]
        verbose_name = _("round score")
        verbose_name_plural = _("round scores")
        constraints = [
            models.UniqueConstraint(
                fields=["round", "player"],
                condition=Q(player__isnull=False),
                name="roundscore_one_per_player",
            ),
            models.UniqueConstraint(
                fields=["round", "side"],
                condition=Q(player__isnull=True),
                name="roundscore_one_per_side",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=False) | ~Q(side=""), name="roundscore_player_or_side"
            ),
        ]
        indexes = [models.Index(fields=["player", "round"], name="roundscore_player")]

    def __str__(self) -> str:
        return f"{self.round}: {self.player or self.side} {self.points}"


class SessionResult(models.Model):
    """A player's (or side's) place and totals in a session; current while it runs."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="results"
    )
    side = models.CharField(_("side"), max_length=40, blank=True)
    place = models.PositiveSmallIntegerField(_("place"))
    total = models.IntegerField(_("total"), default=0)  # cents (balance) in the pot game
    rounds_played = models.PositiveSmallIntegerField(_("rounds played"), default=0)
    rounds_won = models.PositiveSmallIntegerField(_("rounds won"), default=0)
    toepkoning = models.BooleanField(_("toepkoning"), default=False)
    eliminated_in_round = models.PositiveSmallIntegerField(_("out in round"), null=True, blank=True)

    class Meta:
        ordering = ["session", "place", "id"]
        verbose_name = _("session result")
        verbose_name_plural = _("session results")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "player"],
                condition=Q(player__isnull=False),
                name="sessionresult_one_per_player",
            ),
            models.UniqueConstraint(
                fields=["session", "side"],
                condition=Q(player__isnull=True),
                name="sessionresult_one_per_side",
            ),
            models.CheckConstraint(condition=Q(place__gte=1), name="sessionresult_place_positive"),
            models.CheckConstraint(
                condition=Q(player__isnull=False) | ~Q(side=""), name="sessionresult_player_or_side"
            ),
        ]
        indexes = [models.Index(fields=["player", "session"], name="sessionresult_player")]

    def __str__(self) -> str:
        return f"{self.session}: {self.place}. {self.player or self.side}"


class AuditEntry(models.Model):
    class Action(models.TextChoices):
        START = "start", _("started")
        IMPORT = "import", _("imported")
        EVENT = "event", _("event recorded")
        PRESENCE = "presence", _("presence set")
        UNDO = "undo", _("undone")
        CORRECT = "correct", _("round corrected")
        FINISH = "finish", _("finished")
        LOCK = "lock", _("locked")
        UNLOCK = "unlock", _("unlocked")
        ROTATE_TOKEN = "rotate_token", _("scorer link renewed")
        REVOKE_TOKEN = "revoke_token", _("scorer link revoked")
        MERGE = "merge", _("players merged")
        RENAME = "rename", _("player renamed")

    session = models.ForeignKey(
        Session, on_delete=models.SET_NULL, null=True, blank=True, related_name="audit_entries"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="audit_entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
    )
    by_scorer_token = models.BooleanField(_("by scorer link"), default=False)
    at = models.DateTimeField(_("when"), default=timezone.now)
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    round_number = models.PositiveSmallIntegerField(_("round"), null=True, blank=True)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        indexes = [
            models.Index(fields=["session", "at"], name="audit_session_at"),
            models.Index(fields=["club", "at"], name="audit_club_at"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_action_display()}"


class IdempotencyKey(models.Model):
    """A client key of an action already recorded, with the answer it got."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="idempotency_keys")
    key = models.CharField(_("key"), max_length=100)
    response = models.JSONField(_("response"))
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "key"], name="idempotency_key_unique_per_session"
            )
        ]

    def __str__(self) -> str:
        return self.key


class RenderedSheet(models.Model):
    """The viewers' sheet (the ``#live`` fragment) as rendered for one version of a session.

    Ten phones and a TV poll the same table: the first poll after a change renders the sheet
    and keeps it here, compressed once, and the others are served this copy as it is
    (``scoring.compression.kept_answer``). A write bumps the session's version, so a copy of an
    older version is never served; nothing has to be invalidated. It lives in PostgreSQL like
    every cache of the app, so that any app server serves it.
    """

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=20)  # language and TV mode: "nl", "en-tv"
    version = models.PositiveIntegerField()
    gzipped = models.BinaryField()  # the fragment's HTML (UTF-8), gzip-compressed

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session", "variant"], name="renderedsheet_one_per_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.session_id} {self.variant} v{self.version}"


# --- the toernooi: one evening's competition of a club, its tables' games ordinary sessions ---


def default_table_points() -> list[int]:
    """Table points by place at a table: 1st 10, 2nd 7, 3rd 5, 4th 3, 5th 1."""
    return [10, 7, 5, 3, 1]


class Tournament(models.Model):
    """A toernooi: series of table draws; each table's game is an ordinary ``Session``.

    The standings are computed from the tables' ``SessionResult`` rows
    (``scoring.tournaments.tournament_standings``), never stored, so a correction of a table's
    game is in the standings at once.
    """

    class EndMode(models.TextChoices):
        TOEPKONING = "toepkoning", _("tot de toepkoning")
        ROUNDS = "rounds", _("na een aantal rondes")
        TIME = "time", _("op een tijd")

    class Status(models.TextChoices):
        OPEN = "open", _("bezig")
        FINISHED = "finished", _("afgelopen")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="tournaments")
    season = models.ForeignKey(
        Season, on_delete=models.SET_NULL, null=True, blank=True, related_name="tournaments"
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
    final_table = models.BooleanField(_("finaletafel voor de beste vier"), default=True)
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

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_entries")
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

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="series")
    number = models.PositiveSmallIntegerField(_("number"))
    final = models.BooleanField(_("finaletafel"), default=False)
    seed = models.BigIntegerField(_("lotnummer"))
    state = models.CharField(
        _("toestand"), max_length=10, choices=State.choices, default=State.DRAWN
    )
    # Pairs that meet again in this draw because no draw avoided it: [[player id, id], ...].
    repeat_pairs = models.JSONField(_("herhaalde paren"), default=list, blank=True)
    drawn_at = models.DateTimeField(_("geloot op"), default=timezone.now)

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
        return f"{self.tournament}: serie {self.number}"


class TournamentTable(models.Model):
    """A tafel of a series; its game is ``session`` once the series has started."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="tables")
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
        return f"{self.series}, tafel {self.number}"


class TableSeat(models.Model):
    """A player's seat at a table of a series; one seat per player per series."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="seats")
    table = models.ForeignKey(TournamentTable, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="table_seats")
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
