"""Who may do what: the one place of the site that says it.

Every "may this person…" is answered here, and views ask it through one decorator,
``requires(role)``; ``tests/site/test_access_one_place.py`` fails on a view that does not,
unless it is in that test's short list of public pages.

The roles:

- A **member** of a club (a ``ClubMembership``, any role) starts and scores every session of
  their club. A **club admin** (the membership's role ``admin``) also renews or revokes a
  session's scorer link, organises the club's tournaments and, as staff, sees the club in the
  Django admin (``scoring/admin_base.py`` asks ``admin_club_ids``). A superuser runs the whole
  site: a club admin of every club. ``scoring/models/hotsql.py`` asks the same two questions in
  its one query of a tap.
- A **scorer** of a session is a member of its club, or a pub tablet without an account that
  opened the session's secret scorer link ``/tafel/<token>/`` once; the token is then kept in its
  Django session and compared with the session's current token on every request, so a revoked
  or renewed link stops working at once.
- A **league viewer** of a club is anyone when the club publishes its standings, else only a
  member or a player of the club with an account; those see every name in full.
- A viewer link ``/kijk/<signed>/`` is the session id signed with a salt and the session's
  ``viewer_key``: unguessable and read-only; whoever holds it may watch. A scorer or a club
  admin renews it (a new key) or revokes it (no key): the old link then answers 410. It shows
  names as the league pages do: initials for the players who asked for them, every name in
  full for the club's members.

Someone who may not gets a 404, the answer for what does not exist, so that nothing of another
club can be probed; nobody logged in is sent to log in (a POST to a page that names its reason
is refused with a 403 instead).
"""

from __future__ import annotations

import functools
import inspect
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core import signing
from django.core.signals import setting_changed
from django.db.models import Exists, OuterRef, QuerySet
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext

from scoring import names
from scoring.http import link_revoked, login_needed
from scoring.models import (
    Club,
    ClubInvitation,
    ClubMembership,
    Evening,
    Player,
    Session,
    Tournament,
    hotsql,
)
from scoring.writes import Actor

VIEWER_SALT = "scoring.viewer"
SCORER_GRANTS = "scorer_tokens"  # request.session key: {session id: token}

View = Callable[..., HttpResponse]


class LoginNeeded(Exception):
    """Nobody is logged in (and no tablet holds a scorer link for this): log in first.

    ``refusal`` is what a POST is told, with a 403, rather than being sent to the login page
    (a form posted there would be lost); without one a POST is sent there too."""

    def __init__(self, refusal: str = "") -> None:
        super().__init__(refusal)
        self.refusal = refusal


class LinkRevoked(Exception):
    """This browser opened a scorer link that was revoked or renewed since: a 410 that says
    so (``scoring.http.link_revoked``), not a login page that could not help it."""


def _revoked_words() -> str:
    return gettext(
        "Deze schrijverslink is ingetrokken of vervangen door een nieuwe: hij werkt niet meer. "
        "Er is niets opgeslagen. Vraag de clubbeheerder om de nieuwe link, of log in als lid "
        "van de club."
    )


@dataclass(frozen=True)
class ScorerAccess:
    session: Session
    actor: Actor
    is_admin: bool = False  # a club admin may renew or revoke the scorer link


@dataclass(frozen=True)
class Viewer:
    """Who looks at a club's league pages: a member sees every name in full."""

    club: Club
    member: bool

    def name(self, name: str, public_initials: bool) -> str:
        return names.display_name(name, public_initials, full=self.member)


# --- the roles, as queries -----------------------------------------------------------------------


def memberships_of(user) -> QuerySet[ClubMembership]:
    """The memberships that make ``user`` (logged in) a member of a club."""
    return ClubMembership.objects.filter(user=user)


def admin_memberships_of(user) -> QuerySet[ClubMembership]:
    """The memberships that make ``user`` (logged in) a club admin: the one definition of the
    role that organises tournaments and sees the club in the Django admin."""
    return memberships_of(user).filter(role=ClubMembership.Role.ADMIN)


