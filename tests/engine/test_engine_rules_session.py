"""The scoring engine against RULES.md §10-14 and the "what may happen now" view: going out and
the end of a session, the house rules across rounds, presets and rules sets, team toepen, the
session file. Expected numbers come from RULES.md."""

from __future__ import annotations

import pytest

from scoring.engine import DEFAULT_RULES, PRESETS, Refusal, replay, resolve_rules
from tests.engine.sessionfile import ev, play, refusal, refused_at, row, session, totals, view

NO_KNOCK_A_WINS = [ev("win", "A")]

# --- §10 out, winner, end of the session ------------------------------------------------------


def test_player_reaching_max_points_is_out_and_the_last_one_left_is_toepkoning():
    result = play(NO_KNOCK_A_WINS, players="AB", start={"B": 9}, armoede=False)
    assert result.totals == {"A": 0, "B": 10}
    assert result.eliminated == ["B"]
    assert result.finished is True
    assert result.winner == "A"
    assert result.toepkoning == "A"
    assert result.to_json()["winner"] == "A"


def test_a_player_below_max_points_stays_in():
    result = play(NO_KNOCK_A_WINS, start={"B": 8})
    assert result.eliminated == []
    assert result.finished is False
    assert result.winner is None


def test_a_round_after_the_session_finished_is_refused():
    error = refusal(NO_KNOCK_A_WINS, NO_KNOCK_A_WINS, players="AB", start={"B": 9}, armoede=False)
    refused_at(error, "round_after_finish", 2)


def test_all_go_out_in_the_same_round_the_lowest_total_before_wins():
    """Reading: the winner of such a round is the toepkoning, not one of the eliminated, even
    though their total reached max_points too (RULES.md §10 does not list them either way)."""
    result = play(
        [ev("win", "A"), ev("penalty", "A", points=3, reason="house rule")],
        players="ABC",
        start={"A": 7, "B": 9, "C": 9},
        armoede=False,
    )
    assert totals(result) == [10, 10, 10]
    assert result.finished is True
    assert result.winner == "A"
    assert "A" not in result.eliminated
    assert sorted(result.eliminated) == ["B", "C"]
    assert result.places == {"A": 1, "B": 2, "C": 2}


def test_all_go_out_with_a_tie_play_one_sudden_death_round():
    tied = [
        ev("knock", "A"),
        ev("stay", "B"),
        ev("win", "A"),
        ev("penalty", "A", points=2, reason="house rule"),
    ]
    open_result = play(tied, players="AB", start={"A": 8, "B": 8})
    assert totals(open_result) == [10, 10]
    assert open_result.finished is False
    assert open_result.winner is None
    assert sorted(open_result.sudden_death) == ["A", "B"]
    result = play(tied, [ev("win", "B")], players="AB", start={"A": 8, "B": 8})
    assert result.finished is True
    assert result.winner == "B"
    assert result.eliminated == ["A"]


def test_end_first_out_finishes_when_anyone_goes_out_and_names_the_loser():
    result = play(NO_KNOCK_A_WINS, start={"C": 9}, armoede=False, end="first_out")
    assert result.finished is True
    assert result.loser == "C"
    assert result.eliminated == ["C"]
    assert result.toepkoning is None


def test_end_first_out_several_at_once_the_highest_total_loses():
    result = play(
        [ev("knock", "A"), ev("win", "A")],
        start={"C": 8, "D": 9},
        armoede=False,
        end="first_out",
    )
    assert totals(result) == [0, 2, 10, 11]
    assert result.loser == "D"
    assert result.eliminated == ["D", "C"]


def test_end_first_out_a_tie_loses_together():
    result = play([ev("knock", "A"), ev("win", "A")], start={"C": 8, "D": 8}, end="first_out")
    assert result.loser == ["C", "D"]
    assert result.to_json()["loser"] == ["C", "D"]  # equal totals in seat order (§14)


def test_final_order_winner_first_then_latest_out_then_lower_total_first():
    result = play(
        [ev("knock", "A"), ev("stay", "B"), ev("fold", "C"), ev("stay", "D"), ev("win", "A")],
        [ev("knock", "A"), ev("win", "A")],
        [ev("knock", "A"), ev("win", "A")],
        start={"B": 5, "C": 9, "D": 9},
        armoede=False,
    )
    # Round 1: B 7, C 10 (fold), D 11. Round 2: B 9. Round 3: B 11.
    assert totals(result) == [0, 11, 10, 11]
    assert result.eliminated == ["D", "C", "B"]  # out in the same round: higher total first
    assert result.places == {"A": 1, "B": 2, "C": 3, "D": 4}
    assert result.winner == "A"


