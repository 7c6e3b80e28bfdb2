"""Every URL pattern, every role, GET and POST: each with the answer written in a table.

The URL patterns are walked from ``get_resolver()``; a pattern that has no row in ``MATRIX``
fails ``test_every_url_pattern_is_in_the_matrix``, so a new page cannot ship without someone
deciding who may use it. The admin is one row (``admin:*``), checked here on a few of its pages;
``tests/clubs/test_admin_scoping.py`` walks every admin page deeply.

Every request runs with CSRF checks on, as in production: each POST is sent first without the
token (it must be refused with 403 whatever the URL) and then with it (the table's answer).
POSTs carry no form data, so a write that is allowed is refused by its form and changes nothing
except where the table says so (logout, the scorer link renewed).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, include, path, reverse
from django.utils import timezone

from scoring import access
from scoring.evening import services as evenings
from scoring.lei import seals, services
from scoring.models import ClubInvitation, ClubMembership, Season, Session
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import make_club, make_session, record
from tests.safety import note

ROLES = (
    "anonymous",
    "viewer",  # holds the session's viewer link
    "link",  # a tablet that opened the session's scorer link
    "revoked",  # a tablet whose scorer link was revoked
    "other_scorer",  # a scorer (member) of another club
    "scorer",  # a scorer (member) of the session's club
    "admin",  # the club's admin (staff, admin membership)
    "other_admin",  # the admin of another club
    "root",  # a superuser who is a member of no club: scores every club's tables as admin
)

# Shorthands for the rows below, one answer per role in the order of ROLES.
ALL_200 = (200,) * 9
ALL_302 = (302,) * 9
ALL_403 = (403,) * 9
ALL_405 = (405,) * 9
ALL_404 = (404,) * 9
#                 anon viewer link revoked oscorer scorer admin oadmin root
# (revoked: a browser that holds a revoked scorer link is told so, 410, on its tablet URLs)
MEMBERS_ONLY = (404, 404, 404, 404, 404, 200, 200, 404, 200)  # league pages of a private club
MEMBERS_GO = (404, 404, 404, 404, 404, 302, 302, 404, 302)
TABLET_GET = (302, 302, 200, 410, 404, 200, 200, 404, 200)
TABLET_WRITE = (403, 403, 302, 410, 404, 302, 302, 404, 302)
ROUND_WRITE = (403, 403, 200, 410, 404, 200, 200, 404, 200)  # the refused form, shown again
LOGIN_FIRST = (302, 302, 302, 302, 200, 200, 200, 200, 200)  # session_new: members of a club
SEARCH_GET = (302, 302, 302, 302, 200, 200, 200, 200, 200)
SEARCH_POST = (302, 302, 302, 302, 405, 405, 405, 405, 405)
LINK_CHANGE = (403, 403, 403, 410, 404, 403, 302, 404, 302)
ADMIN = (302, 302, 302, 302, 302, 302, 200, 200, 200)
# The toernooi's organiser: an admin of the tournament's club, or a superuser.
ORGANISER_GET = (302, 302, 302, 302, 404, 404, 200, 404, 200)
ORGANISER_POST = (403, 403, 403, 403, 404, 404, 302, 404, 302)  # refused, the message shown
ORGANISER_FORM = (403, 403, 403, 403, 404, 404, 200, 404, 200)  # the empty form shown again
LOGGED_IN = (302, 302, 302, 302, 200, 200, 200, 200, 200)
ADMINS_ONLY = (302, 302, 302, 302, 403, 403, 200, 200, 200)  # a new tournament: a club admin
# A club's invitation: whoever holds the link, signed in (an empty POST takes nothing up).
INVITED_POST = (403, 403, 403, 403, 200, 200, 200, 200, 200)

MATRIX: dict[str, dict[str, tuple[int, ...]]] = {
    # Home and logging in
    "home": {"GET": ALL_200, "POST": ALL_405},
    "login": {"GET": ALL_200, "POST": ALL_200},  # an empty form is shown again
    "logout": {"GET": ALL_405, "POST": ALL_302},
    "set_language": {"GET": ALL_302, "POST": ALL_302},
    # A club's invitation to become a member
    "invitation_accept": {"GET": LOGGED_IN, "POST": INVITED_POST},
    # Starting a session
    "session_new": {"GET": LOGIN_FIRST, "POST": LOGIN_FIRST},
    "player_search": {"GET": SEARCH_GET, "POST": SEARCH_POST},
    # The tablet
    "tablet": {"GET": TABLET_GET, "POST": ALL_405},
    "service_worker": {"GET": ALL_200, "POST": ALL_405},  # the tablet's offline copy, no data
    "session_event": {"GET": ALL_405, "POST": TABLET_WRITE},
    "session_undo": {"GET": ALL_405, "POST": TABLET_WRITE},
    "session_presence": {"GET": ALL_405, "POST": TABLET_WRITE},
    "session_finish": {"GET": ALL_405, "POST": TABLET_WRITE},
    "session_again": {"GET": ALL_405, "POST": TABLET_WRITE},  # refused: the game runs
    "round_edit": {"GET": TABLET_GET, "POST": ROUND_WRITE},
    "scorer_link_change": {"GET": ALL_405, "POST": LINK_CHANGE},
    "viewer_link_change": {"GET": ALL_405, "POST": TABLET_WRITE},  # whoever scores the game
    "session_share": {"GET": TABLET_GET, "POST": ALL_405},  # holds the secret scorer link
    "session_picture": {"GET": TABLET_GET, "POST": ALL_405},  # "Delen": names as the tablet's
    "session_agree": {"GET": ALL_405, "POST": TABLET_WRITE},  # refused: the game runs
    "session_dispute": {"GET": ALL_405, "POST": TABLET_WRITE},  # refused: no words
    # Links to share; the revoked tablet's world has no valid scorer link at all
    "scorer_link": {"GET": (302, 302, 302, 410, 302, 302, 302, 302, 302), "POST": ALL_405},
    "viewer": {"GET": ALL_200, "POST": ALL_403},
    # The pushed parts: off under the test client (WSGI), so a 404; each stream's access is
    # its page's (tests/push/test_push.py)
    "push_stream": {"GET": ALL_404, "POST": ALL_405},
    # The league of a club that does not publish its standings
    "league_club": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_season": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_season_csv": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_season_rounds_csv": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_player": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_ratings": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_ratings_csv": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_archive": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_session": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_session_export": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_evening_today": {"GET": MEMBERS_GO, "POST": ALL_405},
    "league_evening": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_session_picture": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "league_evening_picture": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    # The club's own website and calendar: only where the club publishes, for members too
    "embed_standings": {"GET": ALL_404, "POST": ALL_405},
    "embed_evening_today": {"GET": ALL_404, "POST": ALL_405},
    "embed_evening": {"GET": ALL_404, "POST": ALL_405},
    "standings_feed": {"GET": ALL_404, "POST": ALL_405},
    "evening_feed": {"GET": ALL_404, "POST": ALL_405},
    "club_calendar": {"GET": ALL_404, "POST": ALL_405},
    # The toernooi: the organiser's pages, and its standings and TV as league pages
    "tournament_list": {"GET": LOGGED_IN, "POST": SEARCH_POST},
    "tournament_new": {"GET": ADMINS_ONLY, "POST": ADMINS_ONLY},
    "tournament_page": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_checkin": {"GET": ORGANISER_GET, "POST": ORGANISER_POST},
    "tournament_paste": {"GET": ORGANISER_GET, "POST": ORGANISER_FORM},
    "tournament_draw": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_series": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_series_redraw": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_series_swap": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_series_start": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_series_finish": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_series_reopen": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_table_cards": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_series_sheet": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_series_clock": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_table_paper": {"GET": ORGANISER_GET, "POST": ORGANISER_FORM},
    "tournament_table_finish": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_table_paper_undo": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_table_accept": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: it plays
    "tournament_final": {"GET": ALL_405, "POST": ORGANISER_POST},
    # The toernooi's QR check-in: its screen, made the first time it is asked for
    "tournament_checkin_qr": {"GET": ALL_405, "POST": ORGANISER_POST},
    # A club evening: the phone at the QR (the QR is the key; an empty POST checks in nobody)
    # and the organiser's pages, as a toernooi's
    "checkin_phone": {"GET": ALL_200, "POST": ALL_302},
    "evening_new": {"GET": ADMINS_ONLY, "POST": ADMINS_ONLY},
    "evening_page": {"GET": ORGANISER_GET, "POST": ALL_405},
    "evening_poster": {"GET": ORGANISER_GET, "POST": ALL_405},
    "evening_qr": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no action chosen
    "evening_add": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no name
    "evening_guest": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no guest
    "evening_draw": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no round
    "evening_sign_out": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no player
    "evening_flood": {"GET": ALL_405, "POST": ORGANISER_POST},  # nothing waiting: 0 refused
    "evening_draw_discard": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no round
    "evening_date": {"GET": ALL_405, "POST": ORGANISER_POST},  # refused: no date
    "tournament_prizes": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_prizes_public": {"GET": ALL_405, "POST": ORGANISER_POST},
    "tournament_csv": {"GET": ORGANISER_GET, "POST": ALL_405},
    "tournament_standings": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "tournament_tv": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "tournament_standings_picture": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "tournament_public_prizes": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    "tournament_public_csv": {"GET": MEMBERS_ONLY, "POST": ALL_405},
    # The Django admin, as one group (see the module docstring)
    "admin:*": {"GET": ADMIN, "POST": ADMIN},
}

# The admin pages checked for the group: the index and club A's session and round pages.
# Another club's admin gets a 404 on A's objects, not the page.
ADMIN_OTHER_CLUB = (302, 302, 302, 302, 302, 302, 200, 404, 200)


# --- the URL patterns ------------------------------------------------------------------------


def walk(patterns: list[Any], namespace: str = "") -> Iterator[str]:
    """The matrix key of every URL pattern: its name, or ``admin:*`` for the admin."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = ":".join(filter(None, [namespace, entry.namespace or ""]))
            if inner.split(":")[0] == "admin":
                yield "admin:*"
            else:
                yield from walk(entry.url_patterns, inner)
        elif isinstance(entry, URLPattern):
            name = entry.name or f"<unnamed {entry.pattern}>"
            yield f"{namespace}:{name}" if namespace else name


