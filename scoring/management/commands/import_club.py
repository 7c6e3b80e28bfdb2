"""manage.py import_club FILE [--club SLUG]: a club exported by export_club, into this database."""

from django.core.management.base import BaseCommand, CommandError

from scoring import writes
from scoring.engine import Refusal
from scoring.lei import clubfile_import
from scoring.sessionfile import MAX_CLUB_BYTES, SessionFileError, load_json, read_text


class Command(BaseCommand):
    help = "Load a club exported by export_club (- for stdin). An existing club is never touched."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export, or - to read it from stdin")
        parser.add_argument("--club", help="refuse the file unless it is this club's (a slug)")

    def handle(self, *args, file, club, **options):
        try:
            text = read_text(file, limit=MAX_CLUB_BYTES, what="club export")
            data = load_json(text, what="club export")
            imported = clubfile_import.club_import(data=data, slug=club)
        except (OSError, SessionFileError, writes.ServiceError) as error:
            raise CommandError(str(error)) from None
        except Refusal as refusal:
            raise CommandError(str(refusal)) from None
        self.stdout.write(
            f"Imported {imported.name} ({imported.slug}): {imported.players.count()} players, "
            f"{imported.sessions.count()} sessions."
        )
