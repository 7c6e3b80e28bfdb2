"""The database and the ``toepen/1`` session file (RULES.md §14), both ways.

A session's rows are the file spread over tables: the session holds the header (game, preset,
rules, start totals, teams, first dealer), its seats the players in seating order, its rounds
the events. ``session_to_file`` puts them back together; the engine replays that dict. Going
the other way is ``scoring.lei.services.session_import``, because writing a session also writes its
projection. This module reads rows only through the objects it is given and imports no model,
so that ``Session.to_file`` can call it; a whole club's file is ``scoring.lei.clubfile``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from scoring.engine.sessionfile import FORMAT
from scoring.names import in_text


# The rows this module reads, by the fields it reads: it imports no model (the models import
# it), so that ``Session.to_file`` can call it without a circle.
class Round(Protocol):
    events: list[dict[str, Any]]
    absent: dict[str, str]
    join: list[str]


class Seat(Protocol):
    player: Any  # a Player: .name
    position: int


class Session(Protocol):
    game: str
    preset: str
    rules: dict[str, Any]
    start: dict[str, int]
    teams: dict[str, list[str]]
    first_dealer: str
    ended: bool
    seats: Any  # related managers
    rounds: Any


# What an import reads at most, so that no file makes unbounded work. A session of the engine's
# 10,000 rounds is about 3 MB; a club's export holds all its sessions. JSON deeper than
# MAX_DEPTH is no session file (one is 6 levels deep, a club's export 9) and is refused before
# anything walks it.
MAX_SESSION_BYTES = 8 * 1024 * 1024
MAX_CLUB_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32


class SessionFileError(ValueError):
    """A file that is not a session file at all (not JSON, cut off, not an object)."""


def read_text(path: str, *, limit: int, what: str = "session file") -> str:
    """The text of a UTF-8 file (``-``: standard input) of at most ``limit`` bytes, or a clear
    ``SessionFileError``; a missing file is an ``OSError``."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        raw = stream.read(limit + 1)
    else:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    if isinstance(raw, str):  # a text stream (a test's standard input)
        raw = raw.encode("utf-8", "surrogateescape")
    if len(raw) > limit:
        raise SessionFileError(f"not a valid {what}: it is larger than {limit // (1024 * 1024)} MB")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SessionFileError(
            f"not a valid {what}: it is not UTF-8 text (byte {error.start + 1} cannot be read)"
        ) from None


class DuplicateKey(Exception):
    """A JSON object names one key twice: Python's parser would keep the last one silently,
    so what the file says depends on who reads it. Refused instead, naming the key."""

    def __init__(self, key: str) -> None:
        self.key = key
        shown = json.dumps(key[:40] + ("…" if len(key) > 40 else ""), ensure_ascii=True)
        super().__init__(f"the key {shown} appears twice in one object")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object, or ``DuplicateKey``."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


def load_json(text: str, *, what: str = "session file") -> dict[str, Any]:
    """Parse ``text`` as a JSON object, or say clearly where it breaks.

    >>> load_json('{"format": "toepen/1", "players": [')
    Traceback (most recent call last):
    ...
    scoring.sessionfile.SessionFileError: not a valid session file: the JSON is cut off \
at line 1, column 36
    """
    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as error:
        raise SessionFileError(f"not a valid {what}: {error}") from None
    except json.JSONDecodeError as error:
        cut_off = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated")
        problem = "is cut off" if cut_off else f"breaks ({error.msg})"
        raise SessionFileError(
            f"not a valid {what}: the JSON {problem} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise SessionFileError(
            f"not a valid {what}: the JSON is nested deeper than {MAX_DEPTH} levels"
        ) from None
    except ValueError:  # an integer of more digits than Python reads (4,300)
        raise SessionFileError(f"not a valid {what}: it holds a number too long to read") from None
    if not isinstance(data, dict):
        raise SessionFileError(f"not a valid {what}: it is not a JSON object")
    if too_deep(data):
        raise SessionFileError(
            f"not a valid {what}: the JSON is nested deeper than {MAX_DEPTH} levels"
        )
    return data


