"""A PostgreSQL connection ended mid-request (a restart, a failover) is a moment's trouble, not a
server error (issue 43 item 6): a 503 with ``Retry-After`` in the person's language, from
``toepen_site.middleware.DatabaseGoneMiddleware``; the tablet's outbox sends the tap again
with its key, and it is stored once."""

from __future__ import annotations

import pytest
from django.db import connection, connections
from django.urls import reverse

from scoring.models import AuditEntry, Session
from tests.builders import HX, new_key

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
]


@pytest.fixture
def ends_mid_request():
    """While on: the first locking query of a request finds its connection ended by the
    server (``pg_terminate_backend`` from a second connection, waiting until it is gone)."""
    other = connections.create_connection("default")
    other.ensure_connection()
    armed = {"on": False, "ended": 0}

    def wrapper(execute, sql, params, many, context):
        if armed["on"] and "FOR UPDATE" in sql:
            armed["on"] = False
            pid = context["connection"].connection.info.backend_pid
            with other.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
                armed["ended"] += cursor.fetchone()[0]
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield armed
    other.close()


def a_tap(session: Session, key: str) -> dict[str, object]:
    return {"type": "win", "player": "Anne", "version": session.version, "key": key}


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("nl", "De verbinding met de database viel even weg."),
        ("en", "The connection to the database dropped for a moment."),
    ],
)
def test_a_tap_whose_connection_ends_is_a_503_and_its_retry_is_stored_once(
    scorer, session, ends_mid_request, language, words
):
    url = reverse("session_event", args=[session.pk])
    tap = a_tap(session, new_key())
    ends_mid_request["on"] = True
    lost = scorer.post(url, tap, HTTP_ACCEPT_LANGUAGE=language, **HX)
    assert ends_mid_request["ended"] == 1  # the server did end it, mid-request
    assert lost.status_code == 503
    assert lost["Retry-After"] == "2"
    assert words in lost.content.decode()
    assert "no-store" in lost["Cache-Control"]
    session.refresh_from_db()
    assert session.version == 0  # nothing of the tap was stored
    again = scorer.post(url, tap, HTTP_ACCEPT_LANGUAGE=language, **HX)  # the outbox's retry
    assert again.status_code == 200
    assert scorer.post(url, tap, **HX).status_code == 200  # and once more: the same answer
    session.refresh_from_db()
    assert session.version == 1
    assert AuditEntry.objects.filter(session=session, action="event").count() == 1
