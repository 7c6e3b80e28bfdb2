"""Random but legal games, for property tests, benchmarks, demo data and load tests.

Each move is drawn from what the engine itself allows at that moment (the same ``check_*``
methods the tablet's buttons come from), so every generated session replays without refusal.

>>> import random
>>> data = random_session(random.Random(1), ["Anne", "Bas", "Cees"], rounds=5)
>>> len(data["rounds"]) <= 5
True
"""

from __future__ import annotations

import random
from typing import Any

from .game import Game, RoundPlay
from .rules import resolve_rules


def random_session(
    rng: random.Random,
    players: list[str],
    *,
    rounds: int,
    preset: str = "standaard",
    rules: dict[str, Any] | None = None,
    knock_chance: float = 0.6,
    extras: bool = True,
    open_last: bool = False,
) -> dict[str, Any]:
    """A ``toepen/1`` session of up to ``rounds`` rounds (fewer if it finishes)."""
    overrides = dict(rules or {})
    resolved = resolve_rules(preset, overrides)
    game = Game(list(players), resolved, start={}, teams=None, dealer=None)
    played: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        if game.finished:
            break
        play = game.new_round({}, [])
        events: list[dict[str, Any]] = []
        last = open_last and number == rounds
        stop_after = rng.randint(0, 6) if last else None
        while not play.over:
            if stop_after is not None and len(events) >= stop_after:
                break
            event = _next_event(rng, play, knock_chance, extras)
            play.apply(event)
            events.append(event)
        played.append({"events": events})
        if play.over:
            game.finish_round(play)
    return {
        "format": "toepen/1",
        "game": "strafpunten",
        "preset": preset,
        "rules": overrides,
        "players": list(players),
        "rounds": played,
    }


def _next_event(
    rng: random.Random, play: RoundPlay, knock_chance: float, extras: bool
) -> dict[str, Any]:
    everyone = play.participants
    if extras and not play.events and rng.random() < 0.05:
        blind = [p for p in everyone if play.check_blind_knock(p) is None]
        if blind:
            return {"type": "blind_knock", "player": rng.choice(blind)}
    if extras and not play.knocked and rng.random() < 0.02:
        four = [p for p in everyone if play.check_four_of_a_kind(p) is None]
        if four:
            return {"type": "four_of_a_kind", "player": rng.choice(four), "rank": "10"}
    answering = play.must_answer()
    if answering:
        player = answering[0]
        if play.check_fold(player) is None and rng.random() < 0.4:
            return {"type": "fold", "player": player}
        if rng.random() < 0.5:
            return {"type": "stay", "player": player}
    if rng.random() < knock_chance:
        knockers = [p for p in everyone if play.check_knock(p) is None]
        if knockers:
            return {"type": "knock", "player": rng.choice(knockers)}
    winners = [p for p in everyone if play.check_win(p) is None]
    return {"type": "win", "player": rng.choice(winners), "jack": rng.random() < 0.15}
