"""Fixtures of the lei's tests."""

from __future__ import annotations

import pytest

from scoring.models import ClubMembership


@pytest.fixture
def scorer(client, club, user):
    """The test client signed in as a scorer of the club."""
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    client.force_login(user)
    return client