def too_deep(data: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON ``data`` nests lists and objects more than ``limit`` deep (no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def round_to_file(round_: Round, game: str = "strafpunten") -> dict[str, Any]:
    data: dict[str, Any] = {}
    if round_.absent:
        data["absent"] = dict(round_.absent)
    if round_.join:
        data["join"] = list(round_.join)
    if game == "pot":
        data.update(pot_round(round_.events))
    else:
        data["events"] = list(round_.events)
    return data


def pot_round(events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A pot round of the file from its stored events: the bids in order, then the winner."""
    bids: dict[str, Any] = {}
    winner = None
    for event in events:
        if event.get("type") == "bid":
            bids[event.get("player")] = event.get("bid")
        elif event.get("type") == "win":
            winner = event.get("player")
    data: dict[str, Any] = {"bids": bids}
    if winner is not None:
        data["winner"] = winner
    return data


def round_fields(data: Mapping[str, Any], game: str = "strafpunten") -> dict[str, Any]:
    """The model fields of a round from its (checked) session-file dict."""
    if game == "pot":
        events = [
            {"type": "bid", "player": player, "bid": bid}
            for player, bid in (data.get("bids") or {}).items()
        ]
        if data.get("winner") is not None:
            events.append({"type": "win", "player": data["winner"]})
    else:
        events = list(data.get("events") or [])
    return {
        "events": events,
        "absent": dict(data.get("absent") or {}),
        "join": list(data.get("join") or []),
    }


def file_from_rows(session: Session, seats: Iterable[Seat], rounds: Iterable[Round]) -> dict:
    """The session file of ``session`` from seats and rounds already loaded (in order)."""
    seats, rounds = list(seats), list(rounds)
    joined = {name for r in rounds for name in r.join}
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": session.game,
        "preset": session.preset,
        "rules": dict(session.rules),
        "players": [s.player.name for s in seats if s.player.name not in joined],
        "rounds": [round_to_file(r, session.game) for r in rounds],
    }
    if session.start:
        data["start"] = dict(session.start)
    if session.teams:
        # In seating order of the sides' first players: jsonb does not keep an object's order.
        first_seat = {s.player.name: s.position for s in seats}
        sides = sorted(session.teams.items(), key=lambda item: min(first_seat[n] for n in item[1]))
        data["teams"] = {side: list(names) for side, names in sides}
    if session.first_dealer:
        data["dealer"] = session.first_dealer
    if session.ended:
        data["ended"] = True
    return data


def session_to_file(session: Session) -> dict[str, Any]:
    seats = session.seats.select_related("player").order_by("position")
    return file_from_rows(session, seats, session.rounds.order_by("number"))


def rename_round(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A copy of a round (of the file, or a stored one) with the player names replaced."""

    def new(name: Any) -> Any:
        return names.get(name, name) if isinstance(name, str) else name

    out = dict(data)
    if "events" in data:
        out["events"] = [
            {k: new(v) if k in ("player", "challenger") else v for k, v in e.items()}
            if isinstance(e, Mapping)
            else e
            for e in data["events"]
        ]
    if "absent" in data:
        out["absent"] = {new(k): v for k, v in data["absent"].items()}
    if "join" in data:
        out["join"] = [new(n) for n in data["join"]]
    if "bids" in data:
        out["bids"] = {new(k): v for k, v in data["bids"].items()}
    if "winner" in data:
        out["winner"] = new(data["winner"])
    return out


def rename_players(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A copy of session file ``data`` with every player name in ``names`` replaced.

    Names are in the players list, the start totals, the teams, the first dealer, and in every
    round: events (``player``, ``challenger``), absent, join, bids and the pot winner.
    """

    def new(name: Any) -> Any:
        return names.get(name, name) if isinstance(name, str) else name

    out = dict(data)
    out["players"] = [new(n) for n in data.get("players", [])]
    out["rounds"] = [rename_round(r, names) for r in data.get("rounds", [])]
    if "start" in data:
        out["start"] = {new(k): v for k, v in data["start"].items()}
    if "teams" in data:
        out["teams"] = {side: [new(n) for n in members] for side, members in data["teams"].items()}
    if "dealer" in data:
        out["dealer"] = new(data["dealer"])
    return out


def rename_sides(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A copy of session file ``data`` whose sides (team toepen) are renamed with their players.

    A side is often named after its members ("Anne Geheimnaam & Cees", as the tablet names
    them): every player name in ``names`` found in a side's name is replaced there too, names
    compared as everywhere (``scoring.names.in_text``: case, spaces, Unicode's forms), so a
    player shown by initials is never shown in full through their side. Sides are keys of the
    teams and of the start totals. A renamed side that would clash with another side or a
    player gets a prime, as initials do.

    >>> rename_sides({"teams": {"anne  geheimnaam & Cees": ["Anne Geheimnaam", "Cees"],
    ...                         "Bas & Dirk": ["Bas", "Dirk"]}},
    ...              {"Anne Geheimnaam": "A.G."})["teams"]
    {'A.G. & Cees': ['Anne Geheimnaam', 'Cees'], 'Bas & Dirk': ['Bas', 'Dirk']}
    """
    teams = data.get("teams")
    if not isinstance(teams, Mapping) or not names:
        return dict(data)
    taken = {names.get(p, p) for p in all_names(data) if isinstance(p, str)}
    sides: dict[str, str] = {}
    for side in teams:
        new = in_text(side, names)
        while new != side and (new in taken or new in teams):
            new += "'"
        taken.add(new)
        sides[side] = new
    out = dict(data)
    out["teams"] = {sides[side]: members for side, members in teams.items()}
    start = data.get("start")
    if isinstance(start, Mapping):
        out["start"] = {sides.get(k, k): v for k, v in start.items()}
    return out


def public_file(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """Session file ``data`` as the public may see it: the players in ``names`` renamed (to
    their initials), and the sides named after them with them."""
    return rename_players(rename_sides(data, names), names)


def all_names(data: Mapping[str, Any]) -> list[str]:
    """Every player of a session file, in seating order: the players, then who joined."""
    names = list(data.get("players", []))
    for r in data.get("rounds", []):
        names += [n for n in r.get("join", []) if n not in names]
    return names


CLUB_FORMAT = "toepen-club/1"
