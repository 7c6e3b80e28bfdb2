"""Writes that span several models: starting, scoring, correcting and merging.

Every write to a session goes through ``_write``: one transaction that locks the session row,
returns the stored answer for a client key it has seen before, refuses a locked session or a
stale version, replays the new event log with the engine (a ``Refusal`` propagates and nothing
changes), stores the rounds and the projection that the replay gives, bumps the version and
writes an audit entry. The engine decides every rule; nothing here knows how Toepen scores.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from scoring import hotsql
from scoring.engine import Refusal, Result, replay
from scoring.models import (
    AuditEntry,
    Club,
    IdempotencyKey,
    Player,
    Round,
    RoundScore,
    Season,
    Seat,
    Session,
    SessionResult,
    TournamentTable,
    new_scorer_token,
)
from scoring.sessionfile import (
    FORMAT,
    all_names,
    file_from_rows,
    rename_players,
    rename_round,
    round_fields,
    round_to_file,
)

Action = AuditEntry.Action

# Rows in one INSERT at most: an imported evening may have thousands of scores, and PostgreSQL
# takes 65,535 parameters a statement.
MANY_ROWS = 1000


# --- answers and refusals that are not the engine's ------------------------------------------


class ServiceError(Exception):
    """A write the app refuses before the engine is asked (its message is for people)."""


class StaleVersion(ServiceError):
    """The client saw an older sheet; ``version`` is the current one."""

    def __init__(self, version: int) -> None:
        self.version = version
        super().__init__(f"the sheet changed: it is at version {version} now")


class SessionLocked(ServiceError):
    def __init__(self) -> None:
        super().__init__("the session is locked: unlock it to change it")


class NothingToUndo(ServiceError):
    def __init__(self) -> None:
        super().__init__("there is nothing to undo")


class RoundStarted(ServiceError):
    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"round {number} has started: absent and joining players are set before")


class UnknownRound(ServiceError):
    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"the session has no round {number}")


class PlayerNameClash(ServiceError):
    """Two names of one session that are the same ignoring case, or a player of another club."""


class MergeRefused(ServiceError):
    pass


class NotFinished(ServiceError):
    def __init__(self) -> None:
        super().__init__("only a finished session can be locked")


@dataclass(frozen=True)
class Actor:
    """Who writes: a signed-in user, the holder of a scorer link, or neither (a command)."""

    user: Any = None
    scorer_token: bool = False


def _actor(actor: Any) -> Actor:
    if isinstance(actor, Actor):
        return actor
    if actor is None or not getattr(actor, "is_authenticated", False):
        return Actor()
    return Actor(user=actor)


@dataclass(frozen=True)
class RecordOutcome:
    version: int  # the session's version right after this write
    round_number: int | None  # the round the write went into
    result: Result | None = field(default=None, repr=False)  # None when ``replayed``
    replayed: bool = False  # the key was known: nothing was recorded this time
    # The session file as stored by this write (None when ``replayed``): with ``result`` the
    # answer draws the sheet without reading the log again or replaying it a second time.
    data: dict[str, Any] | None = field(default=None, repr=False)
    discarded: bool = False  # the session ended before any round was played: it is gone

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "round_number": self.round_number}


# --- players -------------------------------------------------------------------------------


def _club_players(club: Club, names: Sequence[str | Player]) -> dict[str, Player]:
    """Map each name (or Player) to the club's player of that name ignoring case, creating
    the unknown ones as guests. Keys are the names as given."""
    given = [n.name if isinstance(n, Player) else n for n in names]
    if not all(isinstance(n, str) and n.strip() for n in given):
        raise PlayerNameClash("every player needs a name")
    longest = Player._meta.get_field("name").max_length
    for n in given:
        if len(n.strip()) > longest:
            raise PlayerNameClash(f"{n[:20]}… is a name longer than {longest} characters")
        if "\x00" in n:
            raise PlayerNameClash("a name cannot hold a NUL character")
    folded = [n.casefold() for n in given]
    if len(set(folded)) != len(folded):
        twice = next(n for n in given if folded.count(n.casefold()) > 1)
        raise PlayerNameClash(f"{twice} is named twice (names are the same ignoring case)")
    for player in names:
        if isinstance(player, Player) and player.club_id != club.pk:
            raise PlayerNameClash(f"{player.name} is a player of another club")
    found = {
        p.name.casefold(): p
        for p in Player.objects.filter(club=club)
        .annotate(lower_name=Lower("name"))
        # Lowered by the database, as its unique index does (SQLite folds ASCII letters only).
        .filter(lower_name__in=[Lower(Value(n)) for n in given])
    }
    players: dict[str, Player] = {}
    for name in given:
        player = found.get(name.casefold())
        if player is None:
            player = _guest(club, name)
        players[name] = player
    return players


def _guest(club: Club, name: str) -> Player:
    name = name.strip()
    try:
        with transaction.atomic():
            return Player.objects.create(club=club, name=name, is_guest=True)
    except IntegrityError:  # someone else sat the same new guest down a moment ago
        return Player.objects.annotate(lower_name=Lower("name")).get(
            club=club, lower_name=Lower(Value(name))
        )


def _canonical(club: Club, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Player]]:
    """The file with every name spelled as the club's player, and those players by name."""
    players = _club_players(club, all_names(data))
    if any(given != p.name for given, p in players.items()):
        # "anne" may be written anywhere (events, dealer, start totals): all become "Anne".
        data = rename_players(
            data, _IgnoringCase({g.casefold(): p.name for g, p in players.items()})
        )
    return dict(data), {p.name: p for p in players.values()}


