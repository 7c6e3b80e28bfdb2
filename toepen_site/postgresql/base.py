"""Django's PostgreSQL backend with a health check that costs no round trip, and a cursor kept
for the hot paths' single statements (``scoring.lei.hotsql``).

Django's ``CONN_HEALTH_CHECKS`` sends ``SELECT 1`` before each request's first query; a
connection PostgreSQL ended has the server's goodbye to read while idle, so an idle connection
whose socket is quiet is used without asking (otherwise Django's check decides). Switched off,
the Friday-night mix costs 24 % more CPU a request (BENCHMARKS.md, "Ablation"). ``run`` and
``run_together`` (one round trip for a tap's reads, psycopg's pipeline) go through Django's
cursor while something watches the statements (``DEBUG``'s log, the tests' query counts).
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
