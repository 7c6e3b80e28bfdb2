"""The login limit: per (username, address) pair, with a generous ceiling per address.

Nobody can lock a member out from elsewhere, a pub behind one address is not locked out by one
guest guessing names, and a brute force from one address is still stopped (django-axes, counted
in the database: ``toepen_site/logins.py``)."""

from __future__ import annotations

import datetime
import re

import pytest
from axes.models import AccessAttempt
from django.db.models import Sum
from django.test import Client, override_settings
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


def test_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere(client, beheer):
    for _ in range(4):
        assert login(client, "beheer", "wrong", ip="10.6.6.6").status_code == 200  # the form
    assert login(client, "beheer", "wrong", ip="10.6.6.6").status_code == 429  # that pair locks
    assert login(client, "beheer", PASSWORD, ip="10.6.6.6").status_code == 429
    # The member, at home, logs in as usual.
    assert logged_in(login(client, "beheer", PASSWORD, ip="192.0.2.8"), client)


def test_unknown_usernames_from_one_address_do_not_lock_that_address(client, beheer):
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


# --- A pub is one address: limits that stop guessing without locking the pub out ------------
# These make dozens of real password checks, so they hash with a quick hasher; the waits are
# set to a second or two and really waited.

WAIT_ONE_SECOND = "Wacht 1 seconde en log dan opnieuw in."


@pytest.fixture
def quick_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def admin(quick_hashes, django_user_model):
    return django_user_model.objects.create_superuser("admin", password=PASSWORD)


def delay_token(response) -> str:
    """The token of the login page's wait, '' when it carries none."""
    found = re.search(r'name="login_delay" value="([^"]+)"', response.content.decode())
    return found.group(1) if found else ""


def notice(response) -> str:
    found = re.search(
        r'class="notice notice--warn" role="alert">([^<]*)<', response.content.decode()
    )
    return found.group(1) if found else ""


def login_with(client, username: str, password: str, token: str, ip: str = "10.0.0.1", **extra):
    data = {"username": username, "password": password, "login_delay": token, **extra}
    return client.post(reverse("login"), data, REMOTE_ADDR=ip)


def lock(username: str, ip: str = "10.0.0.1") -> None:
    """Five wrong passwords for ``username`` from ``ip``, from a browser of their own."""
    answers = [login(Client(), username, "wrong", ip=ip).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]


def test_fifty_wrong_logins_for_one_name_do_not_lock_the_pub_out(client, admin, django_user_model):
    django_user_model.objects.create_user("beheer", password=PASSWORD)
    answers = [login(Client(), "beheer", "wrong", ip="10.9.9.9").status_code for _ in range(50)]
    assert answers == [200] * 4 + [429] * 46
    # The 46 refused answers checked no password and count for nothing: five failures, so the
    # address is far from its ceiling and the club admin, at the same table, logs in.
    failures = AccessAttempt.objects.filter(ip_address="10.9.9.9").aggregate(
        n=Sum("failures_since_start")
    )
    assert failures["n"] == 5
    assert logged_in(login(client, "admin", PASSWORD, ip="10.9.9.9"), client)


@override_settings(AXES_COOLOFF_TIME=datetime.timedelta(seconds=3))
def test_attempts_refused_during_a_lockout_do_not_restart_it(client, admin, clock):
    lock("admin")
    for _ in range(3):  # someone keeps trying for a second and a half, and is refused
        clock.shift(0.5)
        assert login(Client(), "admin", "wrong").status_code == 429
    clock.shift(2.0)
    # Three seconds after the fifth failure the lockout is over, the refusals notwithstanding.
    assert logged_in(login(client, "admin", PASSWORD), client)


@override_settings(LOGIN_ADDRESS_FAILURE_LIMIT=6, LOGIN_ADDRESS_WAIT_SECONDS=2)
def test_the_address_ceiling_is_a_short_wait_while_a_locked_name_stays_locked(client, admin, clock):
    lock("beheer", ip="10.7.7.7")
    # The sixth failure from the address, for yet another name: the whole address waits ...
    refused = login(Client(), "guess", "wrong", ip="10.7.7.7")
    assert refused.status_code == 429
    assert notice(refused) == (
        "Te veel mislukte inlogpogingen vanaf dit adres. Wacht 2 seconden en log dan opnieuw in."
    )
    assert refused["Retry-After"] == "2"
    assert login(client, "admin", PASSWORD, ip="10.7.7.7").status_code == 429
    # ... two seconds, not the cool-off's fifteen minutes.
    clock.shift(2.2)
    assert logged_in(login(client, "admin", PASSWORD, ip="10.7.7.7"), client)
    # The name guessed five times is still locked out of that address, for its full cool-off.
    still = login(Client(), "beheer", PASSWORD, ip="10.7.7.7")
    assert still.status_code == 429
    assert "voor deze gebruikersnaam" in notice(still)


