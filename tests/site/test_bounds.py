"""Every number is bounded where it enters (RULES.md §14): the engine, the tablet's forms, the
import, and the database columns the bounds keep from wrapping around.

The engine tests need no database; the others are marked.
"""

from __future__ import annotations

import pytest
from django.db import connection

from scoring.engine import Refusal, replay
from scoring.engine.bounds import MAX_EVENTS, MAX_ROUNDS, POT_LIMIT, TOTAL_LIMIT
from scoring.lei import services
from scoring.lei.forms import SessionStartForm
from scoring.models import RoundScore
from tests.builders import make_session, record, tap
from tests.engine.sessionfile import ev, play, refusal, refused_at, session
from tests.lei.editor import edit_url, editor_data
from tests.safety import projection_problems, row_counts

# --- the engine ------------------------------------------------------------------------------


def penalty(points, player="A"):
    return ev("penalty", player, points=points, reason="typo")


def test_a_penalty_of_3e9_is_refused_not_wrapped():
    error = refusal([penalty(3_000_000_000), ev("win", "B")])
    refused_at(error, "out_of_range", 1, 1)
    assert str(error) == "round 1, event 1: points must be from -100 to 100, not 3000000000"


def test_a_400_digit_penalty_is_refused_with_a_short_message():
    error = refusal([penalty(int("9" * 400)), ev("win", "B")])
    refused_at(error, "out_of_range", 1, 1)
    assert len(str(error)) < 100
    assert error.params["maximum"] == 100


@pytest.mark.parametrize("points", [-100, -1, 1, 100])
def test_a_penalty_within_the_bounds_is_scored(points):
    result = play([penalty(points), ev("win", "B")])
    assert result.rounds[0].points["A"] == 1 + points


@pytest.mark.parametrize("points", [-101, 101, -(2**31), 2**31, 5_000_000_000])
def test_a_penalty_beyond_the_bounds_is_refused(points):
    refused_at(refusal([penalty(points), ev("win", "B")]), "out_of_range", 1, 1)


@pytest.mark.parametrize("value", [1, 1001, 10**9, int("1" * 400)])
def test_max_points_outside_2_to_1000_is_refused_with_the_bound(value):
    error = refusal([ev("win", "A")], max_points=value)
    assert error.code == "rules_out_of_range"
    assert str(error).startswith("rules: max_points must be from 2 to 1000, not ")
    assert len(str(error)) < 100


@pytest.mark.parametrize("value", [2, 1000])
def test_max_points_at_its_bounds_is_played(value):
    assert play([ev("win", "A")], max_points=value).totals["B"] == 1


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("blind_stake", 1001),
        ("max_stake", 1001),
        ("four_of_a_kind", 101),
        ("jack_beaten_by_queen", 10**12),
        ("fold_limit", 101),
    ],
)
def test_every_number_rule_is_bounded(key, value):
    error = refusal([ev("win", "A")], max_points=1000, knock_cap="none", **{key: value})
    assert error.code == "rules_out_of_range", str(error)
    assert error.params["key"] == key


@pytest.mark.parametrize("shown", [-1, 5, 10**20])
def test_jacks_shown_outside_0_to_4_is_refused(shown):
    error = refusal([ev("win", "A", jacks_shown=shown)])
    refused_at(error, "out_of_range", 1, 1)
    assert "from 0 to 4" in str(error)


@pytest.mark.parametrize("total", [-1001, 1001, 3_000_000_000])
def test_a_start_total_outside_the_bounds_is_refused(total):
    error = refusal([ev("win", "A")], start={"B": total}, max_points=1000)
    assert error.code == "start_out_of_range"
    assert "from -1000 to 1000" in str(error)


@pytest.mark.parametrize("total", [-1000, 1000])
def test_a_start_total_at_the_bounds_is_played(total):
    result = play([ev("win", "A")], start={"B": total}, max_points=1000)
    assert result.totals["B"] == total + 1


