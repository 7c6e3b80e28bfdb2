"""The table's akkoord with the final lei, as a bridge table's device asks the opponents to
accept each score: when a game is over the tablet shows the final lei and the table taps
"Iedereen akkoord", or a player taps "Niet akkoord" with a few words, which marks the game
disputed for the club admin. A club admin (a toernooi's organiser) accepts a game the table
did not agree to. Which games the standings count is the club's ``agreement_rule``
(``Session.objects.counted_for``).

Each write is idempotent: the same tap again (the outbox resending after a lost answer, a
double tap) changes nothing and writes no second audit entry. A tap that contradicts what the
table said already is refused with the reason. Every change bumps the session's version, so
the standings kept in the cache (``scoring/league/standings_cache.py``) are read anew, and the
club's ratings are recomputed when that changes which games they count.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import names, notify
from scoring.lei.funnel import lock_session
from scoring.models import AuditEntry, Session
from scoring.ratings.services import ratings_refresh
from scoring.writes import ServiceError, actor_of

NOTE_MAX = 140  # "a few words": what fits the admin's list and a phone's line
Agreement = Session.Agreement
OVER = (Session.Status.FINISHED, Session.Status.LOCKED)


class AgreementRefused(ServiceError):
    pass


def clean_note(note: Any) -> str:
    """The words of a "niet akkoord", tidied as names are (one space, trimmed); refused when
    empty or longer than ``NOTE_MAX``."""
    text = names.tidy(note) if isinstance(note, str) else ""
    if not text:
        raise AgreementRefused(_("Zeg in een paar woorden wat er niet klopt."))
    if len(text) > NOTE_MAX:
        raise AgreementRefused(
            _("Hoogstens %(max)s tekens: zeg het in een paar woorden.") % {"max": NOTE_MAX}
        )
    return text


def session_agree(*, session: Session, actor: Any = None) -> bool:
    """The whole table agrees with the final lei. True when this changed anything."""

    def decide(locked: Session) -> tuple[str, str] | None:
        if locked.agreement in (Agreement.AGREED, Agreement.ACCEPTED):
            return None
        if locked.agreement == Agreement.DISPUTED:
            raise AgreementRefused(
                _("Er is al 'niet akkoord' gezegd: de clubbeheerder beslist over deze uitslag.")
            )
        return Agreement.AGREED, ""

    return _write(session, actor, AuditEntry.Action.AGREE, decide, table_tap=True)


def session_dispute(*, session: Session, note: Any, actor: Any = None) -> bool:
    """A player does not agree, saying why in a few words: the game is marked disputed for
    the club admin. True when this changed anything (the same words again change nothing)."""
    text = clean_note(note)

    def decide(locked: Session) -> tuple[str, str] | None:
        if locked.agreement == Agreement.DISPUTED and locked.dispute_note == text:
            return None
        if locked.agreement != Agreement.OPEN:
            raise AgreementRefused(
                _("De tafel heeft al gekozen (%(state)s): vraag de clubbeheerder.")
                % {"state": locked.get_agreement_display()}
            )
        return Agreement.DISPUTED, text

    return _write(session, actor, AuditEntry.Action.DISPUTE, decide, table_tap=True)


class ResultChanged(AgreementRefused):
    """The organiser accepts a result from a page that showed an earlier version of it."""

    def __init__(self, session: Session) -> None:
        self.session = session
        super().__init__(
            _("De uitslag is intussen veranderd: kijk hem na en accepteer hem dan opnieuw.")
        )


def session_accept(*, session: Session, version: int | None = None, actor: Any = None) -> bool:
    """The club admin (a toernooi's organiser) accepts the result: a game waiting for the
    table's akkoord, or one disputed. The dispute's words stay, for the audit trail.
    ``version``: the game's version the organiser's page showed (``ResultChanged`` when the
    lei changed since: a result is accepted only as it was seen)."""

    def decide(locked: Session) -> tuple[str, str] | None:
        if locked.agreement in (Agreement.AGREED, Agreement.ACCEPTED):
            return None
        if version is not None and version != locked.version:
            raise ResultChanged(locked)
        return Agreement.ACCEPTED, locked.dispute_note

    return _write(session, actor, AuditEntry.Action.ACCEPT, decide)


def _write(session: Session, actor: Any, action: str, decide, *, table_tap: bool = False) -> bool:
    actor = actor_of(actor)
    with transaction.atomic():
        # The row lock first: two tablets tapping at once decide one after the other
        # (``funnel.SessionGone`` when an admin deleted the game meanwhile).
        locked = lock_session(session)
        if locked.status not in OVER:
            raise AgreementRefused(_("Het spel is nog niet uitgespeeld."))
        decided = decide(locked)
        if decided is None:
            _refresh(session, locked)
            return False
        # Under "alleen met akkoord" an akkoord decides whether the game counts: once the
        # organiser closed the series (``result_closed``) the table's taps change nothing,
        # as its other taps (``funnel.ResultClosed``); the organiser still accepts.
        if table_tap and locked.result_closed and not actor.may_change_closed:
            raise AgreementRefused(
                _("De serie is afgesloten: alleen de organisator beslist nog over deze uitslag.")
            )
        before = {"agreement": locked.agreement}
        locked.agreement, locked.dispute_note = decided
        locked.version += 1
        locked.updated_at = timezone.now()
        locked.save(update_fields=["agreement", "dispute_note", "version", "updated_at"])
        # The new version to the open streams (its tablets, viewers, the club's evening), as
        # every other write of a session does, when this transaction commits.
        notify.session_changed(locked.pk, locked.version, locked.club_id)
        after = {"agreement": locked.agreement}
        if locked.dispute_note:
            after["note"] = locked.dispute_note
        AuditEntry.objects.create(
            session=locked,
            club_id=locked.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=action,
            before=before,
            after=after,
        )
        # Under the club's "alleen akkoord" rule this changes which games are rated, and the
        # tablet's chances read the ratings without recomputing them (as ``funnel.py`` does).
        ratings_refresh(club_id=locked.club_id, game=locked.pk)
    _refresh(session, locked)
    return True


def _refresh(session: Session, fresh: Session) -> None:
    for name in ("agreement", "dispute_note", "version", "updated_at", "status"):
        setattr(session, name, getattr(fresh, name))
