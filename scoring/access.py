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
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth.views import redirect_to_login
from django.core import signing
from django.core.signals import setting_changed
from django.db.models import Exists, OuterRef
from django.dispatch import receiver
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseForbidden,
)
from django.utils.translation import gettext

from scoring.league import standings
from scoring.lei import hotsql

# MODULE scoring.lei.hotsql hotsql
from scoring.models import (
    Club,
    ClubMembership,
    Player,
    Session,
)
from scoring.writes import Actor

if TYPE_CHECKING:
    pass

from scoring.models import Tournament

# MODULE scoring.lei.services services
# MODULE scoring.toernooi.services tournaments

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
    ``scoring/lei/hotsql.py``), else 404/LoginNeeded.

    Members of another club get a 404, like a link that does not exist: a session's existence is
    not told to outsiders.
    """
    user = request.user
    session = hotsql.scorer_session(pk, user.pk if user.is_authenticated else None)
    if session is None:
        raise Http404("no such session")
    if session.is_member:
        actor = Actor(user=user, club_admin=session.is_admin)
        return ScorerAccess(session=session, actor=actor, is_admin=session.is_admin)
    if user.is_superuser:  # the site's own admin opens every club's tablets, as its admin
        actor = Actor(user=user, club_admin=True)
        return ScorerAccess(session=session, actor=actor, is_admin=True)
    granted = request.session.get(SCORER_GRANTS, {}).get(str(pk))
    if granted and session.scorer_token and secrets.compare_digest(granted, session.scorer_token):
        actor = Actor(user=user if user.is_authenticated else None, scorer_token=True)
        return ScorerAccess(session=session, actor=actor)
    if not user.is_authenticated:
        raise LoginNeeded()
    raise Http404("no such session")


def _scorer(request: HttpRequest, pk: int) -> ScorerAccess:
    """The session if this request may score it; raises 404, or ``LoginNeeded``."""
    return get_session_for_scorer(request, pk)


def scorer_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Run ``view(request, scorer, ...)``; an anonymous request without a scorer link is sent
    to the login page (GET) or refused (POST)."""

    def wrapped(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            scorer = _scorer(request, pk)
        except LoginNeeded:
            if request.method == "POST":
                return HttpResponseForbidden(gettext("Log in of open de scorerlink."))
            return redirect_to_login(request.get_full_path())
        return view(request, scorer, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


@dataclass(frozen=True)
class Viewer:
    """Who looks at a club's league pages: a member sees every name in full."""

    club: Club
    member: bool

    def name(self, name: str, public_initials: bool) -> str:
        return standings.display_name(name, public_initials, full=self.member)


def club_viewer(request: HttpRequest, slug: str) -> Viewer:
    """The club and whether the one asking is a member, in one query; a 404 for the public
    when the club does not publish its standings."""
    user = request.user
    clubs = Club.objects.filter(slug=slug)
    if user.is_authenticated:
        clubs = clubs.annotate(
            is_member=Exists(ClubMembership.objects.filter(club=OuterRef("pk"), user=user))
            | Exists(Player.objects.filter(club=OuterRef("pk"), user=user))
        )
    club = clubs.first()
    if club is None:
        raise Http404("no such club")
    member = bool(getattr(club, "is_member", False)) or user.is_superuser
    if not member and not club.standings_public:
        raise Http404("no such club")
    return Viewer(club=club, member=member)


def admin_clubs(user) -> list[Club]:
    """The clubs whose tournaments ``user`` organises: every club for a superuser."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.order_by("name"))
    return list(
        Club.objects.filter(
            memberships__user=user, memberships__role=ClubMembership.Role.ADMIN
        ).order_by("name")
    )


def tournament_for(request: HttpRequest, pk: int) -> Tournament:
    """The tournament ``pk`` if the one asking organises it (one query), else a 404."""
    user = request.user
    found = Tournament.objects.select_related("club", "season").filter(pk=pk)
    if not user.is_superuser:
        found = found.filter(
            Exists(
                ClubMembership.objects.filter(
                    club=OuterRef("club"), user=user, role=ClubMembership.Role.ADMIN
                )
            )
        )
    tournament = found.first()
    if tournament is None:
        raise Http404("no such tournament")
    return tournament


def organiser_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Run ``view(request, tournament, ...)`` for the tournament's organiser; the anonymous
    are sent to log in (GET) or refused (POST), everybody else gets a 404."""

    def wrapped(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            if request.method == "POST":
                return HttpResponseForbidden(gettext("Log in als beheerder van de club."))
            return redirect_to_login(request.get_full_path())
        tournament = tournament_for(request, pk)
        return view(request, tournament, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def admin_club_ids(request: HttpRequest) -> frozenset[int] | None:
    """The ids of the clubs this user administers; ``None`` for a superuser (all clubs).

    Asked once per request and remembered on it: every admin on a page asks again.
    """
    user = request.user
    if not (user.is_active and user.is_staff):
        return frozenset()
    if user.is_superuser:
        return None
    cached = getattr(request, "_scoring_admin_club_ids", None)
    if cached is None:
        cached = frozenset(
            ClubMembership.objects.filter(user=user, role=ClubMembership.Role.ADMIN).values_list(
                "club_id", flat=True
            )
        )
        request._scoring_admin_club_ids = cached
    return cached
