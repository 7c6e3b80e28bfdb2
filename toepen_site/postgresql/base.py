"""Django's PostgreSQL backend, with a health check that costs no round trip, and a cursor
kept for the hot paths' single statements.

With ``CONN_HEALTH_CHECKS`` Django asks a kept connection ``SELECT 1`` before a request's first
query, so that a connection PostgreSQL has ended (a restart, a failover, an idle timeout,
``pg_terminate_backend``) is replaced instead of failing the request. That is one round trip
more on every request that uses the database: half the work of a viewer's 304, which is one
query (BENCHMARKS.md, "Friday night at scale").

A connection PostgreSQL has ended has something to read while it is idle: the server's
goodbye, or the end of the stream. So an idle connection whose socket has nothing to read is
taken as usable without asking; when it has something, or is inside a transaction, Django's
own ``SELECT 1`` decides, as before. (A server that vanished without a word, its host
unplugged, is found by neither before the query's own timeout.)

``run`` is for ``scoring.hotsql``: one statement, run as Django's cursor runs it (the health
check, the connection, the broken-transaction check, Django's exceptions) on a psycopg cursor
the connection keeps, instead of a new cursor and Django's wrapper for each. A viewer's poll is
one statement, and those two cost about 40 µs of its CPU, as much as psycopg's own work to send
it and read the answer (BENCHMARKS.md, "Friday night at scale"). While something watches the
statements (the query log of ``DEBUG`` and of the tests' query counts, an execute wrapper),
``run`` goes through Django's cursor as before, so they see every one. ``run_together`` does
the same for statements sent in one round trip (psycopg's pipeline mode): a tap's lock and
reads, and its writes.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import Sequence
from typing import Any

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    _kept_cursor: Any = None

    def run(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of one statement (none for a write)."""
        if self.queries_logged or self.execute_wrappers:
            with self.cursor() as cursor:
                cursor.execute(sql, params)
                return _rows(cursor)
        self._check_as_a_cursor_does()
        with self.wrap_database_errors:
            cursor = self._kept_cursor
            if cursor is None or cursor.closed or cursor.connection is not self.connection:
                cursor = self._kept_cursor = self.create_cursor()  # a new connection
            cursor.execute(sql, params)
            return _rows(cursor)

    def run_together(
        self, statements: Sequence[tuple[str, Sequence[Any]]]
    ) -> list[list[tuple[Any, ...]]]:
        """The rows of each statement (none for a write), all sent in one round trip: psycopg's
        pipeline mode, on psycopg cursors made for them, checked once as ``run`` checks its
        statement. Through Django's cursors, as ``run``, while something watches."""
        watched = self.queries_logged or self.execute_wrappers
        if not watched:
            self._check_as_a_cursor_does()
        # Django's exceptions, for what the cursors and the pipeline's end raise.
        with contextlib.ExitStack() as stack, self.wrap_database_errors:
            make = self.cursor if watched else self.create_cursor
            cursors = [stack.enter_context(make()) for _ in statements]
            with self.connection.pipeline():
                for cursor, (sql, params) in zip(cursors, statements, strict=True):
                    cursor.execute(sql, params)
            # Read once the pipeline has ended: its end fetches every answer in the one round
            # trip that ends it (a read inside it would ask for them in one more).
            return [_rows(cursor) for cursor in cursors]

    def _check_as_a_cursor_does(self) -> None:
        """What ``self.cursor()`` and its wrapper's ``execute()`` check, in their order."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        self.validate_thread_sharing()
        self.validate_no_broken_transaction()

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed:
            return False
        if connection.info.transaction_status == pq.TransactionStatus.IDLE:
            waiting = select.poll()
            try:
                waiting.register(connection.fileno(), select.POLLIN)
                if not waiting.poll(0):
                    return True
            except (OSError, ValueError):
                return False
        return super().is_usable()


def _rows(cursor: Any) -> list[tuple[Any, ...]]:
    """What a statement's cursor holds: its rows, none for a write. (On a psycopg cursor,
    ``rownumber`` tells whether it gave rows, without describing their columns; Django's
    wrapper of one passes it on.)"""
    return cursor.fetchall() if cursor.rownumber is not None else []