def clubs_of(user) -> list[Club]:
    """The clubs whose sessions ``user`` may start and score (any role); every club for a
    superuser, who runs the whole site and may step in at any table."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.order_by("name"))
    mine = memberships_of(user).filter(club=OuterRef("pk"))
    return list(Club.objects.filter(Exists(mine)).order_by("name"))


def clubs_administered_by(user) -> list[Club]:
    """The clubs ``user`` is a club admin of: every club for a superuser."""
    if not user.is_authenticated:
        return []
    if user.is_superuser:
        return list(Club.objects.order_by("name"))
    mine = admin_memberships_of(user).filter(club=OuterRef("pk"))
    return list(Club.objects.filter(Exists(mine)).order_by("name"))


def admin_club_ids(request: HttpRequest) -> frozenset[int] | None:
    """The ids of the clubs this user is a club admin of, for the Django admin (staff only);
    ``None`` for a superuser (all clubs).

    Asked once per request and remembered on it: every admin on a page asks again.
    """
    user = request.user
    if not (user.is_active and user.is_staff):
        return frozenset()
    if user.is_superuser:
        return None
    cached = getattr(request, "_scoring_admin_club_ids", None)
    if cached is None:
        cached = frozenset(admin_memberships_of(user).values_list("club_id", flat=True))
        request._scoring_admin_club_ids = cached
    return cached


def may_use_admin(user, *, administers: bool) -> bool:
    """Whether the home page links to the Django admin: a superuser, or an active staff user who
    is a club admin (``administers``: the caller asked ``clubs_administered_by`` already); the
    admin shows anyone else nothing of scoring (``admin_club_ids``)."""
    if not (user.is_active and user.is_staff):
        return False
    return user.is_superuser or administers


# --- the roles a view requires -------------------------------------------------------------------
#
# Each takes the request and the URL arguments it reads, by name, and returns what the view
# works on; it refuses with Http404 or LoginNeeded.


def scorer(request: HttpRequest, pk: int) -> ScorerAccess:
    """The session ``pk`` with its club if this request may score it (one query, written out
    in ``scoring/models/hotsql.py``).

    Members of another club get a 404, like a link that does not exist: a session's existence
    is not told to outsiders.
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
    if granted:  # the link this browser opened was revoked or renewed since
        raise LinkRevoked()
    if not user.is_authenticated:
        raise LoginNeeded(gettext("Log in of open de schrijverslink."))
    raise Http404("no such session")


def scorer_clubs(request: HttpRequest) -> list[Club]:
    """Anyone logged in, with the clubs whose sessions they start (``clubs_of``): none for
    someone of no club, and the view says what that means."""
    if not request.user.is_authenticated:
        raise LoginNeeded()
    return clubs_of(request.user)


def organiser(request: HttpRequest, pk: int) -> Tournament:
    """The tournament ``pk`` if the one asking organises it, as a club admin of its club (one
    query); anyone else gets a 404."""
    return _organised(request, Tournament.objects.select_related("club", "season").filter(pk=pk))


def _organised(request: HttpRequest, rows: QuerySet) -> Any:
    """The row of ``rows`` (a toernooi, a club evening) if the one asking is a club admin of
    its ``club`` (one query); anyone else gets a 404, so nobody learns which ids exist."""
    user = request.user
    if not user.is_authenticated:
        raise LoginNeeded(gettext("Log in als beheerder van de club."))
    if not user.is_superuser:
        rows = rows.filter(Exists(admin_memberships_of(user).filter(club=OuterRef("club"))))
    found = rows.first()
    if found is None:
        raise Http404(f"no such {rows.model._meta.model_name}")
    return found


def organiser_clubs(request: HttpRequest) -> list[Club]:
    """Anyone logged in, with the clubs whose tournaments they organise
    (``clubs_administered_by``): none for someone who is no club admin."""
    if not request.user.is_authenticated:
        raise LoginNeeded()
    return clubs_administered_by(request.user)


