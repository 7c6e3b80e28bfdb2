"""The one way a session changes: ``session_write``.

One transaction that locks the session row, returns the stored answer for a client key it has
seen before with the same write (and refuses the key with another: ``KeyReused``), refuses a
locked session or a stale version, replays the new event log with the engine (a ``Refusal``
propagates and nothing changes), stores the rounds and the projection that the replay gives
(``RoundScore``, ``SessionResult``), bumps the version and writes an audit entry. The engine
decides every rule; nothing here knows how Toepen scores."""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from scoring import notify
from scoring.engine import Refusal, Result, replay
from scoring.lei import drawn
from scoring.lei.tablet import Lei
from scoring.models import (
    AuditEntry,
    IdempotencyKey,
    Player,
    Round,
    RoundScore,
    Seat,
    Session,
    SessionResult,
    hotsql,
)
from scoring.models.lei import SETTLED
from scoring.ratings.services import ratings_refresh
from scoring.sessionfile import (
    all_names,
    file_from_rows,
    round_fields,
)
from scoring.writes import ServiceError, actor_of

# Rows in one INSERT at most: an imported evening may have thousands of scores, and PostgreSQL
# takes 65,535 parameters a statement.
MANY_ROWS = 1000


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


class CorrectionEndsGame(ServiceError):
    """A round's correction that ends the game at round ``ended``, before rounds played after
    it (up to ``last``): the engine refuses the next round (``round_after_finish``); the words
    (scoring/lei/words.py) name the round and what to do."""

    def __init__(self, number: int, ended: int, last: int) -> None:
        self.number, self.ended, self.last = number, ended, last
        super().__init__(f"round {number} corrected ends the game at round {ended} of {last}")


class UnknownRound(ServiceError):
    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"the session has no round {number}")


class AgreementSettled(ServiceError):
    """The table agreed with the final lei, or a club admin accepted it (scoring/lei/akkoord.py):
    what was agreed to stays, as a closed series' result does; a club admin corrects it."""

    def __init__(self) -> None:
        super().__init__("the table agreed with this result: only a club admin can correct it")


class RoundOver(ServiceError):
    """A tap made in another round than the one the lei is at now: a tap left over from a
    tablet that was behind (offline while another tablet played on). Never applied to the
    lei's round: a round that never happened is worse than a lost tap."""

    def __init__(self, tapped: int, now: int) -> None:
        self.tapped = tapped
        self.now = now
        super().__init__(f"this tap was made in round {tapped}; the session is at round {now}")


def current_round(rounds: list[Round]) -> int:
    """The round a tap goes into now: the one being played, else the next one."""
    if not rounds:
        return 1
    return rounds[-1].number if not rounds[-1].scored else rounds[-1].number + 1


class SessionClosed(ServiceError):
    """The game was ended by hand (closing time): no tap changes it until an admin reopens it."""

    def __init__(self) -> None:
        super().__init__("the game was ended: a club admin can reopen it")


class ResultClosed(ServiceError):
    """The organiser closed this game's result (its toernooi series is closed): the table's
    scorer link changes nothing; a club admin corrects it, as long as the game stays over
    (``reopen``: the change would let the game play on, which needs the series reopened)."""

    def __init__(self, *, reopen: bool = False) -> None:
        self.reopen = reopen
        if reopen:
            super().__init__(
                "the result is closed: after this change the game would play on; reopen the"
                " series first"
            )
        else:
            super().__init__("the result is closed: only a club admin can correct it")


class SessionGone(ServiceError):
    """The session was deleted while this write waited for it: thrown away by the end of a game
    without a finished round (``services.session_discard``) on another tablet, or by an admin."""

    def __init__(self) -> None:
        super().__init__("the game is gone: it was thrown away before any round was finished")


def lock_session(session: Session) -> Session:
    """The session's row, locked until the transaction ends (``SessionGone`` when it was
    deleted meanwhile)."""
    try:
        return Session.objects.select_for_update().get(pk=session.pk)
    except Session.DoesNotExist:
        raise SessionGone() from None


class NotFinished(ServiceError):
    def __init__(self) -> None:
        super().__init__("only a finished session can be locked")


class KeyReused(ServiceError):
    """The key came before with another write (a client's bug): nothing is recorded, and the
    client is told so, rather than answered as if this write had been recorded."""

    def __init__(self) -> None:
        super().__init__("this key was sent before with another write: nothing was recorded")