class _IgnoringCase(dict):
    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(key.casefold(), default) if isinstance(key, str) else default


# --- creating sessions ---------------------------------------------------------------------


def session_start(
    *,
    club: Club,
    players: Sequence[str | Player],
    dealer: str | Player | None = None,
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    teams: Mapping[str, Sequence[str | Player]] | None = None,
    game: str = "strafpunten",
    start: Mapping[str | Player, int] | None = None,
    table_label: str = "",
    season: Season | None = None,
    played_on: datetime.date | None = None,
    actor: Any = None,
) -> Session:
    """Sit ``players`` down in this order and start a session by the club's house rules.

    Without ``preset`` the club's house rules are played, with ``overrides`` on top of the
    club's own; with a ``preset`` only that preset and ``overrides``. Example: a club on
    ``{"max_points": 15}`` plays ``overrides={"blind_knock": False}`` at 15 points.
    Unknown names become guests of the club; the rules are checked by the engine and their
    resolved form is stored with the session.
    """

    def name(p: str | Player) -> str:
        return p.name if isinstance(p, Player) else p

    data: dict[str, Any] = {
        "format": FORMAT,
        "game": game,
        "preset": club.preset if preset is None else preset,
        "rules": {**(club.rules if preset is None else {}), **(overrides or {})},
        "players": [name(p) for p in players],
        "rounds": [],
    }
    if start:
        data["start"] = {name(p): total for p, total in start.items()}
    if teams:
        data["teams"] = {side: [name(p) for p in members] for side, members in teams.items()}
    if dealer is not None:
        data["dealer"] = name(dealer)
    with transaction.atomic():
        data, by_name = _canonical(club, data)
        result = replay(data, open_round=True)
        return _session_create(
            club=club,
            data=data,
            result=result,
            players=by_name,
            season=season,
            table_label=table_label,
            played_on=played_on,
            actor=_actor(actor),
            action=Action.START,
        )


def session_import(
    *,
    club: Club,
    data: Mapping[str, Any],
    season: Season | None = None,
    table_label: str = "",
    played_on: datetime.date | None = None,
    actor: Any = None,
) -> Session:
    """Store a ``toepen/1`` session file; the engine checks it whole first (a ``Refusal``)."""
    result = replay(data, open_round=True)  # refuse a broken file before anything is looked up
    _must_be_storable(data)
    with transaction.atomic():
        canonical, by_name = _canonical(club, data)
        if canonical != data:  # names spelled otherwise than the club's: replay what is stored
            result = replay(canonical, open_round=True)
        data = canonical
        return _session_create(
            club=club,
            data=data,
            result=result,
            players=by_name,
            season=season,
            table_label=table_label,
            played_on=played_on,
            actor=_actor(actor),
            action=Action.IMPORT,
        )


def _must_be_storable(data: Any) -> None:
    """Refuse text the database cannot hold: PostgreSQL stores no NUL character (U+0000)."""
    if isinstance(data, str):
        if "\x00" in data:
            raise ServiceError("the file holds a NUL character (\\u0000), which cannot be stored")
    elif isinstance(data, Mapping):
        for key, value in data.items():
            _must_be_storable(key)
            _must_be_storable(value)
    elif isinstance(data, list):
        for value in data:
            _must_be_storable(value)


def _session_create(
    *,
    club: Club,
    data: Mapping[str, Any],
    result: Result,
    players: Mapping[str, Player],
    season: Season | None,
    table_label: str,
    played_on: datetime.date | None,
    actor: Actor,
    action: str,
    audit: bool = True,
) -> Session:
    game = data.get("game", "strafpunten")
    teams = data.get("teams")
    session = Session.objects.create(
        club=club,
        season=season,
        table_label=table_label,
        played_on=played_on or timezone.localdate(),
        game=game,
        rules=result.rules,  # the resolved rules: the snapshot this session is played by
        preset=data.get("preset", "standaard"),
        first_dealer=data.get("dealer") or "",
        teams=teams,
        start=dict(data.get("start") or {}),
        ended=bool(data.get("ended", False)),
        status=Session.Status.FINISHED if result.finished else Session.Status.RUNNING,
    )
    side_of = {p: side for side, members in (teams or {}).items() for p in members}
    seats = Seat.objects.bulk_create(
        Seat(session=session, player=players[n], position=i, side=side_of.get(n, ""))
        for i, n in enumerate(all_names(data), start=1)
    )
    rounds = Round.objects.bulk_create(
        Round(session=session, number=i, **round_fields(r, game))
        for i, r in enumerate(data.get("rounds", []), start=1)
    )
    if rounds and rounds[0].pk is None:  # a database that does not return ids from bulk inserts
        rounds = list(session.rounds.order_by("number"))
    _store_scores(result, {r.number: r for r in rounds}, _players_by_name(seats), 1)
    _store_results(session, result, _players_by_name(seats), clear=False)
    if audit:
        AuditEntry.objects.create(
            session=session,
            club=club,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=action,
            after=file_from_rows(session, seats, rounds),
        )
    return session


