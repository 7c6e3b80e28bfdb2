"""The session's seal and its links: locking a finished game, and renewing or revoking its
scorer and viewer links. None of these replays the log: each changes the session row alone,
locked and audited (``_session_update``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from scoring import notify
from scoring.lei.funnel import NotFinished, lock_session, refresh_from
from scoring.models import AuditEntry, Session, new_scorer_token
from scoring.writes import ServiceError, actor_of

Action = AuditEntry.Action


def _session_update(
    session: Session, *, actor: Any, action: str, allowed: Callable[[Session], None], **fields: Any
) -> Session:
    """Change the session row itself (status, token) under the lock, with an audit entry."""
    actor = actor_of(actor)
    with transaction.atomic():
        locked = lock_session(session)
        allowed(locked)
        before = {name: getattr(locked, name) for name in fields}
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.version += 1
        locked.updated_at = timezone.now()
        locked.save(update_fields=[*fields, "version", "updated_at"])
        notify.session_changed(locked.pk, locked.version, locked.club_id)
        # The secrets themselves stay out of the audit trail.
        redacted = {"scorer_token", "viewer_key"}
        AuditEntry.objects.create(
            session=locked,
            club_id=locked.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=action,
            before={k: v for k, v in before.items() if k not in redacted} or None,
            after={k: v for k, v in fields.items() if k not in redacted} or None,
        )
    refresh_from(session, locked)
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


def session_renew_viewer_link(*, session: Session, actor: Any = None) -> Session:
    """A new viewer link for the game (``access.viewer_token``); the old one answers 410."""
    return _session_update(
        session,
        actor=actor,
        action=Action.ROTATE_VIEWER,
        allowed=_any,
        viewer_key=secrets.token_urlsafe(12),
    )


def session_revoke_viewer_link(*, session: Session, actor: Any = None) -> Session:
    """No viewer link for the game until it is renewed; the old one answers 410."""
    return _session_update(
        session, actor=actor, action=Action.REVOKE_VIEWER, allowed=_any, viewer_key=None
    )