def test_a_round_of_more_events_than_the_limit_is_refused():
    events = [penalty(1 if i % 2 else -1) for i in range(MAX_EVENTS)] + [ev("win", "B")]
    refused_at(refusal(events), "too_many_events", 1, MAX_EVENTS + 1)
    allowed = [*events[: MAX_EVENTS - 2], ev("win", "B")]  # an even number of penalties
    assert len(allowed) < MAX_EVENTS
    assert play(allowed).totals["A"] == 1


# A round in which nobody's total changes: B wins, A scores 1 and is let off by a penalty of -1.
EVEN = {"events": [penalty(-1), ev("win", "B")]}


def test_a_session_of_more_rounds_than_the_limit_is_refused():
    error = refusal(*([EVEN] * (MAX_ROUNDS + 1)), players="AB")
    refused_at(error, "too_many_rounds", MAX_ROUNDS + 1)
    assert str(error) == f"round {MAX_ROUNDS + 1}: a session has at most {MAX_ROUNDS} rounds"
    assert play(*([EVEN] * MAX_ROUNDS), players="AB").totals == {"A": 0, "B": 0}


def test_no_round_opens_after_the_last_round_allowed():
    table = replay(session(*([EVEN] * MAX_ROUNDS), players="AB"), open_round=True).what_now()
    assert table.refusal is not None
    assert table.refusal.code == "too_many_rounds"


