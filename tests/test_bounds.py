"""Every number is bounded where it enters (RULES.md §14): the engine, the tablet's forms, the
import, and the database columns the bounds keep from wrapping around.

The engine tests need no database; the others are marked.
"""

from __future__ import annotations

import pytest

from scoring.engine import Refusal, replay
from scoring.engine.bounds import MAX_EVENTS, MAX_ROUNDS, POT_LIMIT, TOTAL_LIMIT
from tests.test_engine_rules import ev, play, refusal, refused_at, session

# --- the engine ------------------------------------------------------------------------------


def penalty(points, player="A"):
    return ev("penalty", player, points=points, reason="typo")


def test_finding_2_penalty_of_3e9_is_refused_not_wrapped():
    error = refusal([penalty(3_000_000_000), ev("win", "B")])
    refused_at(error, "out_of_range", 1, 1)
    assert str(error) == "round 1, event 1: points must be from -100 to 100, not 3000000000"


def test_finding_2_a_400_digit_penalty_is_refused_with_a_short_message():
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
