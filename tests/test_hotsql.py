"""The statements of a tap written out (scoring/hotsql.py) give and store what the ORM
would: the same rows, the same Python values, on SQLite and on PostgreSQL."""

import datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, signals
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring import hotsql, services, standings_cache
from scoring.models import (
    AuditEntry,
    ClubMembership,
    IdempotencyKey,
    RenderedSheet,
    RenderedStandings,
    Round,
    RoundScore,
    Season,
    Session,
    SessionResult,
)
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


def test_a_viewers_first_draw_reads_the_session_its_club_and_its_log_together(session):
    record(session, "knock", "Anne")
    record(session, "win", "Bas")
    with CaptureQueriesContext(connection) as queries:
        read, seats, rounds = hotsql.session_and_log(session.pk)
    assert len(queries) == 3  # one round trip on PostgreSQL
    alone = hotsql.scorer_session(session.pk, None)
    assert values(read) == values(alone)
    assert values(read.club) == values(alone.club)
    assert (read.is_member, read.is_admin) == (False, False)
    log = hotsql.seats_and_rounds(session.pk)
    assert [values(s) for s in seats] == [values(s) for s in log[0]]
    assert [values(s.player) for s in seats] == [values(s.player) for s in log[0]]
    assert [(values(r), r.scored) for r in rounds] == [(values(r), r.scored) for r in log[1]]
    assert hotsql.session_and_log(987654) is None


def test_a_missing_session_is_does_not_exist(db):
    with pytest.raises(Session.DoesNotExist):
        hotsql.lock_and_read(987654, None)


def test_a_writes_reads_are_the_session_its_keys_answer_and_its_log(session):
    record(session, "knock", "Anne")
    record(session, "win", "Bas")
    record(session, "knock", "Cees")
    hotsql.insert(IdempotencyKey(session=session, key="tik-9", response={"version": 3}))
    log = hotsql.seats_and_rounds(session.pk)
    for key, answer in [("tik-9", {"version": 3}), ("tik-10", None), (None, None)]:
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            locked, stored, seats, rounds = hotsql.lock_and_read(session.pk, key)
        assert len(queries) == (4 if key else 3)  # one round trip on PostgreSQL
        assert values(locked) == values(Session.objects.get(pk=session.pk))
        assert stored == answer
        assert [values(s) for s in seats] == [values(s) for s in log[0]]
        assert [values(s.player) for s in seats] == [values(s.player) for s in log[0]]
        assert [(values(r), r.scored) for r in rounds] == [(values(r), r.scored) for r in log[1]]
    with transaction.atomic(), pytest.raises(Session.DoesNotExist):
        hotsql.lock_and_read(987654, "tik-1")


def test_writes_go_in_the_order_they_came_and_an_error_is_djangos(session):
    record(session, "win", "Anne")
    writes = hotsql.Writes()
    writes.delete_results(session.pk)
    writes.insert_many(
        [SessionResult(session=session, side="Zuid", place=1, total=0, rounds_played=1)]
    )
    writes.send()  # the delete before the insert: only the new row is left
    assert list(session.results.values_list("side", flat=True)) == ["Zuid"]

    with transaction.atomic():
        writes.insert(IdempotencyKey(session=session, key="dubbel", response={}))
        writes.send()
    label = session.table_label
    session.table_label = "nooit"
    writes.update(session, ["table_label"])
    writes.insert(IdempotencyKey(session=session, key="dubbel", response={}))  # unique per session
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.send()
    assert IdempotencyKey.objects.filter(session=session, key="dubbel").count() == 1
    # The transaction was rolled back whole, the update too, and the connection goes on.
    assert Session.objects.get(pk=session.pk).table_label == label


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
    hotsql.insert(entry)
    assert entry.pk is not None
    assert not entry._state.adding
    assert values(AuditEntry.objects.get(pk=entry.pk)) == values(entry)

    key = IdempotencyKey(session=session, key="tik-1", response={"version": 3, "round_number": 1})
    hotsql.insert(key)
    with transaction.atomic():
        assert hotsql.lock_and_read(session.pk, "tik-1")[1] == {"version": 3, "round_number": 1}
        assert hotsql.lock_and_read(session.pk, "tik-2")[1] is None


