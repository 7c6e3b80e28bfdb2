"""A replay that goes on from a checkpoint gives what a replay from the first round gives.

The engine can resume a replay from an earlier one's checkpoint (the app replays from the
first round; ``bench/engine.py`` measures both). These properties are checked on random legal
sessions with random rules, absences, players joining, penalties and disqualifications, sides,
start totals and a chosen dealer: resumed or not, the result, the table's buttons and every
refusal are the same, and a checkpoint is used only for the session it was made from.
"""

import copy
import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine import Refusal, replay
from scoring.engine.simulate import random_session
from tests.engine.test_engine_properties import NAMES
from tests.engine.test_engine_properties import rule_sets as common_rules

SIDES = {
    4: {"Noord": ["Anne", "Cees"], "Zuid": ["Bas", "Dirk"]},
    6: {"Noord": ["Anne", "Dirk"], "Oost": ["Bas", "Eva"], "Zuid": ["Cees", "Fleur"]},
}

# The house rules that carry state from round to round, on top of the common ones.
rule_sets = st.builds(
    lambda common, house: {**common, **house},
    common_rules,
    st.fixed_dictionaries(
        {},
        optional={
            "pussy_points": st.booleans(),
            "fold_limit": st.integers(min_value=0, max_value=3),
            "five_crosses": st.booleans(),
            "unit": st.sampled_from(["points", "lives"]),
        },
    ),
)


@st.composite
def sessions(draw):
    players = NAMES[: draw(st.integers(min_value=2, max_value=8))]
    rules = draw(rule_sets)
    teams = SIDES.get(len(players)) if draw(st.booleans()) else None
    if teams:
        rules.pop("five_crosses", None)  # not played in teams (RULES.md §13a)
    units = list(teams or players)
    start = draw(st.dictionaries(st.sampled_from(units), st.integers(0, 3), max_size=2))
    return random_session(
        random.Random(draw(st.integers(min_value=0, max_value=2**32))),
        players,
        rounds=draw(st.integers(min_value=1, max_value=30)),
        rules=rules,
        teams=teams,
        start=start,
        dealer=draw(st.sampled_from([None, *players])),
        presence=draw(st.sampled_from([0.0, 0.3])),
        penalties=draw(st.sampled_from([0.0, 0.05])),
        open_last=draw(st.booleans()),
    )


common = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plain(value):
    """A value with every refusal in it replaced by what it says, so that two can be compared."""
    if isinstance(value, Refusal):
        return value.as_dict()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def outcome(data, **options):
    """Everything a replay tells the app: the result, every round and the table's buttons."""
    try:
        result = replay(data, open_round=True, **options)
    except Refusal as refusal:
        return {"refused": refusal.as_dict()}
    view = result.what_now()
    return {
        "json": result.to_json(),
        "rounds": [dataclasses.asdict(rr) for rr in result.rounds],
        "players": result.players,
        "totals": result.totals,
        "places": result.places,
        "sudden_death": result.sudden_death,
        "toepkoning": result.toepkoning,
        "view": {f.name: plain(getattr(view, f.name)) for f in dataclasses.fields(view)},
    }


def as_the_tablet_saw_it(data):
    """Every state of the session as the tablet recorded it: each round from its first event
    to its last, one event at a time."""
    for number, round_data in enumerate(data["rounds"]):
        for count in range(len(round_data["events"]) + 1):
            state = copy.deepcopy(data)
            state["rounds"] = [
                *state["rounds"][:number],
                {**round_data, "events": round_data["events"][:count]},
            ]
            yield state


@common
@given(sessions())
def test_a_tap_by_tap_replay_resuming_each_time_gives_what_a_full_replay_gives(data):
    checkpoint = None
    for state in as_the_tablet_saw_it(data):
        result = replay(state, open_round=True, resume=checkpoint, checkpoint=True)
        assert outcome(state, resume=checkpoint) == outcome(state)
        if checkpoint is not None:
            assert result.resumed == checkpoint.rounds  # it did go on from there
        if result.checkpoint is not None:
            checkpoint = result.checkpoint
            assert checkpoint.rounds in (len(state["rounds"]), len(state["rounds"]) - 1)


