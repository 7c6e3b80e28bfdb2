"""The login limit: per (username, address) pair, with a generous ceiling per address.

Nobody can lock a member out from elsewhere, a pub behind one address is not locked out by one
guest guessing names, and a brute force from one address is still stopped (django-axes, counted
in the database: ``toepen_site.middleware.login_lockout_parameters``)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import override_settings
from django.urls import reverse

PASSWORD = "right-horse-battery"


def login(client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def logged_in(response, client) -> bool:
    return response.status_code == 302 and "_auth_user_id" in client.session


@pytest.fixture
def beheer(django_user_model):
    return django_user_model.objects.create_user("beheer", password=PASSWORD)


def test_finding_6_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere(
    client, beheer
):
    for _ in range(4):
        assert login(client, "beheer", "wrong", ip="10.6.6.6").status_code == 200  # the form
    assert login(client, "beheer", "wrong", ip="10.6.6.6").status_code == 429  # that pair locks
    assert login(client, "beheer", PASSWORD, ip="10.6.6.6").status_code == 429
    # The member, at home, logs in as usual.
    assert logged_in(login(client, "beheer", PASSWORD, ip="192.0.2.8"), client)


def test_finding_6_unknown_usernames_from_one_address_do_not_lock_that_address(client, beheer):
    for n in range(5):
        assert login(client, f"guess{n}", "wrong", ip="10.0.0.66").status_code == 200
    # Someone else in the same pub, behind the same address, logs in.
    assert logged_in(login(client, "beheer", PASSWORD, ip="10.0.0.66"), client)


def test_a_brute_force_on_one_user_from_one_address_is_stopped(client, beheer):
    for _ in range(5):
        login(client, "beheer", "wrong", ip="10.6.6.6")
    for password in ["guess-1", "guess-2", PASSWORD]:
        response = login(client, "beheer", password, ip="10.6.6.6")
        assert response.status_code == 429
        assert "_auth_user_id" not in client.session
    assert AccessAttempt.objects.filter(username="beheer", ip_address="10.6.6.6").exists()


@override_settings(LOGIN_ADDRESS_FAILURE_LIMIT=12)
def test_a_brute_force_over_many_usernames_from_one_address_meets_the_ceiling(client, beheer):
    for n in range(11):
        assert login(client, f"guess{n}", "wrong", ip="10.6.6.6").status_code == 200
    assert login(client, "guess11", "wrong", ip="10.6.6.6").status_code == 429  # the ceiling
    # Now the address waits, for every username, the right password too ...
    assert login(client, "beheer", PASSWORD, ip="10.6.6.6").status_code == 429
    assert "_auth_user_id" not in client.session
    # ... and only that address.
    assert logged_in(login(client, "beheer", PASSWORD, ip="10.0.0.7"), client)


def test_a_good_login_resets_the_count(client, django_user_model):
    django_user_model.objects.create_user("cees", password=PASSWORD)
    for _ in range(4):
        login(client, "cees", "wrong")
    assert login(client, "cees", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        login(client, "cees", "wrong")
    assert login(client, "cees", PASSWORD).status_code == 302


def test_the_admin_login_is_limited_per_pair_too(client, django_user_model):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    url = reverse("admin:login")
    for _ in range(5):
        client.post(url, {"username": "root", "password": "wrong"}, REMOTE_ADDR="10.1.1.1")
    locked = client.post(url, {"username": "root", "password": PASSWORD}, REMOTE_ADDR="10.1.1.1")
    assert locked.status_code == 429
    elsewhere = client.post(url, {"username": "root", "password": PASSWORD}, REMOTE_ADDR="10.2.2.2")
    assert elsewhere.status_code == 302


# A NUL in a name is refused before the login form (tests/site/test_nul_characters.py).
@pytest.mark.parametrize("username", ["x" * 5000, "=1+1", "9" * 400])
def test_odd_usernames_are_refused_and_lock_out_only_themselves(client, beheer, username):
    answers = [login(client, username, "wrong", ip="10.0.0.66").status_code for _ in range(5)]
    assert answers[:4] == [200] * 4
    assert answers[4] in (200, 429)  # that odd name from that address, and nobody else
    assert logged_in(login(client, "beheer", PASSWORD, ip="10.0.0.66"), client)
