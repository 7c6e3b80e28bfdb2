"""The organiser's corrections in the audit log: each an ``AuditEntry`` with its tournament,
so that the tournament's page lists them (``selectors.corrections``) beside the corrected
rounds of its tables' games, and the admin's audit log shows them with everything else."""

from __future__ import annotations

from typing import Any

from scoring.models import AuditEntry, Session, Tournament
from scoring.writes import actor_of


def tournament_audit(
    tournament: Tournament,
    *,
    actor: Any,
    action: str,
    before: Any = None,
    after: Any = None,
    session: Session | None = None,
) -> AuditEntry:
    who = actor_of(actor)
    return AuditEntry.objects.create(
        tournament=tournament,
        club_id=tournament.club_id,
        session=session,
        user=who.user,
        by_scorer_token=who.scorer_token,
        action=action,
        before=before,
        after=after,
    )