# --- the projection ------------------------------------------------------------------------


def _players_by_name(seats: Iterable[Seat]) -> dict[str, Player]:
    return {s.player.name: s.player for s in seats}


def _store_scores(
    result: Result,
    rounds: Mapping[int, Round],
    players: Mapping[str, Player],
    first: int,
) -> None:
    """Insert the RoundScore rows of the scored rounds numbered ``first`` and later."""
    side_of = result.side_of
    rows: list[RoundScore] = []
    for rr in result.rounds:
        if rr.number < first:
            continue
        round_ = rounds[rr.number]
        for name in [*rr.participants, *(n for n in rr.absent if n not in rr.participants)]:
            side = side_of.get(name, "")
            won = name == rr.winner
            rows.append(
                RoundScore(
                    round=round_,
                    player=players[name],
                    side=side,
                    points=rr.points.get(name, 0),
                    stake=rr.stake,
                    won=won,
                    folded=name in rr.folds,
                    fold_cost=rr.folds.get(name),
                    knocks=rr.knocks.get(name, 0),
                    jack_win=won and rr.jack,
                    armoede=name in rr.armoede,
                    absent=rr.absent.get(name, ""),
                    penalty=rr.penalties.get(name, 0),
                    pussy=rr.pussy_points.get(name, 0),
                    eliminated=(side or name) in rr.eliminated,
                    total=rr.totals.get(side or name, 0),
                )
            )
        for side, points in (rr.side_points or {}).items():
            rows.append(
                RoundScore(
                    round=round_,
                    side=side,
                    points=points,
                    stake=rr.stake,
                    won=side_of.get(rr.winner or "") == side,
                    eliminated=side in rr.eliminated,
                    total=rr.totals.get(side, 0),
                )
            )
    RoundScore.objects.bulk_create(rows, batch_size=MANY_ROWS)


def _store_results(
    session: Session,
    result: Result,
    players: Mapping[str, Player],
    *,
    clear: bool,
) -> None:
    """Replace the session's SessionResult rows: places and totals as the replay has them."""
    side_of = result.side_of
    out_in: dict[str, int] = {}
    played: dict[str, int] = {}
    won: dict[str, int] = {}
    for rr in result.rounds:
        for unit in rr.eliminated:
            out_in.setdefault(unit, rr.number)
        for name in rr.participants:
            played[name] = played.get(name, 0) + 1
            if side_of.get(name):
                played[side_of[name]] = played.get(side_of[name], 0) + 1
        if rr.winner is not None:
            won[rr.winner] = won.get(rr.winner, 0) + 1
            if side_of.get(rr.winner):
                won[side_of[rr.winner]] = won.get(side_of[rr.winner], 0) + 1
    last_place = len(result.places) or 1

    def row(unit: str, player: Player | None, side: str) -> SessionResult:
        return SessionResult(
            session=session,
            player=player,
            side=side,
            place=result.places.get(unit, last_place),
            total=result.totals.get(unit, 0),
            rounds_played=played.get(unit if player is None else player.name, 0),
            rounds_won=won.get(unit if player is None else player.name, 0),
            toepkoning=result.toepkoning is not None and result.toepkoning == unit,
            eliminated_in_round=out_in.get(unit),
        )

    rows = [row(side_of.get(name, name), p, side_of.get(name, "")) for name, p in players.items()]
    rows += [row(side, None, side) for side in result.teams or {}]
    if clear:
        SessionResult.objects.filter(session=session).delete()
    SessionResult.objects.bulk_create(rows)


# --- the one way a session changes ---------------------------------------------------------


@dataclass
class _Change:
    """What a write does to the rounds (as session-file dicts), for ``_write`` to store."""

    rounds: list[dict[str, Any]]
    first: int  # the first round number whose stored row differs
    round_number: int | None
    before: Any = None
    after: Any = None
    new_players: dict[str, Player] = field(default_factory=dict)  # joining players by name
    ended: bool | None = None  # pot game: shared out (True) or taken back (False)
    finish: bool = False  # finished by hand, whatever the engine says