def test_final_order_equal_totals_out_in_the_same_round_share_a_place():
    result = play(
        NO_KNOCK_A_WINS,
        NO_KNOCK_A_WINS,
        start={"B": 8, "C": 9, "D": 9},
        armoede=False,
    )
    assert result.eliminated == ["C", "D", "B"]  # equal totals in seat order (§14)
    assert result.places == {"A": 1, "B": 2, "C": 3, "D": 3}


def test_out_in_the_sudden_death_round_with_equal_totals_listed_in_seat_order():
    # Round 1: everybody out from 9 (A 10, B 11, C 12), so all three play a sudden-death
    # round. Round 2: B wins; C's -2 penalty brings C level with A at 11.
    result = play(
        [
            ev("penalty", "C", points=1, reason="kaart gezien"),
            ev("penalty", "A", points=1, reason="kaart gezien"),
            ev("win", "A"),
        ],
        [ev("penalty", "C", points=-2, reason="correctie"), ev("win", "B")],
        players="ABC",
        start={"A": 9, "B": 9, "C": 9},
    )
    assert result.winner == "B"
    assert totals(result) == [11, 11, 11]
    assert result.eliminated == ["A", "C"]  # not the order they were in before the round
    assert result.to_json()["eliminated"] == ["A", "C"]


# --- §11 house rules across rounds ------------------------------------------------------------


def knock_fold(folder: str) -> list[dict]:
    """B knocks, ``folder`` folds it, B wins."""
    return [ev("knock", "B"), ev("fold", folder), ev("win", "B")]


def test_pussy_points_every_third_fold_on_a_first_raise_adds_one():
    result = play(knock_fold("A"), knock_fold("A"), knock_fold("A"), pussy_points=True)
    assert [row(result, n)[0] for n in (1, 2, 3)] == [1, 1, 2]
    assert result.rounds[2].pussy_points == {"A": 1}
    assert result.totals["A"] == 4


def test_pussy_points_off_by_default():
    result = play(knock_fold("A"), knock_fold("A"), knock_fold("A"))
    assert result.totals["A"] == 3


def test_pussy_points_not_for_folding_a_re_knock():
    reknock = [ev("knock", "B"), ev("stay", "A"), ev("knock", "C"), ev("fold", "A"), ev("win", "B")]
    result = play(reknock, reknock, reknock, pussy_points=True)
    assert result.totals["A"] == 6  # three folds at 2, no pussy point


def test_pussy_points_do_not_count_in_an_armoede_round():
    armoede_fold = [ev("fold", "A"), ev("fold", "B"), ev("fold", "C")]
    result = play(armoede_fold, armoede_fold, armoede_fold, start={"D": 9}, pussy_points=True)
    assert totals(result) == [3, 3, 3, 9]


def test_fold_limit_the_next_fold_is_refused():
    error = refusal(knock_fold("A"), knock_fold("A"), knock_fold("A"), fold_limit=2)
    refused_at(error, "fold_limit", 3, 2)


def test_fold_limit_a_recorded_stay_resets_the_count():
    result = play(
        knock_fold("A"),
        knock_fold("A"),
        [ev("knock", "B"), ev("stay", "A"), ev("win", "B")],
        knock_fold("A"),
        knock_fold("A"),
        fold_limit=2,
    )
    assert result.totals["A"] == 6


def test_fold_limit_an_unrecorded_stay_resets_the_count():
    result = play(
        knock_fold("A"),
        knock_fold("A"),
        [ev("knock", "B"), ev("win", "B")],
        knock_fold("A"),
        fold_limit=2,
    )
    assert result.totals["A"] == 5


def test_fold_limit_knocking_resets_the_count():
    result = play(
        knock_fold("A"),
        knock_fold("A"),
        [ev("knock", "A"), ev("win", "A")],
        knock_fold("A"),
        fold_limit=2,
    )
    assert result.totals["A"] == 3


