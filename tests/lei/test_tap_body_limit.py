"""The tablet's URLs refuse a body larger than any tap with 413, before anything reads it."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import reverse

from tests.builders import tap
from tests.safety import row_counts
from toepen_site.middleware import TapBodyLimitMiddleware


def test_a_10_mb_upload_to_the_tap_url_is_refused_with_413_and_writes_nothing(scorer, session):
    before = row_counts()
    upload = io.BytesIO(b"x" * (10 * 1024 * 1024))
    upload.name = "big.bin"
    response = scorer.post(
        reverse("session_event", args=[session.pk]),
        {"type": "win", "player": "Anne", "version": session.version, "key": "k1", "f": upload},
    )
    assert response.status_code == 413
    assert "te groot" in response.content.decode()
    assert row_counts() == before


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("session_event", [1]),
        ("session_undo", [1]),
        ("session_presence", [1]),
        ("session_finish", [1]),
        ("scorer_link_change", [1]),
        ("round_edit", [1, 1]),
    ],
)
def test_the_limit_is_checked_without_reading_the_body(name, args):
    class Unreadable(io.RawIOBase):
        def read(self, *args):
            raise AssertionError("the body was read")

    length = 10 * 1024 * 1024
    request = RequestFactory().generic(
        "POST", reverse(name, args=args), CONTENT_LENGTH=str(length), CONTENT_TYPE="text/plain"
    )
    request.META["wsgi.input"] = Unreadable()
    middleware = TapBodyLimitMiddleware(lambda r: pytest.fail("the view was reached"))
    assert middleware(request).status_code == 413


def test_a_normal_tap_and_other_urls_pass(scorer, session):
    response = tap(scorer, session, "win", "Anne", htmx=False)
    assert response.status_code in (200, 302)
    session.refresh_from_db()
    assert session.version == 1
    # A large body elsewhere is not this middleware's business (Django's own limits apply).
    request = RequestFactory().post(
        "/inloggen/", data="x", content_type="text/plain", CONTENT_LENGTH=str(10**7)
    )
    middleware = TapBodyLimitMiddleware(lambda r: "passed")
    assert middleware(request) == "passed"
    small = RequestFactory().post(reverse("session_event", args=[1]), {"type": "win"})
    assert 0 < int(small.META["CONTENT_LENGTH"]) < settings.TAP_BODY_LIMIT
    assert middleware(small) == "passed"
