"""The tap limit per scorer and session (scoring/lei/taplimit.py): a burst of 20, then 120 a
minute. A fast scorer never meets it; a script is slowed to the steady rate with a 429 that
says how long to wait (``Retry-After``), and the tap it refused is recorded once when sent
again."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse

from scoring.lei import services, taplimit
from scoring.models import Club, ClubMembership, Session, TapAllowance
from scoring.writes import Actor
from tests.builders import HX, make_session

LINK = Actor(scorer_token=True)
KEYS = itertools.count(1)


def link_client(client: Client, session: Session) -> Client:
    """A tablet without an account that opened the session's scorer link."""
    assert client.get(reverse("scorer_link", args=[session.scorer_token])).status_code == 302
    return client


def knock_and_undo(client, session: Session, count: int) -> list:
    """``count`` taps as fast as the client sends them: a knock, its undo, a knock... Each
    answer comes with what was sent (``.sent``: the URL and the form)."""
    answers = []
    for _ in range(count):
        session.refresh_from_db()
        data = {"version": session.version, "key": f"script-{next(KEYS)}"}
        if session.version % 2 == 0:
            url = reverse("session_event", args=[session.pk])
            data.update(type="knock", player="Anne")
        else:
            url = reverse("session_undo", args=[session.pk])
        answer = client.post(url, data, **HX)
        answer.sent = (url, data)
        answers.append(answer)
    return answers


def test_a_script_tapping_as_fast_as_it_can_is_refused_beyond_the_burst(client, session):
    tablet = link_client(client, session)
    answers = knock_and_undo(tablet, session, 40)
    codes = [a.status_code for a in answers]
    assert codes[:20] == [200] * 20
    assert 429 in codes[20:]
    refused = next(a for a in answers if a.status_code == 429)
    assert refused["Retry-After"] == "1"  # one tap's interval at 120 a minute: half a second
    text = refused.content.decode()
    assert text.startswith("Te veel tikken achter elkaar: deze is niet opgeslagen.")
    assert "Wacht 1 seconde" in text
    session.refresh_from_db()
    assert session.version == codes.count(200)  # each tap let through was recorded, no other


def test_a_script_gets_the_steady_rate_and_no_more(session):
    start = 1_000_000.0
    allowed = sum(
        taplimit.tap_wait(session.pk, LINK, now=start + n / 20.7) == 0
        for n in range(int(20.7 * 60))  # a minute at the rate a script reached before
    )
    assert abs(allowed - (20 + 120)) <= 2  # the burst, then 120 a minute (of 1,242 tried)


def test_a_fast_scorer_is_never_slowed(session):
    # An evening of a fast scorer: bursts of ten taps within two seconds (a round's end, an
    # outbox sending what it kept offline), every twenty seconds, for two hours.
    start = 1_000_000.0
    waits = [
        taplimit.tap_wait(session.pk, LINK, now=start + burst * 20 + tap * 0.2)
        for burst in range(6 * 60)
        for tap in range(10)
    ]
    assert set(waits) == {0}


def test_ten_taps_in_two_seconds_are_all_recorded(client, session):
    tablet = link_client(client, session)
    began = time.monotonic()
    answers = knock_and_undo(tablet, session, 10)
    assert [a.status_code for a in answers] == [200] * 10
    assert all(a["X-Lei-Outcome"] == "recorded" for a in answers)
    assert time.monotonic() - began < 10  # a slow machine still taps well under the limit


def test_each_scorer_is_counted_apart(client, session, club, django_user_model):
    tablet = link_client(client, session)
    knock_and_undo(tablet, session, 30)
    assert knock_and_undo(tablet, session, 1)[0].status_code == 429
    member = django_user_model.objects.create_user("teller")
    ClubMembership.objects.create(user=member, club=club)
    phone = Client()
    phone.force_login(member)
    assert knock_and_undo(phone, session, 1)[0].status_code == 200  # the member's own count
    other = make_session(club, ["Anne", "Bas"])
    other_tablet = link_client(Client(), other)
    assert knock_and_undo(other_tablet, other, 1)[0].status_code == 200  # another game


def test_the_refused_tap_sent_again_after_retry_after_is_recorded_once(client, session, clock):
    tablet = link_client(client, session)
    refused = None
    while refused is None:  # the outbox sends its taps in order until one is refused
        answer = knock_and_undo(tablet, session, 1)[0]
        refused = answer if answer.status_code == 429 else None
    session.refresh_from_db()
    version = session.version
    url, data = refused.sent  # the outbox keeps the tap, its key and its place in line
    clock.shift(int(refused["Retry-After"]))  # the outbox waits as long as it is told
    sent = tablet.post(url, data, **HX)
    assert sent.status_code == 200
    assert sent["X-Lei-Outcome"] == "recorded"
    again = tablet.post(url, data, **HX)  # its answer lost, the outbox sends it once more
    assert again["X-Lei-Outcome"] == "recorded"
    session.refresh_from_db()
    assert session.version == version + 1


def test_a_plain_post_beyond_the_limit_gets_the_words_and_changes_nothing(client, session):
    tablet = link_client(client, session)
    knock_and_undo(tablet, session, 30)
    session.refresh_from_db()
    version = session.version
    response = tablet.post(
        reverse("session_event", args=[session.pk]),
        {"type": "knock", "player": "Anne", "version": version, "key": "plain"},
    )
    assert response.status_code == 429
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    session.refresh_from_db()
    assert session.version == version


@pytest.mark.django_db
def test_counts_whose_burst_is_whole_again_are_pruned(session):
    taplimit.tap_wait(session.pk, LINK, now=1_000_000.0)
    assert taplimit.prune_tap_allowances(now=1_000_000.0) == 0
    assert taplimit.prune_tap_allowances(now=1_000_001.0) == 1
    assert not TapAllowance.objects.exists()


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite serializes whole-database writes, so nothing runs at once",
)
@pytest.mark.django_db(transaction=True)
def test_a_script_tapping_from_many_connections_at_once_gets_the_burst_and_no_more():
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    session = services.session_start(club=club, players=["Anne", "Bas"])
    let_through: list[bool] = []
    now = time.time()

    def script() -> None:
        try:
            for _ in range(5):
                let_through.append(taplimit.tap_wait(session.pk, LINK, now=now) == 0)
        finally:
            connection.close()  # each thread has its own connection; give it back

    threads = [threading.Thread(target=script) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    close_old_connections()
    assert len(let_through) == 60
    assert let_through.count(True) == 20  # one count, whoever asked
