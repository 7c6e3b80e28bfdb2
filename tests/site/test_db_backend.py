"""PostgreSQL's connections as the app keeps them (``CONN_MAX_AGE``, ``CONN_HEALTH_CHECKS``): one
that PostgreSQL ended (a restart, a failover) is replaced before the request's first query."""

import time

import pytest
from django.db import connection, connections

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
]


@pytest.fixture
def second_connection():
    """A second connection to the test database, as an app server's worker keeps one."""
    wrapper = connections.create_connection("default")
    wrapper.ensure_connection()
    assert wrapper.health_check_enabled  # CONN_HEALTH_CHECKS, as in production
    yield wrapper
    wrapper.close()


def backend(wrapper) -> tuple[int, str]:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0], "SELECT pg_backend_pid()"


def last_statement(pid: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone()[0]


def start_request(wrapper) -> None:
    """What Django does when a request starts: the check runs before its first query."""
    wrapper.close_if_unusable_or_obsolete()
    assert not wrapper.health_check_done


def end_on_the_server(wrapper) -> int:
    """End ``wrapper``'s connection from PostgreSQL's side, as a restart does, and wait until
    the connection has heard of it; its backend's pid."""
    pid, _ = backend(wrapper)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 5
    while wrapper.is_usable() and time.monotonic() < deadline:  # the goodbye is on its way
        time.sleep(0.01)
    return pid


def test_a_connection_the_server_ended_is_replaced_before_the_first_query(second_connection):
    pid = end_on_the_server(second_connection)
    assert not second_connection.is_usable()

    start_request(second_connection)
    with second_connection.cursor() as cursor:  # no error: a new connection
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_inside_a_transaction_the_server_is_asked(second_connection):
    pid, _ = backend(second_connection)
    second_connection.set_autocommit(False)
    with second_connection.cursor() as cursor:
        cursor.execute("SELECT 1 + 1")  # the transaction has begun
    assert second_connection.is_usable()
    assert last_statement(pid) == "SELECT 1"  # Django's own check
    second_connection.rollback()
    second_connection.set_autocommit(True)
