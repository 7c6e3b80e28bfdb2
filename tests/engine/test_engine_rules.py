"""The scoring engine against RULES.md, rule by rule: §1-3 (events, stake, knocking, caps).

Every expected number here is worked out from RULES.md, not from the engine. The helpers are in
tests/engine/sessionfile.py, shared with the other ``test_engine_rules_*.py`` modules.
Players are A, B, C and D, seated clockwise, ``max_points`` 10 unless a test says otherwise.
"""

from __future__ import annotations

from tests.engine.sessionfile import ev, play, refusal, refused_at, row, totals

# --- §15 worked examples ---------------------------------------------------------------------


def test_example_1_no_knock_everyone_but_the_winner_scores_one():
    result = play([ev("win", "C")])
    assert row(result) == [1, 1, 0, 1]
    assert result.rounds[0].stake == 1
    assert result.rounds[0].winner == "C"


def test_example_2_knock_one_fold_two_stay():
    result = play(
        [ev("knock", "B"), ev("fold", "C"), ev("stay", "D"), ev("stay", "A"), ev("win", "D")]
    )
    assert row(result) == [2, 2, 1, 0]
    assert result.rounds[0].stake == 2


def test_example_3_re_knock_folds_cost_the_prior_stake():
    result = play(
        [
            ev("knock", "B"),
            ev("stay", "C"),
            ev("knock", "D"),
            ev("fold", "A"),
            ev("fold", "C"),
            ev("win", "B"),
        ]
    )
    assert row(result) == [2, 0, 2, 3]
    assert result.rounds[0].stake == 3


def test_example_4_everybody_folds_to_the_knocker_who_wins():
    result = play([ev("knock", "B"), ev("fold", "C"), ev("fold", "D"), ev("fold", "A")])
    assert row(result) == [1, 0, 1, 1]
    assert result.rounds[0].winner == "B"


def test_example_5_winning_with_a_jack_scores_minus_one():
    result = play([ev("win", "A", jack=True)])
    assert row(result) == [-1, 1, 1, 1]
    assert result.totals["A"] == -1


def test_example_6_armoede_folds_score_one_and_the_armoede_player_goes_out():
    result = play(
        [ev("fold", "B"), ev("fold", "D"), ev("win", "C")], start={"A": 9, "B": 3, "C": 5}
    )
    assert row(result) == [2, 1, 0, 1]
    assert totals(result) == [11, 4, 5, 1]
    assert result.eliminated == ["A"]


def test_example_7_everyone_folds_to_armoede_and_the_armoede_player_wins():
    result = play(
        [ev("fold", "B"), ev("fold", "C"), ev("fold", "D")], start={"A": 9, "B": 3, "C": 5}
    )
    assert row(result) == [0, 1, 1, 1]
    assert result.rounds[0].winner == "A"
    assert result.eliminated == []


def test_example_8_player_on_eight_cannot_re_knock_to_three():
    error = refusal([ev("knock", "B"), ev("stay", "A"), ev("knock", "A")], start={"A": 8})
    refused_at(error, "knock_cap", 1, 3)
    assert str(error) == "round 1, event 3: A cannot knock: 8 + 3 is over the maximum of 10"


def test_example_9_four_tens_score_three_for_everyone_else():
    result = play([ev("four_of_a_kind", "C", rank="10")])
    assert row(result) == [3, 3, 0, 3]
    assert result.rounds[0].winner == "C"


def test_example_10_laundry_bluff_caught_costs_the_bluffer_one():
    result = play([ev("laundry", "B", challenger="D", genuine=False), ev("win", "A")])
    assert row(result) == [0, 2, 1, 1]


def test_example_11_blind_knock_folds_cost_one_stayers_three():
    result = play([ev("blind_knock", "D"), ev("fold", "A"), ev("fold", "C"), ev("win", "B")])
    assert row(result) == [1, 0, 1, 3]
    assert result.rounds[0].stake == 3


def test_example_12_two_armoede_players_play_it_out_the_loser_goes_out():
    result = play(
        [ev("fold", "A"), ev("fold", "D"), ev("win", "B")],
        start={"A": 7, "B": 9, "C": 9, "D": 8},
    )
    assert row(result) == [1, 0, 2, 1]
    assert result.totals["C"] == 11
    assert result.eliminated == ["C"]


