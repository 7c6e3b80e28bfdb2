"""Django's PostgreSQL backend with a health check that costs no round trip.

Django's ``CONN_HEALTH_CHECKS`` sends ``SELECT 1`` before each request's first query; a
connection PostgreSQL ended has the server's goodbye to read while idle, so an idle connection
whose socket is quiet is used without asking (otherwise Django's check decides). Gain: none
measurable in the Friday-night mix (-2 %; a 304 poll 8 %), under the 10 % bar (BENCHMARKS.md,
"Ablation").
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