def url_keys() -> list[str]:
    return list(dict.fromkeys(walk(get_resolver().url_patterns)))


def without_a_row(keys: list[str]) -> list[str]:
    return [k for k in keys if k not in MATRIX]


def test_every_url_pattern_is_in_the_matrix():
    keys = url_keys()
    assert "admin:*" in keys  # the walk sees the admin
    assert "tablet" in keys  # and the app
    missing = without_a_row(keys)
    assert missing == [], f"add these URL patterns to MATRIX with who may use them: {missing}"
    gone = [k for k in MATRIX if k not in keys]
    assert gone == [], f"these rows name no URL pattern any more: {gone}"
    for key, row in MATRIX.items():
        assert set(row) == {"GET", "POST"}, key
        assert all(len(answers) == len(ROLES) for answers in row.values()), key
    note("matrix_patterns", patterns=len(keys), roles=len(ROLES), methods=2)


def test_a_new_url_pattern_without_a_row_is_found():
    def page(request):
        return None

    new = [path("nieuw/", page, name="new"), path("ook/", include([path("", page, name="too")]))]
    assert without_a_row(list(walk(new))) == ["new", "too"]


# --- the world every role meets ----------------------------------------------------------------


@dataclass
class World:
    club: Any
    session: Session
    season: Season
    player_id: int
    users: dict[str, Any]
    old_token: str
    tournament_id: int  # its first series started: one table of four playing
    invitation_token: str  # an open invitation to the club
    evening_id: int = 0  # a club evening, its check-in QR open
    checkin_token: str = ""

    def urls(self, key: str) -> list[tuple[str, tuple[int, ...] | None]]:
        """Concrete URLs for a matrix key, made from the objects as they are now, each with
        answers that replace the row's (None: the row's own)."""
        s = Session.objects.get(pk=self.session.pk)
        slug, day = self.club.slug, s.played_on.isoformat()
        args: dict[str, list[Any]] = {
            "tablet": [s.pk],
            "session_event": [s.pk],
            "session_undo": [s.pk],
            "session_presence": [s.pk],
            "session_finish": [s.pk],
            "session_again": [s.pk],
            "round_edit": [s.pk, 1],
            "scorer_link_change": [s.pk],
            "viewer_link_change": [s.pk],
            "session_share": [s.pk],
            "session_picture": [s.pk],
            "session_agree": [s.pk],
            "session_dispute": [s.pk],
            "scorer_link": [s.scorer_token or self.old_token],
            "viewer": [access.viewer_token(s.pk)],
            "league_club": [slug],
            "league_season": [slug, self.season.pk],
            "league_season_csv": [slug, self.season.pk],
            "league_season_rounds_csv": [slug, self.season.pk],
            "league_player": [slug, self.player_id],
            "league_ratings": [slug],
            "league_ratings_csv": [slug],
            "league_archive": [slug],
            "league_session": [slug, s.pk],
            "league_session_export": [slug, s.pk],
            "league_evening_today": [slug],
            "league_evening": [slug, day],
            "league_session_picture": [slug, s.pk],
            "league_evening_picture": [slug, day],
            "embed_standings": [slug],
            "embed_evening_today": [slug],
            "embed_evening": [slug, day],
            "standings_feed": [slug],
            "evening_feed": [slug, day],
            "club_calendar": [slug],
            "tournament_page": [self.tournament_id],
            "tournament_checkin": [self.tournament_id],
            "tournament_paste": [self.tournament_id],
            "tournament_draw": [self.tournament_id],
            "tournament_series": [self.tournament_id, 1],
            "tournament_series_redraw": [self.tournament_id, 1],
            "tournament_series_swap": [self.tournament_id, 1],
            "tournament_series_start": [self.tournament_id, 1],
            "tournament_series_finish": [self.tournament_id, 1],
            "tournament_series_reopen": [self.tournament_id, 1],
            "tournament_table_cards": [self.tournament_id, 1],
            "tournament_series_sheet": [self.tournament_id, 1],
            "tournament_series_clock": [self.tournament_id, 1],
            "tournament_table_paper": [self.tournament_id, 1, 1],
            "tournament_table_finish": [self.tournament_id, 1, 1],
            "tournament_table_paper_undo": [self.tournament_id, 1, 1],
            "tournament_table_accept": [self.tournament_id, 1, 1],
            "tournament_final": [self.tournament_id],
            "tournament_prizes": [self.tournament_id],
            "tournament_prizes_public": [self.tournament_id],
            "tournament_csv": [self.tournament_id],
            "tournament_public_prizes": [slug, self.tournament_id],
            "tournament_public_csv": [slug, self.tournament_id],
            "tournament_standings": [slug, self.tournament_id],
            "tournament_tv": [slug, self.tournament_id],
            "tournament_standings_picture": [slug, self.tournament_id],
            "invitation_accept": [self.invitation_token],
            "tournament_checkin_qr": [self.tournament_id],
            "checkin_phone": [self.checkin_token],
            "evening_page": [self.evening_id],
            "evening_poster": [self.evening_id],
            "evening_qr": [self.evening_id],
            "evening_add": [self.evening_id],
            "evening_guest": [self.evening_id],
            "evening_draw": [self.evening_id],
            "evening_sign_out": [self.evening_id],
            "evening_flood": [self.evening_id],
            "evening_draw_discard": [self.evening_id],
            "evening_date": [self.evening_id],
        }
        if key == "admin:*":
            round_1 = s.rounds.get(number=1)
            return [
                (reverse("admin:index"), None),
                (reverse("admin:scoring_session_change", args=[s.pk]), ADMIN_OTHER_CLUB),
                (reverse("admin:scoring_round_change", args=[round_1.pk]), ADMIN_OTHER_CLUB),
            ]
        return [(reverse(key, args=args.get(key, [])), None)]