# --- §1/§3 the stake, the events and their costs ---------------------------------------------


def test_every_knock_raises_the_stake_by_one():
    result = play([ev("knock", "A"), ev("knock", "B"), ev("knock", "C"), ev("win", "D")])
    assert result.rounds[0].stake == 4
    assert row(result) == [4, 4, 4, 0]


def test_fold_costs_the_stake_before_the_knock():
    result = play(
        [ev("knock", "B"), ev("knock", "C"), ev("knock", "D"), ev("fold", "A"), ev("win", "B")]
    )
    # Stake 4 after three knocks; A folds the third one and pays the prior stake 3.
    assert row(result) == [3, 0, 4, 4]
    assert result.rounds[0].folds == {"A": 3}


def test_fold_on_the_first_knock_costs_one():
    result = play([ev("knock", "A"), ev("fold", "B"), ev("win", "C")])
    assert row(result) == [2, 1, 0, 2]


def test_stay_is_optional_to_record_not_folding_is_staying():
    recorded = play([ev("knock", "B"), ev("stay", "C"), ev("stay", "D"), ev("win", "A")])
    silent = play([ev("knock", "B"), ev("win", "A")])
    assert row(recorded) == row(silent) == [0, 2, 2, 2]


def test_each_raise_is_answered_once_no_fold_after_a_recorded_stay():
    error = refusal([ev("knock", "B"), ev("stay", "C"), ev("fold", "C"), ev("win", "A")])
    refused_at(error, "answered_already", 1, 3)


def test_each_raise_is_answered_once_no_second_stay():
    error = refusal([ev("knock", "B"), ev("stay", "C"), ev("stay", "C"), ev("win", "A")])
    refused_at(error, "answered_already", 1, 3)


def test_after_a_recorded_stay_a_player_may_fold_a_later_raise():
    result = play(
        [ev("knock", "B"), ev("stay", "C"), ev("knock", "D"), ev("fold", "C"), ev("win", "A")]
    )
    assert row(result) == [0, 3, 2, 3]


def test_a_fold_without_a_raise_to_answer_is_refused():
    error = refusal([ev("fold", "A"), ev("win", "B")])
    refused_at(error, "no_raise_to_answer", 1, 1)


def test_the_knocker_cannot_fold_their_own_raise():
    error = refusal([ev("knock", "B"), ev("fold", "B"), ev("win", "A")])
    refused_at(error, "answer_own_raise", 1, 2)


def test_win_ends_the_round_no_knock_after_it():
    error = refusal([ev("win", "A"), ev("knock", "B")])
    refused_at(error, "round_over", 1, 2)


def test_penalty_adds_its_points_to_the_round_result():
    result = play([ev("penalty", "B", points=2, reason="peek"), ev("win", "B")])
    assert row(result) == [1, 2, 1, 1]
    assert result.rounds[0].penalties == {"B": 2}


def test_negative_penalty_corrects_a_total():
    result = play([ev("win", "A"), ev("penalty", "C", points=-3, reason="correction")])
    assert row(result) == [0, 1, -2, 1]


def test_penalty_of_zero_is_refused():
    error = refusal([ev("penalty", "B", points=0, reason="nothing"), ev("win", "A")])
    refused_at(error, "penalty_zero", 1, 1)


def test_win_by_a_folded_player_is_refused_by_default():
    error = refusal([ev("knock", "B"), ev("fold", "C"), ev("win", "C")])
    refused_at(error, "win_folded", 1, 3)


def test_totals_are_the_sum_of_the_round_results():
    result = play(
        [ev("win", "C")],
        [ev("knock", "B"), ev("fold", "C"), ev("win", "D")],
        [ev("win", "A", jack=True)],
    )
    # 1 1 0 1, then 2 2 1 0, then -1 1 1 1
    assert totals(result) == [2, 4, 2, 2]
    assert result.rounds[1].totals == {"A": 3, "B": 3, "C": 1, "D": 1}


# --- §3 all fold ------------------------------------------------------------------------------


