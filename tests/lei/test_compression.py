"""gzip for the app's answers, but never for one with the secret scorer link (BREACH)."""

from __future__ import annotations

import gzip

import pytest
from django.urls import reverse

from scoring import access
from tests.builders import HX, play_rounds

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_the_answer_to_a_tap_is_compressed(scorer, session):
    play_rounds(session, ["Anne", "Bas"])
    session.refresh_from_db()
    data = {"type": "knock", "player": "Bas", "version": session.version, "key": "gz-1"}
    response = scorer.post(reverse("session_event", args=[session.pk]), data, **HX, **GZIP)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    html = gzip.decompress(response.content).decode()
    assert html.lstrip().startswith('<div id="live"')
    assert len(response.content) < len(html) / 3


def test_the_tablet_page_holds_no_scorer_link_and_is_compressed(scorer, session):
    response = scorer.get(reverse("tablet", args=[session.pk]), **GZIP)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    html = gzip.decompress(response.content).decode()
    assert 'id="panel"' in html
    assert session.scorer_token not in html
    assert reverse("scorer_link", args=[session.scorer_token]) not in html


@pytest.mark.parametrize("headers", [HX, {}], ids=["deel", "page"])
def test_the_share_links_with_the_scorer_link_are_not_compressed_nor_kept(scorer, session, headers):
    """What "Deel" fetches on the tablet (and the page of it, without JavaScript)."""
    response = scorer.get(reverse("session_share", args=[session.pk]), **headers, **GZIP)
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert session.scorer_token in response.content.decode()
    assert "no-store" in response["Cache-Control"]


def test_the_viewers_sheet_is_compressed_and_an_unchanged_poll_is_still_304(client, session):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    url = reverse("viewer", args=[access.viewer_token(session.pk)])
    first = client.get(url, **HX, **GZIP)
    assert first["Content-Encoding"] == "gzip"
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HX, **GZIP)
    assert again.status_code == 304


def test_every_viewer_gets_the_same_sheet_compressed_or_as_text(client, session):
    """Each viewer's sheet is drawn by the template and gzipped by the middleware; a client
    without gzip gets the same sheet as text, with the same ETag made weak only when gzipped."""
    play_rounds(session, ["Anne", "Bas", "Cees"])
    url = reverse("viewer", args=[access.viewer_token(session.pk)])
    first = client.get(url, **HX, **GZIP)
    second = client.get(url, **HX, **GZIP)
    assert gzip.decompress(first.content) == gzip.decompress(second.content)
    assert first["Content-Encoding"] == second["Content-Encoding"] == "gzip"
    assert first["ETag"] == second["ETag"]
    assert first["ETag"].startswith('W/"lei-')  # weak, as the middleware makes a gzip answer's
    for response in (first, second):
        vary = {v.strip() for v in response["Vary"].split(",")}
        assert {"Accept-Encoding", "HX-Request", "Cookie", "Accept-Language"} <= vary
    plain = client.get(url, **HX)  # no Accept-Encoding: the text
    assert not plain.has_header("Content-Encoding")
    assert plain["ETag"] == first["ETag"].removeprefix("W/")
    assert gzip.decompress(second.content) == plain.content
    assert plain.content.decode().lstrip().startswith('<div id="live"')
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HX, **GZIP).status_code == 304
    assert client.get(url, HTTP_IF_NONE_MATCH=plain["ETag"], **HX).status_code == 304
