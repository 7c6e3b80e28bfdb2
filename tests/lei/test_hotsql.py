"""The statements of a tap written out (scoring/models/hotsql.py) give and store what the ORM
would: the same rows, the same Python values, on SQLite and on PostgreSQL."""

import datetime

import pytest
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, signals
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.lei import services
from scoring.models import (
    AuditEntry,
    ClubMembership,
    IdempotencyKey,
    Round,
    RoundScore,
    Season,
    Session,
    hotsql,
)
from tests.builders import record


def values(instance) -> dict:
    """Every concrete field's Python value, by attribute name."""
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_the_locked_session_is_the_orms_session_field_for_field(club):
    season = Season.objects.create(club=club, name="Najaar", starts_on=datetime.date(2026, 9, 1))
    session = services.session_start(
        club=club,
        players=["Anne", "Bas", "Cees", "Dirk"],
        teams={"Zuid": ["Bas", "Dirk"], "Noord": ["Anne", "Cees"]},
        start={"Noord": 3},
        season=season,
        table_label="Tafel 2",
    )
    with transaction.atomic():
        locked = hotsql.lock_and_read(session.pk, None)[0]
    orm = Session.objects.get(pk=session.pk)
    assert values(locked) == values(orm)
    assert isinstance(locked.updated_at, datetime.datetime)
    assert timezone.is_aware(locked.updated_at)
    assert isinstance(locked.played_on, datetime.date)
    assert locked.teams == {"Zuid": ["Bas", "Dirk"], "Noord": ["Anne", "Cees"]}
    assert locked.ended is False
    assert locked.get_deferred_fields() == set()


def test_seats_and_rounds_are_the_orms_rows_with_their_players_and_scored(session):
    record(session, "knock", "Anne")
    record(session, "win", "Bas")
    record(session, "knock", "Cees")  # round 2: still being played, no scores yet

    seats, rounds = hotsql.seats_and_rounds(session.pk)
    orm_seats = list(session.seats.select_related("player").order_by("position"))
    assert [values(s) for s in seats] == [values(s) for s in orm_seats]
    assert [values(s.player) for s in seats] == [values(s.player) for s in orm_seats]

    orm_rounds = list(
        session.rounds.order_by("number").annotate(
            scored=Exists(RoundScore.objects.filter(round=OuterRef("pk")))
        )
    )
    assert [values(r) for r in rounds] == [values(r) for r in orm_rounds]
    assert [r.scored for r in rounds] == [r.scored for r in orm_rounds] == [True, False]
    assert rounds[0].events == [
        {"type": "knock", "player": "Anne"},
        {"type": "win", "player": "Bas"},
    ]


def test_a_rows_instance_behaves_as_the_orms_and_signals_still_see_it_made(session):
    record(session, "knock", "Anne")
    seats, rounds = hotsql.seats_and_rounds(session.pk)
    round_ = rounds[0]
    assert round_._state.adding is False
    assert round_._state.db == "default"
    assert round_.get_deferred_fields() == set()
    assert round_.session == session  # a related object: loaded when asked for
    round_.events = [*round_.events, {"type": "fold", "player": "Bas"}]
    with CaptureQueriesContext(connection) as queries:
        round_.save()  # an UPDATE of the stored row, not a second row
    assert queries[0]["sql"].startswith("UPDATE")
    assert Round.objects.get(pk=round_.pk).events == round_.events
    assert seats[0].player.seats.filter(session=session).get() == seats[0]

    made = []

    def listen(sender, instance, **kwargs):
        made.append(instance)

    hotsql._attnames.cache_clear()
    signals.post_init.connect(listen, sender=Round)
    try:
        rounds = hotsql.seats_and_rounds(session.pk)[1]
    finally:
        signals.post_init.disconnect(listen, sender=Round)
        hotsql._attnames.cache_clear()
    assert made == rounds  # with a listener, Django's own way, signals and all
    assert values(rounds[0]) == values(Round.objects.get(pk=round_.pk))


def test_a_missing_session_is_does_not_exist(db):
    with pytest.raises(Session.DoesNotExist):
        hotsql.lock_and_read(987654, None)