def evening_organiser(request: HttpRequest, pk: int) -> Evening:
    """The club evening ``pk`` (or a toernooi's QR check-in) if the one asking organises it, as
    a club admin of its club (one query); anyone else gets a 404, as for a toernooi."""
    return _organised(
        request, Evening.objects.select_related("club", "tournament", "season").filter(pk=pk)
    )


@dataclass(frozen=True)
class CheckinDesk:
    """A phone at an evening's check-in QR: the evening while its QR is open (None: closed,
    rotated, or never made: the page says so), and the token the phone came with."""

    evening: Evening | None
    token: str


# What a check-in QR's token can be (``new_checkin_token``).
CHECKIN_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,40}")


def checkin_phone(request: HttpRequest, token: str) -> CheckinDesk:
    """Whoever holds the evening's QR may check in (the QR is the key, hung up in the pub);
    anybody, without an account. One query."""
    found = None
    if CHECKIN_TOKEN.fullmatch(token):
        found = Evening.objects.select_related("club").filter(checkin_token=token).first()
    if found is not None and not secrets.compare_digest(found.checkin_token or "", token):
        found = None
    return CheckinDesk(evening=found, token=token)


# What an invitation's token can be (``new_invitation_token``: URL-safe base64); anything else
# is no invitation, and never reaches the database (a NUL byte there is an error on PostgreSQL).
INVITATION_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def invitee(request: HttpRequest, token: str) -> ClubInvitation:
    """The club's invitation behind the link: whoever holds it, signed in, may take it up (the
    link is the key, given to one person). A 404 for a link never made."""
    found = None
    if INVITATION_TOKEN.fullmatch(token):
        found = ClubInvitation.objects.select_related("club", "player").filter(token=token).first()
    # The lookup is by an indexed equality; compare_digest guards the final comparison too.
    if found is None or not secrets.compare_digest(found.token, token):
        raise Http404("no such invitation")
    if not request.user.is_authenticated:
        raise LoginNeeded(gettext("Log eerst in om de uitnodiging aan te nemen."))
    return found


def league_viewer(request: HttpRequest, slug: str) -> Viewer:
    """The club ``slug`` and whether the one asking is a member (or one of its players), in
    one query; a 404 for the public when the club does not publish its standings."""
    user = request.user
    clubs = Club.objects.filter(slug=slug)
    if user.is_authenticated:
        clubs = clubs.annotate(
            is_member=Exists(memberships_of(user).filter(club=OuterRef("pk")))
            | Exists(Player.objects.filter(club=OuterRef("pk"), user=user))
        )
    club = clubs.first()
    if club is None:
        raise Http404("no such club")
    member = bool(getattr(club, "is_member", False)) or user.is_superuser
    if not member and not club.standings_public:
        raise Http404("no such club")
    return Viewer(club=club, member=member)


def published_club(request: HttpRequest, slug: str) -> Club:
    """The club ``slug`` for what it shows beyond its own pages (its website's frame, its
    feeds, its calendar): only a club that publishes its standings, and the same for everyone,
    members too, since a club's website is the public. A 404 otherwise."""
    club = Club.objects.filter(slug=slug, standings_public=True).first()
    if club is None:
        raise Http404("no such club")
    return club


def requires(role: Callable[..., object]) -> Callable[[View], View]:
    """The view decorator of every page that is not public: ``@requires(access.scorer)``.

    The role is asked first, with the URL arguments it names after the request, and the view
    is called with the role's answer in their place::

        @requires(access.scorer)  # scorer(request, pk) -> ScorerAccess
        def tablet(request, scorer): ...  # the URL's pk is asked, not passed on

    A role's ``Http404`` is the answer; its ``LoginNeeded`` sends the request to log in, or
    refuses a POST with the role's reason.
    """
    reads = tuple(inspect.signature(role).parameters)[1:]

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            rest = list(args)
            asked = [kwargs.pop(name) if name in kwargs else rest.pop(0) for name in reads]
            try:
                granted = role(request, *asked)
            except LoginNeeded as needed:
                if needed.refusal and request.method == "POST":
                    # A page that says why and leads back through the login; its header tells
                    # a script (the tablet's outbox, static/js/lei.js) the same.
                    return login_needed(request, needed.refusal)
                return redirect_to_login(request.get_full_path())
            except LinkRevoked:
                return link_revoked(request, _revoked_words())
            return view(request, granted, *rest, **kwargs)

        wrapped.access_role = role  # type: ignore[attr-defined]  # what the tests look for
        return wrapped

    return decorate


