"""The lei's played rows are drawn once per process and kept ("sheet" cache, _sheet.html):
whatever a row is drawn from is in its key, so a kept row is never shown where it does not
belong: after a correction, in another language, on the viewer after the tablet (no edit
links), or for another game with the same rounds."""

from __future__ import annotations

import re

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from scoring import access
from scoring.lei import services
from scoring.models import ClubMembership
from tests.conftest import make_session, record

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def empty_cache():
    caches["sheet"].clear()
    yield
    caches["sheet"].clear()


@pytest.fixture
def scorer(client, club, user):
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    client.force_login(user)
    return client


def viewer_url(session) -> str:
    return reverse("viewer", args=[access.viewer_token(session.pk)])


def row(html: str, number: int) -> str:
    """The sheet's row of round ``number``."""
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html[html.index('id="sheet"') :], re.S)
    for candidate in rows:
        head = re.search(r'<th scope="row">(.*?)</th>', candidate, re.S)
        if head and re.search(rf"</span>{number}\b", head.group(1)):
            return candidate
    raise AssertionError(f"no row {number} on the sheet")


def test_a_corrected_round_is_drawn_anew(client, session):
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    before = row(client.get(viewer_url(session)).content.decode(), 1)
    assert "verbeterd" not in before
    services.round_replace_events(
        session=session, number=1, events=[{"type": "win", "player": "Cees"}]
    )
    after = row(client.get(viewer_url(session)).content.decode(), 1)
    assert after != before
    assert "verbeterd" in after
    # Anne won round 1 before the correction; now Cees did: Anne's cell has the point.
    cells = re.findall(r"<td[^>]*>(.*?)</td>", after, re.S)
    assert [c.split(" ")[0] for c in cells] == ["1", "1", "0", "1"]


def test_the_viewer_gets_no_edit_links_after_the_tablet_drew_the_rows(scorer, session):
    record(session, "win", "Anne")
    tablet = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert reverse("round_edit", args=[session.pk, 1]) in row(tablet, 1)
    viewer = Client().get(viewer_url(session)).content.decode()
    assert "/ronde/" not in row(viewer, 1)
    # And the other way round: the tablet's links after the viewer drew the rows.
    again = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert reverse("round_edit", args=[session.pk, 1]) in row(again, 1)


def test_a_row_is_drawn_in_the_language_of_the_page(client, session):
    record(session, "knock", "Bas")
    record(session, "win", "Anne")
    dutch = row(client.get(viewer_url(session)).content.decode(), 1)
    assert "inzet 2" in dutch
    assert "laatste slag" in dutch
    client.cookies["django_language"] = "en"
    english = row(client.get(viewer_url(session)).content.decode(), 1)
    assert "stake 2" in english
    assert "inzet" not in english
    assert "slag" not in english


def test_two_games_with_the_same_rounds_each_link_their_own(scorer, club, session):
    other = make_session(club, players=["Anne", "Bas", "Cees", "Dirk"])
    for game in (session, other):
        record(game, "win", "Anne")
    for game in (session, other):
        html = scorer.get(reverse("tablet", args=[game.pk])).content.decode()
        assert reverse("round_edit", args=[game.pk, 1]) in row(html, 1)
