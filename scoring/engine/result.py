"""What a replay gives back: per round results, totals, who went out, and who won.

``Result.to_json()`` is exactly the ``replay --json`` output of RULES.md §14. The other
attributes carry what the web app stores in its projection (RoundScore, SessionResult) and
shows on the lei: knocks, folds, armoede, boer wins, places.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class RoundResult:
    number: int
    stake: int
    winner: str | None
    points: dict[str, int]  # participant -> that round's result, penalties included
    participants: list[str] = field(default_factory=list)
    dealer: str | None = None
    ended_by: str = "win"  # win | all_fold | four_of_a_kind | all_lose | pot | pass
    jack: bool = False  # the last trick was won with a boer
    knocks: dict[str, int] = field(default_factory=dict)  # player -> knocks (blind included)
    folds: dict[str, int] = field(default_factory=dict)  # player -> what their fold cost
    armoede: list[str] = field(default_factory=list)
    absent: dict[str, str] = field(default_factory=dict)  # player -> "toilet" | "drinks"
    joined: list[str] = field(default_factory=list)
    blind_knocker: str | None = None
    penalties: dict[str, int] = field(default_factory=dict)  # laundry, penalty, jack_beaten, …
    pussy_points: dict[str, int] = field(default_factory=dict)  # player -> points earned
    disqualified: list[str] = field(default_factory=list)
    eliminated: list[str] = field(default_factory=list)  # out after this round, in order
    totals: dict[str, int] = field(default_factory=dict)  # running totals after the round
    side_points: dict[str, int] | None = None  # team toepen: side -> that round's result

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "number": self.number,
            "stake": self.stake,
            "winner": self.winner,
            "points": dict(self.points),
        }
        if self.side_points is not None:
            data["side_points"] = dict(self.side_points)
        return data


@dataclass(slots=True)
class Result:
    game: str  # "strafpunten" | "pot"
    players: list[str]  # every seat in order, joined players included
    rules: dict[str, Any]
    rounds: list[RoundResult]
    totals: dict[str, int]  # player (or side, in team toepen) -> total
    eliminated: list[str]
    finished: bool
    winner: str | None
    loser: str | list[str] | None
    places: dict[str, int] = field(default_factory=dict)  # final (or current) order, 1 = best
    teams: dict[str, list[str]] | None = None
    sudden_death: list[str] | None = None  # players of a sudden-death round still to play
    balances: dict[str, int] | None = None  # pot game, cents
    pot: int | None = None  # pot game, cents
    # The table as it stands: set by replay(); what_now() reads it.
    _table: Any = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rounds": [r.to_json() for r in self.rounds]}
        if self.game == "pot":
            data["balances"] = dict(self.balances or {})
            data["pot"] = self.pot
        else:
            data["totals"] = dict(self.totals)
        data["eliminated"] = list(self.eliminated)
        data["finished"] = self.finished
        data["winner"] = self.winner
        data["loser"] = self.loser
        return data

    @property
    def side_of(self) -> dict[str, str]:
        """Team toepen: each player's side (empty when everyone plays for themselves)."""
        return {p: side for side, members in (self.teams or {}).items() for p in members}

    @property
    def toepkoning(self) -> str | None:
        if self.game == "strafpunten" and self.finished and self.rules.get("end") != "first_out":
            return self.winner
        return None

    def what_now(self) -> Any:
        """The round in progress (or the next one): see ``TableView``."""
        return self._table.view()