@common
@given(sessions(), st.data())
def test_a_checkpoint_of_any_earlier_state_gives_the_same_result(data, draw):
    rounds = data["rounds"]
    cut = draw.draw(st.integers(min_value=1, max_value=len(rounds)))
    earlier = {**data, "rounds": rounds[:cut]}
    checkpoint = replay(earlier, open_round=True, checkpoint=True).checkpoint
    result = replay(data, open_round=True, resume=checkpoint)
    assert outcome(data, resume=checkpoint) == outcome(data)
    assert result.resumed == (checkpoint.rounds if checkpoint else 0)
    # What the longer replay played did not change the checkpoint: it serves the next one.
    assert outcome(earlier, resume=checkpoint) == outcome(earlier)


@common
@given(sessions(), st.data())
def test_a_checkpoint_made_while_resuming_is_the_one_a_replay_from_the_start_makes(data, draw):
    """A replay that resumes writes out only the rounds it played for its new checkpoint (a
    worker behind by a round or two under load); the text and values it keeps are those of a
    checkpoint made from the first round, so it fits the same replays afterwards."""
    rounds = data["rounds"]
    cut = draw.draw(st.integers(min_value=1, max_value=len(rounds)))
    earlier = replay({**data, "rounds": rounds[:cut]}, open_round=True, checkpoint=True)
    resumed = replay(data, open_round=True, resume=earlier.checkpoint, checkpoint=True)
    full = replay(data, open_round=True, checkpoint=True)
    made, expected = resumed.checkpoint, full.checkpoint
    assert (made is None) == (expected is None)
    if made is not None:
        assert made.rounds == expected.rounds
        assert made._fingerprint == expected._fingerprint
        assert made._prefix == expected._prefix
        assert outcome(data, resume=made) == outcome(data)


EVENTS = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["knock", "fold", "stay", "win", "blind_knock", "laundry"]),
        "player": st.sampled_from([*NAMES, "Onbekend"]),
    },
    optional={"jack": st.booleans(), "genuine": st.booleans()},
)


@common
@given(sessions(), EVENTS, st.booleans())
def test_an_event_added_to_a_resumed_session_is_refused_or_accepted_as_in_a_full_replay(
    data, event, new_round
):
    checkpoint = replay(data, open_round=True, checkpoint=True).checkpoint
    longer = copy.deepcopy(data)
    if new_round:
        longer["rounds"].append({"events": [event]})
    else:
        longer["rounds"][-1]["events"].append(event)
    assert outcome(longer, resume=checkpoint) == outcome(longer)


@common
@given(sessions(), st.data())
def test_a_checkpoint_is_not_used_once_an_earlier_round_is_corrected(data, draw):
    checkpoint = replay(data, open_round=True, checkpoint=True).checkpoint
    if checkpoint is None:
        return
    corrected = copy.deepcopy(data)
    # A round can end with no event of its own (everyone but one away), so only rounds with
    # an event to correct are drawn.
    with_events = [n for n in range(checkpoint.rounds) if corrected["rounds"][n]["events"]]
    if not with_events:
        return
    number = draw.draw(st.sampled_from(with_events))
    last = corrected["rounds"][number]["events"][-1]
    last["jack"] = not last.get("jack", False)  # with a boer after all, or without
    result_or_refusal = outcome(corrected, resume=checkpoint)
    assert result_or_refusal == outcome(corrected)
    if "refused" not in result_or_refusal:
        assert replay(corrected, open_round=True, resume=checkpoint).resumed == 0


def session_of(rounds=6, **header):
    data = random_session(random.Random(7), ["Anne", "Bas", "Cees"], rounds=rounds)
    return {**data, **header}


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"rules": {"max_points": 15}}, id="other rules"),
        pytest.param({"preset": "kroeg"}, id="other preset"),
        pytest.param({"start": {"Anne": 2}}, id="start totals"),
        pytest.param({"dealer": "Cees"}, id="other dealer"),
    ],
)
def test_a_checkpoint_is_not_used_for_another_header(change):
    data = session_of()
    checkpoint = replay(data, open_round=True, checkpoint=True).checkpoint
    assert checkpoint is not None
    assert checkpoint.rounds == len(data["rounds"])
    other = {**data, **change}
    result = replay(other, open_round=True, resume=checkpoint)
    assert result.resumed == 0
    assert outcome(other, resume=checkpoint) == outcome(other)


