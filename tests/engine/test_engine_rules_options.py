"""The scoring engine against RULES.md §4-9: armoede, blind knock, the jack rules, four of a
kind and disqualify, laundry, absent and joining players. Expected numbers come from RULES.md."""

from __future__ import annotations

import pytest

from tests.engine.sessionfile import ev, play, refusal, refused_at, row, totals, view

# --- §4 armoede -------------------------------------------------------------------------------


def test_armoede_round_opens_at_stake_two_as_if_the_armoede_player_knocked():
    table = view([], start={"D": 9})
    assert table.armoede == ["D"]
    assert table.stake == 2
    assert table.prior_stake == 1
    assert table.raisers == ["D"]
    assert table.must_answer == ["A", "B", "C"]


def test_armoede_stayers_lose_the_stake_of_two():
    result = play([ev("stay", "A"), ev("fold", "B"), ev("win", "C")], start={"D": 9})
    assert row(result) == [2, 1, 0, 2]
    assert result.rounds[0].stake == 2
    assert result.rounds[0].armoede == ["D"]
    assert result.eliminated == ["D"]


def test_armoede_player_may_not_re_knock_the_opening_raise():
    error = refusal([ev("knock", "D"), ev("win", "D")], start={"D": 9})
    refused_at(error, "knock_armoede", 1, 1)


def test_armoede_player_does_not_answer_the_opening_raise():
    error = refusal([ev("fold", "D"), ev("win", "A")], start={"D": 9})
    refused_at(error, "answer_own_raise", 1, 1)


def test_armoede_re_knock_is_a_normal_knock():
    result = play(
        [ev("knock", "B"), ev("fold", "A"), ev("stay", "C"), ev("stay", "D"), ev("win", "B")],
        start={"D": 9},
    )
    # Stake 3; A folds B's re-knock and pays the prior stake 2.
    assert row(result) == [2, 0, 3, 3]
    assert result.rounds[0].stake == 3


def test_armoede_re_knock_is_subject_to_the_cap():
    error = refusal([ev("knock", "C"), ev("win", "C")], start={"C": 8, "D": 9})
    refused_at(error, "knock_cap", 1, 1)  # 8 + 3 > 10


def test_armoede_player_can_never_knock_with_the_default_cap():
    error = refusal([ev("knock", "B"), ev("knock", "D"), ev("win", "B")], start={"D": 9})
    refused_at(error, "knock_cap", 1, 2)  # 9 + 4 > 10


def test_armoede_one_armoede_player_left_wins_when_all_others_fold():
    result = play([ev("fold", "A"), ev("fold", "B"), ev("fold", "C")], start={"D": 9})
    assert row(result) == [1, 1, 1, 0]
    assert result.rounds[0].winner == "D"
    assert result.totals["D"] == 9


def test_armoede_two_armoede_players_left_play_on():
    table = view([ev("fold", "A"), ev("fold", "D")], start={"B": 9, "C": 9})
    assert table.armoede == ["B", "C"]
    assert table.active == ["B", "C"]
    assert table.folded == {"A": 1, "D": 1}
    assert table.may_win["B"] is None
    assert table.may_win["C"] is None


def test_armoede_two_armoede_players_left_the_round_needs_a_winner():
    error = refusal([ev("fold", "A"), ev("fold", "D")], start={"B": 9, "C": 9})
    refused_at(error, "no_winner", 1)


def test_armoede_three_armoede_players_the_winner_is_recorded_the_others_go_out():
    result = play([ev("fold", "D"), ev("win", "A")], start={"A": 9, "B": 9, "C": 9})
    assert row(result) == [0, 2, 2, 1]
    assert sorted(result.eliminated) == ["B", "C"]
    assert result.finished is False  # A and D are left


def test_no_blind_knock_in_an_armoede_round():
    error = refusal([ev("blind_knock", "A"), ev("win", "A")], start={"D": 9})
    refused_at(error, "blind_armoede", 1, 1)