def build_world(django_user_model) -> World:
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    club = make_club()  # does not publish its standings
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    session = make_session(club, season=season, played_on=timezone.localdate())
    record(session, "knock", "Anne")
    record(session, "fold", "Bas")
    record(session, "win", "Anne")
    record(session, "knock", "Cees")
    finished = make_session(club, ["Anne", "Bas"], season=season)
    record(finished, "win", "Anne")  # a game without a finished round would be thrown away
    services.session_finish(session=finished)

    def user(name: str, club_=None, role: str = "", **flags: Any):
        made = django_user_model.objects.create_user(name, **flags)  # no password: no hashing
        if club_ is not None:
            ClubMembership.objects.create(user=made, club=club_, role=role)
        return made

    users = {
        "other_scorer": user("zeven-teller", other, "scorer"),
        "scorer": user("teller", club, "scorer"),
        "admin": user("beheer", club, "admin", is_staff=True),
        "other_admin": user("zeven-beheer", other, "admin", is_staff=True),
        "root": django_user_model.objects.create_superuser("root"),
    }
    player_id = session.seats.get(position=1).player_id
    tournament = tournaments.tournament_create(club=club, name="Toernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=club.players.all()[:4])
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
    tournaments.series_start(series=series)
    invitation = ClubInvitation.objects.create(club=club)
    evening = evenings.evening_create(club=club)
    return World(
        club,
        session,
        season,
        player_id,
        users,
        session.scorer_token,
        tournament.pk,
        invitation.token,
        evening.pk,
        evening.checkin_token,
    )


def grant_link(client: Client, session_id: int, token: str) -> None:
    """The Django session a tablet has after opening the scorer link (as access.py keeps it)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[access.SCORER_GRANTS] = {str(session_id): token}
    store.create()
    client.cookies[settings.SESSION_COOKIE_NAME] = store.session_key


def client_for(role: str, world: World) -> Client:
    client = Client(enforce_csrf_checks=True)
    if role in world.users:
        client.force_login(world.users[role])
    elif role == "link":
        grant_link(client, world.session.pk, Session.objects.get(pk=world.session.pk).scorer_token)
    elif role == "revoked":
        grant_link(client, world.session.pk, world.old_token)
    elif role == "viewer":
        viewer_url = reverse("viewer", args=[access.viewer_token(world.session.pk)])
        assert client.get(viewer_url).status_code == 200
    return client


def csrf_token(client: Client) -> str:
    client.get(reverse("login"))  # a page with a form: the CSRF cookie is set
    return client.cookies[settings.CSRF_COOKIE_NAME].value


# --- the walk ----------------------------------------------------------------------------------

CELLS: list[int] = []  # cells checked, for the figures (bench/safety.py)


def check(role: str, world: World, key: str, method: str) -> list[str]:
    wrong = []
    index = ROLES.index(role)
    for url, override in world.urls(key):
        expected = (override or MATRIX[key][method])[index]
        client = client_for(role, world)
        if method == "GET":
            got = client.get(url).status_code
        else:
            token = csrf_token(client)
            refused = client.post(url).status_code
            if refused != 403:
                wrong.append(f"{method} {url} as {role} without the CSRF token: {refused}")
            got = client.post(url, HTTP_X_CSRFTOKEN=token).status_code
        CELLS.append(1)
        if got != expected:
            wrong.append(f"{method} {url} ({key}) as {role}: {got}, the table says {expected}")
    return wrong


@pytest.mark.parametrize("role", ROLES)
def test_every_role_gets_the_answer_in_the_table(role, db, django_user_model):
    world = build_world(django_user_model)
    if role == "revoked":
        seals.session_revoke_token(session=world.session)
    before = list(world.session.rounds.order_by("number").values_list("events", flat=True))
    wrong: list[str] = []
    checked = len(CELLS)
    # The scorer link renewal goes last: it changes the link the other rows are made from.
    keys = sorted(MATRIX, key=lambda k: k == "scorer_link_change")
    for key in keys:
        for method in ("GET", "POST"):
            wrong += check(role, world, key, method)
    assert wrong == []
    note("matrix", cells=len(CELLS) - checked, csrf_refusals=(len(CELLS) - checked) // 2)
    # Nothing was scored by any of it: every POST was refused or carried an empty form.
    after = list(world.session.rounds.order_by("number").values_list("events", flat=True))
    assert after == before


# --- HEAD and private pages, over the same URLs --------------------------------------------------


# Answers that are the same whoever asks (they never look at the user): no "private" needed.
SAME_FOR_EVERYONE = {"service_worker"}  # the tablet's offline script, no data


@pytest.mark.parametrize("role", ["anonymous", "scorer", "admin"])
def test_head_is_answered_wherever_get_is_and_member_pages_are_private(role, db, django_user_model):
    """Uptime checks and link previews ask HEAD: it gets GET's answer without a body, never
    405 where GET is answered. A page a member sees is ``Cache-Control: private`` (or
    ``no-store``): it may show them more than a stranger (toepen_site/middleware.py)."""
    world = build_world(django_user_model)
    wrong: list[str] = []
    heads = privates = 0
    # The event stream (scoring/push/) is no page: a HEAD of it tells nothing, and it is left
    # to GET alone.
    keys = [k for k in MATRIX if k != "push_stream"]
    for key in sorted(keys, key=lambda k: k == "scorer_link_change"):
        for url, _override in world.urls(key):
            client = client_for(role, world)
            got = client.get(url)
            head = client.head(url)
            if got.status_code != 405 and head.status_code != got.status_code:
                wrong.append(
                    f"HEAD {url} ({key}) as {role}: {head.status_code}, GET {got.status_code}"
                )
            heads += 1
            if head.content:
                wrong.append(f"HEAD {url} ({key}) as {role}: a body")
            control = got.get("Cache-Control", "")
            member_page = role != "anonymous" and got.status_code == 200
            member_page = member_page and key not in SAME_FOR_EVERYONE
            privates += member_page
            if member_page and "private" not in control and "no-store" not in control:
                wrong.append(f"GET {url} ({key}) as {role}: Cache-Control {control!r}")
    assert wrong == []
    note("head_private", heads=heads, private_pages=privates)
