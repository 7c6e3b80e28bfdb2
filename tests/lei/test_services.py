"""Services: every write goes through one locked, versioned, idempotent path."""

import pytest
from django.db import connection

from scoring import writes
from scoring.clubs import services as club_services
from scoring.engine import Refusal, replay
from scoring.lei import funnel, seals, services
from scoring.models import (
    AuditEntry,
    IdempotencyKey,
    Player,
    RoundScore,
    Seat,
    Session,
    SessionResult,
)
from tests.builders import make_club, make_session, new_key, play_rounds, record


def snapshot(session: Session) -> dict:
    """Everything a write may touch, to show that a refused one touched nothing."""
    s = Session.objects.get(pk=session.pk)
    return {
        "session": (s.version, s.status, s.ended, s.scorer_token),
        "file": s.to_file(),
        "seats": list(Seat.objects.filter(session=s).values_list("player__name", "position")),
        "scores": list(
            RoundScore.objects.filter(round__session=s)
            .order_by("pk")
            .values_list("player__name", "points", "total")
        ),
        "results": sorted(
            SessionResult.objects.filter(session=s).values_list("player__name", "place", "total")
        ),
        "audit": AuditEntry.objects.filter(session=s).count(),
        "keys": IdempotencyKey.objects.filter(session=s).count(),
        "players": Player.objects.count(),
    }


def results(session: Session) -> dict:
    return {
        r.player.name: (
            r.place,
            r.total,
            r.rounds_played,
            r.rounds_won,
            r.toepkoning,
            r.eliminated_in_round,
        )
        for r in SessionResult.objects.filter(session=session).select_related("player")
    }


def scores(session: Session) -> list:
    return sorted(
        RoundScore.objects.filter(round__session=session).values_list(
            "round__number",
            "player__name",
            "points",
            "stake",
            "won",
            "folded",
            "fold_cost",
            "knocks",
            "jack_win",
            "armoede",
            "absent",
            "eliminated",
            "total",
        )
    )


# --- starting ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_start_matches_names_ignoring_case_and_makes_guests(club, people, user):
    session = services.session_start(
        club=club, players=["anne", people["Bas"], "Zoë"], dealer="BAS", actor=user
    )
    seats = list(session.seats.order_by("position").values_list("player__name", "position"))
    assert seats == [("Anne", 1), ("Bas", 2), ("Zoë", 3)]
    assert Player.objects.get(name="Zoë").is_guest
    assert session.first_dealer == "Bas"
    assert (session.version, session.status) == (0, "running")
    assert results(session)["Anne"][1] == 0
    entry = AuditEntry.objects.get(session=session)
    assert (entry.action, entry.user) == ("start", user)


@pytest.mark.django_db
def test_start_refuses_contradictory_rules_and_writes_nothing(club, people):
    with pytest.raises(Refusal) as refused:
        services.session_start(
            club=club, players=["Anne", "Bas", "Nieuw"], overrides={"max_stake": 1}
        )
    assert str(refused.value).startswith("rules: ")
    assert not Session.objects.exists()
    assert not Player.objects.filter(name="Nieuw").exists()


@pytest.mark.django_db
def test_start_refuses_a_name_twice(club):
    with pytest.raises(club_services.PlayerNameClash):
        services.session_start(club=club, players=["Anne", "ANNE"])


@pytest.mark.django_db
def test_start_with_teams_and_start_totals(club, people):
    session = services.session_start(
        club=club,
        players=["Anne", "Bas", "Cees", "Dirk"],
        teams={"Zuid": ["Bas", "Dirk"], "Noord": ["Anne", "Cees"]},
        start={"Noord": 3},
    )
    assert dict(session.seats.values_list("player__name", "side")) == {
        "Anne": "Noord",
        "Bas": "Zuid",
        "Cees": "Noord",
        "Dirk": "Zuid",
    }
    outcome = record(session, "win", "Anne")
    side_rows = dict(
        SessionResult.objects.filter(session=session, player=None).values_list("side", "total")
    )
    assert side_rows == outcome.result.totals == {"Noord": 3, "Zuid": 1}
    assert session.to_file()["teams"] == {"Noord": ["Anne", "Cees"], "Zuid": ["Bas", "Dirk"]}


