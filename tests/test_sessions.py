"""The Django session engine of toepen_site/sessions.py reads sessions as Django's own does."""

import datetime

from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from toepen_site.sessions import SessionStore


def test_a_stored_session_reads_back_and_an_expired_or_unknown_one_is_empty(db):
    store = SessionStore()
    store["scorer_tokens"] = {"7": "geheim"}
    store.save()
    key = store.session_key

    fresh = SessionStore(key)
    assert fresh["scorer_tokens"] == {"7": "geheim"}
    assert fresh.session_key == key
    assert dict(DjangoStore(key).load()) == dict(SessionStore(key).load())

    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - datetime.timedelta(seconds=1)
    )
    for gone in (SessionStore(key), SessionStore("no-such-key-" + "x" * 20)):
        assert gone.load() == {}
        assert gone.session_key is None  # a new key when it is saved, as Django's
        assert "scorer_tokens" not in gone


def test_the_settings_use_it(settings, client, db):
    assert settings.SESSION_ENGINE == "toepen_site.sessions"
    assert isinstance(client.session, SessionStore)
