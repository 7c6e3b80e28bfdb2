"""The reads of a tap and of a viewer's poll written with the ORM: what ``bench/ablation.py``
puts in place of ``scoring/lei/hotsql.py`` (its ``ormreads``) to measure what the hand-written
statements save. Same answers as ``scoring.lei.hotsql``'s functions of the same names.
"""

from __future__ import annotations

import contextlib

from django.db import IntegrityError
from django.db.models import Exists, OuterRef, Subquery

from scoring.lei.hotsql import Stored
from scoring.models import (
    ClubMembership,
    IdempotencyKey,
    RenderedSheet,
    Round,
    RoundScore,
    Seat,
    Session,
)


def scorer_session(pk: int, user_id: int | None) -> Session | None:
    """The session ``pk`` with its club, and ``is_member`` and ``is_admin``: whether the user
    ``user_id`` (None: nobody logged in) is a member, an admin, of its club."""
    member = ClubMembership.objects.filter(club=OuterRef("club"), user_id=user_id)
    return (
        Session.objects.select_related("club")
        .annotate(
            is_member=Exists(member),
            is_admin=Exists(member.filter(role=ClubMembership.Role.ADMIN)),
        )
        .filter(pk=pk)
        .first()
    )


def seats_and_rounds(session_id: int) -> tuple[list[Seat], list[Round]]:
    """The session's seats in order with their players, and its rounds in order, each with
    ``scored``: whether its scores are stored. The log a page or a sheet is drawn from."""
    seats = Seat.objects.filter(session_id=session_id).select_related("player")
    scored = Exists(RoundScore.objects.filter(round=OuterRef("pk")))
    rounds = Round.objects.filter(session_id=session_id).annotate(scored=scored)
    return list(seats.order_by("position")), list(rounds.order_by("number"))


def session_and_log(pk: int) -> tuple[Session, list[Seat], list[Round]] | None:
    """A viewer's first draw of a version: the session with its club, its seats and rounds.
    None: no such session."""
    session = scorer_session(pk, None)
    if session is None:
        return None
    return session, *seats_and_rounds(pk)


def lock_and_read(
    pk: int, key: str | None
) -> tuple[Session, Stored | None, list[Seat], list[Round]]:
    """What a write reads: the session ``pk``, locked until the transaction ends
    (Session.DoesNotExist), what the write with ``key`` answered if it was applied, with the
    fingerprint of what it was sent (read after the lock, so that one key is never applied
    twice at once), and its seats and rounds."""
    locked = Session.objects.select_for_update().get(pk=pk)
    stored = None
    if key:
        answers = IdempotencyKey.objects.filter(session_id=pk, key=key)
        row = answers.values_list("response", "digest").first()
        stored = None if row is None else Stored(*row)
    return locked, stored, *seats_and_rounds(pk)


def keep_sheet(session_id: int, variant: str, version: int, gzipped: bytes) -> None:
    """Keep the viewers' sheet of ``version`` (compressed) for the other viewers of the table,
    whoever gets here first. A session deleted meanwhile has nothing kept: this viewer still
    gets the sheet drawn."""
    # Only the session can be missing (a conflict updates), and only in autocommit, as views
    # run: inside a transaction the foreign key is checked when it commits.
    with contextlib.suppress(IntegrityError):
        RenderedSheet.objects.bulk_create(
            [
                RenderedSheet(
                    session_id=session_id, variant=variant, version=version, gzipped=gzipped
                )
            ],
            update_conflicts=True,
            unique_fields=["session", "variant"],
            update_fields=["version", "gzipped"],
        )


def poll(pk: int, variant: str, seen: int) -> tuple[int, bytes | None, str | None] | None:
    """A viewer's poll, one query: the session's version, the sheet kept for that version
    (``variant``: language, TV mode and audience; compressed) unless the asker has ``seen`` it
    already, and the viewer link's key. None: no such session."""
    kept = RenderedSheet.objects.filter(
        session=OuterRef("pk"), variant=variant, version=OuterRef("version")
    )
    row = (
        Session.objects.filter(pk=pk)
        .annotate(kept=Subquery(kept.values("gzipped")[:1]))
        .values_list("version", "kept", "viewer_key")
        .first()
    )
    if row is None:
        return None
    version, sheet, key = row
    return version, None if sheet is None or version == seen else bytes(sheet), key
