"""A NUL character (U+0000) anywhere in a request is a 400 with a message, before any view:
PostgreSQL stores no NUL in text, and a NUL that reached a query was a server error
(``toepen_site.middleware.NulCharacterMiddleware``)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse

from scoring.models import ClubMembership, Season
from tests.builders import make_club, make_session
from tests.safety import row_counts

MESSAGE = "Dit verzoek bevat een NUL-teken (U+0000)"


@pytest.fixture
def site(django_user_model):
    club = make_club("Openbaar", "openbaar", standings_public=True)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    session = make_session(club, season=season)
    root = django_user_model.objects.create_superuser("root", password="pw")
    beheer = django_user_model.objects.create_user("beheer", password="pw", is_staff=True)
    ClubMembership.objects.create(club=club, user=beheer, role="admin")
    return {"club": club, "session": session, "root": root, "beheer": beheer}


def refused(response) -> bool:
    return response.status_code == 400 and MESSAGE in response.content.decode()


# The 500s of the probe (finding 4), and their neighbours.
PAGES = [
    "/tafel/%00/",
    "/tafel/a%00b/",
    "/club/openbaar/archief/?tafel=%00",
    "/club/openbaar/archief/?speler=1&tafel=x%00",
    "/club/openbaar/archief/?%00=1",
    "/sessies/nieuw/spelers/?q=%00",
    "/club/openbaar/avond/%00/",
    "/kijk/%00/",
]
ADMIN_PAGES = [
    "/admin/scoring/session/?table_label=%00",
    "/admin/scoring/session/?q=%00",
    "/admin/scoring/player/?q=A%00",
    "/admin/scoring/player/?club__id__exact=%00",
    "/admin/autocomplete/?term=%00&app_label=scoring&model_name=session&field_name=season",
    "/admin/scoring/player/%00/change/",
]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["nobody", "root", "beheer"])
def test_a_nul_in_a_path_or_a_filter_is_refused_with_400_for_everyone(site, who):
    client = Client()
    if who != "nobody":
        client.force_login(site[who])
    for url in PAGES + (ADMIN_PAGES if who != "nobody" else []):
        assert refused(client.get(url)), url


@pytest.mark.django_db
def test_a_nul_in_a_form_field_is_refused_and_nothing_is_written(site):
    client = Client()
    client.force_login(site["root"])
    session = site["session"]
    before = row_counts()
    tap = {"type": "win", "player": "Anne\x00", "version": session.version, "key": "k"}
    assert refused(client.post(reverse("session_event", args=[session.pk]), tap))
    # A field's name too, and in a multipart form as in an urlencoded one.
    tap = {"type": "win", "player": "Anne", "version": session.version, "key": "k", "x\x00": "1"}
    assert refused(client.post(reverse("session_event", args=[session.pk]), tap))
    start = {"club": site["club"].pk, "seat_1": "Anne", "seat_2": "B\x00s"}
    assert refused(client.post(reverse("session_new"), start))
    url = reverse("admin:scoring_club_change", args=[site["club"].pk])
    assert refused(client.post(url, {"name": "Open\x00baar", "slug": "openbaar"}))
    assert row_counts() == before


@pytest.mark.django_db
def test_a_nul_in_a_login_is_refused_and_counts_as_no_failed_login(site):
    client, url = Client(), reverse("login")
    for _ in range(6):
        assert refused(client.post(url, {"username": "\x00", "password": "wrong"}))
        assert refused(client.post(url, {"username": "beheer", "password": "wrong\x00"}))
    assert AccessAttempt.objects.count() == 0
    assert client.post(url, {"username": "beheer", "password": "pw"}).status_code == 302


@pytest.mark.django_db
def test_a_nul_in_a_header_or_a_cookie_is_refused(site):
    client = Client()
    # A quoted cookie writes a NUL as \000; a forged session key reached the sessions table.
    assert refused(client.get("/", HTTP_COOKIE='sessionid="abcdefghij\\000"'))
    assert refused(client.get("/", HTTP_USER_AGENT="Tablet\x00"))
    # A failed login stores the browser's name (django-axes).
    login = {"username": "beheer", "password": "wrong"}
    assert refused(client.post(reverse("login"), login, HTTP_USER_AGENT="Tablet\x00"))
    assert AccessAttempt.objects.count() == 0


@pytest.mark.django_db
def test_the_refusal_is_plain_text_and_the_pages_without_a_nul_still_answer(site):
    client = Client()
    response = client.get("/club/openbaar/archief/?tafel=%00")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "Er is niets gewijzigd." in response.content.decode()
    # "%2500" is the text "%00", no NUL.
    assert client.get("/club/openbaar/archief/?tafel=%2500").status_code == 200
    assert client.get("/club/openbaar/archief/?tafel=1").status_code == 200
