"""Who may do what: members, the scorer link, revoked links, other clubs, viewers."""

from __future__ import annotations

from django.core import signing
from django.urls import reverse

from scoring import access
from scoring.lei import seals
from scoring.models import ClubMembership
from tests.builders import HX, make_club, make_session, tap


def test_anonymous_is_sent_to_login_and_cannot_post(client, session):
    response = client.get(reverse("tablet", args=[session.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    refused = tap(client, session, "win", "Anne", htmx=False)
    assert refused.status_code == 403
    # The tablet's outbox reads this and offers to log in again (static/js/lei.js).
    assert refused["X-Login-Needed"] == "1"
    assert session.rounds.count() == 0


def test_a_member_of_another_club_gets_404(client, session, django_user_model):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    outsider = django_user_model.objects.create_user("outsider", password="x")
    ClubMembership.objects.create(user=outsider, club=other, role="admin")
    client.force_login(outsider)
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 404
    assert tap(client, session, "win", "Anne", htmx=False).status_code == 404
    assert session.rounds.count() == 0


def test_a_member_with_any_role_may_score(client, session, member):
    client.force_login(member)
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 200
    assert tap(client, session, "win", "Anne", htmx=False).status_code == 302
    assert session.rounds.count() == 1


def test_the_scorer_link_lets_a_tablet_without_an_account_score(client, session):
    response = client.get(reverse("scorer_link", args=[session.scorer_token]))
    assert response["Location"] == reverse("tablet", args=[session.pk])
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 200
    assert tap(client, session, "win", "Anne", htmx=False).status_code == 302
    assert session.rounds.count() == 1
    entry = session.audit_entries.filter(action="event").get()
    assert entry.by_scorer_token


def test_a_revoked_or_renewed_scorer_link_stops_working_and_says_so(client, session):
    """The tablet that held the link is told in words that it was revoked (410), not sent to
    a login it cannot give; nothing it sends is stored."""
    old = session.scorer_token
    client.get(reverse("scorer_link", args=[old]))
    seals.session_rotate_token(session=session)
    gone = client.get(reverse("scorer_link", args=[old]))
    assert gone.status_code == 410
    assert "Deze schrijverslink is ingetrokken" in gone.content.decode()
    refused = tap(client, session, "win", "Anne", htmx=False)
    assert refused.status_code == 410
    assert "X-Login-Needed" not in refused
    assert "Deze schrijverslink is ingetrokken" in refused.content.decode()
    assert session.rounds.count() == 0
    seals.session_revoke_token(session=session)
    page = client.get(reverse("tablet", args=[session.pk]))
    assert (page.status_code, page["X-Link-Revoked"]) == (410, "1")
    assert "Inloggen" not in page.content.decode().split("<main", 1)[-1]


def test_a_new_scorer_link_works_on_a_tablet_that_held_the_old_one(client, session):
    client.get(reverse("scorer_link", args=[session.scorer_token]))
    seals.session_rotate_token(session=session)
    session.refresh_from_db()
    client.get(reverse("scorer_link", args=[session.scorer_token]))
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 200


def test_a_revoked_link_never_opened_here_is_404_as_any_unknown_link(client, session):
    old = session.scorer_token
    seals.session_revoke_token(session=session)
    assert client.get(reverse("scorer_link", args=[old])).status_code == 404


def test_an_unknown_scorer_link_is_404(client, session):
    assert client.get(reverse("scorer_link", args=["nope"])).status_code == 404


def test_a_club_admin_can_revoke_the_scorer_link_from_the_tablet(client, session, user, club):
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client.force_login(user)
    url = reverse("scorer_link_change", args=[session.pk])
    client.post(url, {"action": "revoke"})
    session.refresh_from_db()
    assert session.scorer_token is None


def test_a_scorer_cannot_revoke_the_scorer_link(client, session, member):
    client.force_login(member)
    url = reverse("scorer_link_change", args=[session.pk])
    assert client.post(url, {"action": "revoke"}).status_code == 403


def test_a_viewer_link_is_read_only(client, session):
    url = reverse("viewer", args=[access.viewer_token(session.pk)])
    assert client.get(url).status_code == 200
    assert client.post(url, {"type": "win", "player": "Anne"}).status_code == 403
    assert session.rounds.count() == 0


def test_a_forged_viewer_link_is_404(client, session):
    assert client.get(reverse("viewer", args=[f"{session.pk}:forged"])).status_code == 404


def test_a_viewer_link_signed_with_an_old_secret_key_is_404(client, session, settings):
    url = reverse("viewer", args=[access.viewer_token(session.pk)])
    assert client.get(url).status_code == 200  # checked once, then remembered
    settings.SECRET_KEY = "a-new-secret-key-" + "k" * 40
    assert client.get(url).status_code == 404  # what was remembered went with the old key
    assert client.get(reverse("viewer", args=[access.viewer_token(session.pk)])).status_code == 200


def test_a_signed_viewer_link_that_holds_no_session_id_is_404(client, session):
    token = signing.dumps(str(session.pk), salt=access.VIEWER_SALT)
    assert client.get(reverse("viewer", args=[token])).status_code == 404


def test_a_viewer_link_does_not_open_the_tablet(client, session):
    client.get(reverse("viewer", args=[access.viewer_token(session.pk)]))
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 302


def test_login_page_and_logout(client, member):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "scorer", "password": "x"})
    assert response.status_code == 302
    assert client.get(reverse("home")).context["user"].is_authenticated
    client.post(reverse("logout"))
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_home_shows_running_sessions_to_a_member_and_login_to_others(client, member, club):
    session = make_session(club, players=["Anne", "Bas"], table_label="Stamtafel")
    assert reverse("login") in client.get(reverse("home")).content.decode()
    client.force_login(member)
    html = client.get(reverse("home")).content.decode()
    assert reverse("tablet", args=[session.pk]) in html
    assert reverse("session_new") in html


def test_home_offers_club_evenings_and_tournaments_only_to_who_may_organise_them(
    client, member, club
):
    client.force_login(member)
    for url in (reverse("evening_new"), reverse("tournament_list")):
        assert url not in client.get(reverse("home")).content.decode()
    assert client.get(reverse("evening_new")).status_code == 403  # what the button led to
    ClubMembership.objects.filter(user=member).update(role=ClubMembership.Role.ADMIN)
    html = client.get(reverse("home")).content.decode()
    assert reverse("evening_new") in html
    assert reverse("tournament_list") in html


def test_the_tablet_page_and_its_htmx_part_are_cached_apart(scorer, session):
    """Back then Forward on the tablet showed the round panel a tap had fetched, bare, as the
    page: the browser keeps one answer per address unless the answer says what it varies by."""
    url = reverse("tablet", args=[session.pk])
    page = scorer.get(url)
    part = scorer.get(url, **HX)
    assert b"<head" in page.content
    assert b"<head" not in part.content
    for answer in (page, part):
        assert "HX-Request" in answer["Vary"]