def test_fold_limit_the_armoede_player_left_when_the_others_fold_the_opening_stayed_on_it():
    """RULES.md §11: the player still in when the others folded on a raise, the armoede
    opening included, stayed on it, though the round ended at once without a `win`."""
    result = play(
        knock_fold("A"),  # A folds once: A 9, in armoede next round
        [ev("fold", "B"), ev("fold", "C"), ev("fold", "D")],  # A is left: A stayed
        [ev("knock", "B"), ev("fold", "A"), ev("win", "B")],  # so A may fold again
        start={"A": 8},
        fold_limit=1,
    )
    assert row(result, 2) == [0, 1, 1, 1]
    assert row(result, 3) == [2, 0, 3, 3]
    assert result.eliminated == ["A"]


def test_fold_limit_the_table_offers_the_fold_to_the_armoede_player_who_stayed():
    table = view(
        knock_fold("A"),
        [ev("fold", "B"), ev("fold", "C"), ev("fold", "D")],
        [ev("knock", "B")],
        start={"A": 8},
        fold_limit=1,
    )
    assert table.may_fold["A"] is None


def test_fold_limit_the_one_left_when_the_others_fold_stayed_though_they_never_answered():
    """A, in armoede, is on the toilet: the opening raise folds A; B and C fold it too, and D,
    who never answered, is left: D stayed on the opening (§9, §11)."""
    result = play(
        [ev("knock", "B"), ev("fold", "A"), ev("fold", "D"), ev("win", "B")],
        {"absent": {"A": "toilet"}, "events": [ev("fold", "B"), ev("fold", "C")]},
        [ev("knock", "B"), ev("fold", "D"), ev("win", "B")],
        start={"A": 8},
        fold_limit=1,
    )
    assert row(result, 2) == [1, 1, 1, 0]
    assert row(result, 3) == [None, 0, 2, 1]


def test_fold_limit_the_one_left_after_the_knocker_is_disqualified_stayed_on_the_knock():
    result = play(
        knock_fold("A"),
        [ev("knock", "B"), ev("disqualify", "B"), ev("fold", "C"), ev("fold", "D")],
        [ev("knock", "C"), ev("fold", "A"), ev("win", "C")],
        fold_limit=1,
    )
    assert row(result, 2) == [0, 0, 1, 1]
    assert row(result, 3) == [1, None, 0, 2]


def test_fold_limit_the_knocker_left_when_the_others_fold_may_fold_the_next_raise():
    result = play(
        knock_fold("A"),
        [ev("knock", "A"), ev("fold", "B"), ev("fold", "C"), ev("fold", "D")],
        knock_fold("A"),
        fold_limit=1,
    )
    assert totals(result) == [2, 1, 5, 5]


def test_five_crosses_five_wins_in_a_row_put_out_the_lowest_other():
    four = play(*[NO_KNOCK_A_WINS] * 4, start={"B": 2, "C": 1}, five_crosses=True)
    assert four.eliminated == []
    five = play(*[NO_KNOCK_A_WINS] * 5, start={"B": 2, "C": 1}, five_crosses=True)
    assert totals(five) == [0, 7, 6, 5]
    assert five.eliminated == ["D"]


def test_five_crosses_a_tie_takes_the_first_clockwise_from_the_winner():
    result = play(*[[ev("win", "C")]] * 5, five_crosses=True)
    assert totals(result) == [5, 5, 0, 5]
    assert result.eliminated == ["D"]


def test_five_crosses_the_streak_starts_again():
    nine = play(*[NO_KNOCK_A_WINS] * 9, start={"B": 2, "C": 1}, five_crosses=True, max_points=30)
    assert nine.eliminated == ["D"]
    ten = play(*[NO_KNOCK_A_WINS] * 10, start={"B": 2, "C": 1}, five_crosses=True, max_points=30)
    assert ten.eliminated == ["D", "C"]


def test_five_crosses_a_lost_round_breaks_the_streak():
    rounds = [NO_KNOCK_A_WINS] * 4 + [[ev("win", "B")]] + [NO_KNOCK_A_WINS] * 4
    assert play(*rounds, five_crosses=True).eliminated == []


def test_five_crosses_off_by_default():
    assert play(*[NO_KNOCK_A_WINS] * 5).eliminated == []


