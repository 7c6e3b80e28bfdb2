"""Helpers of the safety tests (fuzzing, restarts, backups): the projection checked against a
fresh replay, the rows a refused write must leave alone, and the figures for BENCHMARKS.md.

``bench/safety.py`` runs those tests with ``SAFETY_FIGURES`` set to a file; each test (each
fuzzing file, from a module fixture after its last test) adds one JSON line of what it tried
there, and the script sums them into the "safety" section.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, settings

from scoring.engine import replay
from scoring.models import (
    AuditEntry,
    Club,
    IdempotencyKey,
    Player,
    Round,
    RoundScore,
    Seat,
    Session,
    SessionResult,
)

# Bounded and derandomized: the same examples on every run, so CI is stable and fast.
FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

COUNTED = (Club, Player, Session, Seat, Round, RoundScore, SessionResult, AuditEntry)


def row_counts() -> dict[str, int]:
    """How many rows each table of the app has: a refused write changes none of them."""
    counts = {model.__name__: model.objects.count() for model in COUNTED}
    counts["IdempotencyKey"] = IdempotencyKey.objects.count()
    return counts


def projection_problems(session: Session) -> list[str]:
    """Where the stored RoundScore/SessionResult rows differ from ``replay(session.to_file())``
    (an empty list when they agree)."""
    session.refresh_from_db()
    result = replay(session.to_file(), open_round=True)
    side_of = {p: side for side, members in (result.teams or {}).items() for p in members}
    expected: dict[tuple[int, str], tuple[int, int]] = {}
    for rr in result.rounds:
        for name in [*rr.participants, *(n for n in rr.absent if n not in rr.participants)]:
            unit = side_of.get(name, name)
            expected[(rr.number, name)] = (rr.points.get(name, 0), rr.totals.get(unit, 0))
        for side, points in (rr.side_points or {}).items():
            expected[(rr.number, f"side:{side}")] = (points, rr.totals.get(side, 0))
    stored = {
        (s.round.number, s.player.name if s.player else f"side:{s.side}"): (s.points, s.total)
        for s in RoundScore.objects.filter(round__session=session).select_related("round", "player")
    }
    problems = [
        f"round score {key}: stored {stored.get(key)}, replay {value}"
        for key, value in expected.items()
        if stored.get(key) != value
    ]
    problems += [f"round score {key} stored, not replayed" for key in stored.keys() - expected]

    last_place = len(result.places) or 1
    want: dict[str, tuple[int, int]] = {}
    for name in result.players:
        unit = side_of.get(name, name)
        want[name] = (result.totals.get(unit, 0), result.places.get(unit, last_place))
    for side in result.teams or {}:
        want[f"side:{side}"] = (result.totals.get(side, 0), result.places.get(side, last_place))
    have = {
        (r.player.name if r.player else f"side:{r.side}"): (r.total, r.place)
        for r in SessionResult.objects.filter(session=session).select_related("player")
    }
    if have != want:
        problems.append(f"session results: stored {have}, replay {want}")
    return problems


def events_of(session: Session) -> list[dict[str, Any]]:
    """Every stored event of the session, rounds one after the other."""
    return [e for r in session.rounds.order_by("number") for e in r.events]


def note(name: str, **figures: int) -> None:
    """Add one line of figures for ``bench/safety.py`` (only when it asks for them)."""
    path = os.environ.get("SAFETY_FIGURES")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"test": name, **figures}) + "\n")
