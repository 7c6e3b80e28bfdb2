"""The sheet's parts kept per process (``{% keep %}`` in ``_sheet.html``): a played round's row,
and the head and totals while the columns stay as they are, are drawn once and kept. What is
kept must never show something else than a fresh drawing would: a corrected round, another
language, the tablet's edit links, a knock that changes no column."""

from __future__ import annotations

import dataclasses
import re

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.urls import reverse
from django.utils import translation

from scoring import access
from scoring.lei import services
from scoring.lei.tablet import Cell, Column, HistoryRow
from scoring.models import ClubMembership
from scoring.templatetags import lei as lei_tags
from tests.conftest import make_session, record

HX = {"HTTP_HX_REQUEST": "true"}
ROW = re.compile(r'<span class="sheet__word">[^<]+ </span>1</a>?</th><td[^>]*>(-?\d+)')


def other_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, 1]
    if value is None:
        return 3
    raise AssertionError(f"no other value for {value!r}")


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Cell)])
def test_every_field_of_a_cell_is_in_its_rows_key(field):
    cell = Cell(points=2)
    row = HistoryRow(1, 1, None, False, [cell])
    changed = dataclasses.replace(cell, **{field: other_value(getattr(cell, field))})
    assert HistoryRow(1, 1, None, False, [changed]).key != row.key


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(HistoryRow)])
def test_every_field_of_a_row_is_in_its_key(field):
    row = HistoryRow(1, 1, None, False, [Cell(points=2)])
    value = [Cell(points=3)] if field == "cells" else other_value(getattr(row, field))
    assert dataclasses.replace(row, **{field: value}).key != row.key


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Column)])
def test_every_field_of_a_column_is_in_its_key(field):
    column = Column(name="Anne")
    changed = dataclasses.replace(column, **{field: other_value(getattr(column, field))})
    assert changed.key != column.key
    hash(changed.key)


@pytest.fixture
def scorer(client, club, user):
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    client.force_login(user)
    return client


_links: dict[int, str] = {}


def viewer_part(client, session, language="nl") -> str:
    """The viewer's ``#live`` part, always through one link (a link is signed with its time)."""
    url = _links.get(session.pk)
    if url is None:
        url = _links[session.pk] = reverse("viewer", args=[access.viewer_token(session.pk)])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language, **HX)
    assert response.status_code == 200
    return response.content.decode()


def drawn_fresh(client, session, language="nl") -> str:
    """The part as it is drawn with nothing kept."""
    lei_tags._kept.clear()
    return viewer_part(client, session, language)


@pytest.fixture(autouse=True)
def _new_links():
    _links.clear()


def test_a_part_drawn_from_kept_rows_is_the_part_drawn_afresh(client, club):
    session = make_session(club)
    for winner in ("Anne", "Bas", "Cees"):
        record(session, "knock", "Dirk")
        record(session, "win", winner)
    fresh = drawn_fresh(client, session)
    assert "{#" not in fresh  # a comment of the template shown as text
    assert lei_tags._kept  # the rows, the head and the totals were kept
    assert viewer_part(client, session) == fresh
    # A knock changes the round, not the columns: the kept head and totals stay.
    record(session, "knock", "Anne")
    assert viewer_part(client, session) == drawn_fresh(client, session)


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
    assert after == drawn_fresh(client, session)
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


def test_the_tablet_keeps_its_own_rows_with_their_edit_links(scorer, client, club):
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


def test_the_kept_parts_stay_within_their_bound(client, club, monkeypatch):
    monkeypatch.setattr(lei_tags, "KEPT_LIMIT", 5)
    session = make_session(club)
    for _ in range(4):
        record(session, "win", "Anne")
    lei_tags._kept.clear()
    part = viewer_part(client, session)
    assert len(lei_tags._kept) == 5
    assert viewer_part(client, session) == part


def test_keep_needs_a_name_and_a_value():
    with pytest.raises(TemplateSyntaxError):
        Template('{% load lei %}{% keep "x" %}a{% endkeep %}')
    drawn = Template('{% load lei %}{% keep "t" n %}<b>{{ n }}</b>{% endkeep %}')
    assert drawn.render(Context({"n": 1})) == "<b>1</b>"
    assert drawn.render(Context({"n": 2})) == "<b>2</b>"
    with translation.override("de"):
        assert drawn.render(Context({"n": 1})) == "<b>1</b>"