def test_a_total_beyond_the_limit_is_refused_at_the_round_that_would_make_it():
    # Penalties of -100, 499 to a round: each round takes 49,900 off A's total.
    per_round = [penalty(-100) for _ in range(MAX_EVENTS - 1)] + [ev("win", "A")]
    rounds_needed = -(-(TOTAL_LIMIT - 1000) // 49_900)  # from -1000 to beyond -1,000,000
    data = session(*([per_round] * rounds_needed), start={"A": -1000}, max_points=1000)
    with pytest.raises(Refusal) as caught:
        replay(data)
    refused_at(caught.value, "total_limit", rounds_needed)
    assert f"limit of {TOTAL_LIMIT}" in str(caught.value)
    fine = replay(
        session(*([per_round] * (rounds_needed - 1)), start={"A": -1000}, max_points=1000)
    )
    assert fine.totals["A"] == -1000 - 49_900 * (rounds_needed - 1)


# --- the pot game ----------------------------------------------------------------------------


def pot(*rounds, **rules):
    return {
        "format": "toepen/1",
        "game": "pot",
        "players": ["A", "B", "C"],
        "rules": rules,
        "rounds": list(rounds),
    }


def pot_refusal(data) -> Refusal:
    with pytest.raises(Refusal) as caught:
        replay(data)
    return caught.value


@pytest.mark.parametrize(
    ("key", "value"),
    [("ante", 10_000_001), ("pot_minimum", 10**15), ("pass_payment", 3_000_000_000)],
)
def test_pot_amounts_above_ten_million_cents_are_refused_with_the_bound(key, value):
    error = pot_refusal(pot(**{key: value}))
    assert error.code == "pot_rules_range"
    assert "from " in str(error)
    assert "10000000" in str(error)


def test_a_bid_above_ten_million_cents_is_refused_even_with_a_bigger_pot():
    data = pot({"bids": {"A": 10_000_001, "B": "fold", "C": "fold"}, "winner": "A"}, ante=10**7)
    error = pot_refusal(data)
    refused_at(error, "pot_bid_too_high", 1)
    assert "at most 10000000 cents" in str(error)


def test_the_tablet_offers_bids_up_to_the_pot_and_never_past_the_bound():
    small = replay(pot(ante=100), open_round=True).what_now()
    assert small.max_bid == 300
    big = replay(pot(ante=10**7), open_round=True).what_now()
    assert big.pot == 3 * 10**7
    assert big.max_bid == 10**7


def test_a_400_digit_bid_is_refused_with_a_short_message():
    error = pot_refusal(pot({"bids": {"A": int("9" * 400), "B": "fold", "C": "fold"}}))
    assert error.code == "pot_bid_too_high"
    assert len(str(error)) < 120


def test_a_pot_that_would_grow_beyond_the_limit_is_refused():
    # Every round A wins 1 cent and B and C each pay ten million in: the pot grows 2e7 a round.
    one = {"bids": {"A": 1, "B": 10**7, "C": 10**7}, "winner": "A"}
    rounds_needed = POT_LIMIT // (2 * 10**7 - 1) + 1
    error = pot_refusal(pot(*([one] * (rounds_needed + 1)), ante=10**7))
    assert error.code in {"pot_limit", "balance_limit"}
    assert f"limit of {POT_LIMIT} cents" in str(error)
    assert error.round is not None
    assert error.round <= rounds_needed


# --- the tablet's forms ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("points", ["3000000000", "9" * 400, "-101", "101"])
def test_a_huge_penalty_tap_is_a_form_message_and_changes_nothing(scorer, session, points):
    before = row_counts()
    response = tap(scorer, session, "penalty", "Anne", points=points, reason="x")
    assert response.status_code == 200
    assert "Punten: van -100 tot en met 100." in response.content.decode()
    assert row_counts() == before
    assert not session.rounds.exists()


@pytest.mark.django_db
def test_the_penalty_bound_is_said_in_the_users_language(scorer, session):
    scorer.cookies["django_language"] = "de"
    response = tap(scorer, session, "penalty", "Anne", points="3000000000")
    assert "Punkte: von -100 bis 100." in response.content.decode()


@pytest.mark.django_db
def test_a_penalty_at_the_bound_is_recorded(scorer, session):
    response = tap(scorer, session, "penalty", "Anne", points="-100", reason="x")
    assert response.status_code == 200
    assert session.rounds.get().events[0]["points"] == -100


@pytest.mark.django_db
def test_a_huge_bid_tap_is_a_form_message(scorer, club, people):
    session = make_session(club, game="pot")
    response = tap(scorer, session, "bid", "Anne", bid="1e400")
    assert "Bod (€): van 0.01 tot en met 100000." in response.content.decode()
    assert not session.rounds.exists()


@pytest.mark.django_db
def test_the_engine_refuses_a_huge_penalty_sent_past_the_form(session):
    # A service call (an import, a script) is checked by the engine itself: nothing is written.
    before = row_counts()
    with pytest.raises(Refusal) as caught:
        record(session, "penalty", "Anne", points=3_000_000_000, reason="x")
    assert caught.value.code == "out_of_range"
    assert row_counts() == before


@pytest.mark.django_db
def test_the_start_form_bounds_every_number_rule(club, people):
    data = {"club": club.pk, "dealer": 1, "game": "strafpunten", "preset": "standaard"}
    data |= {"seat_1": "Anne", "seat_2": "Bas", "rule_max_points": "100000"}
    form = SessionStartForm(data, clubs=[club])
    assert not form.is_valid()
    assert form.errors["rule_max_points"] == ["Dood bij: van 2 tot en met 1000."]
    form = SessionStartForm({**data, "rule_max_points": "1000"}, clubs=[club])
    assert form.is_valid(), form.errors


@pytest.mark.django_db
def test_the_start_form_bounds_the_pot_amounts(club, people):
    data = {"club": club.pk, "dealer": 1, "game": "pot", "preset": "standaard"}
    data |= {"seat_1": "Anne", "seat_2": "Bas", "ante": "100000.01"}
    form = SessionStartForm(data, clubs=[club])
    assert not form.is_valid()
    assert "ante" in form.errors


# --- the database: the bounds keep every number within its column ----------------------------

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the column types that wrap are PostgreSQL's"
)


def extreme_strafpunten() -> dict:
    """A session at the engine's extremes: the highest stake a round can reach (a blind knock
    to 1000, then a knock for every event left, doubled by a jack), and a total driven to the
    lowest total allowed by penalties of -100."""
    knocks = [ev("knock", "Bas" if i % 2 == 0 else "Anne") for i in range(MAX_EVENTS - 4)]
    top = [
        ev("blind_knock", "Anne"),
        ev("fold", "Cees"),
        ev("fold", "Dirk"),
        *knocks,
        ev("win", "Bas", jack=True),
    ]
    low = [penalty(-100, "Cees") for _ in range(MAX_EVENTS - 1)] + [ev("win", "Cees")]
    rounds_low = (TOTAL_LIMIT - 1000) // 49_900  # as far down as the limit allows
    return {
        "format": "toepen/1",
        "players": ["Anne", "Bas", "Cees", "Dirk"],
        "rules": {
            "max_points": 1000,
            "knock_cap": "none",
            "blind_stake": 1000,
            "jack_win_double": True,
        },
        "start": {"Cees": -1000, "Dirk": -1000},
        "rounds": [{"events": top}] + [{"events": low}] * rounds_low,
    }


