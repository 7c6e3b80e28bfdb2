"""What the push room's tests share: the drawing threads' connections closed after a test."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.db import connections

from scoring.push import fragments


@pytest.fixture
def drawing_threads_closed() -> Iterator[None]:
    """After the test, each drawing thread's own database connection closed: the test database
    can then be dropped, and a later test without one does not find it open."""
    yield
    workers = fragments._POOL._max_workers
    together = threading.Barrier(workers)

    def close() -> None:
        together.wait(timeout=10)  # one call on each thread
        connections.close_all()

    for done in [fragments._POOL.submit(close) for _ in range(workers)]:
        done.result()