def test_folded_winner_all_lose_nobody_wins_and_every_active_player_pays_the_stake():
    result = play(
        [ev("knock", "B"), ev("fold", "A"), ev("stay", "C"), ev("win", "A")],
        folded_winner="all_lose",
    )
    assert row(result) == [1, 2, 2, 2]
    assert result.rounds[0].winner is None
    assert result.to_json()["rounds"][0]["winner"] is None


def test_next_dealer_winner_the_last_trick_winner_deals():
    table = view([ev("win", "C")])
    assert table.dealer == "C"
    assert table.leader == "D"  # the player left of (after) the dealer leads


def test_next_dealer_clockwise_the_next_seat_deals():
    result = replay(session([ev("win", "C")], next_dealer="clockwise"), open_round=True)
    first = result.rounds[0].dealer
    seats = result.players
    following = seats[(seats.index(first) + 1) % len(seats)]
    table = result.what_now()
    assert table.dealer == following
    assert table.leader == seats[(seats.index(following) + 1) % len(seats)]


def test_unit_is_display_only_and_does_not_change_the_scores():
    rounds = ([ev("knock", "B"), ev("fold", "C"), ev("win", "D")], [ev("win", "A", jack=True)])
    points = play(*rounds)
    for unit in ("lives", "sips"):
        other = play(*rounds, unit=unit)
        assert other.totals == points.totals == {"A": 1, "B": 3, "C": 2, "D": 1}
        assert other.to_json()["rounds"] == points.to_json()["rounds"]


# --- §12 presets and rules sets ---------------------------------------------------------------

PAGAT = {
    "unit": "lives",
    "jack_win_minus": False,
    "blind_knock": False,
    "four_of_a_kind": 0,
    "folded_winner": "all_lose",
}
PRESET_CHANGES = {
    "standaard": {},
    "pagat": PAGAT,
    "siwweschroom": {**PAGAT, "max_points": 7},
    "gezin": {"max_points": 5, "max_stake": 2, "blind_knock": False},
    "kroeg": {"knock_cap": "none"},
    "beginners": {"max_stake": 1, "armoede": False, "blind_knock": False},
}


def test_the_defaults_of_every_rule():
    assert DEFAULT_RULES == {
        "max_points": 10,
        "knock_cap": "knocker",
        "max_stake": None,
        "armoede": True,
        "blind_knock": True,
        "blind_stake": 3,
        "blind_reknock": True,
        "blind_who": "any",
        "jack_win_minus": True,
        "jack_win_double": False,
        "jack_knock_bonus": False,
        "jack_beaten_by_queen": 0,
        "four_of_a_kind": 3,
        "laundry": True,
        "laundry_bluff": "point",
        "pussy_points": False,
        "fold_limit": 0,
        "five_crosses": False,
        "folded_winner": "reject",
        "next_dealer": "winner",
        "unit": "points",
        "end": "last_survivor",
    }


@pytest.mark.parametrize("preset", sorted(PRESET_CHANGES))
def test_preset_changes_only_its_keys(preset):
    assert set(PRESETS) == set(PRESET_CHANGES)
    assert resolve_rules(preset) == {**DEFAULT_RULES, **PRESET_CHANGES[preset]}


def test_preset_pagat_plays_without_jack_minus_four_or_blind_and_accepts_a_folded_winner():
    result = play([ev("win", "A", jack=True)], preset="pagat")
    assert row(result) == [0, 1, 1, 1]
    refused_at(refusal([ev("four_of_a_kind", "A", rank="7")], preset="pagat"), "four_off", 1, 1)
    refused_at(refusal([ev("blind_knock", "A")], preset="pagat"), "blind_off", 1, 1)
    lost = play([ev("knock", "B"), ev("fold", "A"), ev("win", "A")], preset="pagat")
    assert row(lost) == [1, 2, 2, 2]


def test_preset_siwweschroom_is_out_at_seven():
    result = play(NO_KNOCK_A_WINS, start={"B": 6}, preset="siwweschroom", armoede=False)
    assert result.eliminated == ["B"]
    assert result.rules["max_points"] == 7


def test_preset_gezin_caps_the_stake_at_two_and_is_out_at_five():
    refused_at(
        refusal([ev("knock", "A"), ev("knock", "B"), ev("win", "A")], preset="gezin"),
        "max_stake",
        1,
        2,
    )
    result = play([ev("knock", "A"), ev("win", "A")], start={"B": 3}, preset="gezin")
    assert result.eliminated == ["B"]  # 3 + 2 = 5


