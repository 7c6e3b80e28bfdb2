"""`manage.py prune_keys [--days N]`: forget the idempotency keys of taps older than N days.

Every tap stores its key with the answer it got (`IdempotencyKey`), so that a retry over bad
wifi is recorded once. A key is needed only while its tablet may still retry; run this daily
(cron or a systemd timer, next to Django's `clearsessions`). A retry after its key is gone is
refused as stale, never applied twice (`funnel.prune_idempotency_keys`). The tap limit's
counts whose burst is whole again go too: they say no more than no count
(`scoring/lei/taplimit.py`); and the push streams' notes that nobody renewed
(`scoring/lei/watch.py`).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.lei import funnel, taplimit, watch


class Command(BaseCommand):
    help = "Forget the idempotency keys of taps older than --days (default 2)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=float, default=2.0, help="keep keys younger than this")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if not days > 0:
            raise CommandError("--days must be more than 0")
        removed = funnel.prune_idempotency_keys(older_than=datetime.timedelta(days=days))
        self.stdout.write(f"{removed} idempotency keys older than {days:g} days removed")
        self.stdout.write(f"{taplimit.prune_tap_allowances()} tap counts removed")
        self.stdout.write(f"{watch.prune()} push notes removed")
