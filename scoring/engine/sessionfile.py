"""The ``toepen/1`` session file (RULES.md §14): checking its shape.

The header (players, rules, start totals, teams) is checked up front. Rounds and events are
checked one at a time, as the replay reaches them, so that a refusal always names the first
offending round or event, whatever follows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .bounds import JACKS_SHOWN_RANGE, PENALTY_RANGE, START_RANGE, out_of_range, shown, within
from .errors import Refusal
from .rules import is_int, resolve_rules

FORMAT = "toepen/1"
GAMES = ("strafpunten", "pot")
RANKS = frozenset({"7", "8", "9", "10", "ace", "king", "queen", "jack"})
ABSENCES = frozenset({"toilet", "drinks"})

# Event type -> the fields it needs besides "type" and "player".
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "knock": (),
    "fold": (),
    "stay": (),
    "win": (),
    "blind_knock": (),
    "four_of_a_kind": ("rank",),
    "laundry": ("genuine",),
    "jack_beaten": (),
    "penalty": ("points", "reason"),
    "disqualify": (),
}
EVENT_TYPES = tuple(REQUIRED_FIELDS)
_PLAIN = frozenset({"knock", "fold", "stay", "blind_knock", "jack_beaten", "disqualify"})


def invalid(detail: str) -> Refusal:
    return Refusal("invalid_file", detail=detail)


@dataclass(slots=True)
class Header:
    game: str
    preset: str
    rules: dict[str, Any]  # resolved (strafpunten) or as given (pot)
    players: list[str]
    rounds: list[Any]
    start: dict[str, int]
    teams: dict[str, list[str]] | None
    dealer: str | None
    ended: bool


def check_header(data: Any) -> Header:
    if not isinstance(data, Mapping):
        raise invalid("the file must hold one JSON object")
    if data.get("format") != FORMAT:
        raise invalid(f'"format" must be "{FORMAT}"')
    game = data.get("game", "strafpunten")
    if game not in GAMES:
        raise invalid('"game" must be "strafpunten" or "pot"')
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise invalid('"players" must be a list of names')
    if len({p.casefold() for p in players}) != len(players):
        raise invalid('"players" names a player twice')
    if not 2 <= len(players) <= 8:
        raise invalid(f"2 to 8 players play, not {len(players)}")
    rounds = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise invalid('"rounds" must be a list')
    preset = data.get("preset", "standaard")
    overrides = data.get("rules", {})
    teams = _check_teams(data.get("teams"), players)
    if game == "pot":
        if not isinstance(overrides, Mapping):
            raise invalid('"rules" must be an object')
        rules = dict(overrides)
    else:
        rules = resolve_rules(preset, overrides, teams=teams is not None)
    units = list(teams) if teams else players
    start = data.get("start", {})
    if not isinstance(start, Mapping):
        raise invalid('"start" must be an object')
    for name, total in start.items():
        if name not in units:
            what = "a side" if teams else "a player"
            raise invalid(f'"start" names {name}, who is not {what} of this session')
        if not is_int(total):
            raise invalid(f'"start" gives {name} a total that is not a whole number')
        if not within(total, START_RANGE):
            raise Refusal(
                "start_out_of_range",
                player=name,
                minimum=START_RANGE[0],
                maximum=START_RANGE[1],
                value=shown(total),
            )
    dealer = data.get("dealer")
    if dealer is not None and dealer not in players:
        raise invalid(f'"dealer" names {dealer}, who is not a player of this session')
    ended = data.get("ended", False)
    if not isinstance(ended, bool):
        raise invalid('"ended" must be true or false')
    return Header(
        game=game,
        preset=preset if isinstance(preset, str) else "standaard",
        rules=rules,
        players=list(players),
        rounds=rounds,
        start=dict(start),
        teams=teams,
        dealer=dealer,
        ended=ended,
    )


def _check_teams(teams: Any, players: list[str]) -> dict[str, list[str]] | None:
    if teams is None:
        return None

    def refuse(detail: str) -> Refusal:
        return Refusal("teams_invalid", detail=detail)

    if not isinstance(teams, Mapping) or not all(
        isinstance(m, list) and all(isinstance(p, str) for p in m) for m in teams.values()
    ):
        raise refuse("give each side a list of its two players")
    if len(players) not in (4, 6):
        raise refuse("team toepen is played by 4 or 6 players")
    if any(len(members) != 2 for members in teams.values()):
        raise refuse("every side has two players")
    named = [p for members in teams.values() for p in members]
    if sorted(named) != sorted(players):
        raise refuse("every player plays in exactly one side")
    if set(teams) & set(players):
        raise refuse("a side cannot have a player's name")
    half = len(players) // 2
    for side, (first, second) in teams.items():
        if abs(players.index(first) - players.index(second)) != half:
            raise refuse(f"the partners of {side} must sit opposite each other")
    return {side: list(members) for side, members in teams.items()}


def check_round(data: Any, number: int) -> tuple[dict[str, str], list[str], list[Any]]:
    """The absent players, the joining players and the raw events of one round."""
    if not isinstance(data, Mapping):
        raise invalid(f"round {number} must be an object").at(number)
    events = data.get("events", [])
    if not isinstance(events, list):
        raise invalid('"events" must be a list').at(number)
    absent = data.get("absent")
    join = data.get("join")
    if not absent and not join:  # the common case
        return {}, [], events
    absent = absent or {}
    if not isinstance(absent, Mapping):
        raise invalid('"absent" must be an object').at(number)
    for name, why in absent.items():
        if not _one_of(why, ABSENCES):
            raise Refusal("bad_absent", player=name, detail='absent is "toilet" or "drinks"').at(
                number
            )
    join = join or []
    if not isinstance(join, list) or not all(isinstance(p, str) and p.strip() for p in join):
        raise invalid('"join" must be a list of names').at(number)
    return dict(absent), list(join), events


def _one_of(value: Any, allowed: Any) -> bool:
    """``value in allowed`` for a file's value, which may be a list or an object (unhashable)."""
    return isinstance(value, str) and value in allowed


