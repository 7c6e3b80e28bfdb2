"""A toepen/1 session file written in a line (``play([ev("knock", "B"), ev("win", "A")])``) and
readers of what the engine made of it: the rounds' points in seat order, the totals, the refusal.
Players are A, B, C and D, seated clockwise, unless a test names others."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.engine import Refusal, replay


def ev(kind: str, player: str, **fields: Any) -> dict[str, Any]:
    """One event of a round: ``ev("knock", "B")``, ``ev("win", "A", jack=True)``."""
    return {"type": kind, "player": player, **fields}


def session(
    *rounds: Any,
    players: str | list[str] = "ABCD",
    start: dict[str, int] | None = None,
    preset: str | None = None,
    teams: dict[str, list[str]] | None = None,
    **rules: Any,
) -> dict[str, Any]:
    """A ``toepen/1`` session file. A round is a list of events or a whole round dict."""
    data: dict[str, Any] = {
        "format": "toepen/1",
        "players": list(players),
        "rounds": [r if isinstance(r, dict) else {"events": list(r)} for r in rounds],
    }
    if rules:
        data["rules"] = rules
    if start is not None:
        data["start"] = start
    if preset is not None:
        data["preset"] = preset
    if teams is not None:
        data["teams"] = teams
    return data


def play(*rounds: Any, **kwargs: Any):
    """Replay a session built by ``session`` and return the Result."""
    return replay(session(*rounds, **kwargs))


def view(*rounds: Any, **kwargs: Any):
    """The table as it stands after the rounds (the last one may be unfinished)."""
    return replay(session(*rounds, **kwargs), open_round=True).what_now()


def refusal(*rounds: Any, **kwargs: Any) -> Refusal:
    """The refusal of a session that breaks a rule (fails the test if it is accepted)."""
    with pytest.raises(Refusal) as caught:
        replay(session(*rounds, **kwargs))
    return caught.value


def refused_at(error: Refusal, code: str, round_number: int, event: int | None = None) -> None:
    """The refusal names the rule (``code``) and the place (``round N, event E: …``)."""
    assert error.code == code, str(error)
    assert (error.round, error.event) == (round_number, event), str(error)
    where = f"round {round_number}" if event is None else f"round {round_number}, event {event}"
    assert str(error).startswith(where + ": "), str(error)


def row(result: Any, number: int = 1) -> list[int | None]:
    """Round ``number``'s results in seat order (None for a player not in the round)."""
    return [result.rounds[number - 1].points.get(p) for p in result.players]


def totals(result: Any) -> list[int]:
    return [result.totals[p] for p in result.players]
