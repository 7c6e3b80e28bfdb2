"""manage.py export_session ID: a session as a toepen/1 file on stdout."""

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Session


class Command(BaseCommand):
    help = "Print a session as a toepen/1 session file."

    def add_arguments(self, parser):
        parser.add_argument("id", type=int, help="the session's id")

    def handle(self, *args, id, **options):
        session = Session.objects.filter(pk=id).first()
        if session is None:
            raise CommandError(f"there is no session {id}")
        self.stdout.write(json.dumps(session.to_file(), ensure_ascii=False, indent=1))