def check_event(event: Any) -> dict[str, Any]:
    """An event of a known type with every field it needs, of the right kind."""
    if type(event) is dict and type(event.get("player")) is str:
        kind = event.get("type")
        if _one_of(kind, _PLAIN) and "challenger" not in event:  # the common case, checked quickly
            return event
    if not isinstance(event, Mapping):
        raise invalid("an event must be an object")
    kind = event.get("type")
    if not _one_of(kind, REQUIRED_FIELDS):
        raise Refusal("unknown_event", event_type=_show(kind))
    for name in ("player", *REQUIRED_FIELDS[kind]):
        if name not in event:
            raise Refusal("missing_field", event_type=kind, field=name)
    if not isinstance(event["player"], str):
        raise Refusal("bad_field", field="player", value=_show(event["player"]))
    _check_fields(kind, event)
    return event if isinstance(event, dict) else dict(event)


def _check_fields(kind: str, event: Mapping[str, Any]) -> None:
    def bad(name: str) -> Refusal:
        return Refusal("bad_field", field=name, value=_show(event[name]))

    if kind == "win":
        if "jack" in event and not isinstance(event["jack"], bool):
            raise bad("jack")
        if "jacks_shown" in event:
            if not is_int(event["jacks_shown"]):
                raise bad("jacks_shown")
            if not within(event["jacks_shown"], JACKS_SHOWN_RANGE):
                raise out_of_range("jacks_shown", event["jacks_shown"], JACKS_SHOWN_RANGE)
    elif kind == "four_of_a_kind":
        if not _one_of(event["rank"], RANKS):
            raise bad("rank")
    elif kind == "laundry":
        if not isinstance(event["genuine"], bool):
            raise bad("genuine")
        challenger = event.get("challenger")
        if challenger is not None and not isinstance(challenger, str):
            raise bad("challenger")
    elif kind == "penalty":
        if not is_int(event["points"]):
            raise bad("points")
        if event["points"] == 0:
            raise Refusal("penalty_zero")
        if not within(event["points"], PENALTY_RANGE):
            raise out_of_range("points", event["points"], PENALTY_RANGE)
        if not isinstance(event["reason"], str):
            raise bad("reason")


def _show(value: Any) -> str:
    return shown(value) if isinstance(value, str) or is_int(value) else _repr(value)


def _repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
