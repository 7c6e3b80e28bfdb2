"""Clubs and their people: members (with a login), players (members or guests), seasons."""

from __future__ import annotations

import datetime
import re
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring import names


def new_scorer_token() -> str:
    return secrets.token_urlsafe(32)


def new_invitation_token() -> str:
    return secrets.token_urlsafe(32)


# How long an invitation stays open unless its admin says otherwise: a week to find the link.
INVITATION_DAYS = 7


def invitation_expiry() -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=INVITATION_DAYS)


def default_ranking() -> dict[str, Any]:
    """How a season ranks its players; read by the league standings."""
    return {"scoring": "placement", "best_n": None, "tie_breakers": ["wins", "average_place"]}


class Game(models.TextChoices):
    STRAFPUNTEN = "strafpunten", _("strafpunten")
    POT = "pot", _("pottoepen")


def origins_of(text: str) -> list[str]:
    """The lines of ``text`` as origins (``https://host[:port]``), without blanks."""
    return [line.strip().rstrip("/").lower() for line in text.splitlines() if line.strip()]


_ORIGIN = re.compile(
    r"https://[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:[0-9]{1,5})?"
)


def validate_origins(text: str) -> None:
    """Each line an https origin and nothing more (no path, no wildcard, no quote), so that it
    goes into a Content-Security-Policy header as exactly one source."""
    for origin in origins_of(text):
        if not _ORIGIN.fullmatch(origin):
            raise ValidationError(
                _("%(origin)s is geen https-adres van een site (zoals https://www.toepclub.nl)."),
                params={"origin": origin},
                code="origin",
            )