def test_preset_kroeg_has_no_knock_cap():
    result = play(
        [ev("knock", "B"), ev("knock", "A"), ev("win", "B")], start={"A": 8}, preset="kroeg"
    )
    assert result.rounds[0].stake == 3


def test_preset_beginners_no_knocking_and_no_armoede():
    refused_at(refusal([ev("knock", "A")], preset="beginners"), "max_stake", 1, 1)
    result = play(NO_KNOCK_A_WINS, start={"D": 9}, preset="beginners")
    assert result.rounds[0].stake == 1
    assert result.rounds[0].armoede == []


def rules_refusal(**kwargs) -> Refusal:
    with pytest.raises(Refusal) as caught:
        replay(session(NO_KNOCK_A_WINS, **kwargs))
    assert str(caught.value).startswith("rules: "), str(caught.value)
    assert caught.value.round is None
    return caught.value


def test_rules_armoede_with_max_stake_one_is_refused():
    assert rules_refusal(max_stake=1, blind_knock=False).code == "rules_armoede_max_stake"


def test_rules_blind_stake_above_max_stake_is_refused():
    assert rules_refusal(max_stake=3, blind_stake=4).code == "rules_blind_max_stake"


def test_rules_gezin_with_blind_knock_is_refused():
    assert rules_refusal(preset="gezin", blind_knock=True).code == "rules_blind_max_stake"


def test_rules_max_points_below_two_is_refused():
    assert rules_refusal(max_points=1).code in {"rules_armoede_max_stake", "rules_out_of_range"}


def test_rules_unknown_key_and_unknown_preset_are_refused():
    assert rules_refusal(max_point=10).code == "rules_unknown_key"
    assert rules_refusal(preset="casino").code == "rules_unknown_preset"


def test_rules_bad_value_is_refused():
    assert rules_refusal(knock_cap="sometimes").code == "rules_bad_value"


def test_rules_blind_stake_above_max_stake_is_fine_when_blind_knock_is_off():
    assert play(NO_KNOCK_A_WINS, preset="gezin").rules["blind_stake"] == 3


# --- §13a team toepen -------------------------------------------------------------------------

TEAMS = {"Noord": ["A", "C"], "Oost": ["B", "D"]}


def test_teams_the_winners_side_scores_the_winners_result_a_side_pays_once():
    result = play([ev("knock", "B"), ev("fold", "C"), ev("stay", "D"), ev("win", "B")], teams=TEAMS)
    assert row(result) == [2, 0, 1, 2]
    # Oost scores the winner's 0 (D's own 2 does not count); Noord: A lost 2, C folded for 1,
    # and the side pays once: 2.
    assert result.rounds[0].side_points == {"Noord": 2, "Oost": 0}
    assert result.totals == {"Noord": 2, "Oost": 0}


def test_teams_side_points_in_the_json_and_totals_name_sides():
    data = play([ev("win", "A", jack=True)], teams=TEAMS).to_json()
    assert data["rounds"][0]["side_points"] == {"Noord": -1, "Oost": 1}
    assert data["rounds"][0]["points"] == {"A": -1, "B": 1, "C": 1, "D": 1}
    assert data["totals"] == {"Noord": -1, "Oost": 1}


def test_teams_penalties_are_added_to_the_side_on_top():
    result = play(
        [ev("penalty", "C", points=2, reason="peek"), ev("win", "A")],
        [ev("penalty", "D", points=1, reason="peek"), ev("win", "A")],
        teams=TEAMS,
    )
    assert result.rounds[0].side_points == {"Noord": 2, "Oost": 1}
    assert result.rounds[1].side_points == {"Noord": 0, "Oost": 2}


def test_teams_armoede_by_side_total():
    table = view([], start={"Noord": 9}, teams=TEAMS)
    assert table.armoede == ["A", "C"]
    assert table.stake == 2
    assert sorted(table.must_answer) == ["B", "D"]


def test_teams_knock_cap_by_side_total():
    error = refusal(
        [ev("knock", "B"), ev("knock", "C"), ev("win", "C")], start={"Noord": 8}, teams=TEAMS
    )
    refused_at(error, "knock_cap", 1, 2)
    assert "8 + 3" in str(error)