# --- the links -----------------------------------------------------------------------------------


def viewer_token(session_id: int, key: str = "") -> str:
    """The signed part of a session's viewer link; ``key`` is its ``Session.viewer_key``. The
    first link ("") signs the id alone, as every link did before links could be renewed."""
    return signing.dumps([session_id, key] if key else session_id, salt=VIEWER_SALT)


def session_viewer_path(session: Session) -> str | None:
    """The viewer link's path of ``session``; None when its link is revoked."""
    if session.viewer_key is None:
        return None
    return reverse("viewer", args=[viewer_token(session.pk, session.viewer_key)])


def viewer_link(token: str) -> tuple[int, str]:
    """The session id and key a viewer link was signed with; a 404 for a link never made."""
    try:
        return _signed_link(token)
    except signing.BadSignature:
        raise Http404("no such viewer link") from None


# Every poll of every phone sends its link again. A link that checked out once stays good for
# as long as the secret key, so the good ones are remembered; a bad one raises and is not.
# (Whether the link was renewed or revoked since is the session's, asked on every poll.)
@functools.lru_cache(maxsize=4096)
def _signed_link(token: str) -> tuple[int, str]:
    value = signing.loads(token, salt=VIEWER_SALT)
    if isinstance(value, int) and not isinstance(value, bool):
        return value, ""
    if (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], int)
        and isinstance(value[1], str)
    ):
        return value[0], value[1]
    raise signing.BadSignature("a viewer link holds a session id and its key")


@receiver(setting_changed)
def _forget_checked_links(*, setting: str, **kwargs: object) -> None:
    if setting in ("SECRET_KEY", "SECRET_KEY_FALLBACKS"):
        _signed_link.cache_clear()


def sees_full_names(request: HttpRequest, session_id: int) -> bool:
    """Whether the one asking sees the session's every name in full on its viewer link: a
    member of its club (or the club's player with this login) or a superuser, as on the league
    pages (``league_viewer``). One query for a logged-in user, none for anybody else."""
    user = request.user
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    club = OuterRef("club")
    return (
        Session.objects.filter(pk=session_id)
        .filter(
            Exists(ClubMembership.objects.filter(club=club, user=user))
            | Exists(Player.objects.filter(club=club, user=user))
        )
        .exists()
    )


def grant_scorer_link(request: HttpRequest, session: Session) -> None:
    grants = dict(request.session.get(SCORER_GRANTS, {}))
    grants[str(session.pk)] = session.scorer_token
    request.session[SCORER_GRANTS] = grants


def session_by_scorer_token(request: HttpRequest, token: str) -> Session:
    """The session of a scorer link; a 404 for a link never made, ``LinkRevoked`` for one this
    browser opened before and that was revoked or renewed since."""
    session = Session.objects.filter(scorer_token=token).only("pk", "scorer_token").first()
    # The lookup is by an indexed equality; compare_digest guards the final comparison too.
    if session is None or not secrets.compare_digest(session.scorer_token or "", token):
        held = request.session.get(SCORER_GRANTS, {}).values()
        if any(secrets.compare_digest(str(old), token) for old in held):
            raise LinkRevoked()
        raise Http404("no such scorer link")
    return session


def scorer_link_revoked(request: HttpRequest) -> HttpResponse:
    """The answer to a revoked scorer link that this browser opened before (410, in words)."""
    return link_revoked(request, _revoked_words())
