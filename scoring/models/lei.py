"""Sessions as event logs, their seats and rounds, the projection (``RoundScore``,
``SessionResult``), the audit trail and the taps' idempotency keys."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models.clubs import Club, Game, Player, Season, new_scorer_token
from scoring.sessionfile import session_to_file


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

    def counted_for(self, club: Club) -> SessionQuerySet:
        """The club's finished games that count for its standings and ratings, by the club's
        ``agreement_rule``: every game (disputed ones marked where shown), or only those the
        table agreed to or the club (a toernooi's organiser) accepted."""
        return self.for_club(club).finished().filter(counted_q())

    def disputed(self) -> SessionQuerySet:
        return self.filter(agreement=Session.Agreement.DISPUTED)

    def by_end(self) -> SessionQuerySet:
        """Latest ended first: by the game's last entry of play (a tap, the finish, an import
        or a paper lei), so a correction, an akkoord or a lock weeks later does not bring an
        old game back to the top as ``updated_at`` would."""
        played = AuditEntry.objects.filter(session=OuterRef("pk"), action__in=PLAY_ACTIONS)
        ended = Subquery(played.order_by("-at").values("at")[:1])
        return self.annotate(ended_at=Coalesce(ended, F("created_at"))).order_by("-ended_at", "-pk")


# The audit actions of play: the last of them is when a game ended (``by_end``).
PLAY_ACTIONS = ("event", "presence", "undo", "finish", "import", "paper")

# What a table's "akkoord" says once given: these count under every club rule.
SETTLED = ("agreed", "accepted")


def counted_q(prefix: str = "") -> Q:
    """The sessions that count under their club's ``agreement_rule``, as a filter that joins
    the club rather than asking for it (``prefix``: the path to the session from the model
    filtered, as ``"session__"``)."""
    return Q(**{f"{prefix}club__agreement_rule": Club.AgreementRule.ALL}) | Q(
        **{f"{prefix}agreement__in": SETTLED}
    )


class Session(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        LOCKED = "locked", _("locked")

    class Agreement(models.TextChoices):
        OPEN = "open", _("wacht op akkoord")
        AGREED = "agreed", _("akkoord")
        DISPUTED = "disputed", _("niet akkoord")
        ACCEPTED = "accepted", _("geaccepteerd")

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="sessions", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sessions",
        verbose_name=_("season"),
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
    # Closed by the organiser (the toernooi series of this table was closed): the table's
    # scorer link changes nothing any more; a club admin still corrects it, and it stays
    # finished (scoring/lei/funnel.py).
    result_closed = models.BooleanField(_("result closed"), default=False)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.RUNNING
    )
    # The table's "akkoord" with the final lei (scoring/lei/akkoord.py): open until the table
    # agrees or a player disputes it; a club admin (a toernooi's organiser) accepts it.
    agreement = models.CharField(
        _("akkoord"), max_length=10, choices=Agreement.choices, default=Agreement.OPEN
    )
    dispute_note = models.CharField(_("niet akkoord omdat"), max_length=140, blank=True)
    # The numbers of the rounds corrected after the fact (the round editor, the admin), in
    # order; the sheet marks them "verbeterd". Kept with the session, so that a write reads it
    # with its lock and a drawing with the session: the audit log has an entry for each
    # (``services.round_replace_events``) and stays the record. A round stays marked once
    # corrected, even when it is undone and played again.
    corrected_rounds = models.JSONField(_("verbeterd"), default=list, blank=True, editable=False)
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
    # The viewer link /kijk/<signed>/ signs the session id with this key: "" is the first link
    # (the id alone, as links were made before they could be renewed), a new random key renews
    # it, None revokes it. An old link then answers 410 (scoring/lei/viewer_views.py).
    viewer_key = models.CharField(  # noqa: DJ001 (None: no link at all, as scorer_token)
        _("viewer link key"), max_length=32, null=True, blank=True, default="", editable=False
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
            models.CheckConstraint(
                condition=Q(agreement__in=["open", "agreed", "disputed", "accepted"]),
                name="session_agreement_valid",
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
    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="seats", verbose_name=_("session")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="seats", verbose_name=_("player")
    )
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
    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("session")
    )
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
        return gettext("%(session)s, ronde %(number)s") % {
            "session": self.session,
            "number": self.number,
        }


class RoundScore(models.Model):
    """A player's (or, in team toepen, a side's) result in one finished round."""

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="scores", verbose_name=_("round")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="round_scores",
        verbose_name=_("player"),
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

    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="results", verbose_name=_("session")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="results",
        verbose_name=_("player"),
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
        REOPEN = "reopen", _("reopened")
        LOCK = "lock", _("locked")
        UNLOCK = "unlock", _("unlocked")
        ROTATE_TOKEN = "rotate_token", _("scorer link renewed")
        REVOKE_TOKEN = "revoke_token", _("scorer link revoked")
        ROTATE_VIEWER = "rotate_viewer", _("viewer link renewed")
        REVOKE_VIEWER = "revoke_viewer", _("viewer link revoked")
        CONFIRM = "confirm", _("guests confirmed")
        MERGE = "merge", _("players merged")
        RENAME = "rename", _("player renamed")
        # The organiser's corrections of a toernooi (``tournament`` is set).
        CHECK_IN_UNDO = "checkin_undo", _("check-in undone")
        PAPER = "paper", _("paper lei entered")
        PAPER_UNDO = "paper_undo", _("paper lei taken back")
        SERIES_CLOSE = "series_close", _("series closed")
        SERIES_REOPEN = "series_reopen", _("series reopened")
        SERIES_REDRAW = "series_redraw", _("series drawn again")
        CHECK_IN = "checkin", _("checked in")
        JOIN = "join", _("joined by invitation")
        # The table's akkoord with the final lei (scoring/lei/akkoord.py).
        AGREE = "agree", _("akkoord van de tafel")
        DISPUTE = "dispute", _("niet akkoord")
        ACCEPT = "accept", _("uitslag geaccepteerd")

    session = models.ForeignKey(
        Session,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
        verbose_name=_("session"),
    )
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="audit_entries", verbose_name=_("club")
    )
    # By name: the toernooi's models import this module. Kept when the toernooi is deleted,
    # as an entry outlives its session.
    tournament = models.ForeignKey(
        "scoring.Tournament",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
        verbose_name=_("toernooi"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
        verbose_name=_("user"),
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
    """A client key of an action already recorded, with the answer it got and a fingerprint of
    what was sent with it: the same key with another write is refused, never answered as if it
    had been recorded (``scoring.lei.funnel.KeyReused``)."""

    session = models.ForeignKey(
        Session,
        on_delete=models.CASCADE,
        related_name="idempotency_keys",
        verbose_name=_("session"),
    )
    key = models.CharField(_("key"), max_length=100)
    response = models.JSONField(_("response"))
    # SHA-256 of the action and what was sent (``funnel.sent_digest``), in hex; empty for a key
    # stored before the fingerprint was kept, which is taken at its word.
    digest = models.CharField(_("digest of what was sent"), max_length=64, blank=True, default="")
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


class TapAllowance(models.Model):
    """How far one scorer's taps at one session are ahead of the clock, for the tap limit
    (``scoring.lei.taplimit``): in the database, so that every app server counts the same taps."""

    # No foreign key in the database: counting a tap must never wait on the session's row, which
    # a write (or the end that throws the game away) holds locked; with a key, a tap racing that
    # end deadlocked on PostgreSQL. A count left by a deleted game is pruned (``prune_keys``).
    session = models.ForeignKey(
        Session,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        verbose_name=_("session"),
    )
    who = models.CharField(max_length=30)  # "link" (the scorer link), or "user:<id>"
    # When this scorer's burst is whole again, in milliseconds since 1970 (the generic cell rate
    # algorithm's "theoretical arrival time").
    full_at = models.BigIntegerField()
    allowed = models.BooleanField(default=True)  # whether the last tap was let through

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "who"], name="tapallowance_one_per_scorer")
        ]

    def __str__(self) -> str:
        return f"{self.session_id} {self.who}"


class PushWatch(models.Model):
    """A viewer's part that open push streams show (``scoring/lei/watch.py``): the write that
    changes the session draws it once for them all, and the streams only forward the drawing
    (DESIGN decision 14). Written by the stream servers while such streams are open, read with
    the write's lock; a row whose ``until`` has passed is nobody's any more."""

    # No foreign key in the database, as TapAllowance: a stream server's upsert must never
    # wait on the row a tap holds locked. Rows of a deleted game are pruned (``prune_keys``).
    session = models.ForeignKey(
        Session,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        verbose_name=_("session"),
    )
    part = models.CharField(max_length=300)  # the part's path in one spelling (push.audiences)
    language = models.CharField(max_length=16)
    audience = models.CharField(max_length=16)  # "public" or "full" (push.audiences.Audience)
    until = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session", "part", "language", "audience"], name="pushwatch_one_per_part"
            )
        ]

    def __str__(self) -> str:
        return f"{self.session_id} {self.part} {self.language} {self.audience}"