def test_teams_blind_eligibility_by_side_total():
    error = refusal(
        [ev("blind_knock", "B"), ev("win", "B")],
        start={"Noord": 5},
        teams=TEAMS,
        blind_who="most_points",
    )
    refused_at(error, "blind_most_points", 1, 1)
    result = play(
        [ev("blind_knock", "C"), ev("win", "C")],
        start={"Noord": 5},
        teams=TEAMS,
        blind_who="most_points",
    )
    assert result.rounds[0].side_points == {"Noord": 0, "Oost": 3}


def test_teams_a_side_is_out_at_max_points_and_the_last_side_wins():
    result = play(
        [ev("knock", "B"), ev("stay", "A"), ev("win", "B")], start={"Noord": 8}, teams=TEAMS
    )
    assert result.totals == {"Noord": 10, "Oost": 0}
    assert result.eliminated == ["Noord"]
    assert result.finished is True
    assert result.winner == "Oost"


def test_teams_are_four_or_six_players_in_sides_of_two_seated_opposite():
    odd = {"Noord": ["A", "C"], "Oost": ["B"]}
    with pytest.raises(Refusal) as caught:
        replay(session(NO_KNOCK_A_WINS, players="ABC", teams=odd))
    assert caught.value.code == "teams_invalid"
    with pytest.raises(Refusal) as caught:
        replay(session(NO_KNOCK_A_WINS, teams={"Noord": ["A", "B"], "Oost": ["C", "D"]}))
    assert caught.value.code == "teams_invalid"
    six = {"X": ["A", "D"], "Y": ["B", "E"], "Z": ["C", "F"]}
    assert set(play(NO_KNOCK_A_WINS, players="ABCDEF", teams=six).totals) == {"X", "Y", "Z"}


def test_teams_cannot_be_combined_with_five_crosses():
    assert rules_refusal(teams=TEAMS, five_crosses=True).code == "rules_five_crosses_teams"


# --- §14 the session file ---------------------------------------------------------------------


def test_session_file_defaults_game_preset_and_rules():
    result = replay(
        {"format": "toepen/1", "players": ["A", "B"], "rounds": [{"events": NO_KNOCK_A_WINS}]}
    )
    assert result.game == "strafpunten"
    assert result.rules == DEFAULT_RULES
    assert result.totals == {"A": 0, "B": 1}


def test_session_file_rules_override_the_preset():
    result = play(NO_KNOCK_A_WINS, preset="gezin", max_points=6)
    assert result.rules["max_points"] == 6
    assert result.rules["max_stake"] == 2


def test_session_file_start_totals_missing_players_start_at_zero():
    result = play(NO_KNOCK_A_WINS, start={"B": 4})
    assert totals(result) == [0, 5, 1, 1]


def test_session_file_unknown_event_type_is_refused_with_its_place():
    error = refusal(NO_KNOCK_A_WINS, [ev("knock", "A"), ev("jump", "B"), ev("win", "A")])
    refused_at(error, "unknown_event", 2, 2)


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"type": "win"}, "player"),
        ({"type": "penalty", "player": "A", "points": 1}, "reason"),
        ({"type": "penalty", "player": "A", "reason": "peek"}, "points"),
        ({"type": "four_of_a_kind", "player": "A"}, "rank"),
        ({"type": "laundry", "player": "A", "challenger": "B"}, "genuine"),
    ],
)
def test_session_file_missing_fields_are_refused(event, field):
    error = refusal([event, ev("win", "A")])
    refused_at(error, "missing_field", 1, 1)
    assert field in str(error)


def test_session_file_bad_rank_is_refused():
    error = refusal([ev("four_of_a_kind", "A", rank="joker")])
    refused_at(error, "bad_field", 1, 1)


def test_session_file_unknown_player_is_refused():
    error = refusal([ev("knock", "A"), ev("fold", "Z"), ev("win", "A")])
    refused_at(error, "unknown_player", 1, 2)


def test_session_file_a_round_without_a_winner_is_refused():
    error = refusal(NO_KNOCK_A_WINS, [ev("knock", "B"), ev("stay", "C")])
    refused_at(error, "no_winner", 2)
    assert str(error) == "round 2: the round has no winner"


