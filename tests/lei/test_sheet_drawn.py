"""The lei's sheet as a viewer's part and the tablet draw it: a corrected round drawn again and
kept marked, each language its own words, the tablet's rows with their edit links and the
viewer's without, and no template comment shown as text."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from scoring import access
from scoring.lei import services, viewer_views
from scoring.lei.clubfile import club_to_file
from scoring.lei.clubfile_import import club_import
from scoring.models import Session
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


def test_a_corrected_round_stays_marked_with_the_session_through_undo_backup_and_migration(
    client, club
):
    """``Session.corrected_rounds``: kept by the write that corrects, read with the session
    (no read of the audit log to draw the sheet), still marked when the round is undone and
    played again, restored from a club's backup and filled from the audit log by migration
    0024."""
    session = make_session(club)
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    session.refresh_from_db()
    outcome = services.round_replace_events(
        session=session,
        number=2,
        events=[{"type": "knock", "player": "Anne"}, {"type": "win", "player": "Cees"}],
        version=session.version,
        key="correct-2",
    )
    assert session.corrected_rounds == [2]  # the caller's instance follows the write
    services.session_undo(session=session, version=outcome.version, key="undo-2")
    record(session, "win", "Dirk")
    session.refresh_from_db()
    assert session.corrected_rounds == [2]
    assert "verbeterd" in viewer_part(client, session)

    data = club_to_file(club)
    data["club"]["slug"] = "reservekopie"
    for entry in data["sessions"]:
        entry["scorer_token"] = None  # the original's links are this database's already
    copy = club_import(data=data)
    assert [s.corrected_rounds for s in Session.objects.filter(club=copy)] == [[2]]

    Session.objects.filter(pk=session.pk).update(corrected_rounds=[])
    migration = importlib.import_module("scoring.migrations.0024_session_corrected_rounds")
    migration.corrected_from_the_audit_log(apps, None)
    session.refresh_from_db()
    assert session.corrected_rounds == [2]


def test_a_viewers_sheet_is_drawn_once_for_the_changes_that_leave_it_as_it_was(client, club):
    """The viewer's sheet is kept by what it is drawn from (``viewer_views.viewer_sheet``): a
    knock or a fold draws the live line above it and takes the sheet as it was; a round that
    ends, a correction and a round undone and played again as it was each draw it anew."""
    session = make_session(club)
    record(session, "win", "Anne")
    record(session, "win", "Bas")
    viewer_views.SHEETS.clear()
    first = viewer_part(client, session)
    record(session, "knock", "Cees")
    knocked = viewer_part(client, session)
    assert len(viewer_views.SHEETS.drawings) == 1  # the same sheet, under a new live line
    assert knocked != first
    assert sheet_of(knocked) == sheet_of(first)
    record(session, "win", "Cees")
    ended = viewer_part(client, session)
    assert len(viewer_views.SHEETS.drawings) == 2
    assert sheet_of(ended) != sheet_of(first)
    session.refresh_from_db()
    services.round_replace_events(
        session=session,
        number=3,
        version=session.version,
        key="same-again",
        events=[{"type": "knock", "player": "Cees"}, {"type": "win", "player": "Cees"}],
    )  # fmt: skip: round 3 as it was played, now marked "verbeterd"
    marked = viewer_part(client, session)
    assert "badge--fixed" in sheet_of(marked)
    assert "badge--fixed" not in sheet_of(ended)


def sheet_of(part: str) -> str:
    return part[part.index('id="totals"') :]


def test_a_rounds_row_is_drawn_once_and_anew_when_anything_it_shows_differs():
    """``jinja.sheet_row`` keeps a row by what it is drawn from: the same row is the same
    drawing, as the template draws it; a row that differs in what it shows, its language, its
    edit link or the game's kind is drawn anew."""
    from dataclasses import replace

    from django.utils import translation

    from scoring.lei import jinja
    from scoring.lei.tablet import Cell, HistoryRow

    row = HistoryRow(7, 2, "Anne", False, [Cell(points=2, won=True), Cell(points=0, folded=True)])
    with translation.override("nl"):
        drawn = jinja.sheet_row(row, None, False)
        assert jinja.sheet_row(replace(row, cells=list(row.cells)), None, False) is drawn
        jinja.ROWS.clear()
        assert jinja.sheet_row(row, None, False) == drawn  # as drawn without keeping
        for words in ("won de laatste slag", "weg", "inzet 2"):
            assert words in drawn
        others = [
            jinja.sheet_row(replace(row, corrected=True), None, False),
            jinja.sheet_row(replace(row, stake=3), None, False),
            jinja.sheet_row(
                replace(row, cells=[Cell(points=2, won=True, jack=True), Cell(0)]), None, False
            ),
            jinja.sheet_row(row, 41, False),  # the tablet's, with its edit link
            jinja.sheet_row(row, None, True),  # the pot game: no stake
        ]
    with translation.override("en"):
        others.append(jinja.sheet_row(row, None, False))
    assert len({drawn, *others}) == 1 + len(others)
    for words, among in (("verbeterd", 0), ("boer", 2), ("/41/", 3), ("won the last trick", 5)):
        assert words in others[among]
    assert "inzet" not in others[4]