# --- recording ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_events_fill_a_round_and_the_next_event_starts_the_next(session):
    record(session, "knock", "Bas")
    record(session, "fold", "Cees")
    outcome = record(session, "win", "Dirk")
    assert (outcome.version, outcome.round_number, outcome.replayed) == (3, 1, False)
    assert outcome.result.totals == {"Anne": 2, "Bas": 2, "Cees": 1, "Dirk": 0}
    assert record(session, "win", "Anne").round_number == 2
    assert list(session.rounds.values_list("number", flat=True)) == [1, 2]
    assert results(session)["Cees"] == (2, 2, 2, 0, False, None)
    assert AuditEntry.objects.filter(session=session, action="event").count() == 4


@pytest.mark.django_db
def test_a_stale_version_is_refused_with_the_fresh_one(session):
    record(session, "win", "Anne")
    before = snapshot(session)
    with pytest.raises(funnel.StaleVersion) as stale:
        services.session_record_event(
            session=session, event={"type": "win", "player": "Bas"}, version=0, key=new_key()
        )
    assert stale.value.version == 1
    assert snapshot(session) == before


@pytest.mark.django_db
def test_the_same_key_records_once_and_returns_the_stored_outcome(session):
    event = {"type": "knock", "player": "Bas"}
    first = services.session_record_event(session=session, event=event, version=0, key="tap-1")
    again = services.session_record_event(session=session, event=event, version=0, key="tap-1")
    assert (again.version, again.round_number, again.replayed) == (1, 1, True)
    assert first.replayed is False
    assert session.to_file()["rounds"] == [{"events": [event]}]
    assert session.version == 1


@pytest.mark.django_db
def test_an_event_the_engine_refuses_changes_nothing(club):
    session = services.session_start(club=club, players=["A", "B", "C", "D"], start={"A": 8})
    record(session, "knock", "B")
    record(session, "stay", "A")
    before = snapshot(session)
    with pytest.raises(Refusal) as refused:
        record(session, "knock", "A")
    assert str(refused.value) == "round 1, event 3: A cannot knock: 8 + 3 is over the maximum of 10"
    assert snapshot(session) == before


@pytest.mark.django_db
def test_the_session_finishes_when_the_engine_says_so(club):
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(session, ["Anne", "Anne"])
    assert session.status == "finished"
    assert results(session)["Anne"] == (1, 0, 2, 2, True, None)
    assert results(session)["Bas"] == (2, 3, 2, 0, False, 2)  # armoede in round 2
    with pytest.raises(Refusal):
        record(session, "win", "Anne")


# --- presence, undo ----------------------------------------------------------------------


@pytest.mark.django_db
def test_presence_is_set_before_the_round_and_joining_players_get_a_seat(session):
    outcome = services.session_set_presence(
        session=session, absent={"Bas": "drinks"}, join=["eva"], version=0, key=new_key()
    )
    assert outcome.round_number == 1
    assert Player.objects.get(name="Eva")  # the club's Eva, not a new guest
    assert list(session.seats.values_list("player__name", flat=True))[-1] == "Eva"
    done = record(session, "win", "Eva")
    assert done.result.rounds[0].points == {"Anne": 1, "Cees": 1, "Dirk": 1, "Eva": 0}
    record(session, "knock", "Anne")
    with pytest.raises(funnel.RoundStarted):
        services.session_set_presence(
            session=session,
            absent={"Cees": "toilet"},
            join=[],
            version=session.version,
            key=new_key(),
        )