def refused_from_checkpoint(data, change):
    """A checkpoint of ``data``, and the refusal of a copy changed by ``change`` when it is
    replayed with that checkpoint to resume from."""
    checkpoint = replay(data, open_round=True, checkpoint=True).checkpoint
    assert checkpoint is not None
    other = copy.deepcopy(data)
    change(other)
    with pytest.raises(Refusal) as refused:
        replay(other, open_round=True, resume=checkpoint)
    return checkpoint, refused.value


def test_a_checkpoint_is_not_used_for_a_value_that_is_only_equal_in_python():
    data = session_of()
    data["rounds"][0]["events"][-1]["jack"] = True
    # 1 == True, but not a boolean in the file
    _, refusal = refused_from_checkpoint(
        data, lambda o: o["rounds"][0]["events"][-1].update(jack=1)
    )
    assert (refusal.code, refusal.round) == ("bad_field", 1)


def test_a_checkpoint_is_not_used_for_a_key_that_only_reads_the_same_as_json():
    data = {
        "format": "toepen/1",
        "players": ["1", "Bas", "Cees"],
        "rounds": [
            {"absent": {"1": "toilet"}, "events": [{"type": "win", "player": "Bas"}]},
            {"events": [{"type": "win", "player": "Cees"}]},
        ],
    }
    # The JSON text of {1: "toilet"} is that of {"1": "toilet"}.
    checkpoint, refusal = refused_from_checkpoint(
        data, lambda o: o["rounds"][0].update(absent={1: "toilet"})
    )
    assert checkpoint.rounds == 2
    assert (refusal.code, refusal.round) == ("unknown_player", 1)


def test_a_player_who_joined_after_a_checkpoint_is_unknown_to_the_next_replay_from_it():
    data = {
        "format": "toepen/1",
        "players": ["Anne", "Bas", "Cees"],
        "rounds": [{"events": [{"type": "win", "player": "Anne"}]}],
    }
    checkpoint = replay(data, open_round=True, checkpoint=True).checkpoint
    joined = copy.deepcopy(data)
    joined["rounds"].append({"join": ["Dirk"], "events": [{"type": "win", "player": "Dirk"}]})
    assert replay(joined, open_round=True, resume=checkpoint).resumed == 1
    without = copy.deepcopy(data)
    without["rounds"].append({"absent": {"Dirk": "toilet"}, "events": []})
    with pytest.raises(Refusal) as refused:
        replay(without, open_round=True, resume=checkpoint)
    assert (refused.value.code, refused.value.round) == ("unknown_player", 2)


def test_a_replay_of_the_same_file_resumes_after_its_last_finished_round():
    data = session_of(rounds=8)
    data["rounds"].append({"events": [{"type": "knock", "player": "Anne"}]})
    first = replay(data, open_round=True, checkpoint=True)
    assert first.resumed == 0
    assert first.checkpoint.rounds == len(data["rounds"]) - 1  # the open round is not in it
    again = replay(data, open_round=True, resume=first.checkpoint, checkpoint=True)
    assert again.resumed == first.checkpoint.rounds
    assert outcome(data, resume=first.checkpoint) == outcome(data)


def test_a_checkpoint_that_does_not_fit_is_not_handed_on():
    checkpoint = replay(session_of(), open_round=True, checkpoint=True).checkpoint
    other = session_of(rules={"max_points": 15})
    other["rounds"] = [{"events": [{"type": "knock", "player": "Anne"}]}]  # nothing finished
    result = replay(other, open_round=True, resume=checkpoint, checkpoint=True)
    assert (result.resumed, result.checkpoint) == (0, None)


def test_a_pot_game_replays_it_all():
    data = {
        "format": "toepen/1",
        "game": "pot",
        "players": ["Anne", "Bas"],
        "rounds": [{"bids": {"Anne": 150, "Bas": 150}, "winner": "Anne"}],
    }
    result = replay(data, open_round=True, checkpoint=True)
    assert result.checkpoint is None
    assert result.resumed == 0