def test_armoede_needs_exactly_max_minus_one():
    result = play([ev("win", "A")], start={"D": 8})
    assert result.rounds[0].armoede == []
    assert result.rounds[0].stake == 1
    high = play([ev("win", "A")], start={"D": 13}, max_points=15)
    assert high.rounds[0].armoede == []
    poor = play([ev("fold", "A"), ev("win", "B")], start={"D": 14}, max_points=15)
    assert poor.rounds[0].armoede == ["D"]
    assert row(poor) == [1, 0, 2, 2]


def test_armoede_off_a_player_on_nine_plays_a_normal_round():
    result = play([ev("win", "A")], start={"D": 9}, armoede=False)
    assert result.rounds[0].stake == 1
    assert result.rounds[0].armoede == []
    assert row(result) == [0, 1, 1, 1]
    assert result.eliminated == ["D"]


# --- §5 blind knock ---------------------------------------------------------------------------


def test_blind_knock_stake_four():
    result = play(
        [ev("blind_knock", "D"), ev("fold", "A"), ev("stay", "B"), ev("win", "C")], blind_stake=4
    )
    assert row(result) == [1, 4, 0, 4]
    assert result.rounds[0].stake == 4
    assert result.rounds[0].blind_knocker == "D"


def test_blind_knock_must_be_the_first_event():
    error = refusal([ev("knock", "A"), ev("blind_knock", "D"), ev("win", "A")])
    refused_at(error, "blind_not_first", 1, 2)


def test_blind_knock_off_is_refused():
    error = refusal([ev("blind_knock", "D"), ev("win", "A")], blind_knock=False)
    refused_at(error, "blind_off", 1, 1)


def test_blind_reknock_allowed_by_default_and_fold_then_costs_the_blind_stake():
    result = play(
        [ev("blind_knock", "D"), ev("knock", "A"), ev("fold", "B"), ev("stay", "C"), ev("win", "A")]
    )
    assert result.rounds[0].stake == 4
    assert row(result) == [0, 3, 4, 4]


def test_blind_reknock_false_forbids_any_raise_for_the_rest_of_the_round():
    error = refusal([ev("blind_knock", "D"), ev("knock", "A"), ev("win", "A")], blind_reknock=False)
    refused_at(error, "no_reknock_after_blind", 1, 2)


def test_blind_reknock_false_does_not_stop_a_normal_round():
    result = play([ev("knock", "A"), ev("knock", "B"), ev("win", "A")], blind_reknock=False)
    assert result.rounds[0].stake == 3


def test_blind_who_most_points_only_the_highest_total():
    error = refusal(
        [ev("blind_knock", "B"), ev("win", "A")], start={"A": 5}, blind_who="most_points"
    )
    refused_at(error, "blind_most_points", 1, 1)
    result = play([ev("blind_knock", "A"), ev("win", "B")], start={"A": 5}, blind_who="most_points")
    assert row(result) == [3, 0, 3, 3]


def test_blind_who_fewest_points_only_the_lowest_total():
    start = {"A": 5, "B": 5, "C": 5}
    error = refusal(
        [ev("blind_knock", "A"), ev("win", "B")], start=start, blind_who="fewest_points"
    )
    refused_at(error, "blind_fewest_points", 1, 1)
    result = play([ev("blind_knock", "D"), ev("win", "D")], start=start, blind_who="fewest_points")
    assert row(result) == [3, 3, 3, 0]


def test_blind_knock_is_capped_with_the_blind_stake_as_the_new_stake():
    refused_at(refusal([ev("blind_knock", "A"), ev("win", "A")], start={"A": 8}), "knock_cap", 1, 1)
    assert play([ev("blind_knock", "A"), ev("win", "A")], start={"A": 7}).rounds[0].stake == 3


def test_blind_knock_cap_with_blind_stake_four():
    error = refusal([ev("blind_knock", "A"), ev("win", "A")], start={"A": 7}, blind_stake=4)
    refused_at(error, "knock_cap", 1, 1)
    assert "7 + 4" in str(error)
    ok = play([ev("blind_knock", "A"), ev("win", "A")], start={"A": 6}, blind_stake=4)
    assert ok.rounds[0].stake == 4


