"""The engine's last edge cases, each worked out from RULES.md (§4, §7, §9, §13a).

Players are A, B, C and D, seated clockwise, ``max_points`` 10 unless a test says otherwise.
"""

from __future__ import annotations

from tests.engine.sessionfile import ev, play, row, totals, view

TEAMS = {"Noord": ["A", "C"], "Oost": ["B", "D"]}


def test_a_toilet_player_in_armoede_scores_one_in_a_round_with_a_raise():
    # §9: away on the toilet, taken to fold at the round's first raise "also when they are an
    # armoede player themselves": A (on 9) is in armoede, the round opens at 2, A folds it at 1.
    # B knocks to 3; C wins; B and D stayed and score 3.
    result = play(
        {
            "absent": {"A": "toilet"},
            "events": [ev("knock", "B"), ev("stay", "C"), ev("stay", "D"), ev("win", "C")],
        },
        start={"A": 9},
    )
    assert row(result) == [1, 3, 0, 3]
    assert totals(result) == [10, 3, 0, 3]
    assert result.rounds[0].folds["A"] == 1


def test_a_toilet_armoede_player_does_not_answer_or_hold_up_the_round():
    table = view({"absent": {"A": "toilet"}, "events": []}, start={"A": 9})
    assert table.stake == 2
    assert table.folded == {"A": 1}
    assert table.must_answer == ["B", "C", "D"]


def test_in_team_toepen_a_toilet_players_own_result_is_one_not_the_stake():
    # §13a: armoede looks at the side's total, so Noord (on 9) opens at 2 for A and C; C is on
    # the toilet and folds that opening raise at 1 (§9). B knocks to 3, A and D stay, B wins.
    # A's own result is 3, C's is 1; Noord pays once: the highest of its members, 3.
    result = play(
        {
            "absent": {"C": "toilet"},
            "events": [ev("knock", "B"), ev("stay", "A"), ev("stay", "D"), ev("win", "B")],
        },
        teams=TEAMS,
        start={"Noord": 9},
    )
    assert result.rounds[0].points == {"A": 3, "B": 0, "C": 1, "D": 3}
    assert result.rounds[0].side_points == {"Noord": 3, "Oost": 0}


def test_in_team_toepen_a_toilet_player_without_armoede_scores_one_on_a_knock():
    result = play(
        {
            "absent": {"D": "toilet"},
            "events": [ev("knock", "B"), ev("stay", "A"), ev("stay", "C"), ev("win", "A")],
        },
        teams=TEAMS,
    )
    assert result.rounds[0].points["D"] == 1


def test_a_player_who_folded_can_still_be_disqualified_for_a_false_kans_op_toep():
    # §7: B folds A's knock (cost 1), then is caught bluffing a kans op toep: B keeps the fold
    # cost and is out after the round, whatever their total.
    result = play(
        [
            ev("knock", "A"),
            ev("fold", "B"),
            ev("disqualify", "B"),
            ev("stay", "C"),
            ev("stay", "D"),
            ev("win", "A"),
        ]
    )
    assert row(result) == [0, 1, 2, 2]
    assert result.rounds[0].disqualified == ["B"]
    assert result.eliminated == ["B"]
    assert result.totals["B"] == 1


def test_a_disqualified_folder_does_not_end_the_round_twice():
    # A knocks, B and C fold: D and A play on. Disqualifying C (already folded) changes who is
    # active not at all; D then folds and A wins by all-fold.
    result = play(
        [
            ev("knock", "A"),
            ev("fold", "B"),
            ev("fold", "C"),
            ev("disqualify", "C"),
            ev("fold", "D"),
        ]
    )
    assert row(result) == [0, 1, 1, 1]
    assert result.rounds[0].winner == "A"
    assert result.eliminated == ["C"]


def test_a_blind_knock_under_the_table_cap_ignores_a_toilet_players_total():
    # §9: toilet players do not count for the table cap. D (on 8) is on the toilet: the
    # highest total at the table is 0, so A may knock blind to 3.
    result = play(
        {
            "absent": {"D": "toilet"},
            "events": [ev("blind_knock", "A"), ev("stay", "B"), ev("stay", "C"), ev("win", "B")],
        },
        knock_cap="table",
        start={"D": 8},
    )
    assert row(result) == [3, 0, 3, 1]


def test_a_knock_under_the_table_cap_ignores_a_toilet_player_before_the_first_raise():
    table = view(
        {"absent": {"D": "toilet"}, "events": []}, knock_cap="table", armoede=False, start={"D": 9}
    )
    assert table.may_knock["A"] is None
    assert table.may_blind_knock["A"] is None


def test_the_table_cap_still_counts_the_players_at_the_table():
    table = view({"absent": {"D": "toilet"}, "events": []}, knock_cap="table", start={"C": 8})
    assert table.may_knock["A"] is None  # a stake of 2 is 10 - 8
    assert table.may_blind_knock["A"].code == "knock_cap_table"  # 3 is over it
