"""The pot game (Pottoepen, RULES.md §13): who owes what, in whole cents.

Rule options, the ``rules`` object of a ``"game": "pot"`` session file:

- ``ante`` (default 100): what every player pays into the pot when the game starts (at least 1).
- ``pot_minimum`` (default ``ante`` times the number of players): after a round the players
  top the pot back up to at least this, each paying the shortfall divided by the number of
  players, rounded up to a cent (so the pot may end a few cents above it). 0: no top-ups.
- ``pass_payment`` (default ``ante``): what the last-trick winner pays into the pot in a pass
  round, a round in which everybody folded.

``pot_minimum`` and ``pass_payment`` may not both be 0: an emptied pot would then stay empty.

A round is ``{"bids": {"Anne": 150, "Bas": "fold", …}, "winner": "Anne"}``. Every player declares
"fold" or a bid from 1 cent up to the pot as it stands at the start of the round. The winner, who
must have bid, takes their bid out of the pot; every other bidder pays theirs in; folders neither
pay nor win. When everybody folds, ``winner`` names the last-trick winner, who pays
``pass_payment``. ``ended`` shares the pot out equally, the odd cents to the first seats.

A balance is what a player has taken out of the pot minus what they paid in, so it is negative
while they are down; at every moment the balances plus the pot add up to zero.

>>> game = [{"bids": {"Anne": 150, "Bas": "fold"}, "winner": "Anne"}]
>>> result = replay_pot(["Anne", "Bas"], {}, game, ended=False)
>>> result.balances, result.pot  # Anne took 150 out, then both paid 75 to top up to 200
({'Anne': -25, 'Bas': -175}, 200)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .bounds import BID_RANGE, MAX_ROUNDS, POT_LIMIT, POT_RULE_RANGES, shown
from .errors import Refusal
from .result import Result, RoundResult

FOLD = "fold"
_ROUND_FIELDS = frozenset({"bids", "winner"})

Bid = int | str  # a whole number of cents, or FOLD


@dataclass(frozen=True, slots=True)
class PotRules:
    ante: int
    pot_minimum: int
    pass_payment: int

    def as_dict(self) -> dict[str, int]:
        return {
            "ante": self.ante,
            "pot_minimum": self.pot_minimum,
            "pass_payment": self.pass_payment,
        }


@dataclass(frozen=True, slots=True)
class PotView:
    """The pot table as a tablet shows it: the round being bid (or the next one)."""

    round_number: int
    pot: int
    balances: dict[str, int]
    max_bid: int  # a bid may be anything up to the pot at the start of the round (and the bound)
    bids: dict[str, Bid]  # what has been declared so far in the open round, in seat order
    waiting: list[str]  # players who have not declared yet, in seat order
    finished: bool
    # who may take the last trick now: once everybody has declared, a bidder, or anyone when
    # everybody folded (the same rule ``_score_round`` checks)
    may_win: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PotTable:
    """The state after the replay; ``Result._table`` for the pot game."""

    players: list[str]
    round_number: int
    pot: int
    balances: dict[str, int]
    bids: dict[str, Bid] = field(default_factory=dict)
    finished: bool = False

    def view(self) -> PotView:
        waiting = [] if self.finished else [p for p in self.players if p not in self.bids]
        declared = not self.finished and not waiting
        return PotView(
            round_number=self.round_number,
            pot=self.pot,
            balances=dict(self.balances),
            max_bid=min(self.pot, BID_RANGE[1]),
            bids=dict(self.bids),
            waiting=waiting,
            finished=self.finished,
            may_win=[p for p in self.players if _may_win(p, self.bids)] if declared else [],
        )


def replay_pot(
    players: list[str],
    rules: dict[str, Any],
    rounds: list[Any],
    *,
    ended: bool,
    open_round: bool = False,
) -> Result:
    """Replay a pot game from the raw rounds of its session file; refuse it whole if it breaks §13.

    ``players`` are validated names in seat order. With ``open_round`` the last round may lack
    its winner: it is a round still being bid on a tablet, shown by ``result.what_now()`` and not
    scored.
    """
    pot_rules = _read_rules(rules, len(players))
    if not isinstance(rounds, list):
        raise Refusal("invalid_file", detail="rounds must be a list")

    balances = dict.fromkeys(players, -pot_rules.ante)
    pot = pot_rules.ante * len(players)
    results: list[RoundResult] = []
    open_bids: dict[str, Bid] = {}

    for index, raw_round in enumerate(rounds):
        number = index + 1
        try:
            if number > MAX_ROUNDS:
                raise Refusal("too_many_rounds", limit=MAX_ROUNDS)
            if not isinstance(raw_round, dict):
                raise Refusal("invalid_file", detail="a round must be an object")
            for key in raw_round:
                if key not in _ROUND_FIELDS:
                    raise Refusal("pot_round_unknown_field", field=key)
            # An ended game has been paid out, so no round of it can still be in progress.
            still_open = (
                open_round and not ended and index == len(rounds) - 1 and _winner(raw_round) is None
            )
            bids = _read_bids(raw_round.get("bids", {}), players, pot, complete=not still_open)
            if still_open:
                open_bids = bids
                break
            round_result = _score_round(number, raw_round, bids, players, pot, pot_rules)
        except Refusal as refusal:
            raise refusal.at(number) from None
        pot -= sum(round_result.points.values())
        for player, change in round_result.points.items():
            balances[player] += change
        _refuse_beyond_limit(pot, balances, number)
        round_result.totals = dict(balances)
        results.append(round_result)

    if ended:
        # Equal shares; the cents that do not divide go one each to the first seats.
        share, odd_cents = divmod(pot, len(players))
        for seat, player in enumerate(players):
            balances[player] += share + (1 if seat < odd_cents else 0)
        pot = 0

    return Result(
        game="pot",
        players=list(players),
        rules=pot_rules.as_dict(),
        rounds=results,
        totals=dict(balances),
        eliminated=[],
        finished=ended,
        winner=None,
        loser=None,
        places=_places(balances),
        balances=dict(balances),
        pot=pot,
        _table=PotTable(
            players=list(players),
            round_number=len(results) + 1,
            pot=pot,
            balances=dict(balances),
            bids=open_bids,
            finished=ended,
        ),
    )


def _read_rules(raw: Any, player_count: int) -> PotRules:
    if not isinstance(raw, dict):
        raise Refusal("invalid_file", detail="rules must be an object").in_rules()
    for key in raw:
        if key not in ("ante", "pot_minimum", "pass_payment"):
            raise Refusal("rules_unknown_key", key=key).in_rules()
    ante = _amount(raw, "ante", 100)
    rules = PotRules(
        ante=ante,
        # The default minimum, ante times players, may be above the bound a file may give.
        pot_minimum=_amount(raw, "pot_minimum", ante * player_count, default_ok=True),
        pass_payment=_amount(raw, "pass_payment", ante),
    )
    if rules.pot_minimum == 0 and rules.pass_payment == 0:
        raise Refusal("pot_rules_empty_pot").in_rules()
    return rules


def _amount(raw: dict[str, Any], key: str, default: int, *, default_ok: bool = False) -> int:
    if key not in raw and default_ok:
        return default
    value = raw.get(key, default)
    minimum, maximum = POT_RULE_RANGES[key]
    # bool is an int in Python, but true is not an amount in a file.
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise Refusal("pot_rules_amount", key=key, minimum=minimum, value=_shown(value)).in_rules()
    if value > maximum:
        raise Refusal(
            "pot_rules_range", key=key, minimum=minimum, maximum=maximum, value=_shown(value)
        ).in_rules()
    return value


def _refuse_beyond_limit(pot: int, balances: dict[str, int], number: int) -> None:
    """No pot or balance beyond ``POT_LIMIT`` (see bounds.py: they must fit the database)."""
    if not -POT_LIMIT <= pot <= POT_LIMIT:
        raise Refusal("pot_limit", amount=pot, limit=POT_LIMIT).at(number)
    for player, balance in balances.items():
        if not -POT_LIMIT <= balance <= POT_LIMIT:
            raise Refusal("balance_limit", player=player, amount=balance, limit=POT_LIMIT).at(
                number
            )


def _read_bids(raw: Any, players: list[str], pot: int, *, complete: bool) -> dict[str, Bid]:
    """The declared bids in seat order; with ``complete`` every player must have declared."""
    if not isinstance(raw, dict):
        raise Refusal("invalid_file", detail="bids must be an object")
    for name in raw:
        if name not in players:
            raise Refusal("unknown_player", player=name)
    bids: dict[str, Bid] = {}
    for player in players:
        if player not in raw:
            if complete:
                raise Refusal("pot_bid_missing", player=player)
            continue
        bid = raw[player]
        if bid == FOLD:
            bids[player] = FOLD
        elif isinstance(bid, bool) or not isinstance(bid, int):
            raise Refusal("pot_bid_not_amount", player=player, value=_shown(bid))
        elif bid < BID_RANGE[0]:
            raise Refusal("pot_bid_too_low", player=player, value=_shown(bid))
        elif bid > BID_RANGE[1]:
            raise Refusal(
                "pot_bid_too_high", player=player, maximum=BID_RANGE[1], value=_shown(bid)
            )
        elif bid > pot:
            raise Refusal("pot_bid_above_pot", player=player, value=bid, pot=pot)
        else:
            bids[player] = bid
    return bids


def _score_round(
    number: int,
    raw_round: dict[str, Any],
    bids: dict[str, Bid],
    players: list[str],
    pot: int,
    rules: PotRules,
) -> RoundResult:
    """One complete round: each player's balance change, top-up included."""
    winner = _winner(raw_round)
    bidders = {p: bid for p, bid in bids.items() if isinstance(bid, int)}
    if winner is None:
        if bidders:
            raise Refusal("no_winner")
        raise Refusal("pot_pass_no_winner", payment=rules.pass_payment)
    if not isinstance(winner, str) or winner not in players:
        shown = winner if isinstance(winner, str) else _shown(winner)
        raise Refusal("unknown_player", player=shown)

    points = dict.fromkeys(players, 0)
    if not _may_win(winner, bids):
        raise Refusal("pot_no_winner", player=winner)
    if bidders:
        for player, bid in bidders.items():
            points[player] = bid if player == winner else -bid
        stake, ended_by = bidders[winner], "pot"
    else:
        points[winner] = -rules.pass_payment
        stake, ended_by = rules.pass_payment, "pass"

    pot_after = pot - sum(points.values())
    if pot_after < rules.pot_minimum:
        # Everybody pays the same share, rounded up, so the pot never ends below the minimum.
        share = -(-(rules.pot_minimum - pot_after) // len(players))
        for player in players:
            points[player] -= share

    return RoundResult(
        number=number,
        stake=stake,
        winner=winner,
        points=points,
        participants=list(players),
        ended_by=ended_by,
        folds={p: 0 for p, bid in bids.items() if bid == FOLD},
    )


def _may_win(player: str, bids: dict[str, Bid]) -> bool:
    """Whether ``player`` may take the last trick of a round bid so: only a bidder does, unless
    everybody folded (then the last-trick winner pays into the pot)."""
    bidders = [p for p, bid in bids.items() if isinstance(bid, int)]
    return player in bidders or not bidders


def _winner(raw_round: dict[str, Any]) -> Any:
    # A JSON null is the same as no winner yet.
    return raw_round.get("winner")


def _places(balances: dict[str, int]) -> dict[str, int]:
    """Highest balance first; equal balances share a place (1, 1, 3)."""
    return {p: 1 + sum(other > mine for other in balances.values()) for p, mine in balances.items()}


def _shown(value: Any) -> str:
    """A value as it reads in the JSON file, for a message (a 400-digit number is cut)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = shown(value)
    return text if len(text) <= 40 else text[:37] + "..."
