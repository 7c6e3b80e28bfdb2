"""Refusals: what the engine says when a session breaks a rule.

A refusal is data: a ``code``, the ``params`` that fill its message, and where it happened
(``round`` and ``event``, numbered from 1). Its English message is built from a template in
``MESSAGES``; the web app translates the same template with gettext and fills it with the same
params, so a player reads the refusal in their own language.

The templates are marked with ``gettext_noop`` — a local no-op of that name, not Django's — so
that ``makemessages`` finds them in this package without the engine importing Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def gettext_noop(message: str) -> str:
    return message


MESSAGES: dict[str, str] = {
    # The file itself
    "invalid_file": gettext_noop("not a valid session file: %(detail)s"),
    "unknown_player": gettext_noop("%(player)s is not a player of this session"),
    "unknown_event": gettext_noop("unknown event type %(event_type)s"),
    "missing_field": gettext_noop("%(event_type)s needs the field %(field)s"),
    "bad_field": gettext_noop("%(field)s has a wrong value: %(value)s"),
    "out_of_range": gettext_noop(
        "%(field)s must be from %(minimum)s to %(maximum)s, not %(value)s"
    ),
    "start_out_of_range": gettext_noop(
        "the start total of %(player)s must be from %(minimum)s to %(maximum)s, not %(value)s"
    ),
    "too_many_rounds": gettext_noop("a session has at most %(limit)s rounds"),
    "too_many_events": gettext_noop("a round has at most %(limit)s events"),
    "total_limit": gettext_noop(
        "%(player)s would reach a total of %(total)s, beyond the limit of %(limit)s either way"
    ),
    # Rules sets
    "rules_unknown_preset": gettext_noop("unknown preset %(preset)s"),
    "rules_unknown_key": gettext_noop("unknown rule %(key)s"),
    "rules_bad_value": gettext_noop("%(key)s cannot be %(value)s"),
    "rules_out_of_range": gettext_noop(
        "%(key)s must be from %(minimum)s to %(maximum)s, not %(value)s"
    ),
    # A rules set that contradicts itself: a message of its own per case, translated whole.
    "rules_armoede_max_stake": gettext_noop(
        "armoede opens at a stake of 2, above the maximum stake of %(max_stake)s"
    ),
    "rules_blind_max_stake": gettext_noop(
        "the blind stake of %(blind_stake)s is above the maximum stake of %(max_stake)s"
    ),
    "rules_five_crosses_teams": gettext_noop("five crosses cannot be played in teams"),
    # Whole rounds
    "round_after_finish": gettext_noop("the session has already finished"),
    "no_winner": gettext_noop("the round has no winner"),
    "round_over": gettext_noop("the round is already over"),
    "jack_beaten_folded": gettext_noop(
        "%(player)s has folded: their jack was not in the last trick"
    ),
    "too_few_players": gettext_noop("a round needs at least 2 players, %(count)s are in it"),
    "too_many_players": gettext_noop("at most 8 players can play, there would be %(count)s"),
    "bad_absent": gettext_noop("%(player)s cannot be absent: %(detail)s"),
    "absent_out": gettext_noop("%(player)s is out and cannot be absent"),
    "join_taken": gettext_noop("%(player)s cannot join: that name is taken"),
    "join_sides_fixed": gettext_noop("%(player)s cannot join: the sides are fixed"),
    # Players in a round
    "not_in_round": gettext_noop("%(player)s is not playing this round"),
    "folded_already": gettext_noop("%(player)s has already folded"),
    "out_of_game": gettext_noop("%(player)s is out of the game"),
    "away_from_table": gettext_noop("%(player)s is away from the table this round"),
    # Knocking
    "knock_own_raise": gettext_noop("%(player)s cannot knock: the latest raise is their own"),
    "knock_cap": gettext_noop(
        "%(player)s cannot knock: %(total)s + %(stake)s is over the maximum of %(max)s"
    ),
    "knock_cap_table": gettext_noop(
        "%(player)s cannot knock: a stake of %(stake)s is over the maximum of %(max)s"
        " minus the highest total %(total)s"
    ),
    "max_stake": gettext_noop("%(player)s cannot knock: the stake may not go above %(max_stake)s"),
    "knock_armoede": gettext_noop("%(player)s cannot knock: they are in armoede"),
    "no_reknock_after_blind": gettext_noop(
        "%(player)s cannot knock: no raise after a blind knock at this table"
    ),
    # Answering
    "no_raise_to_answer": gettext_noop("%(player)s has no raise to answer"),
    "answered_already": gettext_noop("%(player)s has already answered this raise"),
    "answer_own_raise": gettext_noop("%(player)s made this raise and cannot answer it"),
    "fold_limit": gettext_noop(
        "%(player)s cannot fold: they folded %(count)s times in a row and must stay"
    ),
    # Winning
    "win_folded": gettext_noop("%(player)s has folded and cannot win"),
    "win_jack_after_all_fold": gettext_noop(
        "%(player)s cannot win with a jack: nobody played the last trick"
    ),
    "win_armoede_play_on": gettext_noop(
        "%(player)s cannot win yet: the armoede players play the round out"
    ),
    # Blind knock
    "blind_off": gettext_noop("blind knocking is not played at this table"),
    "blind_not_first": gettext_noop("%(player)s cannot knock blind: the round has started"),
    "blind_armoede": gettext_noop("%(player)s cannot knock blind: someone is in armoede"),
    "blind_most_points": gettext_noop(
        "%(player)s cannot knock blind: only a player with the most points may"
    ),
    "blind_fewest_points": gettext_noop(
        "%(player)s cannot knock blind: only a player with the fewest points may"
    ),
    # Four of a kind, laundry
    "four_off": gettext_noop("four of a kind is not played at this table"),
    "four_after_knock": gettext_noop("%(player)s cannot call four of a kind after a knock"),
    "laundry_off": gettext_noop("laundry is not played at this table"),
    "laundry_after_knock": gettext_noop("%(player)s cannot turn in laundry after a knock"),
    "laundry_self": gettext_noop("%(player)s cannot challenge their own laundry"),
    "laundry_twice": gettext_noop("%(player)s has already turned in laundry this round"),
    # Other
    "jack_beaten_off": gettext_noop("the jack beaten by a queen is not played at this table"),
    "penalty_zero": gettext_noop("a penalty must be a whole number other than 0"),
    "folded_winner": gettext_noop("%(player)s folded and cannot win the round"),
    # A paper lei's totals without its rounds (scoring/engine/paper.py)
    "totals_all_zero": gettext_noop("every total is 0: no round was played"),
    "totals_beyond_round": gettext_noop(
        "%(player)s has %(total)s: in a game to %(max)s one round adds at most %(most)s"
        " to a total below %(max)s, so no total is over %(limit)s"
    ),
    "totals_out_unfinished": gettext_noop(
        "%(player)s is out with %(total)s (the maximum is %(max)s), but %(left)s players are"
        " still in: enter the rounds of a game that goes on, so that the lei knows who is out"
    ),
    "teams_invalid": gettext_noop("teams: %(detail)s"),
    "pot_bad_bid": gettext_noop("%(player)s: %(detail)s"),
    "pot_no_winner": gettext_noop("the winner must be a player who bid"),
    # The pot game (§13, scoring/engine/pot.py): amounts are whole cents
    "pot_rules_amount": gettext_noop(
        "%(key)s must be a whole number of cents of at least %(minimum)s, not %(value)s"
    ),
    "pot_rules_range": gettext_noop(
        "%(key)s must be a whole number of cents from %(minimum)s to %(maximum)s, not %(value)s"
    ),
    "pot_bid_too_high": gettext_noop(
        "%(player)s: a bid may be at most %(maximum)s cents, not %(value)s"
    ),
    "pot_limit": gettext_noop(
        "the pot would reach %(amount)s cents, beyond the limit of %(limit)s cents"
    ),
    "balance_limit": gettext_noop(
        "%(player)s would reach a balance of %(amount)s cents,"
        " beyond the limit of %(limit)s cents either way"
    ),
    "pot_rules_empty_pot": gettext_noop(
        "pot_minimum and pass_payment cannot both be 0: an empty pot would stay empty"
    ),
    "pot_round_unknown_field": gettext_noop("a round of the pot game has no field %(field)s"),
    "pot_bid_missing": gettext_noop("%(player)s: every player must declare fold or a bid"),
    "pot_bid_not_amount": gettext_noop(
        "%(player)s: a bid must be fold or a whole number of cents, not %(value)s"
    ),
    "pot_bid_too_low": gettext_noop("%(player)s: a bid must be at least 1 cent, not %(value)s"),
    "pot_bid_above_pot": gettext_noop(
        "%(player)s: a bid of %(value)s cents is more than the pot of %(pot)s cents"
    ),
    "pot_pass_no_winner": gettext_noop(
        "everybody folded: the round needs the last-trick winner, who pays %(payment)s cents"
    ),
}


class Refusal(Exception):
    """A session, round or event that breaks a rule.

    >>> r = Refusal("knock_cap", player="Cees", total=8, stake=3, max=10).at(3, 2)
    >>> str(r)
    'round 3, event 2: Cees cannot knock: 8 + 3 is over the maximum of 10'
    """

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params: dict[str, Any] = params
        self.round: int | None = None
        self.event: int | None = None
        self.scope: str | None = None  # "rules" for a contradictory rules set
        super().__init__(code)

    def at(self, round_number: int | None, event_number: int | None = None) -> Refusal:
        """Return self, placed at a round and event (the first placing wins)."""
        if self.round is None and self.scope is None:
            self.round = round_number
            self.event = event_number
        return self

    def in_rules(self) -> Refusal:
        self.scope = "rules"
        return self

    @property
    def template(self) -> str:
        return MESSAGES.get(self.code, "%(detail)s")

    def detail(self, template: str | None = None) -> str:
        """The message without its place, from ``template`` (e.g. a translated one)."""
        return format_message(template or self.template, self.params)

    @property
    def where(self) -> str:
        if self.scope == "rules":
            return "rules"
        if self.round is None:
            return ""
        if self.event is None:
            return f"round {self.round}"
        return f"round {self.round}, event {self.event}"

    def __str__(self) -> str:
        return f"{self.where}: {self.detail()}" if self.where else self.detail()

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "params": dict(self.params),
            "round": self.round,
            "event": self.event,
            "message": str(self),
        }


def format_message(template: str, params: Mapping[str, Any]) -> str:
    try:
        return template % {key: _text(value) for key, value in params.items()}
    except (KeyError, ValueError, TypeError):
        return template


def _text(value: Any) -> str:
    return str(value)
