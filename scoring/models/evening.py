"""A club evening: who is here, checked in by QR on their own phone or by the organiser, and
for an evening without a toernooi its rounds of tables, each an ordinary ``Session``. A
toernooi's QR check-in is an evening too (``tournament`` set): its tables are the toernooi's."""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models.clubs import Club, Player, Season
from scoring.models.lei import Session
from scoring.models.toernooi import Tournament


def new_checkin_token() -> str:
    return secrets.token_urlsafe(16)


class Evening(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="evenings", verbose_name=_("club")
    )
    tournament = models.OneToOneField(
        Tournament,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="evening",
        verbose_name=_("toernooi"),
    )
    date = models.DateField(_("datum"), default=timezone.localdate)
    season = models.ForeignKey(
        Season,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="evenings",
        verbose_name=_("season"),
    )
    table_size = models.PositiveSmallIntegerField(
        _("tafelgrootte"), choices=[(4, "4"), (5, "5")], default=4
    )
    # The QR's secret: None while check-in is closed; a new one (rotated) ends the old QR.
    checkin_token = models.CharField(
        _("QR-sleutel"), max_length=40, unique=True, null=True, blank=True, editable=False
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("clubavond")
        verbose_name_plural = _("clubavonden")
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__in=[4, 5]), name="evening_table_size_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.date}"


class EveningPlayer(models.Model):
    """A player checked in for an evening. ``phone`` is the cookie of the phone that did it
    (empty: the organiser); ``pending``: a new guest who added themselves, until the organiser
    confirms them."""

    evening = models.ForeignKey(
        Evening, on_delete=models.CASCADE, related_name="players", verbose_name=_("clubavond")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player")
    )
    phone = models.CharField(_("telefoon"), max_length=40, blank=True)
    # A new guest's address, keyed (``scoring.evening.flood.address_key``): the organiser
    # refuses a flood's guests by it in one go. Empty for everyone else.
    source = models.CharField(_("adres"), max_length=16, blank=True)
    pending = models.BooleanField(_("wacht op de organisator"), default=False)
    at = models.DateTimeField(_("aangemeld"), default=timezone.now)

    class Meta:
        ordering = ["evening", "at", "id"]
        verbose_name = _("aanmelding")
        verbose_name_plural = _("aanmeldingen")
        constraints = [
            models.UniqueConstraint(fields=["evening", "player"], name="eveningplayer_once"),
        ]
        indexes = [models.Index(fields=["evening", "phone"], name="eveningplayer_phone")]

    def __str__(self) -> str:
        return f"{self.evening}: {self.player}"


class EveningTable(models.Model):
    """A table of a round of a club evening without a toernooi; its game is ``session``."""

    evening = models.ForeignKey(
        Evening, on_delete=models.CASCADE, related_name="tables", verbose_name=_("clubavond")
    )
    round = models.PositiveSmallIntegerField(_("ronde"))
    number = models.PositiveSmallIntegerField(_("tafel"))
    session = models.OneToOneField(
        Session, on_delete=models.PROTECT, related_name="evening_table", verbose_name=_("session")
    )

    class Meta:
        ordering = ["evening", "round", "number"]
        verbose_name = _("tafel van de avond")
        verbose_name_plural = _("tafels van de avond")
        constraints = [
            models.UniqueConstraint(
                fields=["evening", "round", "number"], name="eveningtable_number_once"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(evening)s: ronde %(round)s, tafel %(number)s") % {
            "evening": self.evening,
            "round": self.round,
            "number": self.number,
        }


class CheckinAllowance(models.Model):
    """How many new guests one address has added on an evening's QR, as the generic cell rate
    algorithm counts them (``scoring.evening.flood``), and what it was refused: the organiser's
    screen shows an address refused as a flood."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="allowances")
    source = models.CharField(max_length=16)  # the address, keyed
    # When this address's burst is whole again, in milliseconds since 1970.
    full_at = models.BigIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0)  # new guests refused since the last clear
    refused_at = models.DateTimeField(null=True, blank=True)  # the first of those

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["evening", "source"], name="checkinallowance_one_per_address"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evening}: {self.source}"