class Club(models.Model):
    name = models.CharField(_("name"), max_length=100)
    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    # House rules: a preset of RULES.md §12 plus overrides of single keys. A session copies the
    # resolved rules when it starts, so changing these never rewrites a played session.
    preset = models.CharField(_("preset"), max_length=30, default="standaard")
    rules = models.JSONField(_("rule overrides"), default=dict, blank=True)
    standings_public = models.BooleanField(_("public standings"), default=False)
    # Before a game the tablet shows each player's chance to become toepkoning, from the
    # ratings (scoring/ratings/): off unless the club wants it.
    win_chance = models.BooleanField(
        _("kans op toepkoning tonen"),
        default=False,
        help_text=_(
            "Voor de eerste ronde toont de tablet de kans van elke speler om toepkoning te "
            "worden, uit de rating van de club. Uit: niemand ziet kansen."
        ),
    )

    class AgreementRule(models.TextChoices):
        # Short: the dropdown must fit a tablet's admin form; the help text tells the rest.
        ALL = "all", _("alle spellen")
        AGREED = "agreed", _("alleen met akkoord")

    # Which games the standings count (scoring/models/lei.py, ``counted_for``).
    agreement_rule = models.CharField(
        _("stand telt"),
        max_length=10,
        choices=AgreementRule.choices,
        default=AgreementRule.ALL,
        help_text=_(
            "Aan het eind van een spel zegt de tafel op de tablet 'akkoord' of 'niet akkoord'. "
            "Alle spellen: de stand en de rating tellen elk spel, een betwist spel krijgt een "
            "markering. Alleen met akkoord: een spel telt pas als de tafel akkoord gaf of de "
            "clubbeheerder het accepteerde."
        ),
    )
    # The club's pictures for a group chat (scoring/picture.py) speak its language, whoever
    # asks: a chat's preview is fetched by a robot without one.
    language = models.CharField(
        _("taal van de club"), max_length=8, choices=settings.LANGUAGES, default="nl"
    )
    # The sites that may show the standings in a frame (scoring/league/embed_views.py).
    embed_origins = models.TextField(
        _("sites die de stand tonen"),
        blank=True,
        validators=[validate_origins],
        help_text=_(
            "Eén adres per regel, zoals https://www.toepclub.nl: alleen die sites mogen de stand "
            "en de avonden in hun pagina tonen. Leeg: geen enkele. Alleen als de stand openbaar is."
        ),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name

    @property
    def frame_origins(self) -> list[str]:
        """The origins named in ``embed_origins``, as CSP's frame-ancestors takes them."""
        return origins_of(self.embed_origins)


class Player(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="players", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=40)
    # What a typed name is matched by (scoring/names.py): kept in step with ``name`` by save().
    name_key = models.CharField(_("name as compared"), max_length=160, editable=False, default="")
    is_guest = models.BooleanField(_("guest"), default=False)
    public_initials = models.BooleanField(_("only initials in public"), default=False)
    # A guest typed on a scorer link's tablet is not public (initials, no player page) until a
    # member of the club confirms them; ``added_in`` is the game whose link added them.
    confirmed = models.BooleanField(_("confirmed by the club"), default=True)
    added_in = models.ForeignKey(
        "scoring.Session",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="link_guests",
        verbose_name=_("added by the scorer link of"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("user"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            # Anne and anne are one person at the table: the lei matches names ignoring case.
            models.UniqueConstraint(
                models.F("club"),
                Lower("name"),
                name="player_name_unique_in_club_ignoring_case",
                # What a form shows when the database's comparison finds a name the lei's
                # (scoring/names.py) did not: the same words, never the constraint's name.
                violation_error_message=_(
                    "The club has a player of this name already (as the lei compares names)."
                ),
            ),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
            models.CheckConstraint(
                condition=Q(confirmed=True) | Q(public_initials=True),
                name="player_unconfirmed_shown_by_initials",
                violation_error_message=_(
                    "A guest the club has not confirmed is shown by initials only: "
                    "confirm them first."
                ),
            ),
        ]
        indexes = [models.Index(fields=["club", "name_key"], name="player_club_name_key")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The key follows the name wherever it is saved (admin, services, import, tests).
        self.name_key = names.name_key(self.name)
        fields = kwargs.get("update_fields")
        if fields is not None and "name" in fields and "name_key" not in fields:
            kwargs["update_fields"] = [*fields, "name_key"]
        super().save(*args, **kwargs)

    @property
    def initials(self) -> str:
        return names.initials(self.name)

    def public_name(self) -> str:
        """The name on a public page: initials for who asked for them, and for a guest the
        club has not confirmed yet."""
        return self.initials if self.public_initials or not self.confirmed else self.name


class ClubMembership(models.Model):
    class Role(models.TextChoices):
        ADMIN = "admin", _("admin")
        SCORER = "scorer", _("scorer")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("club")
    )
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
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=60)
    starts_on = models.DateField(_("starts on"))
    ends_on = models.DateField(_("ends on"), null=True, blank=True)
    ranking = models.JSONField(_("ranking"), default=default_ranking, blank=True)
    # Evenings (days with a finished game) a player needs to be ranked; below it they are
    # listed under the ranked players as not yet ranked.
    min_sessions = models.PositiveSmallIntegerField(
        _("minimum evenings to be ranked"),
        default=0,
        help_text=_("Players with fewer evenings are listed apart, not yet ranked. 0: everyone."),
    )

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


class ClubInvitation(models.Model):
    """A link that makes whoever opens it, signed in, a member of the club (and, when it names
    one, the club's player of that account): how a club admin adds a member, never by typing a
    username, which would tell who has an account. Used once; it expires."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("club")
    )
    role = models.CharField(
        _("role"),
        max_length=10,
        choices=ClubMembership.Role.choices,
        default=ClubMembership.Role.SCORER,
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations",
        verbose_name=_("player"),
        help_text=_(
            "The club's player who is the invited person (optional): linked to their account "
            "when they accept."
        ),
    )
    note = models.CharField(
        _("for whom"),
        max_length=100,
        blank=True,
        help_text=_("Only for the club's admins: who this invitation is for."),
    )
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=new_invitation_token, editable=False
    )
    expires_at = models.DateTimeField(_("open until"), default=invitation_expiry)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("made by"),
    )
    created_at = models.DateTimeField(_("made"), default=timezone.now, editable=False)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("accepted by"),
    )
    accepted_at = models.DateTimeField(_("accepted"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=["admin", "scorer"]), name="invitation_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.note or f"{self.club} ({self.get_role_display()})"

    @property
    def is_open(self) -> bool:
        return self.accepted_at is None and self.expires_at > timezone.now()
