"""Logins a stranger cannot block for members (``toepen_site/logins.py``, device cookies): a
browser that signed in before keeps its own allowance when others' failures lock the pub's
address or the member's name; a fresh browser is still held; that browser's own wrong
passwords are limited too, and a cookie of another name, or forged, counts for nothing."""

from __future__ import annotations

import secrets

import pytest
from axes.models import AccessAttempt
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from tests.safety import note
from toepen_site.logins import DEVICE_COOKIE

PASSWORD = "kroeg-paard-batterij"
PUB = "198.51.100.23"


def attempt(browser: Client, username: str, password: str, ip: str = PUB):
    return browser.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def signed_in(response, browser: Client) -> bool:
    return response.status_code == 302 and "_auth_user_id" in browser.session


@pytest.fixture
def member_at_the_pub(settings, django_user_model):
    """Marieke, and her own tablet, on which she signed in last week (from home)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("marieke", password=PASSWORD)
    tablet = Client()
    assert signed_in(attempt(tablet, "marieke", PASSWORD, ip="192.0.2.50"), tablet)
    assert tablet.cookies[DEVICE_COOKIE].value
    tablet.post(reverse("logout"))
    return tablet


def test_a_member_signs_in_on_her_own_browser_from_a_locked_pub_address(member_at_the_pub):
    # 51 failed logins with random names from the pub's address: the address now waits.
    for _ in range(51):
        attempt(Client(), f"gok-{secrets.token_hex(4)}", "fout")
    assert attempt(Client(), "marieke", PASSWORD).status_code == 429  # a fresh browser waits
    tablet = member_at_the_pub
    assert signed_in(attempt(tablet, "marieke", PASSWORD), tablet)
    # Axes still counted all of them: the device cookie adds, it does not switch counting off.
    failures = AccessAttempt.objects.filter(ip_address=PUB).aggregate(
        n=Sum("failures_since_start")
    )["n"]
    assert failures >= 50
    note("door_logins", failures=51, member_logins=1, fresh_refused=1)


def test_a_name_locked_by_a_guesser_is_not_locked_on_the_members_browser(member_at_the_pub):
    # Someone at the pub guesses Marieke's password until her name is locked there.
    answers = [attempt(Client(), "marieke", "gok").status_code for _ in range(6)]
    assert answers[-1] == 429
    assert attempt(Client(), "marieke", PASSWORD).status_code == 429
    tablet = member_at_the_pub
    assert signed_in(attempt(tablet, "marieke", PASSWORD), tablet)


def test_the_browsers_own_wrong_passwords_are_limited(member_at_the_pub, settings):
    settings.LOGIN_DEVICE_FAILURE_LIMIT = 3
    tablet = member_at_the_pub
    for _ in range(51):
        attempt(Client(), f"gok-{secrets.token_hex(4)}", "fout")
    # Its own budget: three wrong passwords answered with the form, then it waits as any does.
    answers = [attempt(tablet, "marieke", "fout").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert attempt(tablet, "marieke", PASSWORD).status_code == 429


def test_a_device_cookie_of_another_name_or_forged_counts_for_nothing(member_at_the_pub):
    for _ in range(51):
        attempt(Client(), f"gok-{secrets.token_hex(4)}", "fout")
    tablet = member_at_the_pub
    # Marieke's cookie does not open the pub for another name ...
    assert attempt(tablet, "beheer", "wat-dan-ook").status_code == 429
    # ... and a forged or altered one is no cookie at all.
    for forged in ["marieke", tablet.cookies[DEVICE_COOKIE].value + "x", "x" * 5000]:
        browser = Client()
        browser.cookies[DEVICE_COOKIE] = forged
        assert attempt(browser, "marieke", PASSWORD).status_code == 429
