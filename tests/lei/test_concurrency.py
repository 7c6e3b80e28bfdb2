"""Many tablets at one table: writes are serialized per session, none lost, none doubled."""

import threading
from collections import Counter

import pytest
from django.db import close_old_connections, connection

from scoring.engine import replay
from scoring.lei import funnel, services
from scoring.models import Club, IdempotencyKey, Round, RoundScore, Session, SessionResult

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite has no row locks and serializes whole-database writes, "
    "so it cannot show what select_for_update does (set DATABASE_URL to a PostgreSQL database)",
)

THREADS = 20
# 200 rounds, all on one session: every stale retry locks and reads the whole log again, so the
# cost grows with the square of the rounds (1,000 rounds took 2-2.5 minutes of the suite). 200
# are enough to race: without the row lock, or without the key's stored answer, the test fails
# within its first rounds.
EVENTS = 10
PLAYERS = ["Anne", "Bas", "Cees", "Dirk"]


@pytest.mark.django_db(transaction=True)
def test_twenty_tablets_recording_at_once_lose_and_double_nothing():
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    # max_points high enough that the session does not end before the last round.
    session = services.session_start(club=club, players=PLAYERS, overrides={"max_points": 1000})
    errors: list[BaseException] = []
    replayed = Counter()
    stale = Counter()

    def tablet(number: int) -> None:
        try:
            # Every thread's events are valid in any order: a round won by one fixed player.
            winner = PLAYERS[number % len(PLAYERS)]
            for index in range(EVENTS):
                key = f"tablet-{number}-{index}"
                tries = 2 if index % 10 == 0 else 1  # a double tap now and then
                version = Session.objects.values_list("version", flat=True).get(pk=session.pk)
                while tries:
                    try:
                        outcome = services.session_record_event(
                            session=Session(pk=session.pk),
                            event={"type": "win", "player": winner},
                            version=version,
                            key=key,
                        )
                    except funnel.StaleVersion as error:
                        stale[number] += 1
                        version = error.version  # the fresh sheet: try again on it
                        continue
                    replayed[number] += outcome.replayed
                    tries -= 1
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            connection.close()  # each thread has its own connection; give it back

    threads = [threading.Thread(target=tablet, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    close_old_connections()

    assert errors == []
    session.refresh_from_db()
    total = THREADS * EVENTS
    # Exactly the accepted events: one round each, the double taps recorded once.
    assert session.version == total
    assert Round.objects.filter(session=session).count() == total
    assert IdempotencyKey.objects.filter(session=session).count() == total
    assert sum(replayed.values()) == THREADS * (EVENTS // 10)
    assert sum(stale.values()) > 0  # the tablets really did race
    file = session.to_file()
    wins = Counter(r["events"][0]["player"] for r in file["rounds"])
    assert wins == dict.fromkeys(PLAYERS, total // len(PLAYERS))
    # In an order the engine accepts, and the stored projection is that replay.
    fresh = replay(file, open_round=True)
    assert len(fresh.rounds) == total
    assert (
        dict(SessionResult.objects.filter(session=session).values_list("player__name", "total"))
        == fresh.totals
    )
    assert RoundScore.objects.filter(round__session=session).count() == total * len(PLAYERS)
    last = RoundScore.objects.filter(round__session=session, round__number=total)
    assert dict(last.values_list("player__name", "total")) == fresh.totals