def test_blind_fold_then_peek_costs_a_penalty_of_one():
    result = play(
        [
            ev("blind_knock", "D"),
            ev("fold", "A"),
            ev("penalty", "A", points=1, reason="peek"),
            ev("win", "D"),
        ]
    )
    assert row(result) == [2, 3, 3, 0]


# --- §6 the jack rules ------------------------------------------------------------------------


def test_jack_win_minus_off_the_jack_winner_scores_nothing():
    result = play([ev("win", "A", jack=True)], jack_win_minus=False)
    assert row(result) == [0, 1, 1, 1]


def test_jack_win_minus_totals_can_go_below_zero():
    result = play([ev("win", "A", jack=True)], [ev("win", "A", jack=True)])
    assert result.totals["A"] == -2


def test_jack_win_double_doubles_the_stayers_at_stake_two():
    result = play(
        [ev("knock", "B"), ev("fold", "C"), ev("stay", "D"), ev("win", "A", jack=True)],
        jack_win_double=True,
    )
    # Folders are not doubled: C pays 1.
    assert row(result) == [-1, 4, 1, 4]


def test_jack_win_double_needs_a_stake_of_at_least_two():
    result = play([ev("win", "A", jack=True)], jack_win_double=True)
    assert row(result) == [-1, 1, 1, 1]


def test_jack_win_double_counts_armoede_as_a_knock():
    result = play(
        [ev("fold", "B"), ev("win", "A", jack=True)], start={"D": 9}, jack_win_double=True
    )
    assert row(result) == [-1, 1, 4, 4]


def test_jack_win_double_only_with_a_jack():
    result = play([ev("knock", "B"), ev("win", "A")], jack_win_double=True)
    assert row(result) == [0, 2, 2, 2]


def test_jack_win_double_without_jack_win_minus():
    result = play(
        [ev("knock", "B"), ev("knock", "C"), ev("win", "A", jack=True)],
        jack_win_double=True,
        jack_win_minus=False,
    )
    assert row(result) == [0, 6, 6, 6]


def all_fold_to(knocker: str, *folders: str) -> list[dict]:
    return [ev("knock", knocker), *(ev("fold", p) for p in folders)]


@pytest.mark.parametrize(("shown", "bonus"), [(1, 0), (2, -1), (3, -2), (4, -3)])
def test_jack_knock_bonus_after_the_first_raise(shown, bonus):
    result = play(
        [*all_fold_to("B", "C", "D", "A"), ev("win", "B", jacks_shown=shown)],
        jack_knock_bonus=True,
    )
    assert row(result) == [1, bonus, 1, 1]


@pytest.mark.parametrize(("shown", "bonus"), [(0, 0), (1, -1), (2, -2), (3, -3)])
def test_jack_knock_bonus_after_a_re_knock_minus_one_per_jack(shown, bonus):
    result = play(
        [
            ev("knock", "B"),
            ev("knock", "C"),
            ev("fold", "D"),
            ev("fold", "A"),
            ev("fold", "B"),
            ev("win", "C", jacks_shown=shown),
        ],
        jack_knock_bonus=True,
    )
    assert row(result) == [2, 2, bonus, 2]


def test_jack_knock_bonus_off_by_default():
    result = play([*all_fold_to("B", "C", "D", "A"), ev("win", "B", jacks_shown=3)])
    assert row(result) == [1, 0, 1, 1]


def test_jack_knock_bonus_only_when_everybody_folded():
    result = play(
        [ev("knock", "B"), ev("stay", "C"), ev("win", "B", jacks_shown=3)], jack_knock_bonus=True
    )
    assert row(result) == [2, 0, 2, 2]