def test_update_writes_only_the_named_fields(session):
    stale = Session.objects.get(pk=session.pk)
    stale.table_label = "not written"
    stale.version = 41
    stale.updated_at = timezone.now()
    writes = hotsql.Writes()
    writes.update(stale, ["version", "updated_at"])
    writes.send()
    fresh = Session.objects.get(pk=session.pk)
    assert fresh.version == 41
    assert fresh.updated_at == stale.updated_at
    assert fresh.table_label == session.table_label

    round_ = Round(session=session, number=1, events=[{"type": "win", "player": "Anne"}])
    hotsql.insert(round_)
    round_.events = [{"type": "knock", "player": "Bas"}]
    writes.update(round_, ["events"])
    writes.send()
    assert Round.objects.get(pk=round_.pk).events == [{"type": "knock", "player": "Bas"}]


def test_insert_many_stores_every_row_in_batches(session, monkeypatch):
    rows = [
        AuditEntry(session=session, club_id=session.club_id, action="event", round_number=n)
        for n in range(1, 8)
    ]
    monkeypatch.setattr(hotsql, "MANY_ROWS", 3)  # three statements: 3, 3 and 1 rows
    writes = hotsql.Writes()
    writes.insert_many(rows)
    with CaptureQueriesContext(connection) as queries:
        writes.send()
    assert len(queries) == 3
    stored = AuditEntry.objects.filter(session=session, action="event").order_by("round_number")
    assert [e.round_number for e in stored] == list(range(1, 8))
    writes.insert_many([])
    with CaptureQueriesContext(connection) as queries:
        writes.send()
    assert len(queries) == 0


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


def test_deletes_take_the_rounds_and_scores_from_a_number_on_and_nothing_else(session):
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    record(session, "win", "Cees")
    other = services.session_start(club=session.club, players=["Anne", "Bas", "Cees", "Dirk"])
    record(other, "win", "Dirk")

    def scored(s):
        return sorted(
            set(RoundScore.objects.filter(round__session=s).values_list("round__number", flat=True))
        )

    writes = hotsql.Writes()
    writes.delete_scores(session.pk, 3)
    writes.send()
    assert scored(session) == [1, 2]
    writes.delete_rounds(session.pk, 2)
    writes.send()
    assert list(session.rounds.values_list("number", flat=True)) == [1]
    assert scored(session) == [1]
    writes.delete_results(session.pk)
    writes.send()
    assert not session.results.exists()
    assert scored(other) == [1]
    assert other.results.count() == 4


def test_a_kept_sheet_is_replaced_by_the_next_version_and_polled_with_the_version(session):
    hotsql.keep_sheet(session.pk, "nl", 3, b"drie\x00\xff")
    hotsql.keep_sheet(session.pk, "nl", 4, b"vier\x00\xff")
    hotsql.keep_sheet(session.pk, "en-tv", 4, b"four\x00\xff")
    kept = {
        k.variant: (k.version, bytes(k.gzipped))
        for k in RenderedSheet.objects.filter(session=session)
    }
    assert kept == {"nl": (4, b"vier\x00\xff"), "en-tv": (4, b"four\x00\xff")}

    Session.objects.filter(pk=session.pk).update(version=4)
    assert hotsql.poll(session.pk, "nl", -1) == (4, b"vier\x00\xff")
    assert hotsql.poll(session.pk, "nl", 4) == (4, None)  # seen already: a 304
    assert hotsql.poll(session.pk, "de", -1) == (4, None)  # nobody kept this one
    Session.objects.filter(pk=session.pk).update(version=5)
    assert hotsql.poll(session.pk, "nl", -1) == (5, None)  # the kept one is of an older version
    assert hotsql.poll(987654, "nl", -1) is None


@pytest.mark.django_db(transaction=True)
def test_a_sheet_or_standings_of_something_deleted_meanwhile_is_not_kept_and_no_error(club):
    """A viewer draws a session's sheet, or a visitor the standings of a season, while an admin
    deletes it: the drawing is answered, and nothing is kept (it was a 500)."""
    season = Season.objects.create(club=club, name="Weg", starts_on=datetime.date(2026, 9, 1))
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees", "Dirk"])
    gone_session, gone_season = Session.objects.get(pk=session.pk), Season.objects.get(pk=season.pk)
    session.delete()
    season.delete()

    hotsql.keep_sheet(gone_session.pk, "nl", 1, b"weg")
    standings_cache.keep(gone_season, variant="nl-members", key="k", html="<tr></tr>")
    assert not RenderedSheet.objects.exists()
    assert not RenderedStandings.objects.exists()
