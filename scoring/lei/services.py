"""The writes of a session: starting or importing one, a tap at the table, undo, correcting a
round, finishing, locking and its scorer link.

Each builds the session's new event log and hands it to ``scoring.lei.funnel.session_write``,
which locks, checks the version, replays with the engine, stores the projection and audits."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q

from scoring import notify
from scoring.clubs.services import club_players, players_joining
from scoring.days import evening_day
from scoring.engine import Refusal, Result, replay
from scoring.lei.funnel import (
    Change,
    CorrectionEndsGame,
    NothingToUndo,
    RecordOutcome,
    RoundStarted,
    SessionLocked,
    StaleVersion,
    UnknownRound,
    lock_session,
    open_round,
    players_by_name,
    session_write,
    store_results,
    store_scores,
    with_event,
)
from scoring.models import (
    AuditEntry,
    Club,
    EveningTable,
    Player,
    Round,
    RoundScore,
    Season,
    Seat,
    Session,
    TournamentTable,
)
from scoring.names import name_key
from scoring.sessionfile import (
    FORMAT,
    all_names,
    file_from_rows,
    rename_players,
    round_fields,
    round_to_file,
)
from scoring.writes import Actor, ServiceError, actor_of, unstorable_character

Action = AuditEntry.Action


def _canonical(club: Club, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Player]]:
    """The file with every name spelled as the club's player, and those players by name."""
    players = club_players(club, all_names(data))
    if any(given != p.name for given, p in players.items()):
        # "anne  jansen" may be written anywhere (events, dealer, start totals): all become
        # "Anne Jansen", names compared as everywhere (scoring/names.py).
        data = rename_players(data, _AsCompared({name_key(g): p.name for g, p in players.items()}))
    return dict(data), {p.name: p for p in players.values()}


