"""The reads of a tap, written out once (``access.scorer``, ``funnel.session_write``), its tail
(``write_tail``) and the tap limit's count (``tap_allowance``). A viewer's poll reads its
session through the ORM (``viewer_views``): with push it is the fallback's, rare; its log is
the tablet page's (``seats_and_rounds``), so that it is not written out twice.

Gain: the ORM's reads instead cost the Friday-night mix 21 % more CPU a request, a tap 24 %
(BENCHMARKS.md, "Ablation"). Rows come back as model instances through the fields' own
converters, as the ORM gives them, on Django's connection.
Writes are the ORM's (``scoring.lei.services``), but for a write's tail (``write_tail``): the
session's new state, the round a tap changed, its audit entry and its key in one statement on
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, NamedTuple, TypeVar

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections
from django.db.models import Model, signals
from django.db.models.base import ModelState
from django.utils import timezone

from scoring.models import (
    Club,
    ClubMembership,
    IdempotencyKey,
    Player,
    PushWatch,
    Round,
    RoundScore,
    Seat,
    Session,
    TapAllowance,
)

M = TypeVar("M", bound=Model)


def _db() -> Any:
    """Django's connection itself, not the ``django.db.connection`` proxy: the loops below ask
    it something for every row and value, and each question through the proxy looks the
    connection up again (a microsecond, a few hundred times a tap)."""
    return connections[DEFAULT_DB_ALIAS]


def _name(name: str) -> str:
    return connection.ops.quote_name(name)


def _fields(model: type[Model]) -> tuple[Any, ...]:
    return tuple(model._meta.concrete_fields)


def _columns(model: type[Model], alias: str) -> str:
    return ", ".join(f"{alias}.{_name(f.column)}" for f in _fields(model))


@cache
def _converters(
    model: type[Model], vendor: str
) -> tuple[tuple[int, Any, tuple[Callable, ...]], ...]:
    """The fields of ``model`` whose database values need turning into Python values on this
    database (``vendor``), as the ORM's compiler finds them: (place, column, converters)."""
    out = []
    for place, field in enumerate(_fields(model)):
        column = field.get_col(model._meta.db_table)
        funcs = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if funcs:
            out.append((place, column, tuple(funcs)))
    return tuple(out)


@cache
def _attnames(model: type[Model]) -> tuple[str, ...] | None:
    """The attribute of each of ``model``'s concrete fields, in ``_fields`` order; None when
    something listens for its instances being made (``pre_init``, ``post_init``). Asked once
    per process, at the first row: receivers connect as the apps load, before that."""
    if signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model):
        return None
    return tuple(f.attname for f in _fields(model))


def _instance(model: type[M], values: Sequence[Any], db: Any) -> M:
    """A model instance from one row of all its concrete fields, in ``_fields`` order, read on
    the connection ``db`` (``_db()``).

    What ``model.from_db`` makes, made directly: ``Model.__init__`` sets each value through
    ``setattr`` and sends its signals, a few microseconds an instance, and a tap reads a row for
    every round of the evening. With all fields given and nothing listening, ``__init__`` does
    no more than put each value in the instance's ``__dict__`` (a foreign key's ``_id`` too: its
    descriptor only clears a related object, which a new instance does not have)."""
    values = list(values)
    for place, column, funcs in _converters(model, db.vendor):
        value = values[place]
        for func in funcs:
            value = func(value, column, db)
        values[place] = value
    names = _attnames(model)
    if names is None:
        return model.from_db(db.alias, None, values)
    instance = model.__new__(model)
    instance.__dict__.update(zip(names, values, strict=True))
    state = instance._state = ModelState()
    state.adding, state.db = False, db.alias
    return instance


