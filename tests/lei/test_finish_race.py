"""A tap that races "Spel beëindigen" on a game without a finished round: the end throws the
game away (``services.session_discard``), and the tap, which found the game when its access
was checked and then waited for the game's lock, hears that the game was thrown away, with
nothing stored, where it was a server error (Session.DoesNotExist, 7 of 12 tries).

Both tests pin the moment instead of hoping for it: on PostgreSQL the end holds the game's row
lock until the tap is seen waiting for it (``pg_stat_activity``); on every database the end
runs, on a connection of its own, just before the tap's write opens its transaction."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from scoring.models import AuditEntry, ClubMembership, IdempotencyKey, Round, Session
from tests.builders import HX, make_club, make_session, record
from tests.lei.editor import editor_data

GONE = "dit spel is weggegooid"


@pytest.fixture
def table(django_user_model) -> dict[str, Any]:
    """A game whose first round has begun (Bas knocked) and none is finished, and two tablets
    of the club's admin at its table."""
    club = make_club()
    user = django_user_model.objects.create_user("beheer")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    session = make_session(club)
    record(session, "knock", "Bas")  # version 1
    tablets = [Client(), Client()]
    for tablet in tablets:
        tablet.force_login(user)
    return {"session": session, "ending": tablets[0], "tapping": tablets[1]}


def end(client: Client, session: Session):
    url = reverse("session_finish", args=[session.pk])
    return client.post(url, {"confirm": "ja", "version": 1, "key": "end"}, **HX)


def url(name: str, session: Session, *args: int) -> str:
    return reverse(name, args=[session.pk, *args])


# What the other tablet sends while the game is being ended.
TAP = {"type": "stay", "player": "Cees", "version": 1, "key": "tap"}
RACING = {
    "a tap": lambda c, s: c.post(url("session_event", s), TAP, **HX),
    "a tap without htmx": lambda c, s: c.post(url("session_event", s), TAP),
    "an undo": lambda c, s: c.post(url("session_undo", s), {"version": 1, "key": "u"}, **HX),
    "who is away": lambda c, s: c.post(
        url("session_presence", s), {"version": 1, "key": "away", "absent_0": "toilet"}, **HX
    ),
    "a second end": lambda c, s: end(c, s),
    "a correction": lambda c, s: c.post(
        url("round_edit", s, 1), editor_data(s, [{"type": "knock", "player": "Bas"}]), **HX
    ),
    "a new scorer link": lambda c, s: c.post(url("scorer_link_change", s), {"action": "renew"}),
}
PLAIN = {"a tap without htmx", "a new scorer link"}  # plain forms: a redirect, not htmx


def assert_told_it_was_thrown_away(response, client: Client, name: str) -> None:
    if name in PLAIN:
        assert response.status_code == 302
        assert response["Location"] == reverse("home")
        assert GONE in client.get(response["Location"]).content.decode()
        return
    # The tablet's outbox stops on a 4xx and shows its text; htmx follows HX-Redirect.
    assert response.status_code == 410
    assert GONE in response.content.decode()
    assert response["HX-Redirect"] == reverse("home")


def assert_thrown_away_once(session: Session) -> None:
    assert not Session.objects.filter(pk=session.pk).exists()
    assert AuditEntry.objects.filter(action="finish", after={"discarded": True}).count() == 1
    assert not Round.objects.exists()  # the begun round went with the game
    assert not IdempotencyKey.objects.exists()


def run_in_thread(work: Callable[[], Any], answers: dict, name: str) -> threading.Thread:
    def run() -> None:
        try:
            answers[name] = work()
        except BaseException as error:  # reported by the main thread
            answers[name] = error
        finally:
            connection.close()  # each thread has its own connection; give it back

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL only")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", list(RACING))
def test_a_request_waiting_for_the_lock_of_a_game_thrown_away_is_told_so(table, name):
    session = table["session"]
    waiting = threading.Event()
    locked = threading.Event()
    answers: dict[str, Any] = {}

    def ending() -> Any:
        # The end gets the game's lock first, and keeps it until the other tablet waits for it.
        with transaction.atomic():
            Session.objects.select_for_update().get(pk=session.pk)
            locked.set()
            assert waiting.wait(10), "the racing request never waited for the lock"
            return end(table["ending"], session)

    ender = run_in_thread(ending, answers, "end")
    assert locked.wait(10), "the end never took the game's lock"
    racer = run_in_thread(lambda: RACING[name](table["tapping"], session), answers, name)
    deadline = time.monotonic() + 10
    while not waiting_for_a_lock() and time.monotonic() < deadline:
        time.sleep(0.01)
    waiting.set()
    ender.join()
    racer.join()

    assert not isinstance(answers["end"], BaseException), answers["end"]
    assert answers["end"].status_code == 204  # thrown away, the tablet goes home
    assert not isinstance(answers[name], BaseException), answers[name]
    assert_told_it_was_thrown_away(answers[name], table["tapping"], name)
    assert_thrown_away_once(session)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", list(RACING))
def test_a_request_whose_game_is_thrown_away_just_before_its_write_is_told_so(table, name):
    """The same moment on SQLite too, which has no row locks to wait on: the end runs in a
    thread of its own (its own connection, committed) right before the racing request's write
    opens its transaction, after that request found the game and checked its access."""
    if connection.settings_dict.get("OPTIONS", {}).get("transaction_mode") == "IMMEDIATE":
        # With browser tests in the run SQLite is a file whose transactions take its one write
        # lock as they open (tests/conftest.py): the end's thread would wait for the request's
        # own transaction. The same moment runs on memory without them, and on PostgreSQL.
        pytest.skip("SQLite's write lock is taken as the request's transaction opens")
    session = table["session"]
    answers: dict[str, Any] = {}

    def end_first(execute, sql, params, many, context):
        if connection.in_atomic_block and "end" not in answers:
            run_in_thread(lambda: end(table["ending"], session), answers, "end").join()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(end_first):
        response = RACING[name](table["tapping"], session)

    assert answers["end"].status_code == 204
    assert_told_it_was_thrown_away(response, table["tapping"], name)
    assert_thrown_away_once(session)
