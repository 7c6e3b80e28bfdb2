"""Rules that must hold for every session, checked on random legal games (hypothesis).

The games are drawn move by move from what the engine allows at that moment
(``scoring.engine.simulate``), with random rules, so they cover knocks, re-knocks, folds,
armoede, blind knocks and four of a kind in every combination the engine lets happen.
"""

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine import Refusal, replay
from scoring.engine.simulate import random_session

NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur", "Gijs", "Hanna"]

rule_sets = st.fixed_dictionaries(
    {},
    optional={
        "max_points": st.integers(min_value=5, max_value=21),
        "knock_cap": st.sampled_from(["knocker", "table", "none"]),
        "armoede": st.booleans(),
        "blind_stake": st.sampled_from([3, 4]),
        "jack_win_minus": st.booleans(),
        "jack_win_double": st.booleans(),
        "end": st.sampled_from(["last_survivor", "first_out"]),
        "next_dealer": st.sampled_from(["winner", "clockwise"]),
        "jack_beaten_by_queen": st.sampled_from([0, 1, 2]),
    },
)


@st.composite
def sessions(draw, open_last=False):
    players = NAMES[: draw(st.integers(min_value=2, max_value=8))]
    rules = draw(rule_sets)
    seed = draw(st.integers(min_value=0, max_value=2**32))
    rounds = draw(st.integers(min_value=1, max_value=40))
    return random_session(
        random.Random(seed), players, rounds=rounds, rules=rules, open_last=open_last
    )


common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(sessions())
def test_replay_is_deterministic(data):
    first = replay(copy.deepcopy(data)).to_json()
    assert replay(copy.deepcopy(data)).to_json() == first
    assert replay(data).to_json() == first


@common
@given(sessions())
def test_a_fold_always_costs_the_stake_before_the_latest_raise(data):
    result = replay(data)
    for rnd, played in zip(result.rounds, data["rounds"], strict=True):
        stake, prior = (2, 1) if rnd.armoede else (1, 1)
        cost = {}
        for event in played["events"]:
            if event["type"] == "knock":
                stake, prior = stake + 1, stake
            elif event["type"] == "blind_knock":
                stake, prior = data["rules"].get("blind_stake", 3), stake
            elif event["type"] == "fold":
                cost[event["player"]] = prior
        assert rnd.folds == cost
        for player, paid in cost.items():
            assert rnd.points[player] == paid


@common
@given(sessions())
def test_who_stayed_and_lost_scores_at_least_the_stake(data):
    result = replay(data)
    for rnd in result.rounds:
        if rnd.ended_by != "win":
            continue
        for player in rnd.participants:
            if player != rnd.winner and player not in rnd.folds:
                assert rnd.points[player] >= rnd.stake
                if not (rnd.jack and data["rules"].get("jack_win_double")):
                    assert rnd.points[player] == rnd.stake


@common
@given(sessions())
def test_totals_are_the_sum_of_the_round_results(data):
    result = replay(data)
    for player, total in result.totals.items():
        assert total == sum(r.points.get(player, 0) for r in result.rounds)


@common
@given(sessions(), st.data())
def test_a_refused_session_reports_the_first_offending_event_whatever_follows(data, draw):
    """Break one event; add more breakage after it: the refusal names the first one."""
    rounds = data["rounds"]
    number = draw.draw(st.integers(min_value=1, max_value=len(rounds)))
    events = rounds[number - 1]["events"]
    index = draw.draw(st.integers(min_value=1, max_value=len(events)))
    events[index - 1] = {"type": "no_such_event", "player": events[index - 1]["player"]}
    for later in rounds[number:]:
        later["events"].insert(0, {"type": "fold"})  # missing player, also refused
    with pytest.raises(Refusal) as refused:
        replay(data)
    assert (refused.value.round, refused.value.event) == (number, index)
    assert str(refused.value).startswith(f"round {number}, event {index}: ")


@common
@given(sessions(open_last=True))
def test_every_button_the_view_enables_is_an_event_the_engine_accepts(data):
    """The tablet draws its buttons from what_now(): each enabled one must replay."""
    result = replay(data, open_round=True)
    view = result.what_now()
    if view.finished or not view.participants:
        return
    opened = data["rounds"]
    if view.round_number > len(opened):  # the next event starts a new round
        opened = [*opened, {"events": []}]
    actions = {
        "knock": view.may_knock,
        "fold": view.may_fold,
        "stay": view.may_stay,
        "win": view.may_win,
        "blind_knock": view.may_blind_knock,
        "jack_beaten": view.may_jack_beaten,
    }
    for kind, allowed in actions.items():
        for player, refusal in allowed.items():
            trial = copy.deepcopy(opened)
            trial[-1]["events"].append({"type": kind, "player": player})
            try:
                replay({**data, "rounds": trial}, open_round=True)
                accepted = True
            except Refusal:
                accepted = False
            assert accepted == (refusal is None), (kind, player, refusal)


@common
@given(sessions(open_last=True))
def test_the_stake_after_each_event_is_the_stake_of_a_replay_up_to_it(data):
    """The viewer's live line reads ``stakes`` instead of replaying the round per knock."""
    view = replay(data, open_round=True).what_now()
    if not view.started:
        return
    rounds = data["rounds"]
    assert len(view.stakes) == len(view.events) + 1
    for count in range(len(view.events) + 1):
        prefix = [*rounds[:-1], {**rounds[-1], "events": view.events[:count]}]
        expected = replay({**data, "rounds": prefix}, open_round=True).what_now().stake
        assert view.stakes[count] == expected


def test_stakes_follow_the_knocks_of_the_round_in_progress():
    data = {
        "format": "toepen/1",
        "players": ["A", "B", "C", "D"],
        "start": {"A": 9},  # A is in armoede: the round opens at 2
        "rounds": [
            {
                "events": [
                    {"type": "fold", "player": "B"},
                    {"type": "knock", "player": "C"},
                    {"type": "stay", "player": "D"},
                ]
            }
        ],
    }
    assert replay(data, open_round=True).what_now().stakes == [2, 2, 3, 3]
