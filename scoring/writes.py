"""What every write of every room shares: who made it (``Actor``, for the audit log) and the
refusal it may answer with (``ServiceError``, whose message the pages show)."""

from __future__ import annotations

from collections.abc import Mapping
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


def unstorable_character(data: Any) -> str | None:
    """The first character in JSON ``data`` (keys included) that no database of ours stores, or
    None: a NUL (PostgreSQL keeps none in text) or a lone surrogate such as "\\udcff", which a
    JSON escape can write but which is no text (UTF-8 cannot encode it). Without recursion.

    >>> unstorable_character({"players": ["Anne", "\\udcff"]})
    '\\udcff'
    """
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return "\x00"
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as error:
                    return value[error.start]
        elif isinstance(value, Mapping):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return None