def test_session_file_open_round_accepts_an_unfinished_last_round():
    result = replay(session(NO_KNOCK_A_WINS, [ev("knock", "B")]), open_round=True)
    assert len(result.rounds) == 1
    assert result.totals == {"A": 0, "B": 1, "C": 1, "D": 1}
    assert result.what_now().stake == 2


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"players": ["A", "B"], "rounds": []},
        {"format": "toepen/2", "players": ["A", "B"], "rounds": []},
        {"format": "toepen/1", "players": "AB", "rounds": []},
        {"format": "toepen/1", "players": ["A"], "rounds": []},
        {"format": "toepen/1", "players": ["A", "B"], "rounds": {}},
    ],
)
def test_session_file_not_a_valid_file_says_so(data):
    with pytest.raises(Refusal) as caught:
        replay(data)
    assert caught.value.code == "invalid_file"
    assert "not a valid session file" in str(caught.value)


def test_session_file_json_output_keys():
    data = play([ev("knock", "B"), ev("fold", "C"), ev("win", "D")]).to_json()
    assert data == {
        "rounds": [
            {"number": 1, "stake": 2, "winner": "D", "points": {"A": 2, "B": 2, "C": 1, "D": 0}}
        ],
        "totals": {"A": 2, "B": 2, "C": 1, "D": 0},
        "eliminated": [],
        "finished": False,
        "winner": None,
        "loser": None,
    }


# --- the "what may happen now" view -----------------------------------------------------------


def test_view_before_the_first_event():
    table = view([])
    assert table.round_number == 1
    assert table.started is False
    assert table.stake == 1
    assert table.must_answer == []
    assert table.blind_knock_possible is True
    assert table.laundry_possible is True
    assert table.four_of_a_kind_possible is True
    assert table.jack_beaten_possible is False
    assert all(table.may_knock[p] is None for p in "ABCD")


def test_view_who_must_answer_in_turn_from_the_knocker():
    assert view([ev("knock", "B")]).must_answer == ["C", "D", "A"]
    assert view([ev("knock", "B"), ev("stay", "C")]).must_answer == ["D", "A"]
    table = view([ev("knock", "B"), ev("stay", "C"), ev("knock", "D")])
    assert table.must_answer == ["A", "B", "C"]
    assert table.stake == 3
    assert table.prior_stake == 2
    assert table.raisers == ["D"]


def test_view_may_knock_gives_the_reasons():
    table = view([ev("knock", "B"), ev("fold", "C")], start={"A": 8})
    assert table.may_knock["B"].code == "knock_own_raise"
    assert table.may_knock["C"].code == "folded_already"
    assert table.may_knock["A"].code == "knock_cap"
    assert table.may_knock["D"] is None
    assert table.may_fold["B"].code == "answer_own_raise"
    assert table.may_fold["D"] is None
    assert table.folded == {"C": 1}
    assert table.active == ["A", "B", "D"]


def test_view_after_a_knock_no_blind_laundry_or_four():
    table = view([ev("knock", "B")])
    assert table.started is True
    assert table.blind_knock_possible is False
    assert table.laundry_possible is False
    assert table.four_of_a_kind_possible is False


def test_view_after_a_blind_knock_laundry_and_four_still_possible():
    table = view([ev("blind_knock", "B")])
    assert table.stake == 3
    assert table.blind_knock_possible is False
    assert table.laundry_possible is True
    assert table.four_of_a_kind_possible is True


def test_view_armoede_round_no_blind_knock():
    table = view([], start={"C": 9})
    assert table.armoede == ["C"]
    assert table.blind_knock_possible is False
    assert table.may_blind_knock["A"].code == "blind_armoede"
    assert table.may_knock["C"].code == "knock_armoede"
    assert table.must_answer == ["D", "A", "B"]


def test_view_playing_for_their_death():
    table = view([ev("knock", "B")], start={"A": 8, "C": 7})
    assert table.playing_for_death == ["A"]
    assert table.may_knock["A"].code == "knock_cap"
    assert table.may_stay["A"] is None


def test_view_flags_follow_the_rules():
    table = view([], blind_knock=False, laundry=False, four_of_a_kind=0, jack_beaten_by_queen=1)
    assert table.blind_knock_possible is False
    assert table.laundry_possible is False
    assert table.four_of_a_kind_possible is False
    assert table.jack_beaten_possible is True


