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
from collections.abc import Mapping
from typing import Any

from .errors import Refusal
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
    teams: dict[str, list[str]] | None = None,
    start: dict[str, int] | None = None,
    dealer: str | None = None,
    presence: float = 0.0,
    penalties: float = 0.0,
    skill: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """A ``toepen/1`` session of up to ``rounds`` rounds (fewer if it finishes).

    ``presence`` is the chance that a round has somebody away (on the toilet or getting
    drinks) and, a quarter as often, somebody new joining; ``penalties`` the chance that an
    event is a penalty point or, a tenth as often, a disqualification. ``skill`` weighs who
    wins a round's last trick: among those who may, each in proportion to their weight (1 for
    a name it lacks); without it every one of them is as likely (bench/ratings.py)."""
    overrides = dict(rules or {})
    resolved = resolve_rules(preset, overrides, teams=teams is not None)
    game = Game(list(players), resolved, start=dict(start or {}), teams=teams, dealer=dealer)
    played: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        if game.finished:
            break
        absent, join = _presence(rng, game, presence) if presence else ({}, [])
        try:
            play = game.new_round(absent, join)
        except Refusal:  # e.g. too few left at the table: everybody plays
            absent, join = {}, []
            play = game.new_round(absent, join)
        events: list[dict[str, Any]] = []
        last = open_last and number == rounds
        stop_after = rng.randint(0, 6) if last else None
        while not play.over:
            if stop_after is not None and len(events) >= stop_after:
                break
            event = None
            if penalties and rng.random() < penalties:
                event = _penalty(rng, play)
            if event is None:
                event = _next_event(rng, play, knock_chance, extras, skill)
            play.apply(event)
            events.append(event)
        round_data: dict[str, Any] = {"events": events}
        if absent:
            round_data["absent"] = absent
        if join:
            round_data["join"] = join
        played.append(round_data)
        if play.over:
            game.finish_round(play)
    data = {
        "format": "toepen/1",
        "game": "strafpunten",
        "preset": preset,
        "rules": overrides,
        "players": list(players),
        "rounds": played,
    }
    if teams:
        data["teams"] = {side: list(members) for side, members in teams.items()}
    if start:
        data["start"] = dict(start)
    if dealer:
        data["dealer"] = dealer
    return data


def _presence(rng: random.Random, game: Game, chance: float) -> tuple[dict[str, str], list[str]]:
    absent: dict[str, str] = {}
    join: list[str] = []
    if rng.random() < chance:
        playing = [p for p in game.seats if not game.is_out(p)]
        absent[rng.choice(playing)] = rng.choice(["toilet", "drinks"])
    if game.side_of is None and len(game.seats) < 8 and rng.random() < chance / 4:
        join.append(f"Nieuw{len(game.seats) + 1}")
    return absent, join


def _penalty(rng: random.Random, play: RoundPlay) -> dict[str, Any] | None:
    if play.active and rng.random() < 0.1:
        player = rng.choice(play.active)
        if play.check_disqualify(player) is None:
            return {"type": "disqualify", "player": player}
        return None
    player = rng.choice(play.participants)
    if play.check_penalty(player) is not None:
        return None
    return {"type": "penalty", "player": player, "points": 1, "reason": "kaart getoond"}


def _next_event(
    rng: random.Random,
    play: RoundPlay,
    knock_chance: float,
    extras: bool,
    skill: Mapping[str, float] | None = None,
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
    if skill:
        weights = [skill.get(p, 1.0) for p in winners]
        return {"type": "win", "player": rng.choices(winners, weights)[0], "jack": False}
    return {"type": "win", "player": rng.choice(winners), "jack": rng.random() < 0.15}
