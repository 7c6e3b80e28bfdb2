"""Rule options, presets and the refusal of a rules set that contradicts itself (RULES.md §12).

A session is played by one resolved rules dict: the defaults, then the preset's changes, then
the session's own overrides. ``resolve_rules`` builds it and refuses what cannot be played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .bounds import RULE_RANGES, is_int, shown, within
from .errors import Refusal

DEFAULT_RULES: dict[str, Any] = {
    "max_points": 10,
    "knock_cap": "knocker",  # knocker | table | none
    "max_stake": None,  # None = no limit
    "armoede": True,
    "blind_knock": True,
    "blind_stake": 3,
    "blind_reknock": True,
    "blind_who": "any",  # any | most_points | fewest_points
    "jack_win_minus": True,
    "jack_win_double": False,
    "jack_knock_bonus": False,
    "jack_beaten_by_queen": 0,  # 0 = off
    "four_of_a_kind": 3,  # 0 = off
    "laundry": True,
    "laundry_bluff": "point",  # point | round_max
    "pussy_points": False,
    "fold_limit": 0,  # 0 = off
    "five_crosses": False,
    "folded_winner": "reject",  # reject | all_lose
    "next_dealer": "winner",  # winner | clockwise
    "unit": "points",  # points | lives | sips
    "end": "last_survivor",  # last_survivor | first_out
}

POT_DEFAULT_RULES: dict[str, Any] = {"ante": 100, "pot_minimum": None, "pass_payment": None}

_PAGAT = {
    "unit": "lives",
    "jack_win_minus": False,
    "blind_knock": False,
    "four_of_a_kind": 0,
    "folded_winner": "all_lose",
}
PRESETS: dict[str, dict[str, Any]] = {
    "standaard": {},
    "pagat": _PAGAT,
    "siwweschroom": {**_PAGAT, "max_points": 7},
    "gezin": {"max_points": 5, "max_stake": 2, "blind_knock": False},
    "kroeg": {"knock_cap": "none"},
    "beginners": {"max_stake": 1, "armoede": False, "blind_knock": False},
}

# key -> allowed values (a tuple) or a type description
CHOICES: dict[str, tuple[Any, ...]] = {
    "knock_cap": ("knocker", "table", "none"),
    "blind_who": ("any", "most_points", "fewest_points"),
    "laundry_bluff": ("point", "round_max"),
    "folded_winner": ("reject", "all_lose"),
    "next_dealer": ("winner", "clockwise"),
    "unit": ("points", "lives", "sips"),
    "end": ("last_survivor", "first_out"),
}
BOOLEANS = frozenset(
    {
        "armoede",
        "blind_knock",
        "blind_reknock",
        "jack_win_minus",
        "jack_win_double",
        "jack_knock_bonus",
        "laundry",
        "pussy_points",
        "five_crosses",
    }
)
# key -> (smallest, largest) allowed value (RULES.md §14; see bounds.py)
INTEGERS: dict[str, tuple[int, int]] = {k: v for k, v in RULE_RANGES.items() if k != "max_stake"}

__all__ = ["BOOLEANS", "CHOICES", "DEFAULT_RULES", "INTEGERS", "PRESETS", "is_int"]


def resolve_rules(
    preset: Any = "standaard", overrides: Mapping[str, Any] | None = None, *, teams: bool = False
) -> dict[str, Any]:
    """The full rules dict for a preset plus overrides, or a ``rules:`` refusal.

    >>> resolve_rules("gezin", {"max_points": 6})["max_stake"]
    2
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise Refusal("rules_unknown_preset", preset=preset).in_rules()
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise Refusal("invalid_file", detail="rules must be an object").in_rules()
    rules = {**DEFAULT_RULES, **PRESETS[preset]}
    for key, value in overrides.items():
        if key not in DEFAULT_RULES:
            raise Refusal("rules_unknown_key", key=key).in_rules()
        rules[key] = _checked(key, value)
    _refuse_contradictions(rules, teams=teams)
    return rules


def _checked(key: str, value: Any) -> Any:
    bad = Refusal("rules_bad_value", key=key, value=_show(value)).in_rules()
    if key in CHOICES:
        if value not in CHOICES[key]:
            raise bad
    elif key in BOOLEANS:
        if not isinstance(value, bool):
            raise bad
    elif key in RULE_RANGES:
        if key == "max_stake" and value is None:
            return value
        if not is_int(value):
            raise bad
        if not within(value, RULE_RANGES[key]):
            low, high = RULE_RANGES[key]
            raise Refusal(
                "rules_out_of_range", key=key, minimum=low, maximum=high, value=shown(value)
            ).in_rules()
    return value


_show = shown


def _refuse_contradictions(rules: dict[str, Any], *, teams: bool) -> None:
    # Each case has a message of its own (scoring/engine/errors.py): the web app translates a
    # refusal's template, and a detail written here in English would stay English.
    max_stake = rules["max_stake"]
    if rules["armoede"] and max_stake is not None and max_stake < 2:
        raise Refusal("rules_armoede_max_stake", max_stake=max_stake).in_rules()
    if rules["blind_knock"] and max_stake is not None and rules["blind_stake"] > max_stake:
        raise Refusal(
            "rules_blind_max_stake", blind_stake=rules["blind_stake"], max_stake=max_stake
        ).in_rules()
    if teams and rules["five_crosses"]:
        raise Refusal("rules_five_crosses_teams").in_rules()
