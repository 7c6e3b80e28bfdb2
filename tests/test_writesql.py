"""The write path's statements of our own (scoring/writesql.py) give and store what the ORM
would: the same rows, the same Python values, on SQLite and on PostgreSQL."""

import datetime

import pytest
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from scoring import services, writesql
from scoring.models import AuditEntry, IdempotencyKey, Round, RoundScore, Season, Session
from tests.conftest import record


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
        locked = writesql.lock_session(session.pk)
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

    seats = writesql.seats(session.pk)
    orm_seats = list(session.seats.select_related("player").order_by("position"))
    assert [values(s) for s in seats] == [values(s) for s in orm_seats]
    assert [values(s.player) for s in seats] == [values(s.player) for s in orm_seats]

    rounds = writesql.rounds(session.pk)
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


def test_a_missing_session_is_does_not_exist(db):
    with pytest.raises(Session.DoesNotExist):
        writesql.lock_session(987654)


def test_insert_sets_the_new_key_and_stores_every_field(session):
    entry = AuditEntry(
        session=session,
        club_id=session.club_id,
        action="event",
        round_number=4,
        before=None,
        after={"event": {"type": "knock", "player": "Anne"}},
        by_scorer_token=True,
    )
    writesql.insert(entry)
    assert entry.pk is not None
    assert not entry._state.adding
    assert values(AuditEntry.objects.get(pk=entry.pk)) == values(entry)

    key = IdempotencyKey(session=session, key="tik-1", response={"version": 3, "round_number": 1})
    writesql.insert(key)
    assert writesql.stored_answer(session.pk, "tik-1") == {"version": 3, "round_number": 1}
    assert writesql.stored_answer(session.pk, "tik-2") is None


def test_update_writes_only_the_named_fields(session):
    stale = Session.objects.get(pk=session.pk)
    stale.table_label = "not written"
    stale.version = 41
    stale.updated_at = timezone.now()
    writesql.update(stale, ["version", "updated_at"])
    fresh = Session.objects.get(pk=session.pk)
    assert fresh.version == 41
    assert fresh.updated_at == stale.updated_at
    assert fresh.table_label == session.table_label

    round_ = Round(session=session, number=1, events=[{"type": "win", "player": "Anne"}])
    writesql.insert(round_)
    round_.events = [{"type": "knock", "player": "Bas"}]
    writesql.update(round_, ["events"])
    assert Round.objects.get(pk=round_.pk).events == [{"type": "knock", "player": "Bas"}]
