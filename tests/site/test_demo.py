"""The demo does what the README promises: ``beheer`` administers the demo club in the admin,
``admin`` (the superuser) opens every club's tablets, and the home page leads everyone to the
public clubs' standings. Logged in through the real login form, as a person would."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from scoring.models import Club, Season, Session
from tests.builders import make_club, make_session, tap

SLUG = "de-gouden-boer"


@pytest.fixture
def demo(db, settings) -> Club:
    settings.DEBUG = True  # seed_demo makes the two logins only on a development machine
    call_command("seed_demo", stdout=io.StringIO())
    return Club.objects.get(slug=SLUG)


@pytest.fixture
def other_club(db) -> Club:
    """A club the demo users have nothing to do with."""
    club = make_club(name="De Zwarte Kat", slug="zwarte-kat")
    make_session(club, ["Wim", "Zus", "Jet"])
    return club


def signed_in(username: str, password: str) -> Client:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": password})
    assert response.status_code == 302, response.content.decode()[:500]
    return client


def test_demo_beheer_administers_only_the_demo_club_in_the_admin(demo, other_club):
    beheer = signed_in("beheer", "beheer")
    index = beheer.get(reverse("admin:index"))
    assert index.status_code == 200
    page = index.content.decode()
    for model in ["season", "session", "player", "clubmembership"]:
        assert reverse(f"admin:scoring_{model}_changelist") in page, model
    season = Season.objects.get(club=demo)
    change = reverse("admin:scoring_season_change", args=[season.pk])
    assert beheer.get(change).status_code == 200
    sessions = beheer.get(reverse("admin:scoring_session_changelist"))
    assert sessions.status_code == 200
    shown = {s.club_id for s in sessions.context["cl"].result_list}
    assert shown == {demo.pk}  # the club-scoped admin: the demo club only
    foreign = Session.objects.get(club=other_club)
    assert beheer.get(reverse("admin:scoring_session_change", args=[foreign.pk])).status_code in (
        302,
        404,
    )
    # Staff with the admin membership and nothing else: no Django permission rows needed.
    user = index.context["user"]
    assert user.is_staff
    assert not user.is_superuser
    assert not user.user_permissions.exists()


def test_the_demo_superuser_opens_and_scores_at_every_clubs_tablets(demo, other_club):
    admin = signed_in("admin", "admin")
    home = admin.get(reverse("home")).content.decode()
    assert "nog geen lid" not in home
    assert reverse("session_new") in home
    for session in Session.objects.filter(club__in=[demo, other_club]):
        assert admin.get(reverse("tablet", args=[session.pk])).status_code == 200, session
    running = Session.objects.get(club=other_club)
    assert tap(admin, running, "win", "Wim", htmx=False).status_code == 302
    running.refresh_from_db()
    assert running.version == 1


def test_the_home_page_lists_only_the_public_clubs_with_their_standings(client, demo, other_club):
    page = client.get(reverse("home"))
    assert page.status_code == 200
    body = page.content.decode()
    assert reverse("league_club", args=[SLUG]) in body
    assert "De Gouden Boer" in body
    assert reverse("league_club", args=["zwarte-kat"]) not in body  # it does not publish
    standings = client.get(reverse("league_club", args=[SLUG]))
    assert standings.status_code == 200
    season = Season.objects.get(club=demo)
    assert reverse("league_season", args=[SLUG, season.pk]) in standings.content.decode()


def test_the_home_page_costs_one_query_for_the_public(client, demo, django_assert_num_queries):
    with django_assert_num_queries(1):  # the public clubs
        client.get(reverse("home"))


def test_seed_demo_makes_an_existing_beheer_staff(demo, django_user_model, settings):
    django_user_model.objects.filter(username="beheer").update(is_staff=False)
    call_command("seed_demo", stdout=io.StringIO())
    assert django_user_model.objects.get(username="beheer").is_staff