def _for_update() -> str:
    # SQLite has no row locks: a write there takes the whole database, one at a time.
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def _run(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Run one statement on Django's connection; the rows it gives (none for a write)."""
    with _db().cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    rows = _run(sql, params)
    return rows[0] if rows else None


@cache
def _scorer_sql() -> str:
    members = _name(ClubMembership._meta.db_table)
    member = (
        f"SELECT 1 FROM {members} m WHERE m.{_name('club_id')} = s.{_name('club_id')}"  # noqa: S608
        f" AND m.{_name('user_id')} = %s"
    )
    return (
        f"SELECT {_columns(Session, 's')}, {_columns(Club, 'c')},"  # noqa: S608
        f" EXISTS({member}), EXISTS({member} AND m.{_name('role')} = %s)"
        f" FROM {_name(Session._meta.db_table)} s"
        f" JOIN {_name(Club._meta.db_table)} c ON c.{_name('id')} = s.{_name('club_id')}"
        f" WHERE s.{_name('id')} = %s"
    )


def scorer_session(pk: int, user_id: int | None) -> Session | None:
    """The session ``pk`` with its club, and ``is_member`` and ``is_admin``: whether the user
    ``user_id`` (None: nobody logged in) is a member, an admin, of its club."""
    row = _one(_scorer_sql(), [user_id, user_id, ClubMembership.Role.ADMIN, pk])
    return None if row is None else _scorer_row(row)


def _scorer_row(row: tuple[Any, ...]) -> Session:
    width, db = len(_fields(Session)), _db()
    session = _instance(Session, row[:width], db)
    session.club = _instance(Club, row[width:-2], db)
    session.is_member, session.is_admin = bool(row[-2]), bool(row[-1])
    return session


@cache
def _lock_sql() -> str:
    return (
        f"SELECT {_columns(Session, 's')} FROM {_name(Session._meta.db_table)} s"  # noqa: S608
        f" WHERE s.{_name('id')} = %s"
    )


def _locked(rows: list[tuple[Any, ...]], pk: int) -> Session:
    """The session ``pk``, locked until the transaction ends (Session.DoesNotExist)."""
    if not rows:
        raise Session.DoesNotExist(pk)
    return _instance(Session, rows[0], _db())


@cache
def _key_sql() -> str:
    table = _name(IdempotencyKey._meta.db_table)
    return (
        f"SELECT {_name('response')}, {_name('digest')} FROM {table}"  # noqa: S608
        f" WHERE {_name('session_id')} = %s AND {_name('key')} = %s"
    )


class Stored(NamedTuple):
    """What the write with a key answered, and the fingerprint of what was sent with it."""

    response: dict[str, Any]
    digest: str


def _answer(rows: list[tuple[Any, ...]]) -> Stored | None:
    """What the write with a key answered, if it was applied (the key is unique per session)."""
    if not rows:
        return None
    field = IdempotencyKey._meta.get_field("response")
    response = field.from_db_value(
        rows[0][0], field.get_col(IdempotencyKey._meta.db_table), connection
    )
    return Stored(response, rows[0][1])


@cache
def _seats_sql() -> str:
    return (
        f"SELECT {_columns(Seat, 'st')}, {_columns(Player, 'p')}"  # noqa: S608
        f" FROM {_name(Seat._meta.db_table)} st"
        f" JOIN {_name(Player._meta.db_table)} p ON p.{_name('id')} = st.{_name('player_id')}"
        f" WHERE st.{_name('session_id')} = %s ORDER BY st.{_name('position')}"
    )


def _seats(rows: list[tuple[Any, ...]]) -> list[Seat]:
    """The session's seats in order, each with its player."""
    width, db = len(_fields(Seat)), _db()
    out = []
    for row in rows:
        seat = _instance(Seat, row[:width], db)
        seat.player = _instance(Player, row[width:], db)
        out.append(seat)
    return out


@cache
def _rounds_sql() -> str:
    scores = _name(RoundScore._meta.db_table)
    return (
        f"SELECT {_columns(Round, 'r')}, EXISTS(SELECT 1 FROM {scores} u"  # noqa: S608
        f" WHERE u.{_name('round_id')} = r.{_name('id')})"
        f" FROM {_name(Round._meta.db_table)} r"
        f" WHERE r.{_name('session_id')} = %s ORDER BY r.{_name('number')}"
    )


def _rounds(rows: list[tuple[Any, ...]]) -> list[Round]:
    """The session's rounds in order, each with ``scored``: whether its scores are stored."""
    out, db = [], _db()
    for row in rows:
        round_ = _instance(Round, row[:-1], db)
        round_.scored = bool(row[-1])
        out.append(round_)
    return out


@cache
def _notes_sql() -> str:
    return (
        f"SELECT {_name('part')}, {_name('language')}, {_name('audience')}"  # noqa: S608
        f" FROM {_name(PushWatch._meta.db_table)} WHERE {_name('session_id')} = %s"
        f" AND {_name('until')} > %s ORDER BY {_name('until')} DESC LIMIT %s"
    )


class Read(NamedTuple):
    """What a write reads (``lock_and_read``)."""

    session: Session  # locked until the transaction ends
    stored: Stored | None  # what the write with the key answered, if it was applied
    seats: list[Seat]
    rounds: list[Round]
    notes: list[tuple[str, str, str]]  # the viewers' parts open streams show (``watch``)


def lock_and_read(pk: int, key: str | None, *, notes: int = 0) -> Read:
    """What a write reads: the session ``pk``, its row locked until the transaction ends
    (Session.DoesNotExist), what the write with ``key`` answered if it was applied, with the
    fingerprint of what it was sent (None without a key), its seats and rounds as
    ``seats_and_rounds`` gives them, and at most ``notes`` of the viewers' parts noted as open
    now, the most recently noted first (``scoring/lei/watch.py``: the write draws them).

    The statements after the lock run once it is held, so they read the session as its lock
    holder: no other write can come between."""
    statements = [(_lock_sql() + _for_update(), [pk])]
    if key:
        statements.append((_key_sql(), [pk, key]))
    statements += [(_seats_sql(), [pk]), (_rounds_sql(), [pk])]
    if notes:
        statements.append((_notes_sql(), [pk, timezone.now(), notes]))
    results = _run_all(statements)
    locked = _locked(results[0], pk)
    return Read(
        locked,
        _answer(results[1]) if key else None,
        _seats(results[2 if key else 1]),
        _rounds(results[3 if key else 2]),
        results[-1] if notes else [],
    )


def seats_and_rounds(session_id: int) -> tuple[list[Seat], list[Round]]:
    """``seats`` and ``rounds`` of the session: the log the tablet's page and a viewer's are
    drawn from."""
    seat_rows, round_rows = _run_all([(_seats_sql(), [session_id]), (_rounds_sql(), [session_id])])
    return _seats(seat_rows), _rounds(round_rows)


def _run_all(statements: list[tuple[str, list[Any]]]) -> list[list[tuple[Any, ...]]]:
    """The rows of each statement (none for a write), one after the other."""
    return [_run(sql, params) for sql, params in statements]


@cache
def _tap_sql() -> str:
    table, full, allowed = _name(TapAllowance._meta.db_table), _name("full_at"), _name("allowed")
    key = f"{_name('session_id')}, {_name('who')}"
    # In DO UPDATE, the table's name reads the row as it was before this statement.
    return (
        f"INSERT INTO {table} ({key}, {full}, {allowed}) VALUES (%s, %s, %s, %s)"  # noqa: S608
        f" ON CONFLICT ({key}) DO UPDATE SET {allowed} = ({table}.{full} <= %s),"
        f" {full} = CASE WHEN {table}.{full} > %s THEN {table}.{full}"
        f" WHEN {table}.{full} > %s THEN {table}.{full} + %s ELSE %s END"
        f" RETURNING {full}, {allowed}"
    )


def tap_allowance(session_id: int, who: str, now: int, interval: int, tolerance: int) -> int:
    """Count a tap of ``who`` at the session (``scoring.lei.taplimit``), all in milliseconds:
    let it through when the scorer's burst is whole again (``full_at``) no more than
    ``tolerance`` after ``now``, and then move that moment on by one tap's ``interval``. One
    statement, so parallel taps are each counted. 0: let through; else how long until a tap
    would be. A session deleted meanwhile counts nothing (its write finds no session)."""
    try:
        row = _one(
            _tap_sql(),
            [
                session_id,
                who,
                now + interval,
                True,
                now + tolerance,
                now + tolerance,
                now,
                interval,
                now + interval,
            ],
        )
    # Only the session can be missing (a conflict updates), and only in autocommit, as views
    # run: inside a transaction the foreign key is checked when it commits.
    except IntegrityError:
        return 0
    full_at, allowed = row
    return 0 if allowed else full_at - (now + tolerance)


# --- a write's tail ---------------------------------------------------------------------------


def _inserted(row: Model) -> tuple[str, list[Any]]:
    """``INSERT`` of the unsaved ``row`` (its primary key made by the database) and its
    parameters, each value prepared as the ORM's ``save()`` prepares it."""
    fields = [f for f in _fields(type(row)) if not f.primary_key]
    columns = ", ".join(_name(f.column) for f in fields)
    values = [f.get_db_prep_save(f.pre_save(row, True), connection) for f in fields]
    table = _name(row._meta.db_table)
    holders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {table} ({columns}) VALUES ({holders})", values  # noqa: S608


def _updated(row: Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """``UPDATE`` of ``names`` of the stored ``row`` and its parameters, each value prepared as
    the ORM's ``save(update_fields=names)`` prepares it."""
    meta = row._meta
    fields = [meta.get_field(name) for name in names]
    sets = ", ".join(f"{_name(f.column)} = %s" for f in fields)
    values = [f.get_db_prep_save(f.pre_save(row, False), connection) for f in fields]
    where = f"{_name(meta.pk.column)} = %s"
    return f"UPDATE {_name(meta.db_table)} SET {sets} WHERE {where}", [*values, row.pk]  # noqa: S608


def write_tail(
    session: Session,
    fields: Sequence[str],
    *rows: Model,
    saved: Sequence[tuple[Model, Sequence[str]]] = (),
) -> None:
    """Store ``fields`` of the locked ``session``, the fields of each of ``saved`` (stored rows
    and their changed fields: the round a tap went into) and insert ``rows`` (unsaved
    instances: a write's audit entry and its key's answer). On PostgreSQL one statement, its
    updates and inserts in a ``WITH``; elsewhere (SQLite: no writes in ``WITH``) the ORM's
    saves.

    Gain: with it a knock or fold tap costs 0.88-0.91 of the CPU it costs with the ORM's
    three saves (three runs of 640 taps in one process, batches of either interleaved); the
    round in it too, with the session store (``toepen_site/sessions.py``), a change 0.90
    (``make bench-change``); kept for issue 46's 0.4 per change, met only with them."""
    updates = [(session, fields), *saved]
    if connection.vendor != "postgresql":
        for row, names in updates:
            row.save(update_fields=list(names))
        for row in rows:
            row.save(force_insert=True)
        return
    parts, params = [], []
    for sql, values in [*(_updated(*update) for update in updates), *map(_inserted, rows)]:
        parts.append(sql)
        params += values
    ctes = ", ".join(f"w{n} AS ({sql})" for n, sql in enumerate(parts))
    _run(f"WITH {ctes} SELECT 1", params)