def test_view_absent_players():
    table = view({"absent": {"D": "drinks", "B": "toilet"}, "events": []})
    assert table.participants == ["A", "B", "C"]
    assert table.absent == {"D": "drinks", "B": "toilet"}
    after = view({"absent": {"B": "toilet"}, "events": [ev("knock", "A")]})
    assert after.folded == {"B": 1}
    assert after.must_answer == ["C", "D"]


def test_view_of_a_finished_session():
    table = view(NO_KNOCK_A_WINS, players="AB", start={"B": 9}, armoede=False)
    assert table.finished is True
    assert table.totals == {"A": 0, "B": 10}


def test_view_a_recorded_stay_answers_the_raise():
    table = view([ev("knock", "B"), ev("stay", "C")])
    assert table.may_fold["C"].code == "answered_already"
    assert table.may_stay["C"].code == "answered_already"
    assert table.may_fold["D"] is None


# --- more of §10, §11 and §14 -----------------------------------------------------------------


def test_five_crosses_putting_out_the_last_other_player_makes_the_winner_toepkoning():
    result = play(*[NO_KNOCK_A_WINS] * 5, players="AB", five_crosses=True)
    assert result.totals == {"A": 0, "B": 5}
    assert result.eliminated == ["B"]
    assert result.finished is True
    assert result.winner == "A"


def test_penalty_for_a_folded_player_comes_on_top_of_the_fold():
    result = play(
        [
            ev("knock", "B"),
            ev("fold", "C"),
            ev("penalty", "C", points=1, reason="peek"),
            ev("win", "A"),
        ]
    )
    assert row(result) == [0, 2, 2, 2]


def test_penalty_for_a_player_away_for_drinks_is_refused():
    error = refusal(
        {
            "absent": {"D": "drinks"},
            "events": [ev("penalty", "D", points=1, reason="peek"), ev("win", "A")],
        }
    )
    refused_at(error, "not_in_round", 1, 1)


def test_jack_beaten_needs_a_last_trick():
    """All fold: no last trick was played, so no jack was beaten in it."""
    error = refusal(
        [
            ev("knock", "B"),
            ev("fold", "C"),
            ev("fold", "D"),
            ev("fold", "A"),
            ev("jack_beaten", "C"),
        ],
        jack_beaten_by_queen=1,
    )
    refused_at(error, "round_over", 1, 5)


def test_disqualify_leaving_one_active_player_ends_the_round():
    result = play(
        [ev("knock", "A"), ev("fold", "B"), ev("fold", "C"), ev("disqualify", "D")],
    )
    assert row(result) == [0, 1, 1, 0]
    assert result.rounds[0].winner == "A"
    assert result.eliminated == ["D"]


def test_session_file_unknown_event_message():
    error = refusal([ev("knock", "A"), ev("jump", "B"), ev("win", "A")])
    assert str(error) == "round 1, event 2: unknown event type jump"


def test_session_file_a_round_that_is_not_an_object_says_so_and_where():
    with pytest.raises(Refusal) as caught:
        replay(
            {
                "format": "toepen/1",
                "players": ["A", "B"],
                "rounds": [{"events": NO_KNOCK_A_WINS}, 7],
            }
        )
    refused_at(caught.value, "invalid_file", 2)
    assert "not a valid session file" in str(caught.value)


def test_session_file_an_event_that_is_not_an_object_says_so_and_where():
    with pytest.raises(Refusal) as caught:
        replay({"format": "toepen/1", "players": ["A", "B"], "rounds": [{"events": ["win"]}]})
    refused_at(caught.value, "invalid_file", 1, 1)


def test_a_round_needs_two_players_present():
    error = refusal({"absent": {"B": "drinks"}, "events": NO_KNOCK_A_WINS}, players="AB")
    refused_at(error, "too_few_players", 1)


def test_at_most_eight_players():
    error = refusal({"join": ["I"], "events": NO_KNOCK_A_WINS}, players="ABCDEFGH")
    refused_at(error, "too_many_players", 1)


def test_view_playing_for_their_death_with_cap_none_is_shown_but_may_knock():
    """Same reading as test_playing_for_their_death_may_raise_with_cap_none (kroegtoepen)."""
    table = view([ev("knock", "B"), ev("stay", "A")], start={"A": 8}, knock_cap="none")
    assert table.playing_for_death == ["A"]
    assert table.may_knock["A"] is None