def sent_digest(action: str, sent: Any) -> str:
    """The fingerprint stored with a key: SHA-256 of the action and what was sent for it, as
    canonical JSON. Not the version: a tap sent again after a refusal expects a newer one and
    is still the same tap. Example: ``sent_digest("event", {"type": "fold", "player": "Bas"})``.
    """
    text = json.dumps(
        [action, sent], sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


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
    # What this write took back or replaced (``Change.before``; None when ``replayed``): an
    # undo's answer says it in words without reading the log before the write.
    before: Any = field(default=None, repr=False)
    # The leis the write drew its viewers' parts from, names in full, by language
    # (``drawn.draw_watched``): the answer's, when one is in the tablet's language.
    leis: dict[str, Lei] = field(default_factory=dict, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "round_number": self.round_number}


def players_by_name(seats: Iterable[Seat]) -> dict[str, Player]:
    return {s.player.name: s.player for s in seats}


def store_scores(
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


def store_results(
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
class Change:
    """What a write does to the rounds (as session-file dicts), for ``session_write`` to store."""

    rounds: list[dict[str, Any]]
    first: int  # the first round number whose stored row differs
    round_number: int | None
    before: Any = None
    after: Any = None
    new_players: dict[str, Player] = field(default_factory=dict)  # joining players by name
    ended: bool | None = None  # pot game: shared out (True) or taken back (False)
    finish: bool = False  # finished by hand, whatever the engine says
    reopen: bool = False  # an admin takes back an end by hand: the engine decides again


# The session's fields a write changes (``session_write``'s step 3).
SESSION_STATE = ("status", "agreement", "version", "updated_at", "ended")

# What the table does: refused once the game was ended by hand. A correction (the round editor,
# the admin) is allowed and keeps the game ended, with its places as they were decided.
TABLE_ACTIONS = {AuditEntry.Action.EVENT, AuditEntry.Action.PRESENCE, AuditEntry.Action.UNDO}


def session_write(
    session: Session,
    *,
    version: int | None,
    key: str | None,
    actor: Any,
    action: str,
    change: Callable[[Session, list[Round], list[dict[str, Any]]], Change],
    sent: Any = None,
    round_number: int | None = None,
) -> RecordOutcome:
    """Apply ``change`` to the session's log as described in the module docstring. ``sent`` is
    what the client sent for this write (JSON-like), fingerprinted with its ``key``;
    ``round_number`` is the round the tap was made in (``RoundOver`` when the lei is at
    another; None: not checked, the version alone decides)."""
    actor = actor_of(actor)
    digest = sent_digest(action, sent) if key else ""
    with transaction.atomic():
        # 1. The lock: every write to this session waits here for the one before it. After it:
        # the key's stored answer, read after the lock so that one key cannot be applied twice
        # concurrently, and the log: seats with their players, rounds marked by whether they
        # have been scored. Written out in scoring/models/hotsql.py: every tap runs them.
        try:
            locked, stored, seats, rounds, notes = hotsql.lock_and_read(
                session.pk, key, notes=drawn.notes_read()
            )
        except Session.DoesNotExist:  # thrown away while this write waited for the lock
            raise SessionGone() from None
        if stored is not None:
            # A key stored before fingerprints were kept has none: taken at its word.
            if stored.digest and stored.digest != digest:
                raise KeyReused()
            refresh_from(session, locked)
            answer = stored.response
            return RecordOutcome(
                version=answer["version"], round_number=answer["round_number"], replayed=True
            )
        if locked.status == Session.Status.LOCKED:
            raise SessionLocked()
        # Before the version: a tablet still sending taps is told why, not sent to look again.
        if locked.result_closed and not actor.may_change_closed:
            raise ResultClosed()
        # An undo or a correction at the table would change the result it agreed to, while
        # the game stayed "akkoord" and counted as such.
        if locked.agreement in SETTLED and not actor.may_change_closed:
            raise AgreementSettled()
        # Before the version too: a leftover tap is told that its round is over, not sent to
        # look again, and "probeer opnieuw" (a newer version) still never lands elsewhere.
        if round_number is not None and round_number != (now := current_round(rounds)):
            raise RoundOver(round_number, now)
        if version is not None and version != locked.version:
            raise StaleVersion(locked.version)
        data = file_from_rows(locked, seats, rounds)
        # Ended by hand: finished, though the engine would play on. Only a finished session
        # pays for this second replay.
        ended_by_hand = (
            locked.status == Session.Status.FINISHED and not replay(data, open_round=True).finished
        )
        if ended_by_hand and action in TABLE_ACTIONS:
            raise SessionClosed()
        todo = change(locked, rounds, list(data["rounds"]))
        data["rounds"] = todo.rounds
        if todo.ended is not None:
            locked.ended = data["ended"] = todo.ended
        # A Refusal leaves everything as it was.
        result = replay(data, open_round=True)
        finished = result.finished or todo.finish or (ended_by_hand and not todo.reopen)
        if locked.result_closed and not finished:
            # A closed series has no table playing (scoring/toernooi/services.py, close_series).
            raise ResultClosed(reopen=True)

        # 2. Store what changed: the rounds from ``first`` on, and their projection.
        first = todo.first
        by_number = {r.number: r for r in rounds}
        changed = [r for r in rounds if r.number >= first]
        had_scores = any(r.scored for r in changed)
        scored_now = {rr.number for rr in result.rounds if rr.number >= first}
        saved: list[tuple[Round, list[str]]] = []
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
                saved.append((existing, list(fields)))  # stored with the tail, below
        if any(r.number > len(todo.rounds) for r in rounds):
            # Their scores go with them (the foreign key's cascade).
            Round.objects.filter(session=locked, number__gt=len(todo.rounds)).delete()
        seats_changed = _sync_seats(locked, seats, data, todo.new_players)
        if had_scores:
            RoundScore.objects.filter(round__session=locked, round__number__gte=first).delete()
        players = players_by_name(seats)
        if scored_now:
            store_scores(result, by_number, players, first)
        if had_scores or scored_now or seats_changed or todo.ended is not None:
            store_results(locked, result, players, clear=True)

        # 3. The session's new state, the audit trail and the key's answer.
        was_over = locked.status != Session.Status.RUNNING
        locked.status = Session.Status.FINISHED if finished else Session.Status.RUNNING
        if not finished:
            # A game that plays on again (an admin's correction) has no final lei to agree to:
            # the table is asked again once it is over (scoring/lei/akkoord.py).
            locked.agreement = Session.Agreement.OPEN
        state = SESSION_STATE
        if action == AuditEntry.Action.CORRECT and todo.round_number is not None:
            # The sheet marks it "verbeterd" from now on (``Lei.corrected``).
            locked.corrected_rounds = sorted({*locked.corrected_rounds, todo.round_number})
            state = (*state, "corrected_rounds")
        locked.version += 1
        locked.updated_at = timezone.now()
        # Delivered to the open streams when this transaction commits, never on a rollback:
        # first the viewers' parts drawn from this replay (DESIGN decision 14; with new seats
        # the streams draw them), then the version they are of.
        drawing = (
            drawn.Drawn()
            if seats_changed
            else drawn.draw_watched(locked, seats, data, result, notes)
        )
        notify.session_changed(locked.pk, locked.version, locked.club_id, drawing.parts)
        audit = AuditEntry(
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
            version=locked.version,
            round_number=todo.round_number,
            result=result,
            data=data,
            before=todo.before,
            leis=drawing.leis,
        )
        answered = (
            [IdempotencyKey(session=locked, key=key, response=outcome.as_json(), digest=digest)]
            if key
            else []
        )
        # The session's new state, the rounds changed in place, the audit entry and the key's
        # answer: one statement.
        hotsql.write_tail(locked, state, audit, *answered, saved=saved)
        if was_over or finished:
            # A game that ends, or changes after it ended, changes the club's ratings.
            ratings_refresh(club_id=locked.club_id, game=locked.pk)
    refresh_from(session, locked)
    return outcome


def refresh_from(session: Session, fresh: Session) -> None:
    """Let the caller's instance show the session as it is now."""
    for name in (
        "status",
        "agreement",
        "version",
        "updated_at",
        "ended",
        "corrected_rounds",
        "scorer_token",
        "viewer_key",
    ):
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
    by_name = {**players_by_name(seats), **new}
    Seat.objects.filter(session=session, position__gt=keep).delete()
    created = Seat.objects.bulk_create(
        Seat(session=session, player=by_name[name], position=i)
        for i, name in enumerate(wanted[keep:], start=keep + 1)
    )
    seats[keep:] = created
    return True


def open_round(rounds: list[Round]) -> Round | None:
    """The last round if it is still being played (not scored), else None."""
    last = rounds[-1] if rounds else None
    return last if last is not None and not last.scored else None


def with_event(round_data: dict[str, Any], event: Any, game: str) -> dict[str, Any]:
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