def test_all_fold_the_last_active_player_wins_and_scores_nothing():
    result = play(
        [ev("knock", "B"), ev("knock", "C"), ev("fold", "D"), ev("fold", "A"), ev("fold", "B")]
    )
    # Stake 3: D, A and B fold C's re-knock and pay the prior stake 2.
    assert row(result) == [2, 2, 0, 2]
    assert result.rounds[0].winner == "C"
    assert result.rounds[0].ended_by == "all_fold"


def test_all_fold_a_win_may_still_be_recorded_for_the_last_player():
    result = play(
        [ev("knock", "B"), ev("fold", "C"), ev("fold", "D"), ev("fold", "A"), ev("win", "B")]
    )
    assert row(result) == [1, 0, 1, 1]
    assert result.rounds[0].winner == "B"


def test_all_fold_a_recorded_win_cannot_claim_a_jack():
    error = refusal(
        [
            ev("knock", "B"),
            ev("fold", "C"),
            ev("fold", "D"),
            ev("fold", "A"),
            ev("win", "B", jack=True),
        ]
    )
    refused_at(error, "win_jack_after_all_fold", 1, 5)


def test_all_fold_a_win_for_anyone_else_is_refused():
    error = refusal(
        [ev("knock", "B"), ev("fold", "C"), ev("fold", "D"), ev("fold", "A"), ev("win", "D")]
    )
    refused_at(error, "round_over", 1, 5)


def test_all_fold_ends_the_round_at_once_no_knock_after_it():
    error = refusal(
        [ev("knock", "B"), ev("fold", "C"), ev("fold", "D"), ev("fold", "A"), ev("knock", "B")]
    )
    refused_at(error, "round_over", 1, 5)


# --- §3 who may knock -------------------------------------------------------------------------


def test_you_cannot_re_knock_your_own_knock():
    error = refusal([ev("knock", "B"), ev("knock", "B"), ev("win", "A")])
    refused_at(error, "knock_own_raise", 1, 2)


def test_after_someone_else_raised_you_may_knock_again():
    result = play([ev("knock", "B"), ev("knock", "C"), ev("knock", "B"), ev("win", "B")])
    assert result.rounds[0].stake == 4
    assert row(result) == [4, 0, 4, 4]
    assert result.rounds[0].knocks == {"B": 2, "C": 1}


def test_a_folded_player_cannot_knock():
    error = refusal([ev("knock", "B"), ev("fold", "C"), ev("knock", "C"), ev("win", "A")])
    refused_at(error, "folded_already", 1, 3)


def test_player_on_nine_may_never_knock_with_default_cap():
    """Armoede is switched off so that the cap itself is what refuses (9 + 2 > 10)."""
    error = refusal([ev("knock", "A"), ev("win", "A")], start={"A": 9}, armoede=False)
    refused_at(error, "knock_cap", 1, 1)
    assert str(error) == "round 1, event 1: A cannot knock: 9 + 2 is over the maximum of 10"


def test_player_on_nine_may_not_re_knock_either_with_default_cap():
    error = refusal(
        [ev("knock", "B"), ev("knock", "A"), ev("win", "A")], start={"A": 9}, armoede=False
    )
    refused_at(error, "knock_cap", 1, 2)


def test_player_on_eight_may_knock_to_two_with_default_cap():
    result = play([ev("knock", "A"), ev("win", "B")], start={"A": 8})
    assert result.rounds[0].stake == 2
    assert result.totals["A"] == 10
    assert result.eliminated == ["A"]


def test_player_on_eight_may_not_knock_to_three_with_default_cap():
    error = refusal([ev("knock", "B"), ev("knock", "A"), ev("win", "A")], start={"A": 8})
    refused_at(error, "knock_cap", 1, 2)


def test_knocker_cap_follows_max_points():
    ok = play([ev("knock", "B"), ev("knock", "A"), ev("win", "A")], start={"A": 12}, max_points=15)
    assert ok.rounds[0].stake == 3
    error = refusal(
        [ev("knock", "B"), ev("knock", "A"), ev("win", "A")], start={"A": 13}, max_points=15
    )
    refused_at(error, "knock_cap", 1, 2)


