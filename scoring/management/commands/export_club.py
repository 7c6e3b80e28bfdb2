"""manage.py export_club SLUG: a whole club as JSON on stdout (backups, moving servers)."""

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.lei.clubfile import club_to_file
from scoring.models import Club


class Command(BaseCommand):
    help = "Print a club with its players, seasons, sessions and audit trail as JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the club's slug")

    def handle(self, *args, slug, **options):
        club = Club.objects.filter(slug=slug).first()
        if club is None:
            raise CommandError(f"there is no club {slug!r}")
        self.stdout.write(json.dumps(club_to_file(club), ensure_ascii=False, indent=1))
