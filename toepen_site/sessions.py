"""Django's database sessions, each read with one statement written out once.

Every tap of a tablet reads its Django session (the scorer link it holds, or who is logged in),
and building that lookup with the ORM cost 0.28 ms of CPU against 0.08 ms to run it written out
(BENCHMARKS.md, "Friday night at scale"). Everything else is Django's own database session
engine: saving, expiry, ``clearsessions``, the cookie. ``SESSION_ENGINE`` names this module.
"""

from __future__ import annotations

from functools import cache

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.utils import timezone


@cache
def _load_sql(vendor: str) -> str:
    ops = connections[router.db_for_read(Session)].ops
    table = ops.quote_name(Session._meta.db_table)
    return (
        f"SELECT {ops.quote_name('session_data')} FROM {table}"  # noqa: S608
        f" WHERE {ops.quote_name('session_key')} = %s AND {ops.quote_name('expire_date')} > %s"
    )


class SessionStore(DatabaseSessionStore):
    def _get_session_from_db(self) -> Session | None:
        """The stored session of this key while it has not expired, as Django's own does."""
        connection = connections[router.db_for_read(self.model)]
        with connection.cursor() as cursor:
            cursor.execute(
                _load_sql(connection.vendor),
                [self.session_key, connection.ops.adapt_datetimefield_value(timezone.now())],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None  # as Django's: a new key is made when it is saved
            return None
        return self.model(session_key=self.session_key, session_data=row[0])
