"""What every write of every room shares: who made it (``Actor``, for the audit log) and the
refusal it may answer with (``ServiceError``, whose message the pages show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ServiceError(Exception):
    """A write the app refuses before the engine is asked (its message is for people)."""


@dataclass(frozen=True)
class Actor:
    """Who writes: a signed-in user, the holder of a scorer link, or neither (a command)."""

    user: Any = None
    scorer_token: bool = False
    # An admin of the club whose session it writes (or a superuser), as scoring/access.py
    # found: only they change a game whose result the organiser closed.
    club_admin: bool = False

    @property
    def may_change_closed(self) -> bool:
        """Whether this actor may correct a closed result: a club admin, or a command (no
        user and no scorer link: whoever runs ``manage.py`` runs the whole site)."""
        return self.club_admin or (self.user is None and not self.scorer_token)


def actor_of(actor: Any) -> Actor:
    if isinstance(actor, Actor):
        return actor
    if actor is None or not getattr(actor, "is_authenticated", False):
        return Actor()
    return Actor(user=actor)
