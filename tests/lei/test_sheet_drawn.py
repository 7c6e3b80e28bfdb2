"""The lei's sheet as a viewer's part and the tablet draw it: a corrected round drawn again,
each language its own words, the tablet's rows with their edit links and the viewer's without,
and no template comment shown as text."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import access
from scoring.lei import services
from tests.builders import HX, make_session, record

_links: dict[int, str] = {}


def viewer_part(client, session, language="nl") -> str:
    """The viewer's ``#live`` part, always through one link (a link is signed with its time)."""
    url = _links.get(session.pk)
    if url is None:
        url = _links[session.pk] = reverse("viewer", args=[access.viewer_token(session.pk)])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language, **HX)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture(autouse=True)
def _new_links():
    _links.clear()


def test_the_part_shows_no_template_comment_as_text(client, club):
    session = make_session(club)
    for winner in ("Anne", "Bas", "Cees"):
        record(session, "knock", "Dirk")
        record(session, "win", winner)
    assert "{#" not in viewer_part(client, session)


def test_a_corrected_round_is_drawn_again(client, club):
    session = make_session(club)
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    before = viewer_part(client, session)
    session.refresh_from_db()
    services.round_replace_events(
        session=session,
        number=1,
        events=[{"type": "knock", "player": "Anne"}, {"type": "win", "player": "Bas"}],
        version=session.version,
        key="correct-1",
    )
    after = viewer_part(client, session)
    assert after != before
    assert "verbeterd" in after


def test_another_language_draws_its_own_rows(client, club):
    session = make_session(club)
    record(session, "knock", "Bas")
    record(session, "fold", "Anne")
    record(session, "win", "Bas")
    dutch = viewer_part(client, session, "nl")
    english = viewer_part(client, session, "en")
    assert ">Ronde </span>1" in dutch
    assert ">weg<" in dutch
    assert ">Round </span>1" in english
    assert ">fold<" in english
    assert viewer_part(client, session, "nl") == dutch


def test_the_tablet_draws_its_rows_with_their_edit_links(scorer, client, club):
    session = make_session(club)
    record(session, "win", "Anne")
    viewer = viewer_part(client, session)
    assert "sheet__edit" not in viewer
    tablet = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    edit = reverse("round_edit", args=[session.pk, 1])
    assert f'href="{edit}"' in tablet
    other = make_session(club)
    record(other, "win", "Anne")  # the same round, so the same row: another edit link
    tablet = scorer.get(reverse("tablet", args=[other.pk])).content.decode()
    assert f'href="{reverse("round_edit", args=[other.pk, 1])}"' in tablet
    assert f'href="{edit}"' not in tablet
    assert "sheet__edit" not in viewer_part(client, session)
