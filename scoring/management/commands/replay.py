"""`manage.py replay FILE [--json]`: replay a toepen/1 session file through the engine.

Without --json it prints the lei: players as columns, a row per round with the stake and the
winner and everyone's running total, who went out when, and the toepkoning. A refused session
exits with status 1 and prints the one-line refusal on standard error.

A session exported while a round is being played (its last round has no winner yet) is not
refused: the lei shows the finished rounds, the round in play and "Nog bezig."; ``--json``
gives the state after the finished rounds, with ``finished: false``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.engine import Refusal, Result, replay
from scoring.sessionfile import (
    MAX_DEPTH,
    MAX_SESSION_BYTES,
    DuplicateKey,
    SessionFileError,
    read_text,
    too_deep,
    unique_keys,
)


class Command(BaseCommand):
    help = "Replay a toepen/1 session file and print the lei (or the result as JSON)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the session file, or - for standard input")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        data = read_session_file(options["file"])
        try:
            result = replay(data, open_round=True)
        except Refusal as refusal:
            self.stderr.write(str(refusal))
            sys.exit(1)
        if options["json"]:
            self.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=1))
        else:
            self.stdout.write(render_lei(result))


def read_session_file(path: str) -> Any:
    """The parsed JSON of a file (``-`` is standard input), or a clear error."""
    try:
        text = read_text(path, limit=MAX_SESSION_BYTES)
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    except SessionFileError as error:
        raise CommandError(str(error)) from None
    deep = CommandError(f"not a valid session file: the JSON is nested deeper than {MAX_DEPTH}")
    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as error:
        raise CommandError(f"not a valid session file: {error}") from None
    except json.JSONDecodeError as error:
        raise CommandError(
            f"not a valid session file: {path} is not JSON "
            f"(line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise deep from None
    except ValueError:  # an integer of more digits than Python reads
        raise CommandError("not a valid session file: it holds a number too long to read") from None
    if too_deep(data):
        raise deep
    return data


def render_lei(result: Result) -> str:
    """The session as a lei in plain text, one column per player (or side)."""
    if result.game == "pot":
        return _render_pot(result)
    units = list(result.totals)
    width = max(6, *(len(u) for u in units))
    head = f"{'ronde':>5} {'inzet':>5}  {'winnaar':<{width}}  " + "  ".join(
        f"{u:>{width}}" for u in units
    )
    lines = [head, "-" * len(head)]
    start = {u: result.totals[u] - sum(_points(r, u) for r in result.rounds) for u in units}
    if any(start.values()):
        lines.append(
            f"{'':>5} {'':>5}  {'start':<{width}}  "
            + "  ".join(f"{start[u]:>{width}}" for u in units)
        )
    out: set[str] = set()
    for rnd in result.rounds:
        cells = []
        for unit in units:
            if unit in out:
                cells.append(f"{'':>{width}}")
                continue
            mark = "+" if rnd.jack and rnd.winner and _unit_of(result, rnd.winner) == unit else ""
            cells.append(f"{str(rnd.totals[unit]) + mark:>{width}}")
        winner = rnd.winner or "-"
        lines.append(f"{rnd.number:>5} {rnd.stake:>5}  {winner:<{width}}  " + "  ".join(cells))
        for unit in rnd.eliminated:
            lines.append(f"{'':>12}{unit} is dood met {rnd.totals[unit]}")
            out.add(unit)
    table = result.what_now()
    if not result.finished and table.started:
        lines.append(f"{table.round_number:>5} {table.stake:>5}  (bezig)")
    lines.append("")
    if result.finished and result.toepkoning:
        lines.append(f"Toepkoning: {result.toepkoning}")
    elif result.finished:
        loser = result.loser if isinstance(result.loser, str) else ", ".join(result.loser or [])
        lines.append(f"Afgelopen. Verliezer: {loser}")
    else:
        lines.append("Nog bezig.")
    return "\n".join(lines)


def _unit_of(result: Result, player: str) -> str:
    if result.teams:
        for side, members in result.teams.items():
            if player in members:
                return side
    return player


def _points(rnd: Any, unit: str) -> int:
    if rnd.side_points is not None:
        return rnd.side_points.get(unit, 0)
    return rnd.points.get(unit, 0)


def _render_pot(result: Result) -> str:
    players = list(result.balances or {})
    width = max(8, *(len(p) for p in players))
    head = f"{'ronde':>5}  {'winnaar':<{width}}  " + "  ".join(f"{p:>{width}}" for p in players)
    lines = [head, "-" * len(head)]
    for rnd in result.rounds:
        cells = "  ".join(f"{_euro(rnd.totals.get(p, 0)):>{width}}" for p in players)
        lines.append(f"{rnd.number:>5}  {rnd.winner or '-':<{width}}  {cells}")
    lines.append("")
    lines.append(f"Pot: {_euro(result.pot or 0)}" + ("  (gedeeld)" if result.finished else ""))
    return "\n".join(lines)


def _euro(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}€{cents // 100},{cents % 100:02d}"
