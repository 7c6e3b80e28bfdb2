"""The PostgreSQL backend (toepen_site/postgresql/base.py). Its health check: an idle, quiet
connection is used without a ``SELECT 1``; one that PostgreSQL ended is replaced before the
request's first query, as with Django's own check. Its ``run``: one statement on the cursor the
connection keeps, as Django's cursor runs it."""

import time

import pytest
from django.db import ProgrammingError, connection, connections
from django.test.utils import CaptureQueriesContext

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
]


@pytest.fixture
def other():
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


def test_a_quiet_idle_connection_is_used_without_asking_the_server(other):
    pid, statement = backend(other)
    start_request(other)
    with other.cursor() as cursor:  # the request's first query: the health check runs here
        assert other.health_check_done
        assert last_statement(pid) == statement  # no SELECT 1 was sent
        cursor.execute("SELECT 41 + 1")
        assert cursor.fetchone() == (42,)


def test_a_connection_the_server_ended_is_replaced_before_the_first_query(other):
    pid = end_on_the_server(other)
    assert not other.is_usable()

    start_request(other)
    with other.cursor() as cursor:  # no error: a new connection
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_inside_a_transaction_the_server_is_asked(other):
    pid, _ = backend(other)
    other.set_autocommit(False)
    with other.cursor() as cursor:
        cursor.execute("SELECT 1 + 1")  # the transaction has begun
    assert other.is_usable()
    assert last_statement(pid) == "SELECT 1"  # Django's own check
    other.rollback()
    other.set_autocommit(True)


def test_run_gives_the_rows_of_a_statement_and_none_of_a_write(other):
    assert other.run("SELECT %s + 1, %s", [41, "x"]) == [(42, "x")]
    assert other.run("SELECT 1 WHERE false", []) == []
    assert other.run("CREATE TEMPORARY TABLE t (x int)", []) == []
    assert other.run("INSERT INTO t VALUES (%s), (%s) RETURNING x", [1, 2]) == [(1,), (2,)]


def test_run_goes_on_after_the_connection_was_replaced(other):
    """The kept cursor belongs to one connection: a new connection gets a new cursor."""
    pid = other.run("SELECT pg_backend_pid()", [])[0][0]
    other.close()  # as CONN_MAX_AGE ends it, or the health check after a restart
    assert other.run("SELECT pg_backend_pid()", [])[0][0] != pid
    end_on_the_server(other)
    start_request(other)
    assert other.run("SELECT 42", []) == [(42,)]  # the health check replaced it first


def test_run_raises_djangos_exceptions(other):
    with pytest.raises(ProgrammingError):
        other.run("SELECT no_such_column FROM pg_class", [])
    assert other.run("SELECT 1", []) == [(1,)]


def test_run_is_in_the_query_log_while_queries_are_counted(other):
    with CaptureQueriesContext(other) as log:
        other.run("SELECT %s", [7])
        other.run("SELECT %s", [8])
    assert [q["sql"] for q in log] == ["SELECT 7", "SELECT 8"]


def test_run_together_gives_each_statements_rows_in_order(other):
    other.run("CREATE TEMPORARY TABLE t (x int)", [])
    assert other.run_together(
        [
            ("SELECT %s + 1, %s", [41, "x"]),
            ("INSERT INTO t VALUES (%s), (%s)", [1, 2]),
            ("SELECT 1 WHERE false", []),
            ("SELECT x FROM t ORDER BY x", []),  # it sees the write before it
        ]
    ) == [[(42, "x")], [], [], [(1,), (2,)]]


def test_run_together_raises_djangos_exceptions_and_runs_nothing_after_the_error(other):
    other.run("CREATE TEMPORARY TABLE t (x int)", [])
    with pytest.raises(ProgrammingError):
        other.run_together(
            [
                ("SELECT no_such_column FROM pg_class", []),
                ("INSERT INTO t VALUES (1)", []),
            ]
        )
    assert other.run_together([("SELECT count(*) FROM t", [])]) == [[(0,)]]


def test_run_together_is_in_the_query_log_while_queries_are_counted(other):
    with CaptureQueriesContext(other) as log:
        rows = other.run_together([("SELECT %s", [7]), ("SELECT %s", [8])])
    assert rows == [[(7,)], [(8,)]]
    assert [q["sql"] for q in log] == ["SELECT 7", "SELECT 8"]


def test_run_together_after_the_server_ended_the_connection(other):
    """Its statements are checked as a cursor's are: the health check replaces the
    connection before them."""
    end_on_the_server(other)
    start_request(other)
    assert other.run_together([("SELECT 42", []), ("SELECT 43", [])]) == [[(42,)], [(43,)]]
