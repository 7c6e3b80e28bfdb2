"""manage.py import_session FILE --club SLUG [--season NAME]: a toepen/1 file into the database."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scoring import writes
from scoring.engine import Refusal
from scoring.lei import services
from scoring.models import Club, Season
from scoring.sessionfile import MAX_SESSION_BYTES, SessionFileError, load_json, read_text


class Command(BaseCommand):
    help = "Store a toepen/1 session file (- for stdin) for a club; prints the new session's id."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the session file, or - to read it from stdin")
        parser.add_argument("--club", required=True, help="the club's slug (made if missing)")
        parser.add_argument("--season", help="the name of one of the club's seasons")

    def handle(self, *args, file, club, season, **options):
        try:
            data = load_json(read_text(file, limit=MAX_SESSION_BYTES))
        except (OSError, SessionFileError) as error:
            raise CommandError(str(error)) from None
        try:
            # One transaction: a refused file leaves no club and no guests behind.
            with transaction.atomic():
                the_club, _ = Club.objects.get_or_create(slug=club, defaults={"name": club})
                the_season = None
                if season:
                    the_season = Season.objects.filter(club=the_club, name=season).first()
                    if the_season is None:
                        raise CommandError(f"the club {club} has no season {season!r}")
                session = services.session_import(club=the_club, data=data, season=the_season)
        except Refusal as refusal:
            raise CommandError(str(refusal)) from None
        except writes.ServiceError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(str(session.pk))
