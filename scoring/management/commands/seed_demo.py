"""manage.py seed_demo: a demo club to click through, made once (running it again is harmless)."""

import datetime
import random

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from scoring.lei import services
from scoring.models import Club, ClubMembership, Player, Season, Session

SLUG = "de-gouden-boer"
PLAYERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur", "Gijs", "Hanna"]


class Command(BaseCommand):
    help = 'A demo club "De Gouden Boer" with players, a season and sessions (DEBUG: users too).'

    def handle(self, *args, **options):
        with transaction.atomic():
            club = Club.objects.filter(slug=SLUG).first()
            if club is None:
                club = self._club()
            else:
                self.stdout.write(f"The demo club {SLUG} is there already.")
            if settings.DEBUG:
                self._users(club)

    def _users(self, club):
        """Known passwords, so only on a development machine (DEBUG)."""
        User = get_user_model()
        if not User.objects.filter(username="admin").exists():
            User.objects.create_superuser("admin", password="admin")  # noqa: S106
            self.stdout.write("Created the superuser admin (password admin).")
        beheer = User.objects.filter(username="beheer").first()
        if beheer is None:
            beheer = User.objects.create_user("beheer", password="beheer")  # noqa: S106
            self.stdout.write("Created the user beheer (password beheer), admin of the club.")
        # A club admin is a staff user with an admin membership, and nothing more: the admin
        # takes every right from that membership (scoring/admin_base.py), no Django permissions.
        if not beheer.is_staff:
            beheer.is_staff = True
            beheer.save(update_fields=["is_staff"])
        ClubMembership.objects.update_or_create(
            user=beheer, club=club, defaults={"role": ClubMembership.Role.ADMIN}
        )

    def _club(self):
        club = Club.objects.create(name="De Gouden Boer", slug=SLUG, standings_public=True)
        for name in PLAYERS:
            Player.objects.create(club=club, name=name)
        today = datetime.date.today()
        season = Season.objects.create(
            club=club, name=f"Seizoen {today.year}", starts_on=datetime.date(today.year, 1, 1)
        )
        rng = random.Random(1978)
        tables = [PLAYERS[:4], PLAYERS[2:7], PLAYERS[4:8] + PLAYERS[:1]]
        for days_ago, players in zip((21, 14, 7), tables, strict=True):
            session = services.session_start(
                club=club,
                players=players,
                season=season,
                table_label="Stamtafel",
                played_on=today - datetime.timedelta(days=days_ago),
            )
            _play(session, rng, rounds=None)
        running = services.session_start(
            club=club, players=PLAYERS[:5], season=season, table_label="Bar"
        )
        _play(running, rng, rounds=4)
        self.stdout.write(
            f"Created {club.name} ({SLUG}): {len(PLAYERS)} players, the season {season.name}, "
            f"{Session.objects.for_club(club).finished().count()} finished sessions and one "
            f"running at the bar (session {running.pk})."
        )
        return club


def _play(session, rng, *, rounds):
    """Play rounds through the services: now and then a knock, then someone wins."""
    played = 0
    key = 0
    result = None
    while rounds is None or played < rounds:
        view = result.what_now() if result else None
        if view is not None and view.finished:
            break
        if view is not None:
            knockers = [p for p, refusal in view.may_knock.items() if refusal is None]
            if knockers and rng.random() < 0.3:
                key += 1
                outcome = services.session_record_event(
                    session=session,
                    event={"type": "knock", "player": rng.choice(knockers)},
                    version=session.version,
                    key=f"seed-{key}",
                )
                view = outcome.result.what_now()
            winner = rng.choice(view.active)
        else:
            winner = rng.choice([seat.player.name for seat in session.seats.all()])
        key += 1
        result = services.session_record_event(
            session=session,
            event={"type": "win", "player": winner},
            version=session.version,
            key=f"seed-{key}",
        ).result
        played += 1
