"""How often a tap waits on PostgreSQL, and the COMMIT that goes with a write's last statements
(``hotsql.Writes.send(commit=True)``).

A round trip is a wait of the app server on the database: under load each is a turn in the
queue for the cores, and with PostgreSQL on another machine it is a network round trip too.
They are counted in libpq's own trace of the protocol: each time the client, having sent
something, reads what the server answers. These tests run on PostgreSQL with real transactions
(a test's own transaction would make every write's block a nested one)."""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Iterator

import pytest
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from psycopg import pq

from scoring import hotsql, services
from scoring.models import AuditEntry, Round, Session
from tests.conftest import PEOPLE, play_rounds

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's protocol"),
]

HX = {"HTTP_HX_REQUEST": "true"}


class Trace:
    """libpq's trace of one block: ``round_trips``, and the statements sent in each."""

    def __init__(self, text: str) -> None:
        self.batches: list[list[str]] = []
        sending = False
        for line in text.splitlines():
            direction, _, message = line.split("\t")[:3]
            if direction == "F" and not sending:
                self.batches.append([])
            sending = direction == "F"
            if direction == "F" and message in ("Parse", "Query"):
                sql = line.split("\t")[3].split('"')[3 if message == "Parse" else 1]
                self.batches[-1].append(sql.split()[0])

    @property
    def round_trips(self) -> int:
        return len(self.batches)


@contextlib.contextmanager
def traced() -> Iterator[list[Trace]]:
    connection.ensure_connection()
    psycopg_connection = connection.connection
    pgconn = psycopg_connection.pgconn
    # Every statement with its text (a prepared one is sent by name): the same round trips.
    threshold, psycopg_connection.prepare_threshold = psycopg_connection.prepare_threshold, None
    out: list[Trace] = []
    with tempfile.TemporaryFile() as file:
        pgconn.trace(file.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield out
        finally:
            pgconn.untrace()
            psycopg_connection.prepare_threshold = threshold
        file.seek(0)
        out.append(Trace(file.read().decode()))


def test_a_tap_from_a_tablet_with_the_scorer_link_waits_on_postgresql_five_times(client, session):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    assert client.get(reverse("scorer_link", args=[session.scorer_token])).status_code == 302
    session.refresh_from_db()
    # The tablet says which sheet it shows, as every tap does: a knock leaves it as it is, so
    # the answer is the round section alone (a tap that ends a round draws the sheet, and asks
    # for its corrected rounds in a sixth round trip).
    page = client.get(reverse("tablet", args=[session.pk])).content.decode()
    sheet = re.search(r'data-sheet="([^"]*)"', page).group(1)
    data = {
        "type": "knock",
        "player": "Bas",
        "version": session.version,
        "key": "rt-1",
        "sheet": sheet,
    }
    url = reverse("session_event", args=[session.pk])
    connection.ensure_connection()  # the test client's request keeps Django's connection
    with traced() as trace:
        response = client.post(url, data, **HX)
    assert response.status_code == 200
    batches = [batch[:1] for batch in trace[0].batches]
    # 1. the Django session (the scorer link it holds); 2. the session with its club: may this
    # tablet score it; 3. BEGIN, which psycopg sends alone; 4. the lock with the key, the seats
    # and the rounds (hotsql.lock_and_read); 5. the new round, the session's version, the audit
    # entry and the key's answer, with the COMMIT.
    assert trace[0].round_trips == 5, trace[0].batches
    assert batches[2] == ["BEGIN"]
    assert trace[0].batches[3] == ["SELECT"] * 4
    assert trace[0].batches[4][-1] == "COMMIT"
    assert session.rounds.count() == 4  # stored, and committed: the test sees it


def test_a_write_sends_its_commit_with_its_last_statements(session):
    with traced() as trace:
        services.session_record_event(
            session=session, event={"type": "win", "player": "Anne"}, version=0, key="rt-2"
        )
    # BEGIN; the lock and the log; the new round (its key is needed by its scores); the
    # scores, results, version, audit entry and key, with the COMMIT. No round trip of its own
    # for the COMMIT at the end of the block.
    assert trace[0].round_trips == 4, trace[0].batches
    assert trace[0].batches[-1][-1] == "COMMIT"
    assert sum(batch.count("COMMIT") for batch in trace[0].batches) == 1
    assert Round.objects.filter(session=session).count() == 1


def test_the_commit_is_sent_only_by_the_outermost_block(session):
    """Nested in another block (or a test's transaction) the write's block does not own the
    transaction: it sends no COMMIT, and the outer block's rollback takes the write back."""
    traces: list[Trace] = []

    def write_in_a_block_that_fails() -> None:
        with transaction.atomic():
            with traced() as trace:
                services.session_record_event(
                    session=session, event={"type": "win", "player": "Anne"}, version=0, key="rt-3"
                )
            traces.extend(trace)
            raise RuntimeError("the outer block fails")

    with pytest.raises(RuntimeError):
        write_in_a_block_that_fails()
    assert traces[0].round_trips > 1  # the write was sent
    assert not any("COMMIT" in batch for batch in traces[0].batches)
    assert not Round.objects.filter(session=session).exists()
    assert Session.objects.get(pk=session.pk).version == 0


def write_in_a_block(session: Session, *rows) -> None:
    """One write's block: the session's table renamed, ``rows`` inserted, and COMMIT."""
    with transaction.atomic():
        writes = hotsql.Writes()
        writes.update(Session(pk=session.pk, table_label="Tafel 9"), ["table_label"])
        for row in rows:
            writes.insert(row)
        writes.send(commit=True)


def test_the_callbacks_on_commit_run_after_a_write(session):
    ran = []
    with transaction.atomic():
        transaction.on_commit(lambda: ran.append("committed"))
        writes = hotsql.Writes()
        writes.update(Session(pk=session.pk, table_label="Tafel 9"), ["table_label"])
        writes.send(commit=True)
        assert ran == []  # not before the block ends, as Django does it
    assert ran == ["committed"]
    assert Session.objects.get(pk=session.pk).table_label == "Tafel 9"
    with connection.cursor() as cursor:  # the connection is idle and in autocommit again
        cursor.execute("SELECT 1")
    assert connection.get_autocommit()
    assert connection.connection.info.transaction_status == pq.TransactionStatus.IDLE


def test_a_statement_that_fails_takes_the_commit_and_the_batch_with_it(session):
    # The same round number twice: the second breaks the session's unique round numbers.
    rounds = [Round(session=session, number=1), Round(session=session, number=1)]
    with pytest.raises(IntegrityError):
        write_in_a_block(session, *rounds)
    assert Session.objects.get(pk=session.pk).table_label == ""
    assert not Round.objects.filter(session=session).exists()
    assert connection.get_autocommit()


def test_a_constraint_checked_at_commit_fails_the_block_and_stores_nothing(session):
    """PostgreSQL checks Django's foreign keys when the transaction commits (they are
    deferred), so the COMMIT sent with the batch is what fails: the error is raised in the
    block, and nothing of the batch is stored."""
    round_ = Round(session=session, number=1)
    orphan = AuditEntry(session_id=987654, club_id=session.club_id, action="event")
    with pytest.raises(IntegrityError):
        write_in_a_block(session, round_, orphan)
    assert Session.objects.get(pk=session.pk).table_label == ""
    assert not Round.objects.filter(session=session).exists()
    assert not AuditEntry.objects.filter(session_id=987654).exists()
    services.session_record_event(  # and the next write goes through
        session=session, event={"type": "win", "player": PEOPLE[0]}, version=0, key="rt-4"
    )
    assert Session.objects.get(pk=session.pk).version == 1