def _write(
    session: Session,
    *,
    version: int | None,
    key: str | None,
    actor: Any,
    action: str,
    change: Callable[[Session, list[Round], list[dict[str, Any]]], _Change],
) -> RecordOutcome:
    actor = _actor(actor)
    with transaction.atomic():
        # 1. The lock: every write to this session waits here for the one before it. With it,
        # in the same round trip: the key's stored answer, read after the lock so that one key
        # cannot be applied twice concurrently, and the log: seats with their players, rounds
        # marked by whether they have been scored. Written out in scoring/hotsql.py: every tap
        # runs them.
        locked, stored, seats, rounds = hotsql.lock_and_read(session.pk, key)
        if stored is not None:
            _refresh(session, locked)
            return RecordOutcome(
                version=stored["version"], round_number=stored["round_number"], replayed=True
            )
        if locked.status == Session.Status.LOCKED:
            raise SessionLocked()
        if version is not None and version != locked.version:
            raise StaleVersion(locked.version)
        data = file_from_rows(locked, seats, rounds)
        todo = change(locked, rounds, list(data["rounds"]))
        data["rounds"] = todo.rounds
        if todo.ended is not None:
            locked.ended = data["ended"] = todo.ended
        # A Refusal leaves everything as it was.
        result = replay(data, open_round=True)

        # 2. Store what changed: the rounds from ``first`` on, and their projection.
        first = todo.first
        by_number = {r.number: r for r in rounds}
        changed = [r for r in rounds if r.number >= first]
        had_scores = any(r.scored for r in changed)
        scored_now = {rr.number for rr in result.rounds if rr.number >= first}
        for number, round_data in enumerate(todo.rounds, start=1):
            if number < first:
                continue
            fields = round_fields(round_data, locked.game)
            existing = by_number.get(number)
            if existing is None:
                by_number[number] = Round.objects.create(session=locked, number=number, **fields)
            elif any(getattr(existing, k) != v for k, v in fields.items()):
                for k, v in fields.items():
                    setattr(existing, k, v)
                existing.save(update_fields=list(fields))
        if any(r.number > len(todo.rounds) for r in rounds):
            # Their scores go with them (the foreign key's cascade).
            Round.objects.filter(session=locked, number__gt=len(todo.rounds)).delete()
        seats_changed = _sync_seats(locked, seats, data, todo.new_players)
        if had_scores:
            RoundScore.objects.filter(round__session=locked, round__number__gte=first).delete()
        players = _players_by_name(seats)
        if scored_now:
            _store_scores(result, by_number, players, first)
        if had_scores or scored_now or seats_changed or todo.ended is not None:
            _store_results(locked, result, players, clear=True)

        # 3. The session's new state, the audit trail and the key's answer.
        finished = result.finished or todo.finish
        locked.status = Session.Status.FINISHED if finished else Session.Status.RUNNING
        locked.version += 1
        locked.updated_at = timezone.now()
        locked.save(update_fields=["status", "version", "updated_at", "ended"])
        AuditEntry.objects.create(
            session=locked,
            club_id=locked.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=action,
            round_number=todo.round_number,
            before=todo.before,
            after=todo.after,
        )
        outcome = RecordOutcome(
            version=locked.version, round_number=todo.round_number, result=result, data=data
        )
        if key:
            IdempotencyKey.objects.create(session=locked, key=key, response=outcome.as_json())
    _refresh(session, locked)
    return outcome


def _refresh(session: Session, fresh: Session) -> None:
    """Let the caller's instance show the session as it is now."""
    for name in ("status", "version", "updated_at", "ended", "scorer_token"):
        setattr(session, name, getattr(fresh, name))


def _sync_seats(
    session: Session,
    seats: list[Seat],
    data: Mapping[str, Any],
    new: Mapping[str, Player],
) -> bool:
    """Make the seats follow the file when players joined or a join was taken back."""
    wanted = all_names(data)
    if [s.player.name for s in seats] == wanted:
        return False
    keep = len(data["players"])
    by_name = {**_players_by_name(seats), **new}
    Seat.objects.filter(session=session, position__gt=keep).delete()
    created = Seat.objects.bulk_create(
        Seat(session=session, player=by_name[name], position=i)
        for i, name in enumerate(wanted[keep:], start=keep + 1)
    )
    seats[keep:] = created
    return True


def _open_round(rounds: list[Round]) -> Round | None:
    """The last round if it is still being played (not scored), else None."""
    last = rounds[-1] if rounds else None
    return last if last is not None and not last.scored else None


def _with_event(round_data: dict[str, Any], event: Any, game: str) -> dict[str, Any]:
    """A round of the file with one more event (in the pot game: a bid or the winner)."""
    if game != "pot":
        return {**round_data, "events": [*round_data.get("events", []), event]}
    if not isinstance(event, Mapping) or event.get("type") not in ("bid", "win"):
        kind = event.get("type") if isinstance(event, Mapping) else event
        raise Refusal("unknown_event", event_type=kind)
    player = event.get("player")
    if event["type"] == "win":
        return {**round_data, "winner": player}
    if "bid" not in event:
        raise Refusal("missing_field", event_type="bid", field="bid")
    return {**round_data, "bids": {**round_data.get("bids", {}), player: event["bid"]}}


# --- scoring at the table ------------------------------------------------------------------


def session_record_event(
    *, session: Session, event: dict[str, Any], version: int, key: str, actor: Any = None
) -> RecordOutcome:
    """Record one event (RULES.md §3) in the round being played, or start the next round.

    In the pot game an event is a bid, ``{"type": "bid", "player": "Anne", "bid": 150}`` (or
    ``"fold"``), or the last-trick winner, ``{"type": "win", "player": "Anne"}``.
    """

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> _Change:
        if _open_round(rounds) is None:
            files.append({"events": []} if locked.game != "pot" else {"bids": {}})
        number = len(files)
        try:
            files[-1] = _with_event(files[-1], event, locked.game)
        except Refusal as refusal:
            raise refusal.at(number, len(files[-1].get("events", [])) + 1) from None
        return _Change(rounds=files, first=number, round_number=number, after={"event": event})

    return _write(
        session, version=version, key=key, actor=actor, action=Action.EVENT, change=change
    )