@override_settings(LOGIN_DELAY_SECONDS=1)
def test_a_right_password_from_a_new_browser_of_a_locked_name_waits_and_then_signs_in(admin, clock):
    lock("admin")
    browser = Client()  # the club admin arrives, on another tablet at the same address
    asked = login(browser, "admin", PASSWORD)
    assert asked.status_code == 429
    assert notice(asked) == (
        "Te veel mislukte inlogpogingen voor deze gebruikersnaam vanaf dit adres. "
        + WAIT_ONE_SECOND
    )
    assert asked["Retry-After"] == "1"
    assert 'value="admin"' in asked.content.decode()  # the name stays filled in
    token = delay_token(asked)
    assert token
    assert "_auth_user_id" not in browser.session
    clock.shift(1.1)
    assert logged_in(login_with(browser, "admin", PASSWORD, token), browser)


@override_settings(LOGIN_DELAY_SECONDS=60)
def test_before_the_wait_a_right_and_a_wrong_password_get_the_same_answer(admin):
    lock("admin")
    browser = Client()
    token = delay_token(login(browser, "admin", PASSWORD))
    right = login_with(browser, "admin", PASSWORD, token)
    wrong = login_with(browser, "admin", "wrong", token)
    assert right.status_code == wrong.status_code == 429
    assert notice(right) == notice(wrong)
    assert "Wacht 60 seconden" in notice(right)  # asking again does not restart the wait
    assert "_auth_user_id" not in browser.session
    # Nothing was checked, so nothing was counted.
    assert AccessAttempt.objects.aggregate(n=Sum("failures_since_start"))["n"] == 5


@override_settings(LOGIN_DELAY_SECONDS=1)
def test_a_token_lets_exactly_one_password_check_through_and_a_wrong_one_doubles_the_wait(
    admin,
    clock,
):
    lock("admin")
    browser = Client()
    token = delay_token(login(browser, "admin", PASSWORD))
    clock.shift(1.1)
    mistyped = login_with(browser, "admin", "wrong", token)
    assert mistyped.status_code == 429
    assert "Wacht 2 seconden" in notice(mistyped)
    # The spent token checks nothing more, the right password neither.
    assert login_with(browser, "admin", PASSWORD, token).status_code == 429
    assert "_auth_user_id" not in browser.session
    clock.shift(2.1)
    assert logged_in(login_with(browser, "admin", PASSWORD, delay_token(mistyped)), browser)


@override_settings(LOGIN_DELAY_SECONDS=1)
def test_one_check_per_wait_per_name_and_address_whichever_browser_comes_first(admin, clock):
    lock("admin")
    guesser, member = Client(), Client()
    guesser_token = delay_token(login(guesser, "admin", "guess"))
    member_token = delay_token(login(member, "admin", PASSWORD))
    clock.shift(1.1)
    assert login_with(guesser, "admin", "guess-2", guesser_token).status_code == 429
    # The wait's one check is spent: the other browser's token of that wait checks nothing,
    # and the next check waits twice as long, for the member too.
    refused = login_with(member, "admin", PASSWORD, member_token)
    assert refused.status_code == 429
    assert "Wacht 2 seconden" in notice(refused)
    assert "_auth_user_id" not in member.session


@override_settings(LOGIN_DELAY_SECONDS=1)
@pytest.mark.parametrize("forgery", ["beheer's", "tampered", "x" * 5000, "a:b:c"])
def test_a_token_of_another_name_or_forged_checks_nothing(admin, forgery, clock):
    lock("admin")
    lock("beheer")
    beheer_token = delay_token(login(Client(), "beheer", PASSWORD))
    admin_token = delay_token(login(Client(), "admin", PASSWORD))
    token = {"beheer's": beheer_token, "tampered": admin_token[:-2] + "xx"}.get(forgery, forgery)
    clock.shift(1.1)
    browser = Client()
    refused = login_with(browser, "admin", PASSWORD, token)
    assert refused.status_code == 429
    assert "voor deze gebruikersnaam" in notice(refused)
    assert "_auth_user_id" not in browser.session
    # The real token still has its check.
    assert logged_in(login_with(browser, "admin", PASSWORD, admin_token), browser)


@override_settings(LOGIN_DELAY_SECONDS=1)
def test_the_admin_login_asks_the_same_question_and_goes_on_to_the_admin(client, admin, clock):
    url = reverse("admin:login")
    for _ in range(5):
        client.post(url, {"username": "admin", "password": "wrong"}, REMOTE_ADDR="10.1.1.1")
    asked = client.post(url, {"username": "admin", "password": PASSWORD}, REMOTE_ADDR="10.1.1.1")
    assert asked.status_code == 429
    assert notice(asked).endswith(WAIT_ONE_SECOND)
    assert 'name="next" value="/admin/"' in asked.content.decode()
    clock.shift(1.1)
    answer = login_with(
        client, "admin", PASSWORD, delay_token(asked), ip="10.1.1.1", next="/admin/"
    )
    assert answer.status_code == 302
    assert answer["Location"] == "/admin/"


def test_login_limits_from_the_environment_must_be_at_least_one(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from toepen_site.settings import envint

    monkeypatch.setenv("LOGIN_DELAY_SECONDS", "0")
    with pytest.raises(ImproperlyConfigured, match="LOGIN_DELAY_SECONDS must be at least 1"):
        envint("LOGIN_DELAY_SECONDS", "60", minimum=1)
