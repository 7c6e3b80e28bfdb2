"""The bounds of every number the engine takes in or makes (RULES.md §14).

A session file's numbers are bounded where they enter, so that a typing slip (a penalty of
3000000000 for 3) is refused with the bound in the message instead of breaking the lei:

=====================  ==================  ==============================================
what                   bounds              where it is checked
=====================  ==================  ==============================================
``max_points``         2 … 1000            ``rules.resolve_rules``
``blind_stake``        2 … 1000            ``rules.resolve_rules`` (not in §14: our choice)
``max_stake``          1 … 1000            ``rules.resolve_rules`` (our choice)
other number rules     0 … 100             ``rules.resolve_rules`` (our choice)
``penalty`` points     -100 … 100, not 0   ``sessionfile.check_event``
``jacks_shown``        0 … 4               ``sessionfile.check_event``
``start`` totals       -1000 … 1000        ``sessionfile.check_header``
pot ``ante``, bids     1 … 10,000,000 ¢    ``pot``
``pot_minimum``        0 … 10,000,000 ¢    ``pot``
``pass_payment``       0 … 10,000,000 ¢    ``pot`` (our choice)
=====================  ==================  ==============================================

The file's own numbers bound one round, but not a whole session: a total that nobody puts out
(negative totals, from penalties of -100) or a pot that grows round after round could still
grow without end. Three limits of the engine's own (not rules of the game: no real table comes
near them) close that:

- ``MAX_ROUNDS``: a session has at most 10,000 rounds (round numbers are stored as small
  integers, up to 32,767);
- ``MAX_EVENTS``: a round has at most 500 events (a real round has a few dozen);
- ``TOTAL_LIMIT``: no strafpunten total goes beyond ±1,000,000, and ``POT_LIMIT``: no pot or
  balance beyond ±1,000,000,000 cents. A round that would take one further is refused.

Why the database's ``integer`` columns (-2,147,483,648 … 2,147,483,647) cannot wrap around:

- a total is at most ``TOTAL_LIMIT`` = 10⁶ either way, so a round's result, the difference of
  two totals, at most 2·10⁶;
- a balance or the pot is at most ``POT_LIMIT`` = 10⁹ cents either way; a round's change of a
  balance is at most a bid plus a top-up share, 2·10⁷ cents;
- a stake is at most ``blind_stake`` + one per event, 1000 + 500 (a pot round's "stake" is the
  winning bid, at most 10⁷ cents);
- a round's penalty points are at most 500 events x 100 = 50,000 either way.

``tests/site/test_bounds.py`` stores sessions at these extremes on PostgreSQL with server-side
binding and checks that what is stored equals a replay.
"""

from __future__ import annotations

from typing import Any

from .errors import Refusal

# Rule key -> (smallest, largest) allowed value.
RULE_RANGES: dict[str, tuple[int, int]] = {
    "max_points": (2, 1000),
    "blind_stake": (2, 1000),
    "max_stake": (1, 1000),
    "jack_beaten_by_queen": (0, 100),
    "four_of_a_kind": (0, 100),
    "fold_limit": (0, 100),
}
PENALTY_RANGE = (-100, 100)
JACKS_SHOWN_RANGE = (0, 4)
START_RANGE = (-1000, 1000)

# The pot game, in cents.
POT_RULE_RANGES: dict[str, tuple[int, int]] = {
    "ante": (1, 10_000_000),
    "pot_minimum": (0, 10_000_000),
    "pass_payment": (0, 10_000_000),
}
BID_RANGE = (1, 10_000_000)

MAX_ROUNDS = 10_000
MAX_EVENTS = 500
TOTAL_LIMIT = 1_000_000
POT_LIMIT = 1_000_000_000


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def within(value: Any, bounds: tuple[int, int]) -> bool:
    """Whether ``value`` is a whole number (not a bool) within ``bounds``, both included."""
    return is_int(value) and bounds[0] <= value <= bounds[1]


def shown(value: Any) -> str:
    """A value for a refusal's message, never longer than a line (a 400-digit number is cut)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # an int of more digits than Python will write out
        return "..."
    return text if len(text) <= 40 else text[:37] + "..."


def out_of_range(field: str, value: Any, bounds: tuple[int, int]) -> Refusal:
    return Refusal(
        "out_of_range", field=field, minimum=bounds[0], maximum=bounds[1], value=shown(value)
    )
