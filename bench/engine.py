"""Engine benchmark: replaying a long session and the "what may happen now" view.

Run with `make bench-engine`. Targets (issue 2): under 5 ms for the replay of a 200-round,
6-player session with knocks on most rounds, and under 0.5 ms for the view, on one core. Also
measured: a tap in round 201, which the app replays from the first round (DESIGN.md, decision 4).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.report import machine, write_section
from scoring.engine import replay
from scoring.engine.simulate import random_session

PLAYERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur"]


def timed(func: Callable[[], object], *, repeat: int) -> list[float]:
    """Milliseconds per call, one figure per call, after a warm-up."""
    for _ in range(10):
        func()
    figures = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        figures.append((time.perf_counter() - start) * 1000)
    return figures


def long_session() -> dict:
    # max_points at its bound and no knock cap: 200 rounds with knocks on most (the highest
    # total is 402), the same sessions as with 100000 before the bound.
    return random_session(
        random.Random(2026),
        PLAYERS,
        rounds=200,
        rules={"max_points": 1000, "knock_cap": "none"},  # the highest the engine allows
        knock_chance=0.75,
        extras=False,
    )


def open_session(data: dict) -> dict:
    """The long session with a 201st round in progress: a knock, answered by one fold."""
    dealer_round = {"events": [{"type": "knock", "player": "Bas"}]}
    opened = dict(data, rounds=[*data["rounds"], dealer_round])
    view = replay(opened, open_round=True).what_now()
    folder = view.must_answer[0]
    dealer_round["events"].append({"type": "fold", "player": folder})
    return opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", metavar="FILE", help="write the figures into this file")
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core

    data = long_session()
    events = sum(len(r["events"]) for r in data["rounds"])
    knocked = sum(any(e["type"] == "knock" for e in r["events"]) for r in data["rounds"])
    replay_ms = timed(lambda: replay(data), repeat=args.repeat)

    opened = open_session(data)
    result = replay(opened, open_round=True)
    view_ms = timed(result.what_now, repeat=args.repeat * 10)

    # A tap in round 201: the whole log is replayed, the round in progress last.
    open_full_ms = timed(lambda: replay(opened, open_round=True), repeat=args.repeat)

    def plain_row(name: str, figures: list[float]) -> str:
        median = statistics.median(figures)
        p95 = statistics.quantiles(figures, n=20)[18]
        return f"| {name} | {median:.3f} | {p95:.3f} |"

    def row(name: str, figures: list[float], target: float) -> str:
        median = statistics.median(figures)
        p95 = statistics.quantiles(figures, n=20)[18]
        verdict = "yes" if p95 < target else "NO"
        return f"| {name} | {median:.3f} | {p95:.3f} | < {target} | {verdict} |"

    body = "\n".join(
        [
            "## Engine (`make bench-engine`)",
            "",
            f"Machine: {machine()}; pinned to one core. Session: {len(PLAYERS)} players, "
            f"{len(data['rounds'])} rounds, {events} events, a knock in {knocked} rounds.",
            "",
            "| what | median ms | p95 ms | target ms | met |",
            "|---|---|---|---|---|",
            row("replay of the whole session", replay_ms, 5),
            row("what may happen now (round in progress)", view_ms, 0.5),
            "",
            "A tap in round 201: the app replays the session from the first round (DESIGN.md,",
            "decision 4).",
            "",
            "| replay of round 201 in progress | median ms | p95 ms |",
            "|---|---|---|",
            plain_row("from the first round", open_full_ms),
            "",
            "Reproduce: `make bench-engine` (writes this section).",
        ]
    )
    print(body)
    if args.write:
        write_section(args.write, "engine", body)


if __name__ == "__main__":
    main()