def session_set_presence(
    *,
    session: Session,
    absent: Mapping[str, str],
    join: Sequence[str | Player],
    version: int,
    key: str,
    actor: Any = None,
) -> RecordOutcome:
    """Who is away (``"toilet"``/``"drinks"``) and who sits down in the round about to start."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> _Change:
        current = _open_round(rounds)
        if current is not None and current.events:
            raise RoundStarted(current.number)
        new_players = _club_players(locked.club, list(join)) if join else {}
        names = [p.name for p in new_players.values()]
        presence: dict[str, Any] = {"events": []}
        if absent:
            presence["absent"] = dict(absent)
        if names:
            presence["join"] = names
        before = None
        if current is not None:
            before = {"absent": current.absent, "join": current.join}
            files.pop()
        if absent or names:
            files.append(presence)
        number = len(rounds) if current is not None else len(rounds) + 1
        return _Change(
            rounds=files,
            first=number,
            round_number=number,
            before=before,
            after={"absent": dict(absent), "join": names},
            new_players={p.name: p for p in new_players.values()},
        )

    return _write(
        session, version=version, key=key, actor=actor, action=Action.PRESENCE, change=change
    )


def session_undo(*, session: Session, version: int, key: str, actor: Any = None) -> RecordOutcome:
    """Take back the last thing recorded: the last event, or the presence of a round not yet
    started. A round that is left empty disappears. In the pot game undo after the pot was
    shared out takes the sharing back."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> _Change:
        if locked.game == "pot" and locked.ended:
            return _Change(
                rounds=files,
                first=len(files) + 1,
                round_number=None,
                ended=False,
                before={"ended": True},
                after={"ended": False},
            )
        if not rounds:
            raise NothingToUndo()
        last = rounds[-1]
        if last.events:
            undone = {"event": last.events[-1]}
            rest = Round(events=last.events[:-1], absent=last.absent, join=last.join)
        else:
            undone = {"absent": last.absent, "join": last.join}
            rest = Round(events=[], absent={}, join=[])
        if rest.events or rest.absent or rest.join:
            files[-1] = round_to_file(rest, locked.game)
        else:
            files.pop()  # the round was made by what is undone now
        return _Change(rounds=files, first=last.number, round_number=last.number, before=undone)

    return _write(session, version=version, key=key, actor=actor, action=Action.UNDO, change=change)


def round_replace_events(
    *,
    session: Session,
    number: int,
    events: list[dict[str, Any]],
    absent: Mapping[str, str] | None = None,
    join: Sequence[str | Player] | None = None,
    version: int | None = None,
    key: str | None = None,
    actor: Any = None,
) -> RecordOutcome:
    """Correct a round: its events (and, when given, absent and joining players) are replaced
    and the whole session is replayed, so totals, who went out and the winner follow."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> _Change:
        if not 1 <= number <= len(rounds):
            raise UnknownRound(number)
        old = rounds[number - 1]
        new_players = _club_players(locked.club, list(join)) if join else {}
        new = Round(
            events=list(events),
            absent=dict(old.absent if absent is None else absent),
            join=list(old.join) if join is None else [p.name for p in new_players.values()],
        )
        files[number - 1] = round_to_file(new, locked.game)
        return _Change(
            rounds=files,
            first=number,
            round_number=number,
            before=round_to_file(old, locked.game),
            after=files[number - 1],
            new_players={p.name: p for p in new_players.values()},
        )

    return _write(
        session, version=version, key=key, actor=actor, action=Action.CORRECT, change=change
    )


# --- the session as a whole ----------------------------------------------------------------


def session_finish(
    *, session: Session, version: int | None = None, key: str | None = None, actor: Any = None
) -> RecordOutcome:
    """End the session now. In the pot game the pot is shared out (the engine does it); a
    strafpunten session that the engine has not finished yet ends with the places as they are
    (closing time); its next recorded event opens it again.

    A session without a finished round is not a game that was played: it is discarded
    (``session_discard``), so it never shows in the league or the archive with everybody
    placed first."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> _Change:
        if not any(r.scored for r in rounds) and not _has_places_unplayed(locked):
            raise _NothingPlayed()
        return _Change(
            rounds=files,
            first=len(files) + 1,
            round_number=None,
            ended=True if locked.game == "pot" else None,
            finish=True,
            before={"status": locked.status},
            after={"status": Session.Status.FINISHED},
        )

    try:
        return _write(
            session, version=version, key=key, actor=actor, action=Action.FINISH, change=change
        )
    except _NothingPlayed:
        return session_discard(session=session, version=version, actor=actor)


def _has_places_unplayed(session: Session) -> bool:
    """A game carried over from a paper lei (start totals) or a toernooi table's game has
    places without a finished round: at the table's time, an unplayed table is a shared place."""
    return bool(session.start) or TournamentTable.objects.filter(session=session).exists()


