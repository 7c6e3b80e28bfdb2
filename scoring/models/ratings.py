"""A club's ratings: one OpenSkill snapshot per player per rated game, recomputed from the
club's history whenever that history changes (``scoring.ratings.services``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.models.clubs import Club, Player
from scoring.models.lei import Session


class RatingSnapshot(models.Model):
    """A player's rating after one game (``seq``: the game's place in the club's rated order,
    from 1). ``latest`` marks each player's newest snapshot: the club's ratings page reads
    those alone."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player")
    )
    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="+", verbose_name=_("session")
    )
    seq = models.PositiveIntegerField(_("game number"))
    games = models.PositiveIntegerField(_("games rated"))
    mu = models.FloatField("mu")
    sigma = models.FloatField("sigma")
    latest = models.BooleanField(default=False)

    class Meta:
        ordering = ["player", "seq"]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["player", "session"], name="rating_one_per_game"),
        ]
        indexes = [
            models.Index(fields=["club", "latest"], name="rating_club_latest"),
            models.Index(fields=["player", "seq"], name="rating_player_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.player} #{self.seq}: {self.ordinal:.1f}"

    @property
    def ordinal(self) -> float:
        """The one number shown: mu - 3 sigma, what the club is nearly sure the player is worth."""
        return self.mu - 3 * self.sigma


class RatingState(models.Model):
    """Of which history a club's snapshots were computed (``key``): a page that finds another
    key recomputes them, so they never drift from the games."""

    club = models.OneToOneField(
        Club, on_delete=models.CASCADE, related_name="rating_state", verbose_name=_("club")
    )
    key = models.CharField(max_length=64, blank=True, default="")
    games = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.club} ({self.games})"
