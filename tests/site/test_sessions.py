"""The session store (toepen_site/sessions.py) reads what Django's database store reads: a
session's data while it lives, nothing once it has expired or is gone."""

import datetime

import pytest
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session as StoredSession
from django.utils import timezone

from toepen_site.sessions import SessionStore

pytestmark = pytest.mark.django_db


def both(key: str | None) -> tuple[dict, dict]:
    ours, django = SessionStore(key), db.SessionStore(key)
    return ours.load(), django.load()


def test_a_living_session_is_read_as_django_reads_it():
    store = SessionStore()
    store["grants"] = {"7": "geheim"}
    store["_auth_user_id"] = "3"
    store.create()
    ours, django = both(store.session_key)
    assert ours == django == {"grants": {"7": "geheim"}, "_auth_user_id": "3"}


def test_an_expired_or_unknown_session_reads_as_empty_and_its_key_is_forgotten():
    store = SessionStore()
    store["grants"] = {"7": "geheim"}
    store.create()
    past = timezone.now() - datetime.timedelta(seconds=1)
    StoredSession.objects.filter(session_key=store.session_key).update(expire_date=past)
    for key in (store.session_key, "x" * 32, None):
        fresh = SessionStore(key)
        assert fresh.load() == {}
        assert fresh.session_key is None
        assert both(key)[1] == {}


def test_a_login_lives_through_the_store_until_it_expires(client, django_user_model):
    anne = django_user_model.objects.create_user("anne")
    client.force_login(anne)
    assert client.get("/").wsgi_request.user == anne
    past = timezone.now() - datetime.timedelta(seconds=1)
    StoredSession.objects.update(expire_date=past)
    assert not client.get("/").wsgi_request.user.is_authenticated