def extreme_pot() -> dict:
    """A pot game at its extremes: bids of ten million cents until the pot is near its limit."""
    one = {"bids": dict.fromkeys(["Anne", "Bas", "Cees", "Dirk"], 10**7), "winner": "Anne"}
    rounds = (POT_LIMIT - 4 * 10**7) // (2 * 10**7)
    return {
        "format": "toepen/1",
        "game": "pot",
        "players": ["Anne", "Bas", "Cees", "Dirk"],
        "rules": {"ante": 10**7, "pot_minimum": 10**7, "pass_payment": 10**7},
        "rounds": [one] * rounds,
    }


@pytest.mark.django_db
@pytest.mark.parametrize("make", [extreme_strafpunten, extreme_pot])
def test_the_extremes_are_stored_as_they_are_and_equal_a_replay(club, make):
    data = make()
    result = replay(data)
    session = services.session_import(club=club, data=data)
    assert projection_problems(session) == []
    stored = {
        (s.round.number, s.player.name): (s.stake, s.points, s.total)
        for s in RoundScore.objects.filter(round__session=session).select_related("round", "player")
    }
    for rr in result.rounds:
        for name in rr.participants:
            assert stored[(rr.number, name)] == (rr.stake, rr.points[name], rr.totals[name])
    values = [v for t in stored.values() for v in t]
    assert max(values) < 2**31
    assert min(values) >= -(2**31)


def test_the_extremes_are_the_extremes():
    """The sessions above reach the limits of bounds.py, or the test would prove little."""
    strafpunten = replay(extreme_strafpunten())
    assert max(r.stake for r in strafpunten.rounds) == 1000 + MAX_EVENTS - 4
    assert strafpunten.rounds[0].points["Anne"] == 2 * (1000 + MAX_EVENTS - 4)
    assert min(strafpunten.totals.values()) < -TOTAL_LIMIT + 50_000
    pot_game = replay(extreme_pot())
    assert pot_game.pot > POT_LIMIT - 2 * 10**7
    assert pot_game.rounds[0].stake == 10**7  # the winning bid


@on_postgresql
@pytest.mark.django_db
def test_on_postgresql_with_server_side_binding_nothing_wraps(club):
    assert connection.settings_dict["OPTIONS"].get("server_side_binding") is True
    for make in (extreme_strafpunten, extreme_pot):
        session = services.session_import(club=club, data=make())
        assert projection_problems(session) == []


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("nl", "points moet van -100 tot en met 100 zijn, niet 3000000000"),
        ("de", "points muss zwischen -100 und 100 liegen, nicht 3000000000"),
        ("en", "points must be from -100 to 100, not 3000000000"),
    ],
)
def test_a_bound_refusal_is_translated(language, expected):
    from django.utils import translation

    from scoring.lei.forms import refusal_text

    error = refusal([penalty(3_000_000_000), ev("win", "B")])
    with translation.override(language):
        assert refusal_text(error) == expected


@pytest.mark.django_db
def test_a_400_digit_penalty_in_the_round_editor_is_a_form_message(scorer, session):
    record(session, "win", "Cees")
    before = row_counts()
    rows = [
        {"type": "penalty", "player": "Anne", "points": "9" * 400, "reason": "x"},
        {"type": "win", "player": "Cees"},
    ]
    response = scorer.post(edit_url(session, 1), editor_data(session, rows), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Punten: van -100 tot en met 100." in response.content.decode()
    assert row_counts() == before
    # and the next round-ending tap still works (it was a 500 while the penalty stood)
    response = tap(scorer, session, "win", "Anne")
    assert response.status_code == 200
    assert session.rounds.count() == 2
