"""A paper lei's final totals judged without its rounds (scoring/engine/paper.py): RULES.md §10
(when a game is over) and what one round can add (§3-8, §11), with the bounds of §14.

Players A, B, C and D, ``max_points`` 10 and the default rules unless a test says otherwise.
Every expected number is worked out here from RULES.md.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import Refusal, judge_totals, most_in_one_round, replay, resolve_rules
from scoring.engine.simulate import random_session

DEFAULT = resolve_rules("standaard", {})


def totals(a: int, b: int, c: int, d: int) -> dict[str, int]:
    return {"A": a, "B": b, "C": c, "D": d}


def refused(rules, given_totals, **options) -> Refusal:
    with pytest.raises(Refusal) as caught:
        judge_totals(rules, given_totals, **options)
    return caught.value


# --- §10: when a game is over --------------------------------------------------------------


def test_last_survivor_one_player_left_below_the_maximum_is_a_finished_game():
    verdict = judge_totals(DEFAULT, totals(11, 12, 10, 3))
    assert verdict.finished
    assert verdict.out == ("A", "B", "C")


def test_last_survivor_everyone_out_in_the_same_round_is_a_finished_game():
    # §10: all remaining players out in one round: the lowest total before it wins.
    assert judge_totals(DEFAULT, {"A": 10, "B": 11, "C": 12}).finished


def test_nobody_out_is_an_unfinished_game_not_a_result():
    verdict = judge_totals(DEFAULT, totals(3, 4, 0, 5))
    assert not verdict.finished
    assert verdict.out == ()


def test_example_6_after_its_round_goes_on_with_a_out_and_is_refused():
    # §15 example 6: totals 9 3 5 0, the round scores 2 1 0 1: A is out on 11 and three play
    # on. Start totals cannot say that A is out: the rounds must be entered.
    refusal = refused(DEFAULT, totals(11, 4, 5, 1))
    assert refusal.code == "totals_out_unfinished"
    assert refusal.params == {"player": "A", "total": 11, "max": 10, "left": 3}
    assert "enter the rounds" in str(refusal)


def test_example_12_after_its_round_goes_on_with_c_out_and_is_refused():
    # §15 example 12: totals 7 9 9 8, the round scores 1 0 2 1: C is out on 11.
    assert refused(DEFAULT, totals(8, 9, 11, 9)).params["player"] == "C"


def test_first_out_is_over_as_soon_as_anyone_reaches_the_maximum():
    first_out = resolve_rules("standaard", {"end": "first_out"})
    assert judge_totals(first_out, totals(1, 2, 10, 3)).finished
    assert not judge_totals(first_out, totals(1, 2, 9, 3)).finished


def test_a_game_stopped_by_hand_is_over_whoever_is_out():
    assert judge_totals(DEFAULT, totals(3, 4, 0, 5), stopped=True).finished
    assert judge_totals(DEFAULT, totals(11, 4, 5, 1), stopped=True).finished


# --- what one round can add ----------------------------------------------------------------


def test_one_round_adds_at_most_the_capped_stake_and_a_laundry_point_per_player():
    # §3 knocker cap: a knocker on 0 raises the stake to 10 at most; §8: one laundry point
    # for each of the four players' laundry. A player goes out from at most 9: 9 + 14 = 23.
    assert most_in_one_round(DEFAULT, players=4) == 14
    assert judge_totals(DEFAULT, totals(23, 9, 23, 23)).limit == 23
    refusal = refused(DEFAULT, totals(24, 9, 12, 10))
    assert refusal.code == "totals_beyond_round"
    assert refusal.params == {"player": "A", "total": 24, "limit": 23, "max": 10, "most": 14}


def test_zero_and_three_times_a_thousand_in_a_game_to_ten_is_refused_with_the_bound():
    refusal = refused(DEFAULT, totals(0, 1000, 1000, 1000))
    assert str(refusal) == (
        "B has 1000: in a game to 10 one round adds at most 14 to a total below 10,"
        " so no total is over 23"
    )


def test_all_zeros_is_a_lei_nobody_wrote_on():
    refusal = refused(DEFAULT, totals(0, 0, 0, 0))
    assert refusal.code == "totals_all_zero"
    assert refused(DEFAULT, totals(0, 0, 0, 0), stopped=True).code == "totals_all_zero"


@pytest.mark.parametrize(
    ("preset", "overrides", "most"),
    [
        # gezin: max_stake 2, but four of a kind scores 3 (§7, §12); 4 laundry points.
        ("gezin", {}, 3 + 4),
        # jack_win_double (§6): 2 x the stake of 10.
        ("standaard", {"jack_win_double": True}, 20 + 4),
        # pussy points (§11) and the Weberse jack beaten by a queen (§6).
        ("standaard", {"pussy_points": True, "jack_beaten_by_queen": 2}, 10 + 4 + 1 + 2),
        # pagat without laundry: four of a kind is off (§12), the stake alone counts.
        ("pagat", {"laundry": False}, 10),
        # kroeg: no knock cap, the blind stake of 3 plus one per event (bounds.MAX_EVENTS).
        ("kroeg", {}, 3 + 500 + 4),
    ],
)
def test_what_one_round_adds_follows_the_rules(preset, overrides, most):
    assert most_in_one_round(resolve_rules(preset, overrides), players=4) == most


def test_a_knocker_below_zero_may_raise_further():
    # §3: the knocker's total plus the new stake may not exceed 10; a knocker on -2 reaches 12.
    assert most_in_one_round(DEFAULT, players=4, lowest=-2) == 12 + 4
    assert judge_totals(DEFAULT, totals(-2, 25, 11, 12)).finished


def test_totals_outside_the_start_bounds_and_too_few_players_are_refused():
    assert refused(DEFAULT, totals(1001, 0, 0, 0)).code == "start_out_of_range"
    assert refused(DEFAULT, totals(True, 0, 0, 0)).code == "start_out_of_range"
    assert refused(DEFAULT, {"A": 12}).code == "too_few_players"


# --- every real game passes ---------------------------------------------------------------

RULE_SETS = [
    ("standaard", {}),
    ("standaard", {"end": "first_out"}),
    ("standaard", {"jack_win_double": True, "pussy_points": True}),
    ("standaard", {"knock_cap": "table", "laundry_bluff": "round_max"}),
    ("gezin", {}),
    ("pagat", {}),
    ("siwweschroom", {}),
    ("beginners", {"max_points": 15}),
]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rule_set=st.sampled_from(RULE_SETS),
    players=st.integers(2, 6),
)
def test_the_totals_of_every_finished_game_are_judged_a_finished_game(seed, rule_set, players):
    preset, overrides = rule_set
    names = [f"P{i}" for i in range(players)]
    data = random_session(random.Random(seed), names, rounds=400, preset=preset, rules=overrides)
    result = replay(data)
    if not result.finished:
        return
    verdict = judge_totals(resolve_rules(preset, overrides), result.totals)
    assert verdict.finished
    assert all(total <= verdict.limit for total in result.totals.values())