@pytest.mark.django_db
def test_undo_takes_back_the_last_event_and_an_empty_round_disappears(session):
    record(session, "win", "Anne")
    record(session, "knock", "Bas")
    services.session_undo(session=session, version=session.version, key=new_key())
    assert list(session.rounds.values_list("number", flat=True)) == [1]
    services.session_undo(session=session, version=session.version, key=new_key())
    assert session.to_file()["rounds"] == []
    assert not RoundScore.objects.filter(round__session=session).exists()
    assert results(session)["Bas"][1] == 0
    with pytest.raises(funnel.NothingToUndo):
        services.session_undo(session=session, version=session.version, key=new_key())


@pytest.mark.django_db
def test_undo_of_a_join_takes_the_seat_away(session):
    services.session_set_presence(
        session=session, absent={}, join=["Fleur"], version=0, key=new_key()
    )
    services.session_undo(session=session, version=session.version, key=new_key())
    assert session.seats.count() == 4
    assert not session.rounds.exists()


@pytest.mark.django_db
def test_undo_reopens_a_finished_session(club):
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(session, ["Anne", "Anne"])
    assert session.status == "finished"
    services.session_undo(session=session, version=session.version, key=new_key())
    assert session.status == "running"


# --- corrections -------------------------------------------------------------------------


def play_twenty_rounds(session: Session) -> None:
    """At least 20 rounds, every 3rd with a knock and a fold, until someone is toepkoning."""
    result = None
    number = 0
    while result is None or not result.what_now().finished:
        number += 1
        view = result.what_now() if result else None
        alive = view.participants if view else ["Anne", "Bas", "Cees", "Dirk"]
        winner = alive[number % len(alive)]
        if number % 3 == 0:
            knocker = next((p for p in alive if p != winner and view.may_knock[p] is None), None)
            if knocker:
                record(session, "knock", knocker)
                record(session, "fold", next(p for p in alive if p not in (winner, knocker)))
        result = record(session, "win", winner).result
    assert number >= 20


@pytest.mark.django_db
def test_correcting_round_3_equals_a_fresh_replay_of_the_corrected_file(club, people):
    session = make_session(club, overrides={"max_points": 21})
    play_twenty_rounds(session)
    rounds_before = session.rounds.count()
    before = snapshot(session)["file"]["rounds"][2]["events"]
    winner = before[-1]["player"]
    corrected = [*before[:-1], {"type": "win", "player": winner, "jack": True}]
    outcome = services.round_replace_events(
        session=session, number=3, events=corrected, version=session.version
    )
    file = session.to_file()
    assert file["rounds"][2]["events"] == corrected
    fresh = replay(file, open_round=True)
    assert outcome.result.to_json() == fresh.to_json()
    other = services.session_import(club=club, data=file)
    assert results(session) == results(other)
    assert scores(session) == scores(other)
    assert outcome.result.eliminated == fresh.eliminated
    assert outcome.result.toepkoning == fresh.toepkoning
    assert session.rounds.count() == rounds_before
    entry = AuditEntry.objects.filter(session=session, action="correct").get()
    assert entry.round_number == 3
    assert (entry.before["events"], entry.after["events"]) == (before, corrected)


@pytest.mark.django_db
def test_a_round_changed_by_another_process_is_replayed_from_the_first_round(session):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    record(session, "knock", "Dirk")
    # Another process rewrote round 2: Bas won it with a boer (this process never saw that).
    session.rounds.filter(number=2).update(events=[{"type": "win", "player": "Bas", "jack": True}])
    outcome = record(session, "fold", "Anne")
    fresh = replay(session.to_file(), open_round=True)
    assert outcome.result.to_json() == fresh.to_json()
    assert outcome.result.totals["Bas"] == fresh.totals["Bas"]


@pytest.mark.django_db
def test_a_correction_that_breaks_a_later_round_is_refused_whole(session):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    record(session, "knock", "Dirk")
    before = snapshot(session)
    with pytest.raises(Refusal):
        services.round_replace_events(
            session=session, number=2, events=[{"type": "win", "player": "Zoë"}]
        )
    with pytest.raises(funnel.UnknownRound):
        services.round_replace_events(session=session, number=9, events=[])
    assert snapshot(session) == before