def test_a_writes_reads_are_the_session_its_keys_answer_and_its_log(session):
    record(session, "knock", "Anne")
    record(session, "win", "Bas")
    record(session, "knock", "Cees")
    IdempotencyKey.objects.create(
        session=session, key="tik-9", response={"version": 3}, digest="d" * 64
    )
    log = hotsql.seats_and_rounds(session.pk)
    stored_9 = hotsql.Stored({"version": 3}, "d" * 64)
    for key, answer in [("tik-9", stored_9), ("tik-10", None), (None, None)]:
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            locked, stored, seats, rounds, _ = hotsql.lock_and_read(session.pk, key)
        assert len(queries) == (4 if key else 3)  # one round trip on PostgreSQL
        assert values(locked) == values(Session.objects.get(pk=session.pk))
        assert stored == answer
        assert [values(s) for s in seats] == [values(s) for s in log[0]]
        assert [values(s.player) for s in seats] == [values(s.player) for s in log[0]]
        assert [(values(r), r.scored) for r in rounds] == [(values(r), r.scored) for r in log[1]]
    with transaction.atomic(), pytest.raises(Session.DoesNotExist):
        hotsql.lock_and_read(987654, "tik-1")


def test_the_scorers_session_comes_with_its_club_and_the_users_membership(
    session, django_user_model
):
    member = django_user_model.objects.create_user("lid")
    admin = django_user_model.objects.create_user("beheer")
    stranger = django_user_model.objects.create_user("vreemde")
    ClubMembership.objects.create(club=session.club, user=member)
    ClubMembership.objects.create(club=session.club, user=admin, role=ClubMembership.Role.ADMIN)

    found = {
        who: hotsql.scorer_session(session.pk, user_id)
        for who, user_id in [
            ("member", member.pk),
            ("admin", admin.pk),
            ("stranger", stranger.pk),
            ("nobody", None),
        ]
    }
    assert {who: (s.is_member, s.is_admin) for who, s in found.items()} == {
        "member": (True, False),
        "admin": (True, True),
        "stranger": (False, False),
        "nobody": (False, False),
    }
    with CaptureQueriesContext(connection) as queries:
        assert values(found["nobody"].club) == values(session.club)
    assert len(queries) == 0  # the club came along
    assert values(found["nobody"]) == values(Session.objects.get(pk=session.pk))
    assert hotsql.scorer_session(987654, None) is None


def test_the_tail_stores_what_the_orms_saves_would(session, django_user_model):
    """``write_tail``: the session's fields, a round's new events, the audit entry and the key
    as the ORM's saves store them (an empty JSON field is SQL NULL, not JSON null), in one
    statement on PostgreSQL."""
    user = django_user_model.objects.create_user("schrijver")
    record(session, "knock", "Anne")
    with transaction.atomic():
        locked = hotsql.lock_and_read(session.pk, None)[0]
        locked.version += 1
        locked.status = Session.Status.FINISHED
        locked.updated_at = timezone.now()
        audit = AuditEntry(
            session=locked,
            club_id=locked.club_id,
            user=user,
            action=AuditEntry.Action.EVENT,
            round_number=3,
            after={"event": {"type": "knock", "player": "Anne"}},
        )
        key = IdempotencyKey(session=locked, key="tik-7", response={"version": 9}, digest="e" * 64)
        round_ = Round.objects.get(session=session, number=1)
        round_.events = [*round_.events, {"type": "fold", "player": "Bas"}]
        round_.absent = {"Dirk": "toilet"}
        saved = [(round_, ["events", "absent"])]
        with CaptureQueriesContext(connection) as written:
            hotsql.write_tail(locked, ["status", "version", "updated_at"], audit, key, saved=saved)
    assert len(written) == (1 if connection.vendor == "postgresql" else 4)
    stored_round = Round.objects.get(pk=round_.pk)
    assert (stored_round.events, stored_round.absent) == (
        [{"type": "knock", "player": "Anne"}, {"type": "fold", "player": "Bas"}],
        {"Dirk": "toilet"},
    )
    fresh = Session.objects.get(pk=session.pk)
    assert (fresh.version, fresh.status, fresh.updated_at) == (
        locked.version,
        Session.Status.FINISHED,
        locked.updated_at,
    )
    entry = AuditEntry.objects.filter(session=session, round_number=3).get()
    assert (entry.user, entry.action, entry.club_id, entry.at) == (
        user,
        AuditEntry.Action.EVENT,
        session.club_id,
        audit.at,
    )
    assert entry.after == {"event": {"type": "knock", "player": "Anne"}}
    assert AuditEntry.objects.filter(pk=entry.pk, before__isnull=True).exists()
    stored = IdempotencyKey.objects.get(session=session, key="tik-7")
    assert (stored.response, stored.digest) == ({"version": 9}, "e" * 64)
