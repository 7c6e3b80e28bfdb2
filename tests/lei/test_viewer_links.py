"""The viewer link honours initials like every public page (members of the club see every name
in full, as on the league pages), and whoever scores a game, or a club admin, renews or turns
off its link: the old one answers 410, to a page and to a poll alike."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from scoring import access
from scoring.lei import seals, services
from scoring.models import AuditEntry, ClubMembership, Player
from tests.builders import HX, record

SECRET = "Anne Geheimnaam"


@pytest.fixture
def team_game(club):
    """Anne Geheimnaam (initials only) and Cees against Bas and Dirk; the side typed as the
    tablet names it, in another case."""
    Player.objects.create(club=club, name=SECRET, public_initials=True)
    for name in ("Bas", "Cees", "Dirk"):
        Player.objects.create(club=club, name=name)
    data = {
        "format": "toepen/1",
        "players": [SECRET, "Bas", "Cees", "Dirk"],
        "teams": {"anne geheimnaam & Cees": [SECRET, "Cees"], "Bas & Dirk": ["Bas", "Dirk"]},
        "rounds": [{"events": [{"type": "win", "player": SECRET}]}, {"events": []}],
    }
    session = services.session_import(club=club, data=data)
    record(session, "knock", SECRET)
    return session


def link(session, tv=False):
    session.refresh_from_db()
    path = access.session_viewer_path(session)
    return path + ("?tv=1" if tv else "") if path else None


@pytest.mark.parametrize("tv", [False, True])
def test_finding_3_the_viewer_link_shows_initials_for_who_asked_for_them(
    client, team_game, member, tv
):
    for headers in ({}, HX):
        body = client.get(link(team_game, tv), **headers).content.decode()
        assert "geheimnaam" not in body.casefold()
        assert "A.G. toept" in body  # the live line names her by initials
        assert "A.G. &amp; Cees" in body  # and her side
    client.force_login(member)  # a member of the club sees every name, as on the league pages
    body = client.get(link(team_game, tv)).content.decode()
    assert f"{SECRET} toept" in body


def test_the_sheet_drawn_for_a_member_is_never_served_to_the_public(
    client, team_game, member, django_assert_num_queries
):
    url = link(team_game)
    client.force_login(member)
    drawn = client.get(url, **HX)
    assert SECRET in drawn.content.decode()
    # A member's poll of an unchanged sheet: 1. the Django session; 2. the user; 3. whether a
    # member of the club; 4. the session, for its version.
    with django_assert_num_queries(4):
        again = client.get(url, **HX, HTTP_IF_NONE_MATCH=drawn["ETag"])
    assert again.status_code == 304
    client.logout()
    public = client.get(url, **HX, HTTP_IF_NONE_MATCH=drawn["ETag"])
    assert public.status_code == 200
    assert SECRET not in public.content.decode()
    assert public["ETag"] != drawn["ETag"]


def test_a_renewed_viewer_link_answers_410_and_the_new_one_works(client, session, member):
    old = link(session)
    page = client.get(old)
    etag = unescape(re.search(r'data-etag="([^"]+)"', page.content.decode()).group(1))
    client.force_login(member)
    response = client.post(reverse("viewer_link_change", args=[session.pk]), {"action": "renew"})
    assert response.status_code == 302
    tablet = client.get(reverse("tablet", args=[session.pk])).content.decode()
    new = link(session)
    assert new != old
    # A link is signed with the time of signing (django.core.signing.dumps): compare what it
    # holds, not its text, which differs from one second to the next.
    shown = {access.viewer_link(token) for token in re.findall(r"/kijk/([^/\"?]+)/", tablet)}
    assert shown == {(session.pk, session.viewer_key)}
    client.logout()
    gone = client.get(old)
    assert gone.status_code == 410
    assert "Deze kijklink werkt niet meer" in gone.content.decode()
    poll = client.get(old, HTTP_IF_NONE_MATCH=etag, **HX)  # the open page's next poll
    assert poll.status_code == 410
    assert poll["HX-Refresh"] == "true"  # the page reloads and shows why
    assert client.get(new).status_code == 200
    assert AuditEntry.objects.filter(session=session, action="rotate_viewer").exists()


def test_a_revoked_link_is_refused_before_the_304_at_one_query(
    client, session, member, django_assert_num_queries
):
    url = link(session)
    etag = client.get(url, **HX)["ETag"]
    seals.session_revoke_viewer_link(session=session)
    record(session, "knock", "Bas")  # the version moves on; nothing else needed
    # 1. the session: the link's key is not the session's, so the 410 page.
    with django_assert_num_queries(1):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HX)
    assert response.status_code == 410
    client.force_login(member)
    tablet = client.get(reverse("tablet", args=[session.pk])).content.decode()
    assert "/kijk/" not in tablet  # no "Meekijken" and no "TV" while it is off
    shared = client.get(reverse("session_share", args=[session.pk])).content.decode()  # "Deel"
    assert "Meekijken staat uit" in shared
    assert 'value="renew"' in shared
    assert link(session) is None


def test_an_anonymous_scorer_link_renews_the_viewer_link(client, session):
    old = link(session)
    client.get(reverse("scorer_link", args=[session.scorer_token]))  # the pub tablet
    response = client.post(reverse("viewer_link_change", args=[session.pk]), {"action": "revoke"})
    assert response.status_code == 302
    assert client.get(old).status_code == 410
    client.post(reverse("viewer_link_change", args=[session.pk]), {"action": "renew"})
    assert client.get(link(session)).status_code == 200
    entry = AuditEntry.objects.filter(session=session, action="rotate_viewer").get()
    assert entry.by_scorer_token
    assert entry.after is None  # the key itself stays out of the audit trail


def test_a_post_without_an_action_changes_no_viewer_link(client, session, member):
    session.refresh_from_db()
    old = session.viewer_key  # a link's text carries the second it was signed in: compare keys
    client.force_login(member)
    client.post(reverse("viewer_link_change", args=[session.pk]))
    session.refresh_from_db()
    assert session.viewer_key == old


def test_a_club_admin_renews_and_revokes_viewer_links_in_the_admin(
    client, club, session, django_user_model
):
    old = link(session)
    changelist = reverse("admin:scoring_session_changelist")
    beheer = django_user_model.objects.create_user(username="beheer", is_staff=True)
    ClubMembership.objects.create(user=beheer, club=club, role="admin")
    client.force_login(beheer)
    for action in ("renew_viewer_links", "revoke_viewer_links"):
        response = client.post(changelist, {"action": action, "_selected_action": [session.pk]})
        assert response.status_code == 302
    session.refresh_from_db()
    assert session.viewer_key is None
    assert client.get(old).status_code == 410
    assert list(
        AuditEntry.objects.filter(session=session).values_list("action", flat=True)[:2]
    ) == ["revoke_viewer", "rotate_viewer"]


def test_a_link_from_before_links_could_be_renewed_still_works(client, session):
    # The first link of a game signs the id alone, as every link did: printed QR codes work.
    old = reverse("viewer", args=[access.viewer_token(session.pk)])
    assert access.viewer_link(old.split("/")[2]) == (session.pk, "")
    assert client.get(old).status_code == 200


def test_initials_that_a_player_has_as_a_name_get_a_prime_on_the_viewer(client, club):
    Player.objects.create(club=club, name=SECRET, public_initials=True)
    session = services.session_start(club=club, players=[SECRET, "a.g.", "Bas"])
    record(session, "knock", SECRET)
    body = client.get(link(session), **HX).content.decode()
    assert "geheimnaam" not in body.casefold()
    assert "A.G.&#x27; toept" in body  # the game is replayed with names the engine tells apart
