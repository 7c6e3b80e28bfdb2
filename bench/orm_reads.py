"""The reads of a tap written with the ORM: what ``bench/ablation.py``
puts in place of ``scoring/models/hotsql.py`` (its ``ormreads``) to measure what the hand-written
statements save. Same answers as ``scoring.models.hotsql``'s functions of the same names.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.utils import timezone

from scoring.models import (
    ClubMembership,
    IdempotencyKey,
    PushWatch,
    Round,
    RoundScore,
    Seat,
    Session,
)
from scoring.models.hotsql import Read, Stored


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


def lock_and_read(pk: int, key: str | None, *, notes: int = 0) -> Read:
    """What a write reads: the session ``pk``, locked until the transaction ends
    (Session.DoesNotExist), what the write with ``key`` answered if it was applied, with the
    fingerprint of what it was sent (read after the lock, so that one key is never applied
    twice at once), its seats and rounds, and at most ``notes`` of the viewers' parts noted as
    open now, the most recently noted first."""
    locked = Session.objects.select_for_update().get(pk=pk)
    stored = None
    if key:
        answers = IdempotencyKey.objects.filter(session_id=pk, key=key)
        row = answers.values_list("response", "digest").first()
        stored = None if row is None else Stored(*row)
    noted = []
    if notes:
        open_now = PushWatch.objects.filter(session_id=pk, until__gt=timezone.now())
        fields = open_now.order_by("-until").values_list("part", "language", "audience")
        noted = list(fields[:notes])
    return Read(locked, stored, *seats_and_rounds(pk), noted)