# --- the session as a whole --------------------------------------------------------------


@pytest.mark.django_db
def test_a_locked_session_refuses_every_write(club):
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    with pytest.raises(funnel.NotFinished):
        seals.session_lock(session=session)
    play_rounds(session, ["Anne", "Anne"])
    seals.session_lock(session=session)
    before = snapshot(session)
    writes = [
        lambda: record(session, "win", "Anne"),
        lambda: services.session_undo(session=session, version=session.version, key=new_key()),
        lambda: services.round_replace_events(session=session, number=1, events=[]),
        lambda: services.session_set_presence(
            session=session, absent={}, join=["Eva"], version=session.version, key=new_key()
        ),
        lambda: services.session_finish(session=session),
    ]
    for write in writes:
        with pytest.raises(funnel.SessionLocked):
            write()
    assert snapshot(session) == before
    assert Session.objects.finished().filter(pk=session.pk).exists()
    seals.session_unlock(session=session)
    assert session.status == "finished"
    services.session_undo(session=session, version=session.version, key=new_key())


@pytest.mark.django_db
def test_finishing_by_hand_keeps_the_places_as_they_are(session):
    play_rounds(session, ["Anne", "Anne"])
    services.session_finish(session=session, version=session.version)
    assert session.status == "finished"
    assert results(session)["Anne"][0] == 1


@pytest.mark.django_db
def test_the_pot_game_records_bids_and_shares_out(club):
    session = services.session_start(club=club, players=["Anne", "Bas"], game="pot")
    for event in (
        {"type": "bid", "player": "Anne", "bid": 50},
        {"type": "bid", "player": "Bas", "bid": "fold"},
        {"type": "win", "player": "Anne"},
    ):
        services.session_record_event(
            session=session, event=event, version=session.version, key=new_key()
        )
    assert session.to_file()["rounds"] == [{"bids": {"Anne": 50, "Bas": "fold"}, "winner": "Anne"}]
    outcome = services.session_finish(session=session, version=session.version)
    assert (session.status, session.ended) == ("finished", True)
    assert sum(outcome.result.balances.values()) == 0
    assert outcome.result.pot == 0
    services.session_undo(session=session, version=session.version, key=new_key())
    assert (session.status, session.ended) == ("running", False)


@pytest.mark.django_db
def test_the_scorer_token_can_be_rotated_and_revoked(session, user):
    old = session.scorer_token
    seals.session_rotate_token(session=session, actor=user)
    assert session.scorer_token not in (None, old)
    seals.session_revoke_token(session=session, actor=user)
    assert Session.objects.get(pk=session.pk).scorer_token is None
    entry = AuditEntry.objects.filter(session=session).first()
    assert (entry.action, entry.user) == ("revoke_token", user)
    assert "scorer_token" not in (entry.before or {})


@pytest.mark.django_db
def test_a_scorer_link_is_audited_as_such(session):
    services.session_record_event(
        session=session,
        event={"type": "win", "player": "Anne"},
        version=0,
        key=new_key(),
        actor=writes.Actor(scorer_token=True),
    )
    entry = AuditEntry.objects.get(session=session, action="event")
    assert (entry.by_scorer_token, entry.user) == (True, None)
    assert entry.after["event"]["player"] == "Anne"


# --- merging players ---------------------------------------------------------------------


