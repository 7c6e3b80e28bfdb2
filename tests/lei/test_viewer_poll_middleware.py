"""The viewers' poll answered by ``scoring.lei.middleware.ViewerPollMiddleware``: the same answers
as
the view's, header by header, and everything it does not answer left to the view."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client, override_settings

from scoring.models import RenderedSheet
from tests.conftest import play_rounds, record
from tests.lei.test_views_viewer import HX, viewer_url

MIDDLEWARE = "scoring.lei.middleware.ViewerPollMiddleware"
WITHOUT = [m for m in settings.MIDDLEWARE if m != MIDDLEWARE]


def answered_by_middleware(response) -> bool:
    # Only the middleware after it gives the request a session.
    return not hasattr(response.wsgi_request, "session")


def both_ways(client, url, **headers):
    """The answer with the middleware and the answer without it, for the same request."""
    with_it = client.get(url, **headers)
    with override_settings(MIDDLEWARE=WITHOUT):
        other = Client()  # a client loads the middleware once, at its first request
        other.cookies = client.cookies
        without = other.get(url, **headers)
    return with_it, without


def assert_same(with_it, without):
    assert with_it.status_code == without.status_code
    assert sorted(with_it.headers.items()) == sorted(without.headers.items())
    assert with_it.content == without.content


@pytest.fixture
def drawn(client, session):
    """A session with a round played and its sheet drawn and kept, in Dutch, by a first poll."""
    play_rounds(session, ["Anne"])
    first = client.get(viewer_url(session), **HX)
    assert first.status_code == 200
    assert not answered_by_middleware(first)
    return first["ETag"]


def test_an_unchanged_poll_gets_the_same_304_from_the_middleware(client, session, drawn):
    with_it, without = both_ways(client, viewer_url(session), HTTP_IF_NONE_MATCH=drawn, **HX)
    assert with_it.status_code == 304
    assert answered_by_middleware(with_it)
    assert not answered_by_middleware(without)
    assert_same(with_it, without)


@pytest.mark.parametrize("encoding", ["gzip, deflate, br", ""])
def test_the_kept_copy_is_the_same_from_the_middleware(client, session, drawn, encoding):
    record(session, "knock", "Bas")
    # The first poll after the knock draws the new version; the table's next viewers get it.
    assert client.get(viewer_url(session), HTTP_IF_NONE_MATCH=drawn, **HX).status_code == 200
    with_it, without = both_ways(
        client, viewer_url(session), HTTP_IF_NONE_MATCH=drawn, HTTP_ACCEPT_ENCODING=encoding, **HX
    )
    assert with_it.status_code == 200
    assert answered_by_middleware(with_it)
    assert_same(with_it, without)
    assert ("Content-Encoding" in with_it) == bool(encoding)
    assert with_it["Content-Length"] == str(len(with_it.content))


@pytest.mark.parametrize(
    "language",
    [
        {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9"},
        {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.8"},
        {"HTTP_ACCEPT_LANGUAGE": "fr"},  # not one of ours: Dutch
        {"cookie": "en"},
    ],
)
def test_the_language_is_taken_as_the_locale_middleware_takes_it(client, session, language):
    if "cookie" in language:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language.pop("cookie")
    record(session, "knock", "Bas")
    url = viewer_url(session, tv=True)
    etag = client.get(url, **language, **HX)["ETag"]  # drawn and kept in that language
    for asked in (etag, '"lei-0-0-nl-live"'):  # a 304, then the kept copy
        with_it, without = both_ways(client, url, HTTP_IF_NONE_MATCH=asked, **language, **HX)
        assert answered_by_middleware(with_it)
        assert_same(with_it, without)


def test_a_poll_that_must_be_drawn_goes_to_the_view_without_asking_twice(
    client, session, django_assert_num_queries
):
    play_rounds(session, ["Anne", "Bas"])
    # The middleware's query finds nothing kept; the view draws it without that query again
    # (tests/lei/test_views_viewer.py counts the six queries of a first draw).
    with django_assert_num_queries(6):
        first = client.get(viewer_url(session), **HX)
    assert first.status_code == 200
    assert not answered_by_middleware(first)
    assert first.wsgi_request.viewer_poll_missed is True
    assert RenderedSheet.objects.filter(session=session).count() == 1


@pytest.mark.parametrize(
    "how",
    [
        {"path": "?tv=1&x=1"},  # another query string: drawn for its asker alone
        {"method": "head"},
        {"headers": {}},  # not HTMX: the whole page
        {"path": "extra/"},  # not the viewer's URL
    ],
)
def test_anything_but_the_pages_own_poll_goes_to_the_view(client, session, drawn, how):
    url = viewer_url(session) + how.get("path", "")
    headers = how.get("headers", HX)
    response = getattr(client, how.get("method", "get"))(url, HTTP_IF_NONE_MATCH=drawn, **headers)
    assert not answered_by_middleware(response)


@pytest.mark.parametrize("link", ["not-a-link", "session-gone"])
def test_an_unknown_link_or_session_gets_the_views_404(client, session, link):
    url = viewer_url(session) if link == "session-gone" else "/kijk/not-a-link/"
    if link == "session-gone":
        session.delete()
    with_it, without = both_ways(client, url, **HX)
    assert with_it.status_code == 404
    assert not answered_by_middleware(with_it)
    assert_same(with_it, without)


def test_a_host_not_allowed_is_refused_before_the_poll(client, session, drawn):
    with_it, without = both_ways(
        client, viewer_url(session), HTTP_IF_NONE_MATCH=drawn, HTTP_HOST="evil.example", **HX
    )
    assert with_it.status_code == without.status_code == 400
