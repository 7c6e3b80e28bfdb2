"""The club admin's club page costs the same queries whatever the number of members; saving it
checks only the rows that changed against the database's constraints."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import ClubMembership
from tests.conftest import admin_form_data, make_club


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
