"""Django's PostgreSQL backend, with a health check that costs no round trip.

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
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
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