class _AsCompared(dict):
    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(name_key(key), default) if isinstance(key, str) else default


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
        return session_create(
            club=club,
            data=data,
            result=result,
            players=by_name,
            season=season,
            table_label=table_label,
            played_on=played_on,
            actor=actor_of(actor),
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
    must_be_storable(data)  # first: a refusal of the engine would quote the unstorable text
    result = replay(data, open_round=True)  # refuse a broken file before anything is looked up
    with transaction.atomic():
        canonical, by_name = _canonical(club, data)
        if canonical != data:  # names spelled otherwise than the club's: replay what is stored
            result = replay(canonical, open_round=True)
        data = canonical
        return session_create(
            club=club,
            data=data,
            result=result,
            players=by_name,
            season=season,
            table_label=table_label,
            played_on=played_on,
            actor=actor_of(actor),
            action=Action.IMPORT,
        )


def must_be_storable(data: Any) -> None:
    """Refuse text the database cannot hold: PostgreSQL stores no NUL character (U+0000), and a
    lone surrogate that a JSON escape wrote ("\\udcff") is no text that either database takes."""
    character = unstorable_character(data)
    if character == "\x00":
        raise ServiceError("the file holds a NUL character (\\u0000), which cannot be stored")
    if character is not None:
        raise ServiceError(
            f"the file holds a lone surrogate (\\u{ord(character):04x}): half of a UTF-16 pair,"
            " which is no text and cannot be stored"
        )


def session_create(
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
        played_on=played_on or evening_day(),
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
    store_scores(result, {r.number: r for r in rounds}, players_by_name(seats), 1)
    store_results(session, result, players_by_name(seats), clear=False)
    notify.session_changed(session.pk, session.version, club.pk)  # the evening's new table
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


def session_record_event(
    *,
    session: Session,
    event: dict[str, Any],
    version: int,
    key: str,
    actor: Any = None,
    sent: Any = None,
    round_number: int | None = None,
) -> RecordOutcome:
    """Record one event (RULES.md §3) in the round being played, or start the next round;
    ``round_number``: the round the tap was made in (``funnel.RoundOver`` when it is over).

    In the pot game an event is a bid, ``{"type": "bid", "player": "Anne", "bid": 150}`` (or
    ``"fold"``), or the last-trick winner, ``{"type": "win", "player": "Anne"}``. ``sent``, as
    every write with a key takes it: what the client sent (``funnel.sent_digest``); by
    default the write's own arguments.
    """

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        if open_round(rounds) is None:
            files.append({"events": []} if locked.game != "pot" else {"bids": {}})
        number = len(files)
        try:
            files[-1] = with_event(files[-1], event, locked.game)
        except Refusal as refusal:
            raise refusal.at(number, len(files[-1].get("events", [])) + 1) from None
        return Change(rounds=files, first=number, round_number=number, after={"event": event})

    return session_write(
        session,
        version=version,
        key=key,
        actor=actor,
        action=Action.EVENT,
        change=change,
        sent=event if sent is None else sent,
        round_number=round_number,
    )


def session_set_presence(
    *,
    session: Session,
    absent: Mapping[str, str],
    join: Sequence[str | Player],
    version: int,
    key: str,
    actor: Any = None,
    sent: Any = None,
    round_number: int | None = None,
) -> RecordOutcome:
    """Who is away (``"toilet"``/``"drinks"``) and who sits down in the round about to start."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        current = open_round(rounds)
        if current is not None and current.events:
            raise RoundStarted(current.number)
        new_players = players_joining(locked, join, actor)
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
        return Change(
            rounds=files,
            first=number,
            round_number=number,
            before=before,
            after={"absent": dict(absent), "join": names},
            new_players={p.name: p for p in new_players.values()},
        )

    return session_write(
        session,
        version=version,
        key=key,
        actor=actor,
        action=Action.PRESENCE,
        change=change,
        sent=[absent, join] if sent is None else sent,
        round_number=round_number,
    )


def session_undo(
    *,
    session: Session,
    version: int,
    key: str,
    actor: Any = None,
    round_number: int | None = None,
) -> RecordOutcome:
    """Take back the last thing recorded: the last event, or the presence of a round not yet
    started. A round that is left empty disappears. In the pot game undo after the pot was
    shared out takes the sharing back."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        if locked.game == "pot" and locked.ended:
            return Change(
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
        return Change(rounds=files, first=last.number, round_number=last.number, before=undone)

    return session_write(
        session,
        version=version,
        key=key,
        actor=actor,
        action=Action.UNDO,
        change=change,
        round_number=round_number,
    )


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
    sent: Any = None,
) -> RecordOutcome:
    """Correct a round: its events (and, when given, absent and joining players) are replaced
    and the whole session is replayed, so totals, who went out and the winner follow."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        if not 1 <= number <= len(rounds):
            raise UnknownRound(number)
        old = rounds[number - 1]
        new_players = players_joining(locked, join, actor)
        new = Round(
            events=list(events),
            absent=dict(old.absent if absent is None else absent),
            join=list(old.join) if join is None else [p.name for p in new_players.values()],
        )
        files[number - 1] = round_to_file(new, locked.game)
        return Change(
            rounds=files,
            first=number,
            round_number=number,
            before=round_to_file(old, locked.game),
            after=files[number - 1],
            new_players={p.name: p for p in new_players.values()},
        )

    try:
        return session_write(
            session,
            version=version,
            key=key,
            actor=actor,
            action=Action.CORRECT,
            change=change,
            sent=[number, events, absent, join] if sent is None else sent,
        )
    except Refusal as refusal:
        # The game would end before rounds that were played: say where, and what to do.
        if refusal.code == "round_after_finish" and refusal.round and refusal.round > number:
            last = Round.objects.filter(session=session).count()
            raise CorrectionEndsGame(number, refusal.round - 1, last) from refusal
        raise


# --- the session as a whole ----------------------------------------------------------------


def session_finish(
    *, session: Session, version: int | None = None, key: str | None = None, actor: Any = None
) -> RecordOutcome:
    """End the session now. In the pot game the pot is shared out (the engine does it); a
    strafpunten session that the engine has not finished yet ends with the places as they are
    (closing time) and stays ended: the table's taps are refused, a correction keeps it ended,
    and only a club admin reopens it (``session_reopen``).

    A session without a finished round is not a game that was played: it is discarded
    (``session_discard``), so it never shows in the league or the archive with everybody
    placed first."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        if not any(r.scored for r in rounds) and not _has_places_unplayed(locked):
            raise _NothingPlayed()
        return Change(
            rounds=files,
            first=len(files) + 1,
            round_number=None,
            ended=True if locked.game == "pot" else None,
            finish=True,
            before={"status": locked.status},
            after={"status": Session.Status.FINISHED},
        )

    try:
        return session_write(
            session, version=version, key=key, actor=actor, action=Action.FINISH, change=change
        )
    except _NothingPlayed:
        return session_discard(session=session, version=version, actor=actor)


def _has_places_unplayed(session: Session) -> bool:
    """A game carried over from a paper lei (start totals), or a drawn table's game (a
    toernooi's or a club evening's), has places without a finished round: at the table's time,
    an unplayed table is a shared place, and the draw keeps the table it made."""
    return (
        bool(session.start)
        or TournamentTable.objects.filter(session=session).exists()
        or EveningTable.objects.filter(session=session).exists()
    )


class _NothingPlayed(Exception):
    """``session_finish`` found no finished round (its block is rolled back)."""


def session_discard(
    *, session: Session, version: int | None = None, actor: Any = None
) -> RecordOutcome:
    """Throw away a session in which no round was finished: its seats, its unfinished round
    and its results go; the audit entry keeps what it was (club, players, the unfinished
    round's events), so nothing disappears without a trace. A session with a finished round
    is refused (``ServiceError``): that one is ended with ``session_finish``."""
    actor = actor_of(actor)
    with transaction.atomic():
        locked = lock_session(session)
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
        notify.session_changed(locked.pk, locked.version + 1, locked.club_id)
        locked.delete()
    return RecordOutcome(version=locked.version + 1, round_number=None, discarded=True)


def running_season(club: Club, day: datetime.date | None = None) -> Season | None:
    """The club's season that ``day`` (today) falls in: started, and not ended. When seasons
    overlap, the one that started last."""
    day = day or evening_day()
    seasons = Season.objects.filter(club=club, starts_on__lte=day)
    return (
        seasons.filter(Q(ends_on__isnull=True) | Q(ends_on__gte=day))
        .order_by("-starts_on", "-id")
        .first()
    )


class TournamentTableGame(ServiceError):
    """A toernooi table's next game comes from the organiser's draw, not from its tablet."""

    def __init__(self) -> None:
        super().__init__("a toernooi table's next game comes from the organiser's draw")


def session_again(*, session: Session, dealer: str, actor: Any = None) -> Session:
    """The next game at the same table ("nieuw spel, zelfde spelers"): the players of
    ``session`` in the same seats (teams as they were), the same rules, table and game,
    ``dealer`` first to deal; in its season while that season runs, else the club's running
    one (none when the game before had none). Asked again for the same game (a double tap, a
    second tablet) it gives the game it made the first time: the start's audit entry says which
    game it follows. A toernooi table's game is refused (``TournamentTableGame``)."""
    with transaction.atomic():
        old = lock_session(session)
        if TournamentTable.objects.filter(session=old).exists():
            raise TournamentTableGame()
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
            today = evening_day()
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


def session_reopen(*, session: Session, actor: Any = None) -> RecordOutcome:
    """Take back an end by hand (closing time): the game runs again and the table may tap on.
    A game the engine finished stays finished; a locked one must be unlocked first."""

    def change(locked: Session, rounds: list[Round], files: list[dict]) -> Change:
        if locked.status != Session.Status.FINISHED:
            raise ServiceError("only a finished game can be reopened")
        return Change(
            rounds=files,
            first=len(files) + 1,
            round_number=None,
            reopen=True,
            before={"status": locked.status},
            after={"status": Session.Status.RUNNING},
        )

    return session_write(
        session, version=None, key=None, actor=actor, action=Action.REOPEN, change=change
    )