def test_jack_beaten_by_queen_adds_its_points_on_top():
    result = play(
        [ev("knock", "A"), ev("jack_beaten", "B"), ev("win", "C")], jack_beaten_by_queen=2
    )
    assert row(result) == [2, 4, 0, 2]
    assert result.rounds[0].penalties == {"B": 2}


def test_jack_beaten_by_queen_is_refused_for_a_player_who_folded():
    # RULES.md §6: the jack was in the last trick, and a folded player plays no last trick.
    error = refusal(
        [ev("knock", "A"), ev("fold", "B"), ev("jack_beaten", "B"), ev("win", "C")],
        jack_beaten_by_queen=2,
    )
    refused_at(error, "jack_beaten_folded", 1, 3)


def test_jack_beaten_by_queen_off_by_default():
    error = refusal([ev("jack_beaten", "B"), ev("win", "C")])
    refused_at(error, "jack_beaten_off", 1, 1)


# --- §7 four of a kind and disqualify ---------------------------------------------------------


def test_four_of_a_kind_only_before_the_first_knock():
    error = refusal([ev("knock", "B"), ev("four_of_a_kind", "C", rank="ace")])
    refused_at(error, "four_after_knock", 1, 2)


def test_four_of_a_kind_after_a_blind_knock_scores_the_four_value_folders_keep_their_cost():
    result = play([ev("blind_knock", "D"), ev("fold", "A"), ev("four_of_a_kind", "B", rank="7")])
    assert row(result) == [1, 0, 3, 3]
    assert result.rounds[0].winner == "B"


def test_four_of_a_kind_in_an_armoede_round():
    result = play([ev("fold", "A"), ev("four_of_a_kind", "B", rank="king")], start={"D": 9})
    assert row(result) == [1, 0, 3, 3]
    assert result.eliminated == ["D"]


def test_four_jacks_score_minus_one():
    result = play([ev("four_of_a_kind", "C", rank="jack")])
    assert row(result) == [3, 3, -1, 3]


def test_four_jacks_without_jack_win_minus_score_nothing():
    result = play([ev("four_of_a_kind", "C", rank="jack")], jack_win_minus=False)
    assert row(result) == [3, 3, 0, 3]


def test_four_of_a_kind_value_is_a_rule_option():
    result = play([ev("four_of_a_kind", "A", rank="queen")], four_of_a_kind=5)
    assert row(result) == [0, 5, 5, 5]


def test_four_of_a_kind_zero_switches_it_off():
    error = refusal([ev("four_of_a_kind", "A", rank="queen")], four_of_a_kind=0)
    refused_at(error, "four_off", 1, 1)


def test_four_of_a_kind_ends_the_round_at_once():
    error = refusal([ev("four_of_a_kind", "A", rank="8"), ev("win", "B")])
    refused_at(error, "round_over", 1, 2)


def test_disqualify_is_a_fold_at_no_cost_and_puts_the_player_out_whatever_their_total():
    result = play(
        [ev("knock", "A"), ev("disqualify", "B"), ev("win", "C")],
        [ev("win", "A")],
    )
    assert row(result, 1) == [2, 0, 0, 2]
    assert result.totals["B"] == 0
    assert result.eliminated == ["B"]
    assert result.rounds[0].disqualified == ["B"]
    assert "B" not in result.rounds[1].points


def test_disqualified_player_is_out_of_the_next_round():
    error = refusal([ev("disqualify", "B"), ev("win", "C")], [ev("win", "B")])
    refused_at(error, "out_of_game", 2, 1)


# --- §8 laundry -------------------------------------------------------------------------------


def test_laundry_without_challenger_scores_nothing():
    result = play([ev("laundry", "B", genuine=False), ev("win", "A")])
    assert row(result) == [0, 1, 1, 1]


def test_laundry_genuine_the_challenger_scores_one():
    result = play([ev("laundry", "B", challenger="D", genuine=True), ev("win", "A")])
    assert row(result) == [0, 1, 1, 2]


