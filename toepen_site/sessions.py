"""Django's database sessions, read in one written-out statement (``SESSION_ENGINE``).

Every request of a tablet or a member reads its session (the scorer's grant, the login): the
ORM's ``get`` builds and compiles that query again each time, which cost a tap more than its
database. The read is the same statement Django's ``SessionStore`` makes, with the same
answer: the session's data while it has not expired, else none (and the key forgotten, so a
fresh session is made when something is stored). Writes, deletes and ``clearsessions`` are
Django's own.

Gain: with the round a tap changes stored in its tail (``hotsql.write_tail``), a change 0.90 of
its cost with the ORM's read and save (``make bench-change``, 2026-11-29); kept for issue 46's
change at 0.4 of 71a9134, met only with it (BENCHMARKS.md, "The cost of a change").
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    def load(self) -> dict[str, Any]:
        if not self.session_key:
            return {}
        model = self.model
        connection = connections[router.db_for_read(model)]
        table, name = model._meta.db_table, connection.ops.quote_name
        sql = (
            f"SELECT {name('session_data')} FROM {name(table)}"  # noqa: S608
            f" WHERE {name('session_key')} = %s AND {name('expire_date')} > %s"
        )
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return {}
        return self.decode(row[0])