@pytest.mark.django_db
def test_merge_keeps_history_and_rewrites_the_events(club, people):
    guest = Player.objects.create(club=club, name="Anneke", is_guest=True)
    session = services.session_start(club=club, players=["Anneke", "Bas"], dealer="Anneke")
    record(session, "knock", "Anneke")
    record(session, "win", "Bas")
    club_services.player_merge(keep=people["Anne"], remove=guest)
    session.refresh_from_db()
    file = session.to_file()
    assert file["players"] == ["Anne", "Bas"]
    assert file["dealer"] == "Anne"
    assert file["rounds"][0]["events"][0] == {"type": "knock", "player": "Anne"}
    assert replay(file).totals == {"Anne": 2, "Bas": 0}
    assert results(session)["Anne"][1] == 2
    assert RoundScore.objects.filter(player=people["Anne"]).count() == 1
    assert not Player.objects.filter(pk=guest.pk).exists()
    assert session.version == 3


@pytest.mark.django_db
def test_merge_is_refused_when_both_sat_at_one_table(session, people):
    with pytest.raises(club_services.MergeRefused):
        club_services.player_merge(keep=people["Anne"], remove=people["Bas"])
    with pytest.raises(club_services.MergeRefused):
        club_services.player_merge(
            keep=people["Anne"], remove=Player.objects.create(club=make_club("X", "x"), name="Y")
        )
    assert Player.objects.filter(name="Bas").exists()


# --- the hot path ------------------------------------------------------------------------


@pytest.mark.django_db
def test_query_count_of_a_recorded_event(session, django_assert_num_queries):
    record(session, "win", "Anne")
    # An event in the middle of a round.
    postgres = connection.vendor == "postgresql"
    # + SELECT pg_notify (scoring/notify.py), and the notes of open streams whose parts the
    # write draws (scoring/lei/watch.py; none here, so nothing is drawn or sent).
    notify = 2 if postgres else 0
    # The tail (session, audit entry, key): one statement on PostgreSQL (hotsql.write_tail),
    # the ORM's three saves elsewhere.
    tail = 1 if postgres else 3
    with django_assert_num_queries(7 + tail + notify):
        # SAVEPOINT (the transaction; a real one outside the test's)
        # SELECT ... FOR UPDATE: lock the session row
        # SELECT the idempotency key
        # SELECT the seats with their players
        # SELECT the rounds, each marked whether it has scores (EXISTS)
        # INSERT the new round
        # the tail: UPDATE the session (status, version, updated_at), INSERT the audit entry,
        # INSERT the idempotency key
        # RELEASE SAVEPOINT
        record(session, "knock", "Bas")
    # The event that ends the round adds its projection; the round's new events go with the
    # tail on PostgreSQL, in a save of their own elsewhere.
    with django_assert_num_queries(9 + (1 if postgres else 4) + notify):
        # SAVEPOINT, lock, key, seats, rounds
        # INSERT the round's scores (one bulk insert)
        # DELETE the session results, INSERT them again (one bulk insert)
        # the tail (with UPDATE the round's events), RELEASE SAVEPOINT
        record(session, "win", "Bas")


@pytest.mark.django_db
def test_rename_rewrites_the_events_so_the_session_still_replays(session, people):
    record(session, "knock", "Bas")
    record(session, "win", "Anne")
    club_services.player_rename(player=people["Bas"], name="Bastiaan")
    file = Session.objects.get(pk=session.pk).to_file()
    assert file["players"] == ["Anne", "Bastiaan", "Cees", "Dirk"]
    assert file["rounds"][0]["events"][0] == {"type": "knock", "player": "Bastiaan"}
    assert replay(file).totals["Bastiaan"] == 2
    with pytest.raises(club_services.PlayerNameClash):
        club_services.player_rename(player=people["Cees"], name="ANNE")


@pytest.mark.django_db
def test_house_rules_are_the_default_and_overrides_go_on_top(club, people):
    club.preset = "gezin"
    club.rules = {"max_points": 6}
    club.save()
    house = make_session(club, overrides={"laundry": False})
    assert (house.preset, house.rules["max_points"], house.rules["max_stake"]) == ("gezin", 6, 2)
    assert house.rules["laundry"] is False
    other = make_session(club, preset="standaard")
    assert (other.preset, other.rules["max_points"], other.rules["max_stake"]) == (
        "standaard",
        10,
        None,
    )