def test_laundry_bluff_round_max_one_plus_the_highest_result_of_the_round():
    events = [
        ev("laundry", "B", challenger="D", genuine=False),
        ev("knock", "A"),
        ev("fold", "B"),
        ev("win", "C"),
    ]
    # B folded (1); the highest other result is 2 (A, D): B scores 1 + max(1, 2) = 3.
    assert row(play(events, laundry_bluff="round_max")) == [2, 3, 0, 2]
    assert row(play(events)) == [2, 2, 0, 2]  # "point": 1 + 1


def test_laundry_bluff_round_max_own_result_when_it_is_the_larger():
    events = [
        ev("laundry", "B", challenger="D", genuine=False),
        ev("knock", "A"),
        ev("fold", "C"),
        ev("fold", "D"),
        ev("stay", "B"),
        ev("win", "A"),
    ]
    # B lost 2, the others 1 (folds) and 0: B scores 1 + max(2, 1) = 3.
    assert row(play(events, laundry_bluff="round_max")) == [0, 3, 1, 1]


def test_laundry_only_before_the_first_knock():
    error = refusal([ev("knock", "A"), ev("laundry", "B", challenger="D", genuine=False)])
    refused_at(error, "laundry_after_knock", 1, 2)


def test_laundry_after_a_blind_knock_is_allowed():
    result = play(
        [ev("blind_knock", "A"), ev("laundry", "B", challenger="C", genuine=True), ev("win", "A")]
    )
    assert row(result) == [0, 3, 4, 3]


def test_laundry_in_an_armoede_round_is_allowed():
    result = play(
        [ev("laundry", "B", challenger="C", genuine=False), ev("win", "A")], start={"D": 9}
    )
    assert row(result) == [0, 3, 2, 2]


def test_laundry_off_is_refused():
    error = refusal(
        [ev("laundry", "B", challenger="D", genuine=False), ev("win", "A")], laundry=False
    )
    refused_at(error, "laundry_off", 1, 1)


# --- §9 absent and joining players ------------------------------------------------------------


def test_absent_toilet_is_taken_to_fold_at_the_first_knock_and_scores_one():
    result = play(
        {
            "absent": {"D": "toilet"},
            "events": [ev("knock", "B"), ev("knock", "C"), ev("stay", "A"), ev("win", "A")],
        }
    )
    assert row(result) == [0, 3, 3, 1]
    assert result.rounds[0].folds.get("D") == 1


def test_absent_toilet_without_a_knock_loses_the_stake_of_one():
    result = play({"absent": {"D": "toilet"}, "events": [ev("win", "A")]})
    assert row(result) == [0, 1, 1, 1]


def test_absent_toilet_cannot_win():
    error = refusal({"absent": {"D": "toilet"}, "events": [ev("win", "D")]})
    refused_at(error, "away_from_table", 1, 1)


def test_absent_drinks_is_not_in_the_round_and_scores_nothing():
    result = play(
        {"absent": {"D": "drinks"}, "events": [ev("knock", "A"), ev("win", "A")]},
        start={"D": 4},
    )
    assert result.rounds[0].points.get("D", 0) == 0
    assert result.rounds[0].participants == ["A", "B", "C"]
    assert totals(result) == [0, 2, 2, 4]


def test_absent_drinks_player_cannot_act_in_the_round():
    error = refusal({"absent": {"D": "drinks"}, "events": [ev("knock", "D"), ev("win", "A")]})
    refused_at(error, "not_in_round", 1, 1)


def test_join_seats_the_new_player_last_with_a_total_of_zero():
    result = play(
        [ev("win", "A")],
        {"join": ["E"], "events": [ev("knock", "E"), ev("win", "B")]},
    )
    assert result.players == ["A", "B", "C", "D", "E"]
    assert row(result, 2) == [2, 0, 2, 2, 2]
    assert totals(result) == [2, 1, 3, 3, 2]


def test_join_taken_name_is_refused():
    error = refusal([ev("win", "A")], {"join": ["B"], "events": [ev("win", "B")]})
    refused_at(error, "join_taken", 2)
