"""Who may score or watch a session.

- A club member (any role) scores every session of their club; a superuser scores every
  session of every club, with the rights of its club admin.
- A pub tablet without an account opens the session's secret scorer link ``/tafel/<token>/``
  once; the token is then kept in its Django session and compared with the session's current
  token on every request, so a revoked or renewed link stops working at once.
- A viewer link ``/kijk/<signed>/`` is the session id signed with a salt: unguessable, needs no
  database field, and is read-only.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass

from django.core import signing
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest

from scoring import hotsql
from scoring.models import Club, Session
from scoring.services import Actor

VIEWER_SALT = "scoring.viewer"
SCORER_GRANTS = "scorer_tokens"  # request.session key: {session id: token}


class LoginNeeded(Exception):
    """Nobody is logged in and the tablet holds no scorer link for this session."""


@dataclass(frozen=True)
class ScorerAccess:
    session: Session
    actor: Actor
    is_admin: bool = False  # a club admin may renew or revoke the scorer link


def viewer_token(session_id: int) -> str:
    return signing.dumps(session_id, salt=VIEWER_SALT)


def session_id_from_viewer_token(token: str) -> int:
    try:
        return _signed_session_id(token)
    except signing.BadSignature:
        raise Http404("no such viewer link") from None


# Every poll of every phone sends its link again. A link that checked out once stays good for
# as long as the secret key, so the good ones are remembered; a bad one raises and is not.
@functools.lru_cache(maxsize=4096)
def _signed_session_id(token: str) -> int:
    value = signing.loads(token, salt=VIEWER_SALT)
    if not isinstance(value, int):
        raise signing.BadSignature("a viewer link holds a session id")
    return value


@receiver(setting_changed)
def _forget_checked_links(*, setting: str, **kwargs: object) -> None:
    if setting in ("SECRET_KEY", "SECRET_KEY_FALLBACKS"):
        _signed_session_id.cache_clear()


def clubs_for_user(user) -> list[Club]:
    """The clubs whose sessions ``user`` may start and score (any role); every club for a
    superuser, who runs the whole site and may step in at any table."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.order_by("name"))
    return list(Club.objects.filter(memberships__user=user).order_by("name"))


def grant_scorer_link(request: HttpRequest, session: Session) -> None:
    grants = dict(request.session.get(SCORER_GRANTS, {}))
    grants[str(session.pk)] = session.scorer_token
    request.session[SCORER_GRANTS] = grants


def session_by_scorer_token(token: str) -> Session:
    session = Session.objects.filter(scorer_token=token).only("pk", "scorer_token").first()
    # The lookup is by an indexed equality; compare_digest guards the final comparison too.
    if session is None or not secrets.compare_digest(session.scorer_token or "", token):
        raise Http404("no such scorer link")
    return session


def get_session_for_scorer(request: HttpRequest, pk: int) -> ScorerAccess:
    """The session ``pk`` with its club if this request may score it (one query, written out in
    ``scoring/hotsql.py``), else 404/LoginNeeded.

    Members of another club get a 404, like a link that does not exist: a session's existence is
    not told to outsiders.
    """
    user = request.user
    session = hotsql.scorer_session(pk, user.pk if user.is_authenticated else None)
    if session is None:
        raise Http404("no such session")
    if session.is_member:
        return ScorerAccess(session=session, actor=Actor(user=user), is_admin=session.is_admin)
    if user.is_superuser:  # the site's own admin opens every club's tablets, as its admin
        return ScorerAccess(session=session, actor=Actor(user=user), is_admin=True)
    granted = request.session.get(SCORER_GRANTS, {}).get(str(pk))
    if granted and session.scorer_token and secrets.compare_digest(granted, session.scorer_token):
        actor = Actor(user=user if user.is_authenticated else None, scorer_token=True)
        return ScorerAccess(session=session, actor=actor)
    if not user.is_authenticated:
        raise LoginNeeded()
    raise Http404("no such session")