class _NothingPlayed(Exception):
    """``session_finish`` found no finished round (its block is rolled back)."""


def session_discard(
    *, session: Session, version: int | None = None, actor: Any = None
) -> RecordOutcome:
    """Throw away a session in which no round was finished: its seats, its unfinished round
    and its results go; the audit entry keeps what it was (club, players, the unfinished
    round's events), so nothing disappears without a trace. A session with a finished round
    is refused (``ServiceError``): that one is ended with ``session_finish``."""
    actor = _actor(actor)
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        if locked.status == Session.Status.LOCKED:
            raise SessionLocked()
        if version is not None and version != locked.version:
            raise StaleVersion(locked.version)
        if RoundScore.objects.filter(round__session=locked).exists():
            raise ServiceError("a session with a finished round is ended, not discarded")
        AuditEntry.objects.create(
            session=None,
            club_id=locked.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=Action.FINISH,
            before={
                "session": locked.pk,
                "table": locked.table_label,
                "played_on": locked.played_on.isoformat(),
                "players": list(
                    locked.seats.order_by("position").values_list("player__name", flat=True)
                ),
                "rounds": [round_to_file(r, locked.game) for r in locked.rounds.order_by("number")],
            },
            after={"discarded": True},
        )
        locked.delete()
    return RecordOutcome(version=locked.version + 1, round_number=None, discarded=True)


def running_season(club: Club, day: datetime.date | None = None) -> Season | None:
    """The club's season that ``day`` (today) falls in: started, and not ended. When seasons
    overlap, the one that started last."""
    day = day or timezone.localdate()
    seasons = Season.objects.filter(club=club, starts_on__lte=day)
    return (
        seasons.filter(Q(ends_on__isnull=True) | Q(ends_on__gte=day))
        .order_by("-starts_on", "-id")
        .first()
    )


def session_again(*, session: Session, dealer: str, actor: Any = None) -> Session:
    """The next game at the same table ("nieuw spel, zelfde spelers"): the players of
    ``session`` in the same seats (teams as they were), the same rules, table and game,
    ``dealer`` first to deal; in its season while that season runs, else the club's running
    one (none when the game before had none). Asked again for the same game (a double tap, a
    second tablet) it gives the game it made the first time: the start's audit entry says which
    game it follows."""
    with transaction.atomic():
        old = Session.objects.select_for_update().get(pk=session.pk)
        if old.status == Session.Status.RUNNING:
            raise ServiceError("the game is still being played")
        made = (
            AuditEntry.objects.filter(
                club_id=old.club_id, action=Action.START, before__again_of=old.pk
            )
            .exclude(session=None)
            .values_list("session_id", flat=True)
            .first()
        )
        if made is not None:
            return Session.objects.get(pk=made)
        players = [s.player for s in old.seats.select_related("player").order_by("position")]
        names = {p.name for p in players}
        season = None
        if old.season_id is not None:
            today = timezone.localdate()
            kept = old.season
            runs = kept.starts_on <= today and (kept.ends_on is None or kept.ends_on >= today)
            season = kept if runs else running_season(old.club, today)
        new = session_start(
            club=old.club,
            players=players,
            dealer=dealer if dealer in names else None,
            preset=old.preset,
            overrides=old.rules,
            teams=old.teams,
            game=old.game,
            table_label=old.table_label,
            season=season,
            actor=actor,
        )
        AuditEntry.objects.filter(session=new, action=Action.START).update(
            before={"again_of": old.pk}
        )
    return new


def _session_update(
    session: Session, *, actor: Any, action: str, allowed: Callable[[Session], None], **fields: Any
) -> Session:
    """Change the session row itself (status, token) under the lock, with an audit entry."""
    actor = _actor(actor)
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        allowed(locked)
        before = {name: getattr(locked, name) for name in fields}
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.version += 1
        locked.updated_at = timezone.now()
        locked.save(update_fields=[*fields, "version", "updated_at"])
        redacted = {"scorer_token"}  # the secret itself stays out of the audit trail
        AuditEntry.objects.create(
            session=locked,
            club_id=locked.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=action,
            before={k: v for k, v in before.items() if k not in redacted} or None,
            after={k: v for k, v in fields.items() if k not in redacted} or None,
        )
    _refresh(session, locked)
    return session


def _must_be_finished(session: Session) -> None:
    if session.status != Session.Status.FINISHED:
        raise NotFinished()


def _must_be_locked(session: Session) -> None:
    if session.status != Session.Status.LOCKED:
        raise ServiceError("the session is not locked")


def _any(session: Session) -> None:
    return None


def session_lock(*, session: Session, actor: Any = None) -> Session:
    """Seal a finished session: no event, correction or undo until it is unlocked."""
    return _session_update(
        session, actor=actor, action=Action.LOCK, allowed=_must_be_finished, status="locked"
    )


def session_unlock(*, session: Session, actor: Any = None) -> Session:
    return _session_update(
        session, actor=actor, action=Action.UNLOCK, allowed=_must_be_locked, status="finished"
    )