def test_table_cap_new_stake_may_reach_max_minus_highest_active_total():
    result = play(
        [ev("knock", "A"), ev("knock", "B"), ev("win", "A")], start={"D": 7}, knock_cap="table"
    )
    assert result.rounds[0].stake == 3  # 3 = 10 - 7


def test_table_cap_new_stake_may_not_exceed_max_minus_highest_active_total():
    error = refusal(
        [ev("knock", "A"), ev("knock", "B"), ev("knock", "C"), ev("win", "A")],
        start={"D": 7},
        knock_cap="table",
    )
    refused_at(error, "knock_cap_table", 1, 3)
    assert str(error) == (
        "round 1, event 3: C cannot knock: a stake of 4 is over the maximum of 10"
        " minus the highest total 7"
    )


def test_table_cap_limits_a_low_player_where_the_knocker_cap_would_not():
    events = [ev("knock", "A"), ev("stay", "D"), ev("knock", "B"), ev("win", "A")]
    refused_at(refusal(events, start={"D": 8}, knock_cap="table"), "knock_cap_table", 1, 3)
    assert play(events, start={"D": 8}).rounds[0].stake == 3  # knocker cap: B is on 0


def test_table_cap_counts_only_active_participants():
    result = play(
        [ev("knock", "A"), ev("fold", "D"), ev("knock", "B"), ev("win", "B")],
        start={"D": 8},
        knock_cap="table",
    )
    # D (on 8) folded, so the highest active total is 0 and a stake of 3 is fine.
    assert result.rounds[0].stake == 3
    assert row(result) == [3, 0, 3, 1]


def test_cap_none_lets_a_player_on_nine_knock_without_limit():
    result = play(
        [ev("knock", "A"), ev("knock", "B"), ev("knock", "A"), ev("win", "B")],
        start={"A": 9},
        armoede=False,
        knock_cap="none",
    )
    assert result.rounds[0].stake == 4
    assert result.totals["A"] == 13


def test_max_stake_no_raise_above_it():
    error = refusal(
        [ev("knock", "A"), ev("knock", "B"), ev("win", "A")], max_stake=2, blind_knock=False
    )
    refused_at(error, "max_stake", 1, 2)
    assert "may not go above 2" in str(error)


def test_max_stake_holds_even_with_cap_none():
    error = refusal(
        [ev("knock", "A"), ev("knock", "B"), ev("knock", "C"), ev("win", "A")],
        max_stake=3,
        knock_cap="none",
        blind_knock=False,
    )
    refused_at(error, "max_stake", 1, 3)


def test_max_stake_one_means_no_knocking():
    error = refusal(
        [ev("knock", "A"), ev("win", "A")], max_stake=1, armoede=False, blind_knock=False
    )
    refused_at(error, "max_stake", 1, 1)


def test_playing_for_their_death_cannot_raise_but_others_may_and_they_may_stay():
    """A on 8 stays at 2 (8 + 2 = 10): A may not raise; C may, and A stays and loses 3."""
    error = refusal([ev("knock", "B"), ev("stay", "A"), ev("knock", "A")], start={"A": 8})
    refused_at(error, "knock_cap", 1, 3)
    result = play(
        [ev("knock", "B"), ev("stay", "A"), ev("knock", "C"), ev("stay", "A"), ev("win", "C")],
        start={"A": 8},
    )
    assert row(result) == [3, 3, 0, 3]
    assert result.totals["A"] == 11
    assert result.eliminated == ["A"]


def test_playing_for_their_death_may_raise_with_cap_none():
    """Ambiguity: §3 lists "playing for their death (total + stake >= max) cannot raise" beside
    the knock cap. Read on its own it would also bind `none`, but then `none` would differ from
    `knocker` only for blind knocks (total + s < max always allows total + s + 1 <= max), which
    is not "unlimited (kroegtoepen)". Decided as a pub player plays kroegtoepen: the bullet is
    the consequence of the knocker/table cap; with cap none the player on 8 may re-knock."""
    result = play(
        [ev("knock", "B"), ev("stay", "A"), ev("knock", "A"), ev("win", "B")],
        start={"A": 8},
        knock_cap="none",
    )
    assert result.rounds[0].stake == 3
    assert result.totals["A"] == 11
