"""Fixtures the rooms share: a club (public or not), its five people, a season, a session, a
user and that user as a member (``member``) signed in (``scorer``, ``member_client``), the club's
admin and its organiser, an evening. Each name is defined once in the suite
(tests/site/test_tests_shape.py).

The builders they call live in tests/builders.py (a conftest is never imported)."""

from __future__ import annotations

import datetime
import os

import pytest
from django.test import Client, override_settings
from hypothesis import settings as hypothesis_settings

from scoring.evening import services as evenings
from scoring.models import Club, ClubMembership, Player, Season, Session
from tests.builders import PEOPLE, make_club, make_session

# CI explores the same examples on every run, so a red CI always means the same failure; a
# developer's run keeps exploring new ones (set HYPOTHESIS_PROFILE=ci to reproduce CI locally).
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default")
)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, request, tmp_path_factory
) -> None:
    """With browser tests in the run, a SQLite test database is a file rather than memory: their
    server is another process (tests/browser/conftest.py, ``live_server``) and opens it too. Each
    writer takes the lock when its transaction begins, so that neither process finds, halfway
    through a transaction, that the other wrote meanwhile (tests/browser/deployed_settings.py)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    browser = any(item.get_closest_marker("browser") for item in request.session.items)
    if database["ENGINE"] == "django.db.backends.sqlite3" and browser:
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)
        database.setdefault("OPTIONS", {}).update(transaction_mode="IMMEDIATE", timeout=20)


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing():
    """MD5 instead of PBKDF2 for every test (Django's testing docs, "Speeding up the tests"):
    each password a test sets or checks costs microseconds, not a large share of a second.
    Logins still go through the real login view and django-axes (tests/site/test_lockout.py)."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def club(db) -> Club:
    return make_club()


@pytest.fixture
def people(club) -> dict[str, Player]:
    return {name: Player.objects.create(club=club, name=name) for name in PEOPLE}


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(club=club, name="Winter 2026", starts_on="2026-01-01")


@pytest.fixture
def session(club, people) -> Session:
    """Anne, Bas, Cees and Dirk at one table, standaard rules, nothing played yet."""
    return make_session(club)


def signed_in(user) -> Client:
    """A browser of its own (a ``Client`` apart from the test's), signed in as ``user``."""
    browser = Client()
    browser.force_login(user)
    return browser


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="scorer", password="x")


@pytest.fixture
def member(club, user):
    """The ``user`` as a member of the club who scores its games (role scorer)."""
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    return user


@pytest.fixture
def scorer(client, member) -> Client:
    """The test's ``client``, signed in as the member: the tablet of a scorer of the club."""
    client.force_login(member)
    return client


@pytest.fixture
def member_client(member) -> Client:
    """A browser of its own signed in as the member, beside the test's anonymous ``client``."""
    return signed_in(member)


@pytest.fixture
def public_club(club) -> Club:
    """The club, with its standings, ratings and tournament pages open to the public."""
    club.standings_public = True
    club.save()
    return club


@pytest.fixture
def club_admin(club, django_user_model):
    """Annemiek: an admin of the club who opens the Django admin (staff), password ``x``."""
    user = django_user_model.objects.create_user("annemiek", password="x", is_staff=True)
    ClubMembership.objects.create(user=user, club=club, role="admin")
    return user


@pytest.fixture
def club_admin_client(club_admin) -> Client:
    """A browser of its own signed in as the club admin, beside the test's ``client``."""
    return signed_in(club_admin)


@pytest.fixture
def organiser(club, django_user_model):
    """The organisator: an admin of the club who runs its evenings and tournaments."""
    user = django_user_model.objects.create_user("organisator", is_staff=True)
    ClubMembership.objects.create(user=user, club=club, role="admin")
    return user


@pytest.fixture
def org(client, organiser) -> Client:
    """The test's ``client``, signed in as the organiser."""
    client.force_login(organiser)
    return client


@pytest.fixture
def evening(club):
    """A club evening just opened: nobody checked in yet."""
    return evenings.evening_create(club=club)


@pytest.fixture
def clock(time_machine):
    """A clock that stands still from the test's start until the test moves it on
    (``clock.shift(2.2)``): time.time, datetime.now and so Django's timezone.now, the database
    cache's expiry, signed tokens' max_age and django-axes' cool-off all read it. Waiting is then
    a line, not seconds of the suite's time."""
    time_machine.move_to(datetime.datetime.now(datetime.UTC), tick=False)
    return time_machine