def session_rotate_token(*, session: Session, actor: Any = None) -> Session:
    """A new scorer link; the old one stops working at once."""
    return _session_update(
        session,
        actor=actor,
        action=Action.ROTATE_TOKEN,
        allowed=_any,
        scorer_token=new_scorer_token(),
    )


def session_revoke_token(*, session: Session, actor: Any = None) -> Session:
    return _session_update(
        session, actor=actor, action=Action.REVOKE_TOKEN, allowed=_any, scorer_token=None
    )


def prune_idempotency_keys(*, older_than: datetime.timedelta) -> int:
    """Forget the keys of writes made longer ago than ``older_than``; how many were removed.

    A key only has to outlive the retries of its tap (seconds to minutes: static/js/lei.js). A
    retry that comes after its key is gone is not applied twice either: it carries the version
    its tablet saw, and the write it repeats has moved the session past that version, so it is
    refused as stale and the tablet gets the fresh sheet.
    """
    cutoff = timezone.now() - older_than
    removed, _ = IdempotencyKey.objects.filter(created_at__lt=cutoff).delete()
    return removed


# --- players -------------------------------------------------------------------------------


def player_merge(*, keep: Player, remove: Player, actor: Any = None) -> Player:
    """Make ``remove`` (say, a guest typed twice) the same person as ``keep``.

    Every seat, round score and session result of ``remove`` becomes ``keep``'s, and the events
    of those sessions name ``keep``; then ``remove`` is deleted. Refused when both sat in one
    session: the sheet cannot have the same person twice.
    """
    actor = _actor(actor)
    if keep.pk == remove.pk:
        raise MergeRefused("a player cannot be merged with themselves")
    if keep.club_id != remove.club_id:
        raise MergeRefused(f"{keep.name} and {remove.name} play in different clubs")
    with transaction.atomic():
        session_ids = list(Seat.objects.filter(player=remove).values_list("session_id", flat=True))
        sessions = Session.objects.select_for_update().filter(pk__in=session_ids)
        shared = Seat.objects.filter(player=keep, session_id__in=session_ids)
        if shared.exists():
            raise MergeRefused(
                f"{keep.name} and {remove.name} both sat in session {shared.first().session_id}"
            )
        _rename_in_sessions(sessions, {remove.name: keep.name})
        Seat.objects.filter(player=remove).update(player=keep)
        RoundScore.objects.filter(player=remove).update(player=keep)
        SessionResult.objects.filter(player=remove).update(player=keep)
        if keep.user_id is None and remove.user_id is not None:
            keep.user_id = remove.user_id
            remove.user_id = None
            remove.save(update_fields=["user"])
            keep.save(update_fields=["user"])
        if not remove.is_guest and keep.is_guest:
            keep.is_guest = False
            keep.save(update_fields=["is_guest"])
        # A toernooi's entries and seats name players too (and keep them from being deleted).
        from scoring.tournaments import merge_players_in_tournaments

        merge_players_in_tournaments(keep=keep, remove=remove)
        AuditEntry.objects.create(
            club_id=keep.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=Action.MERGE,
            before={"keep": keep.name, "remove": remove.name},
            after={"keep": keep.name, "sessions": session_ids},
        )
        remove.delete()
    return keep


def player_rename(*, player: Player, name: str, actor: Any = None) -> Player:
    """Give a player another name, also in the events of every session they sat in (a name
    is how a session's events point at a player, so it cannot change in one place only)."""
    actor = _actor(actor)
    name = name.strip()
    if not name:
        raise PlayerNameClash("every player needs a name")
    with transaction.atomic():
        clash = (
            Player.objects.annotate(lower_name=Lower("name"))
            .filter(club_id=player.club_id, lower_name=Lower(Value(name)))
            .exclude(pk=player.pk)
        )
        if clash.exists():
            raise PlayerNameClash(f"the club has a player called {name} already")
        old = player.name
        sessions = Session.objects.select_for_update().filter(seats__player=player)
        _rename_in_sessions(sessions, {old: name})
        player.name = name
        player.save(update_fields=["name"])
        AuditEntry.objects.create(
            club_id=player.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=Action.RENAME,
            before={"name": old},
            after={"name": name},
        )
    return player


def _rename_in_sessions(sessions: QuerySet[Session], names: Mapping[str, str]) -> None:
    """Rewrite player names in the locked ``sessions``: header, rounds; bump their versions."""
    sessions = list(sessions.order_by("pk"))
    now = timezone.now()
    for session in sessions:
        header = rename_players(
            {
                "start": session.start,
                "teams": session.teams or {},
                "dealer": session.first_dealer,
            },
            names,
        )
        session.start = header["start"]
        session.teams = header["teams"] or None
        session.first_dealer = header["dealer"]
        session.version += 1
        session.updated_at = now
    rounds = list(Round.objects.filter(session__in=[s.pk for s in sessions]))
    for round_ in rounds:
        renamed = rename_round(
            {"events": round_.events, "absent": round_.absent, "join": round_.join}, names
        )
        round_.events, round_.absent, round_.join = (
            renamed["events"],
            renamed["absent"],
            renamed["join"],
        )
    Session.objects.bulk_update(
        sessions, ["start", "teams", "first_dealer", "version", "updated_at"]
    )
    Round.objects.bulk_update(rounds, ["events", "absent", "join"])


