"""The Toepen scoring engine: pure Python, no Django.

It follows ``RULES.md``, the game's specification: strafpunten with every
event of §3, the knock caps, armoede, blind knocks, the four jack rules, four of a kind,
laundry, absent and joining players, the house rules that count across rounds, both ways a
session ends, team toepen (§13a) and the pot game (§13). The rule options and their defaults
are ``DEFAULT_RULES``; the presets are ``PRESETS``.

The surface is small:

- ``replay(session_file)`` takes a ``toepen/1`` session (a dict, §14) and returns a ``Result``
  (``Result.to_json()`` is the ``replay --json`` output), or raises a ``Refusal`` that names
  the round, the event and the rule as data.
- ``replay(session_file, open_round=True)`` also accepts a last round still being played;
  ``result.what_now()`` then tells what may happen next in it (a ``TableView``): the tablet
  draws its buttons from that.
- ``resolve_rules(preset, overrides)`` gives the full rules dict or a ``rules:`` refusal.
- ``judge_totals(rules, totals)`` judges a paper lei's final totals without its rounds
  (``paper.py``): a finished game, an unfinished one, or a ``Refusal`` saying why no game ends
  like this.

Every number it takes in is bounded (RULES.md §14), and so is every number it makes: see
``bounds.py`` for the bounds, the engine's own limits and why no stored number can wrap around.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import MESSAGES, Refusal
from .game import TableView, play_session
from .paper import TotalsVerdict, judge_totals, most_in_one_round
from .pot import replay_pot
from .result import Result, RoundResult
from .rules import DEFAULT_RULES, POT_DEFAULT_RULES, PRESETS, resolve_rules
from .sessionfile import EVENT_TYPES, RANKS, check_header

__all__ = [
    "DEFAULT_RULES",
    "EVENT_TYPES",
    "MESSAGES",
    "POT_DEFAULT_RULES",
    "PRESETS",
    "RANKS",
    "Refusal",
    "Result",
    "RoundResult",
    "TableView",
    "TotalsVerdict",
    "judge_totals",
    "most_in_one_round",
    "replay",
    "resolve_rules",
]


def replay(
    session: Mapping[str, Any],
    *,
    open_round: bool = False,
) -> Result:
    """Replay a ``toepen/1`` session and return its result, or raise a ``Refusal``.

    >>> replay({"format": "toepen/1", "players": ["A", "B"],
    ...         "rounds": [{"events": [{"type": "win", "player": "A"}]}]}).totals
    {'A': 0, 'B': 1}
    """
    header = check_header(session)
    if header.game == "pot":
        return replay_pot(
            header.players, header.rules, header.rounds, ended=header.ended, open_round=open_round
        )
    return play_session(
        header.players,
        header.rules,
        header.rounds,
        start=header.start,
        teams=header.teams,
        dealer=header.dealer,
        open_round=open_round,
    )
