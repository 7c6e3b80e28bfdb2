"""The club admin's club page costs the same queries whatever the number of members; saving it
checks only the rows that changed against the database's constraints."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import ClubMembership
from tests.builders import admin_form_data, make_club


def _club_with_members(django_user_model, members: int, slug: str, *, superuser: bool = False):
    club = make_club(name=f"Club {slug}", slug=slug)
    for n in range(members):
        member = django_user_model.objects.create_user(f"{slug}-{n}")
        ClubMembership.objects.create(club=club, user=member, role="scorer")
    admin = django_user_model.objects.create_user(
        f"{slug}-beheer", is_staff=True, is_superuser=superuser
    )
    ClubMembership.objects.create(club=club, user=admin, role="admin")
    client = Client()
    client.force_login(admin)
    return club, client


def _queries(club, client) -> tuple[int, int, object]:
    url = reverse("admin:scoring_club_change", args=[club.pk])
    client.get(url)  # once before: Django caches the content types on the first page
    with CaptureQueriesContext(connection) as read:
        page = client.get(url)
    assert page.status_code == 200
    with CaptureQueriesContext(connection) as write:
        saved = client.post(url, {**admin_form_data(page), "name": "Nieuwe naam"})
    assert saved.status_code == 302
    return len(read), len(write), saved


@pytest.mark.django_db
def test_the_club_page_does_not_query_per_member(django_user_model):
    few = _queries(*_club_with_members(django_user_model, 3, "klein"))
    many = _queries(*_club_with_members(django_user_model, 30, "groot"))
    assert many[0] == few[0]  # the page: members joined to their users and club
    # Saving: Django still looks up each row (at most two queries per member), but no longer
    # checks the unchanged rows' constraints in the database (two more per member).
    assert many[1] - few[1] <= 2 * (30 - 3)


@pytest.mark.django_db
def test_a_changed_membership_row_is_still_checked(django_user_model):
    # Only the superuser changes whose a membership is (a club admin invites).
    club, client = _club_with_members(django_user_model, 2, "check", superuser=True)
    url = reverse("admin:scoring_club_change", args=[club.pk])
    data = admin_form_data(client.get(url))
    row = next(k for k in data if k.endswith("-user") and data[k] == "check-0")
    data[row] = "check-1"  # the same member twice: the unique constraint says no
    response = client.post(url, data)
    assert response.status_code == 200
    assert ClubMembership.objects.filter(club=club, user__username="check-0").exists()


class _Posted(HTMLParser):
    """What a browser posts back from a page's form: its inputs, selects and textareas."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select = self._textarea = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "checkbox"):
            self.data[name] = a.get("value") or ""
        elif tag == "input" and name and "checked" in a:
            self.data[name] = a.get("value") or "on"
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


@pytest.mark.django_db
def test_a_club_admin_saves_the_club_form_as_the_browser_sends_it(django_user_model):
    # The members' usernames are read-only for a club admin, so the page sends none: the
    # form must not ask for them (it did, and refused every save of the club's settings).
    club, client = _club_with_members(django_user_model, 2, "browser")
    url = reverse("admin:scoring_club_change", args=[club.pk])
    parser = _Posted()
    parser.feed(client.get(url).content.decode())
    assert not any(name.endswith("-user") for name in parser.data)
    saved = client.post(url, {**parser.data, "agreement_rule": "agreed"})
    assert saved.status_code == 302
    club.refresh_from_db()
    assert club.agreement_rule == "agreed"
    assert ClubMembership.objects.filter(club=club).count() == 3