# --- a whole club --------------------------------------------------------------------------


class ClubImportError(ServiceError):
    pass


def club_import(*, data: Mapping[str, Any], slug: str | None = None) -> Club:
    """Load a club written by ``club_to_file`` into this database, whole or not at all.

    Refused: another kind of file, a file of another club than ``slug``, a club whose slug
    exists here already (it is never overwritten), and any session the engine refuses.
    """
    from django.contrib.auth import get_user_model

    from scoring.models import ClubMembership
    from scoring.sessionfile import CLUB_FORMAT

    if data.get("format") != CLUB_FORMAT:
        if data.get("format") == FORMAT:
            raise ClubImportError("this is a session file, not a club export: use import_session")
        raise ClubImportError(f'not a club export: "format" must be "{CLUB_FORMAT}"')
    header = data.get("club")
    if not isinstance(header, Mapping) or not isinstance(header.get("slug"), str):
        raise ClubImportError("not a valid club export: it names no club")
    if slug is not None and header["slug"] != slug:
        raise ClubImportError(f"this file is for the club {header['slug']!r}, not {slug!r}")
    _must_be_storable(data)
    if Club.objects.filter(slug=header["slug"]).exists():
        raise ClubImportError(
            f"a club {header['slug']!r} exists already and is not overwritten:"
            " import into another database, or delete that club first"
        )
    dt = datetime.datetime.fromisoformat
    day = datetime.date.fromisoformat
    try:
        with transaction.atomic():
            club = Club.objects.create(
                name=header["name"],
                slug=header["slug"],
                preset=header.get("preset", "standaard"),
                rules=header.get("rules") or {},
                standings_public=bool(header.get("standings_public", False)),
            )
            if header.get("created_at"):
                Club.objects.filter(pk=club.pk).update(created_at=dt(header["created_at"]))

            User = get_user_model()
            wanted = {p.get("user") for p in data.get("players", [])}
            wanted |= {m["user"] for m in data.get("memberships", [])}
            wanted |= {a.get("user") for a in data.get("audit", [])}
            wanted.discard(None)
            users = {u.username: u for u in User.objects.filter(username__in=wanted)}
            for username in sorted(wanted - set(users)):
                # Someone who has no account here yet: they set a password with a reset.
                user = User(username=username)
                user.set_unusable_password()
                user.save()
                users[username] = user

            players = Player.objects.bulk_create(
                Player(
                    club=club,
                    name=p["name"],
                    is_guest=bool(p.get("is_guest", False)),
                    public_initials=bool(p.get("public_initials", False)),
                    user=users.get(p.get("user")),
                )
                for p in data.get("players", [])
            )
            by_name = {p.name: p for p in players}
            ClubMembership.objects.bulk_create(
                ClubMembership(club=club, user=users[m["user"]], role=m["role"])
                for m in data.get("memberships", [])
            )
            seasons = {
                s["name"]: Season.objects.create(
                    club=club,
                    name=s["name"],
                    starts_on=day(s["starts_on"]),
                    ends_on=day(s["ends_on"]) if s.get("ends_on") else None,
                    ranking=s.get("ranking") or {},
                )
                for s in data.get("seasons", [])
            }

            sessions: list[Session] = []
            for number, entry in enumerate(data.get("sessions", []), start=1):
                file = entry["file"]
                try:
                    result = replay(file, open_round=True)
                except Refusal as refusal:
                    raise ClubImportError(f"session {number}: {refusal}") from None
                missing = [n for n in all_names(file) if n not in by_name]
                if missing:
                    raise ClubImportError(
                        f"session {number} names {missing[0]}, who is not a player of the club"
                    )
                session = _session_create(
                    club=club,
                    data=file,
                    result=result,
                    players=by_name,
                    season=seasons[entry["season"]] if entry.get("season") else None,
                    table_label=entry.get("table_label", ""),
                    played_on=day(entry["played_on"]),
                    actor=Actor(),
                    action=Action.IMPORT,
                    audit=False,
                )
                kept = {
                    "status": entry.get("status", session.status),
                    "version": entry.get("version", 0),
                    "scorer_token": entry.get("scorer_token"),
                    "created_at": dt(entry["created_at"]),
                    "updated_at": dt(entry["updated_at"]),
                }
                Session.objects.filter(pk=session.pk).update(**kept)
                sessions.append(session)

            AuditEntry.objects.bulk_create(
                AuditEntry(
                    club=club,
                    session=sessions[a["session"]] if a.get("session") is not None else None,
                    user=users.get(a.get("user")),
                    by_scorer_token=bool(a.get("by_scorer_token", False)),
                    at=dt(a["at"]),
                    action=a["action"],
                    round_number=a.get("round_number"),
                    before=a.get("before"),
                    after=a.get("after"),
                )
                for a in data.get("audit", [])
            )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise ClubImportError(f"not a valid club export: {type(error).__name__} {error}") from None
    except IntegrityError as error:
        raise ClubImportError(f"the club export does not fit this database: {error}") from None
    return club
