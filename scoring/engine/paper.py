"""A paper lei's final totals, judged without its rounds (RULES.md §10 and the bounds of §14).

When a table played on paper and only its totals are copied over, the rounds that would let the
engine replay the game are not there. What the totals alone can still show:

- **whether the game is over** (§10): with ``end: "last_survivor"`` at most one player is
  below ``max_points`` (the toepkoning; nobody when everyone left went out in the same round),
  with ``end: "first_out"`` somebody has reached it. A game the organiser stops by hand (after
  a number of rounds, at a time: ``stopped``) is over with any totals;
- **that no total is beyond what one round can add**: a player goes out in the round that
  takes them from at most ``max_points - 1`` to ``max_points`` or more, so no total can be
  higher than ``max_points - 1`` plus the most one round adds (``most_in_one_round``);
- **that a round was played at all**: every total 0 is a lei nobody wrote on.

An unfinished game in which somebody is already out cannot be carried over as start totals
(§14 ``start``): the lei would let that player play on. Such a lei is refused; its rounds tell
who is out. Players put out without reaching ``max_points`` (five crosses, a disqualification
for a bluffed *kans op toep*) do not show in totals either: a lei with those is entered by its
rounds too.

>>> judge_totals({"max_points": 10}, {"A": 12, "B": 4, "C": 10, "D": 15}).finished
True
>>> judge_totals({"max_points": 10}, {"A": 3, "B": 4, "C": 0, "D": 5}).finished
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .bounds import MAX_EVENTS, START_RANGE, is_int, shown, within
from .errors import Refusal
from .rules import DEFAULT_RULES

MIN_PLAYERS, MAX_PLAYERS = 2, 8


@dataclass(frozen=True)
class TotalsVerdict:
    finished: bool  # the totals are a game that is over (by the rules, or stopped by hand)
    out: tuple[str, ...]  # the players at or over ``max_points``, in the order given
    limit: int  # the highest total a finished lei of these rules can show


def most_in_one_round(rules: Mapping[str, Any], players: int, lowest: int = 0) -> int:
    """The most a player's total can grow in one round by play (RULES.md §3-8, §11).

    The stake goes no higher than the knock cap lets it (a knocker on 0 raises to
    ``max_points``; one on ``lowest`` below 0 further) or ``max_stake``; without a cap one step
    per event above the blind stake. ``jack_win_double`` doubles it, four of a kind may score
    more. On top: a laundry point for each player's laundry (one's own bluff, or challenging
    the others'), a pussy point and the jack beaten by a queen. A ``penalty`` event is not
    play: a lei with large penalties is entered by its rounds.

    >>> most_in_one_round({"max_points": 10}, players=4)
    14
    """
    rules = {**DEFAULT_RULES, **rules}
    cap = None if rules["knock_cap"] == "none" else rules["max_points"] - min(0, lowest)
    if rules["max_stake"] is not None:
        cap = rules["max_stake"] if cap is None else min(cap, rules["max_stake"])
    stake = cap if cap is not None else max(rules["blind_stake"], 2) + MAX_EVENTS
    play = max(stake * (2 if rules["jack_win_double"] else 1), rules["four_of_a_kind"])
    laundry = players if rules["laundry"] else 0
    pussy = 1 if rules["pussy_points"] else 0
    return play + laundry + pussy + rules["jack_beaten_by_queen"]


def judge_totals(
    rules: Mapping[str, Any], totals: Mapping[str, int], *, stopped: bool = False
) -> TotalsVerdict:
    """Whether ``totals`` (player → final total) are a finished game of ``rules``, or a
    ``Refusal`` saying why no game ends like this. ``stopped``: the game may be ended by hand
    (the organiser's rounds or time), so any possible totals are its end."""
    rules = {**DEFAULT_RULES, **rules}
    if not MIN_PLAYERS <= len(totals) <= MAX_PLAYERS:
        raise Refusal(
            "too_few_players" if len(totals) < 2 else "too_many_players", count=len(totals)
        )
    for player, total in totals.items():
        if not within(total, START_RANGE):
            raise Refusal(
                "start_out_of_range",
                player=player,
                minimum=START_RANGE[0],
                maximum=START_RANGE[1],
                value=shown(total) if not is_int(total) else total,
            )
    if all(total == 0 for total in totals.values()):
        raise Refusal("totals_all_zero")
    top = rules["max_points"]
    lowest = min(totals.values())
    most = most_in_one_round(rules, len(totals), lowest)
    limit = top - 1 + most
    for player, total in totals.items():
        if total > limit:
            raise Refusal(
                "totals_beyond_round",
                player=player,
                total=total,
                limit=limit,
                max=top,
                most=most,
            )
    out = tuple(p for p, total in totals.items() if total >= top)
    left = [p for p in totals if p not in out]
    # §10: first_out ends at the first one out; last_survivor when one (or nobody) is left.
    over = bool(out) if rules["end"] == "first_out" else len(left) <= 1
    if not over and out and not stopped:
        raise Refusal(
            "totals_out_unfinished", player=out[0], total=totals[out[0]], max=top, left=len(left)
        )
    return TotalsVerdict(finished=over or stopped, out=out, limit=limit)
