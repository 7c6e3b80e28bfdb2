"""The pot game (RULES.md §13): money in and out of the pot, in cents, without a database."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.errors import Refusal
from scoring.engine.pot import FOLD, PotView, replay_pot

PLAYERS = ["Anne", "Bas", "Cees", "Dirk"]
F = FOLD


def rnd(winner: str | None = None, **bids: Any) -> dict[str, Any]:
    """A round of the file: ``rnd("Anne", Anne=150, Bas=F, …)``."""
    data: dict[str, Any] = {"bids": bids}
    if winner is not None:
        data["winner"] = winner
    return data


def all_fold(winner: str, players: list[str] = PLAYERS) -> dict[str, Any]:
    return {"bids": dict.fromkeys(players, F), "winner": winner}


def play(
    rounds: list[Any],
    *,
    players: list[str] = PLAYERS,
    rules: dict[str, Any] | None = None,
    ended: bool = False,
    open_round: bool = False,
):
    return replay_pot(
        players, {} if rules is None else rules, rounds, ended=ended, open_round=open_round
    )


def refusal(rounds: list[Any], **kwargs: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        play(rounds, **kwargs)
    return caught.value


# Starting and the rule options


def test_every_player_pays_the_ante_into_the_pot_at_the_start():
    result = play([], rules={"ante": 250})
    assert result.balances == dict.fromkeys(PLAYERS, -250)
    assert result.pot == 1000


def test_rules_default_to_an_ante_of_100_and_a_minimum_of_ante_times_players():
    result = play([])
    assert result.rules == {"ante": 100, "pot_minimum": 400, "pass_payment": 100}
    assert result.pot == 400


def test_pot_minimum_default_follows_a_changed_ante():
    assert play([], rules={"ante": 50}).rules["pot_minimum"] == 200


# Bids


def test_winner_takes_their_bid_from_the_pot():
    result = play([rnd("Anne", Anne=150, Bas=F, Cees=F, Dirk=F)], rules={"pot_minimum": 0})
    assert result.rounds[0].points["Anne"] == 150
    assert result.balances["Anne"] == 50
    assert result.pot == 250


def test_every_other_bidder_pays_their_bid_into_the_pot():
    result = play([rnd("Anne", Anne=100, Bas=80, Cees=F, Dirk=300)])
    assert result.rounds[0].points == {"Anne": 100, "Bas": -80, "Cees": 0, "Dirk": -300}
    assert result.pot == 400 - 100 + 80 + 300


def test_folders_neither_pay_nor_win():
    result = play([rnd("Bas", Anne=F, Bas=50, Cees=60, Dirk=F)])
    assert result.rounds[0].points["Anne"] == 0
    assert result.rounds[0].points["Dirk"] == 0
    assert result.rounds[0].folds == {"Anne": 0, "Dirk": 0}


def test_a_bid_may_be_the_whole_pot():
    result = play([rnd("Cees", Anne=F, Bas=F, Cees=400, Dirk=F)], rules={"pot_minimum": 0})
    assert result.balances["Cees"] == 300
    assert result.pot == 0


def test_the_round_stake_is_the_winners_bid():
    result = play([rnd("Dirk", Anne=30, Bas=F, Cees=F, Dirk=70)])
    assert result.rounds[0].stake == 70
    assert result.rounds[0].winner == "Dirk"
    assert result.rounds[0].ended_by == "pot"


def test_the_highest_bid_is_the_pot_at_the_start_of_that_round():
    # Round 1 leaves 400 - 100 + 300 = 600 in the pot, so 600 is allowed in round 2.
    rounds = [
        rnd("Anne", Anne=100, Bas=300, Cees=F, Dirk=F),
        rnd("Bas", Anne=F, Bas=600, Cees=F, Dirk=F),
    ]
    assert play(rounds, rules={"pot_minimum": 0}).pot == 0


# Pass rounds


def test_everybody_folding_is_a_pass_round_where_the_last_trick_winner_pays():
    result = play([all_fold("Cees")], rules={"pass_payment": 75})
    (round_1,) = result.rounds
    assert round_1.ended_by == "pass"
    assert round_1.stake == 75
    assert round_1.points == {"Anne": 0, "Bas": 0, "Cees": -75, "Dirk": 0}
    assert result.pot == 475


def test_pass_payment_defaults_to_the_ante():
    assert play([all_fold("Anne")], rules={"ante": 40}).rounds[0].points["Anne"] == -40


def test_a_pass_payment_of_zero_makes_a_pass_round_free():
    result = play([all_fold("Anne")], rules={"pass_payment": 0})
    assert result.rounds[0].points == dict.fromkeys(PLAYERS, 0)
    assert result.pot == 400


# Topping the pot up


def test_a_pot_below_the_minimum_is_topped_up_in_equal_shares():
    # 400 - 200 = 200 left, 200 short: everybody pays 50.
    result = play([rnd("Anne", Anne=200, Bas=F, Cees=F, Dirk=F)])
    assert result.rounds[0].points == {"Anne": 150, "Bas": -50, "Cees": -50, "Dirk": -50}
    assert result.pot == 400


def test_top_up_shares_are_rounded_up_to_a_cent():
    # 400 - 101 = 299, 101 short over 4 players: 25.25, so each pays 26 and the pot is 403.
    result = play([rnd("Anne", Anne=101, Bas=F, Cees=F, Dirk=F)])
    assert result.rounds[0].points == {"Anne": 75, "Bas": -26, "Cees": -26, "Dirk": -26}
    assert result.pot == 403
    assert sum(result.balances.values()) + result.pot == 0


def test_no_top_up_when_the_pot_is_at_the_minimum():
    result = play([rnd("Anne", Anne=100, Bas=100, Cees=F, Dirk=F)])
    assert result.rounds[0].points == {"Anne": 100, "Bas": -100, "Cees": 0, "Dirk": 0}
    assert result.pot == 400


def test_a_pot_minimum_of_zero_means_no_top_ups():
    result = play([rnd("Anne", Anne=400, Bas=F, Cees=F, Dirk=F)], rules={"pot_minimum": 0})
    assert result.pot == 0


def test_a_minimum_above_the_antes_tops_up_after_the_first_round():
    result = play([all_fold("Anne")], rules={"ante": 100, "pot_minimum": 1000})
    # 400 + 100 pass payment = 500, 500 short: 125 each.
    assert result.rounds[0].points == {"Anne": -225, "Bas": -125, "Cees": -125, "Dirk": -125}
    assert result.pot == 1000


def test_a_bid_may_use_the_money_of_the_last_top_up():
    rounds = [
        rnd("Anne", Anne=101, Bas=F, Cees=F, Dirk=F),  # pot topped up to 403
        rnd("Bas", Anne=F, Bas=403, Cees=F, Dirk=F),
    ]
    assert play(rounds).rounds[1].stake == 403


# Ending the game


def test_ending_the_game_shares_the_pot_equally():
    result = play([all_fold("Anne")], ended=True)  # pot 500
    assert result.pot == 0
    assert result.balances == {"Anne": -75, "Bas": 25, "Cees": 25, "Dirk": 25}
    assert result.finished is True


def test_ending_gives_the_odd_cents_to_the_first_seats():
    # Balances -25 -126 -126 -126 and a pot of 403 after the top-up: 100 each, and the
    # 3 odd cents to Anne, Bas and Cees.
    result = play([rnd("Anne", Anne=101, Bas=F, Cees=F, Dirk=F)], ended=True)
    assert result.balances == {"Anne": 76, "Bas": -25, "Cees": -25, "Dirk": -26}
    assert sum(result.balances.values()) == 0


def test_a_game_ended_before_any_round_gives_everyone_their_ante_back():
    result = play([], ended=True)
    assert result.balances == dict.fromkeys(PLAYERS, 0)
    assert result.pot == 0


def test_the_rounds_keep_their_balances_from_before_the_share_out():
    result = play([all_fold("Anne")], ended=True)
    assert result.rounds[0].totals == {"Anne": -200, "Bas": -100, "Cees": -100, "Dirk": -100}


def test_a_game_that_has_not_ended_is_not_finished():
    result = play([all_fold("Anne")])
    assert result.finished is False
    assert result.winner is None
    assert result.loser is None
    assert result.eliminated == []


# The result


def test_places_go_by_balance_and_equal_balances_share_a_place():
    result = play([rnd("Bas", Anne=10, Bas=20, Cees=F, Dirk=F)])
    # Bas +20, Anne -10, Cees and Dirk 0 on top of the ante: equal for Cees and Dirk.
    assert result.places == {"Bas": 1, "Cees": 2, "Dirk": 2, "Anne": 4}


def test_totals_are_the_balances():
    result = play([rnd("Bas", Anne=10, Bas=20, Cees=F, Dirk=F)])
    assert result.totals == result.balances


def test_replay_json_gives_balances_and_the_pot_instead_of_totals():
    data = play([all_fold("Dirk")]).to_json()
    assert data["balances"] == {"Anne": -100, "Bas": -100, "Cees": -100, "Dirk": -200}
    assert data["pot"] == 500
    assert "totals" not in data
    points = {"Anne": 0, "Bas": 0, "Cees": 0, "Dirk": -100}
    assert data["rounds"] == [{"number": 1, "stake": 100, "winner": "Dirk", "points": points}]


def test_replay_leaves_its_input_unchanged():
    rounds = [rnd("Anne", Anne=101, Bas=F, Cees=F, Dirk=F), all_fold("Bas")]
    rules = {"ante": 100}
    before = copy.deepcopy((rules, rounds))
    play(rounds, rules=rules, ended=True)
    assert (rules, rounds) == before


# Refused bids


def test_a_player_who_did_not_declare_is_refused_by_name():
    problem = refusal([all_fold("Anne"), rnd("Anne", Anne=10, Bas=F, Cees=F)])
    assert problem.code == "pot_bid_missing"
    assert str(problem) == "round 2: Dirk: every player must declare fold or a bid"


def test_a_bid_from_someone_who_is_not_playing_is_refused():
    problem = refusal([rnd("Anne", Anne=10, Bas=F, Cees=F, Dirk=F, Eva=5)])
    assert str(problem) == "round 1: Eva is not a player of this session"


@pytest.mark.parametrize(
    ("bid", "message"),
    [
        (0, "Bas: a bid must be at least 1 cent, not 0"),
        (-50, "Bas: a bid must be at least 1 cent, not -50"),
        (1.5, "Bas: a bid must be fold or a whole number of cents, not 1.5"),
        (100.0, "Bas: a bid must be fold or a whole number of cents, not 100.0"),
        ("pass", 'Bas: a bid must be fold or a whole number of cents, not "pass"'),
        ("Fold", 'Bas: a bid must be fold or a whole number of cents, not "Fold"'),
        ("150", 'Bas: a bid must be fold or a whole number of cents, not "150"'),
        (True, "Bas: a bid must be fold or a whole number of cents, not true"),
        (None, "Bas: a bid must be fold or a whole number of cents, not null"),
    ],
)
def test_a_bid_that_is_not_fold_or_a_whole_positive_number_of_cents_is_refused(bid, message):
    problem = refusal([rnd("Anne", Anne=10, Bas=bid, Cees=F, Dirk=F)])
    assert str(problem) == f"round 1: {message}"
    assert problem.params["player"] == "Bas"


def test_a_bid_above_the_pot_is_refused():
    problem = refusal([all_fold("Anne"), rnd("Anne", Anne=10, Bas=501, Cees=F, Dirk=F)])
    assert problem.code == "pot_bid_above_pot"
    assert str(problem) == "round 2: Bas: a bid of 501 cents is more than the pot of 500 cents"


def test_the_bids_must_be_an_object():
    problem = refusal([{"bids": ["Anne", 10], "winner": "Anne"}])
    assert problem.code == "invalid_file"
    assert str(problem).startswith("round 1: ")


# Refused winners and rounds


def test_a_winner_who_folded_is_refused():
    problem = refusal([rnd("Bas", Anne=10, Bas=F, Cees=F, Dirk=F)])
    assert problem.code == "pot_no_winner"
    assert str(problem) == "round 1: the winner must be a player who bid"


def test_a_winner_who_is_not_a_player_is_refused():
    problem = refusal([rnd("Eva", Anne=10, Bas=F, Cees=F, Dirk=F)])
    assert str(problem) == "round 1: Eva is not a player of this session"


def test_a_round_with_bids_needs_a_winner():
    problem = refusal([rnd(None, Anne=10, Bas=F, Cees=F, Dirk=F)])
    assert str(problem) == "round 1: the round has no winner"


def test_a_pass_round_needs_the_last_trick_winner():
    problem = refusal([{"bids": dict.fromkeys(PLAYERS, F), "winner": None}])
    assert str(problem) == (
        "round 1: everybody folded: the round needs the last-trick winner, who pays 100 cents"
    )


def test_a_refused_round_is_numbered_from_one():
    rounds = [all_fold("Anne"), all_fold("Bas"), rnd("Anne", Anne=0, Bas=F, Cees=F, Dirk=F)]
    problem = refusal(rounds)
    assert problem.round == 3
    assert problem.event is None


def test_an_unknown_field_in_a_round_is_refused():
    problem = refusal([{**all_fold("Anne"), "events": []}])
    assert str(problem) == "round 1: a round of the pot game has no field events"


def test_a_round_that_is_not_an_object_is_refused():
    assert str(refusal([all_fold("Anne"), "Anne"])).startswith("round 2: not a valid session file")


# Refused rules


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"ante": -100}, "rules: ante must be a whole number of cents of at least 1, not -100"),
        ({"ante": 0}, "rules: ante must be a whole number of cents of at least 1, not 0"),
        ({"ante": 1.5}, "rules: ante must be a whole number of cents of at least 1, not 1.5"),
        ({"ante": True}, "rules: ante must be a whole number of cents of at least 1, not true"),
        (
            {"pot_minimum": -1},
            "rules: pot_minimum must be a whole number of cents of at least 0, not -1",
        ),
        (
            {"pass_payment": "1"},
            'rules: pass_payment must be a whole number of cents of at least 0, not "1"',
        ),
        ({"max_points": 10}, "rules: unknown rule max_points"),
        (
            {"pot_minimum": 0, "pass_payment": 0},
            "rules: pot_minimum and pass_payment cannot both be 0: an empty pot would stay empty",
        ),
    ],
)
def test_a_bad_rules_set_is_refused(rules, message):
    problem = refusal([], rules=rules)
    assert str(problem) == message
    assert problem.scope == "rules"


def test_a_bad_rules_set_is_refused_before_any_round():
    problem = refusal([rnd("Anne", Anne=0)], rules={"ante": -1})
    assert str(problem).startswith("rules: ")


# The round in progress on a tablet


def test_an_open_round_without_a_winner_is_not_scored():
    rounds = [all_fold("Anne"), rnd(None, Anne=200, Bas=F)]
    result = play(rounds, open_round=True)
    assert [r.number for r in result.rounds] == [1]
    assert result.pot == 500


def test_the_view_shows_the_open_round_its_bids_so_far_and_who_still_declares():
    rounds = [all_fold("Anne"), rnd(None, Cees=200, Anne=F)]
    view = play(rounds, open_round=True).what_now()
    assert isinstance(view, PotView)
    assert view.round_number == 2
    assert view.pot == 500
    assert view.max_bid == 500
    assert view.bids == {"Anne": F, "Cees": 200}
    assert view.waiting == ["Bas", "Dirk"]
    assert view.balances == {"Anne": -200, "Bas": -100, "Cees": -100, "Dirk": -100}
    assert view.finished is False


def test_the_view_without_an_open_round_is_the_next_round():
    view = play([all_fold("Anne")], open_round=True).what_now()
    assert view.round_number == 2
    assert view.bids == {}
    assert view.waiting == PLAYERS


@pytest.mark.parametrize(
    "bids",
    [
        {"Anne": 150, "Bas": F, "Cees": 20, "Dirk": F},  # only the bidders
        dict.fromkeys(PLAYERS, F),  # a pass round: anyone
        {"Anne": 150, "Bas": F},  # not everybody declared: nobody yet
    ],
)
def test_the_view_says_who_may_take_the_last_trick_as_the_replay_checks_it(bids):
    view = play([rnd(None, **bids)], open_round=True).what_now()
    for player in PLAYERS:
        if player in view.may_win:
            play([rnd(player, **bids)])  # replays
        elif not view.waiting:
            assert refusal([rnd(player, **bids)]).code == "pot_no_winner"
    assert bool(view.may_win) == (not view.waiting)


def test_an_open_round_still_refuses_a_bad_bid():
    problem = refusal([all_fold("Anne"), rnd(None, Anne=501)], open_round=True)
    assert str(problem) == "round 2: Anne: a bid of 501 cents is more than the pot of 500 cents"


def test_an_open_round_with_a_winner_is_scored():
    result = play([all_fold("Anne")], open_round=True)
    assert len(result.rounds) == 1


def test_only_the_last_round_may_be_open():
    problem = refusal([rnd(None, Anne=F), all_fold("Anne")], open_round=True)
    assert problem.round == 1


def test_without_open_round_a_round_without_a_winner_is_refused():
    problem = refusal([all_fold("Anne"), rnd(None, Anne=10)])
    assert str(problem) == "round 2: Bas: every player must declare fold or a bid"


def test_an_ended_game_has_no_round_in_progress():
    problem = refusal([rnd(None, Anne=10)], ended=True, open_round=True)
    assert problem.round == 1
    view = play([all_fold("Anne")], ended=True, open_round=True).what_now()
    assert view.finished is True
    assert view.pot == 0
    assert view.waiting == []


# Properties: every valid game keeps the money together, every bad bid is refused in its round

NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fenna", "Gijs", "Hein", "Ilse", "Joost"]


@st.composite
def pot_rules(draw) -> dict[str, int]:
    rules: dict[str, int] = {}
    if draw(st.booleans()):
        rules["ante"] = draw(st.integers(1, 500))
    if draw(st.booleans()):
        rules["pot_minimum"] = draw(st.integers(0, 3000))
    if draw(st.booleans()):
        rules["pass_payment"] = draw(st.integers(0, 500))
    if rules.get("pot_minimum") == 0 and rules.get("pass_payment") == 0:
        rules["pass_payment"] = 1
    return rules


@st.composite
def pot_rounds(draw, players: list[str], pot: int) -> dict[str, Any]:
    bids: dict[str, Any] = {}
    for player in players:
        bid_now = pot >= 1 and draw(st.booleans())
        bids[player] = draw(st.integers(1, pot)) if bid_now else F
    bidders = [p for p, bid in bids.items() if bid != F]
    return {"bids": bids, "winner": draw(st.sampled_from(bidders or players))}


@st.composite
def pot_games(draw) -> tuple[list[str], dict[str, int], list[dict[str, Any]], bool]:
    players = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=8, unique=True))
    rules = draw(pot_rules())
    rounds: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 8))):
        # Each round may bid up to the pot as the rounds before it left it.
        pot = replay_pot(players, rules, rounds, ended=False).pot
        rounds.append(draw(pot_rounds(players, pot)))
    return players, rules, rounds, draw(st.booleans())


@settings(max_examples=200, deadline=None)
@given(pot_games())
def test_balances_plus_pot_are_zero_after_every_round(game):
    players, rules, rounds, ended = game
    previous = replay_pot(players, rules, [], ended=False)
    assert sum(previous.balances.values()) + previous.pot == 0
    for count in range(1, len(rounds) + 1):
        result = replay_pot(players, rules, rounds[:count], ended=False)
        latest = result.rounds[-1]
        assert sum(result.balances.values()) + result.pot == 0
        # What the players gained in the round came out of the pot, and the other way round.
        assert sum(latest.points.values()) == previous.pot - result.pot
        assert latest.totals == {p: previous.balances[p] + latest.points[p] for p in players}
        assert result.pot >= result.rules["pot_minimum"]
        previous = result
    final = replay_pot(players, rules, rounds, ended=ended)
    assert sum(final.balances.values()) + final.pot == 0
    if ended:
        assert final.pot == 0
        shares = [final.balances[p] - previous.balances[p] for p in players]
        assert shares == sorted(shares, reverse=True)
        assert max(shares) - min(shares) <= 1


@settings(max_examples=200, deadline=None)
@given(pot_games())
def test_replaying_a_game_twice_gives_the_same_result(game):
    players, rules, rounds, ended = game
    first = replay_pot(players, rules, rounds, ended=ended)
    second = replay_pot(players, rules, rounds, ended=ended)
    assert first.to_json() == second.to_json()
    assert first.places == second.places


BAD_BIDS = [0, -1, 1.5, "pass", "", True, False, None, [], {}, "above the pot", "missing"]


@settings(max_examples=200, deadline=None)
@given(pot_games(), st.data())
def test_a_mutated_bid_is_refused_in_its_round_and_changes_nothing(game, data):
    players, rules, rounds, ended = game
    if not rounds:
        return
    index = data.draw(st.integers(0, len(rounds) - 1))
    player = data.draw(st.sampled_from(players))
    bad = data.draw(st.sampled_from(BAD_BIDS))
    pot = replay_pot(players, rules, rounds[:index], ended=False).pot
    before = replay_pot(players, rules, rounds, ended=ended).to_json()

    mutated = copy.deepcopy(rounds)
    if bad == "missing":
        del mutated[index]["bids"][player]
    else:
        mutated[index]["bids"][player] = pot + 1 if bad == "above the pot" else bad
    frozen = copy.deepcopy((players, rules, mutated))

    with pytest.raises(Refusal) as caught:
        replay_pot(players, rules, mutated, ended=ended, open_round=False)
    assert caught.value.round == index + 1
    assert str(caught.value).startswith(f"round {index + 1}: ")
    assert caught.value.params["player"] == player
    assert (players, rules, mutated) == frozen
    assert replay_pot(players, rules, rounds, ended=ended).to_json() == before


@settings(max_examples=200, deadline=None)
@given(pot_games(), st.data())
def test_a_round_in_progress_does_not_change_the_finished_rounds(game, data):
    players, rules, rounds, _ = game
    done = replay_pot(players, rules, rounds, ended=False)
    declared = data.draw(st.lists(st.sampled_from(players), unique=True, max_size=len(players)))
    partial = data.draw(pot_rounds(players, done.pot))["bids"]
    in_progress = {"bids": {p: partial[p] for p in declared}}

    result = replay_pot(players, rules, [*rounds, in_progress], ended=False, open_round=True)
    assert result.to_json() == done.to_json()
    view = result.what_now()
    assert view.round_number == len(rounds) + 1
    assert view.pot == view.max_bid == done.pot
    assert set(view.bids) | set(view.waiting) == set(players)
    assert list(view.bids) == [p for p in players if p in declared]
