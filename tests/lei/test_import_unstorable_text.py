"""``import_session`` and ``import_club`` refuse a file whose JSON writes a character no
database stores, a lone surrogate such as ``"\\udcff"`` (half of a UTF-16 pair, no text), with a
clear message and nothing written: it was a UnicodeEncodeError (SQLite, PostgreSQL) or a
DataError of PostgreSQL's jsonb, and on SQLite some were stored and broke the pages later."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.builders import make_club, make_session, play_rounds
from tests.safety import row_counts

WIN = {"type": "win", "player": "Anne"}
PENALTY = {"type": "penalty", "player": "Anne", "points": 1, "reason": "\udcff"}


def session_file(**fields) -> dict:
    return {"format": "toepen/1", "players": ["Anne", "Bas"], "rounds": [], **fields}


# As the file writes them: JSON escapes, which json.dumps keeps.
FILES = {
    "a player": session_file(players=["\udcff", "Bas"], rounds=[{"events": [WIN]}]),
    "inside a name": session_file(players=["An\udcffne", "Bas"]),
    "the first half of an emoji": session_file(players=["\ud83d", "Bas"]),
    "a penalty's reason": session_file(rounds=[{"events": [PENALTY]}]),
    "the notes": session_file(notes="\udcff"),
    "a key of the file": {**session_file(), "\udcff": 1},
    "a table": session_file(table="\udcff"),
    "a team": session_file(
        players=["Anne", "Bas", "Cees", "Dirk"],
        teams={"\udcff": ["Anne", "Cees"], "Oost": ["Bas", "Dirk"]},
    ),
    "a rule's name": session_file(rules={"\udcff": 1}),
}


@pytest.mark.django_db
@pytest.mark.parametrize("where", list(FILES))
def test_a_lone_surrogate_in_a_session_file_is_refused_and_nothing_is_written(tmp_path, where):
    path = tmp_path / "session.json"
    path.write_text(json.dumps(FILES[where]))
    assert "\\udcff" in path.read_text() or "\\ud83d" in path.read_text()
    before = row_counts()
    with pytest.raises(CommandError, match="lone surrogate"):
        call_command("import_session", str(path), "--club", "nieuw", stdout=io.StringIO())
    assert row_counts() == before


@pytest.mark.django_db
def test_the_refusal_names_the_character_and_a_whole_emoji_is_imported(tmp_path):
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session_file(players=["Anne\udcff", "Bas"])))
    with pytest.raises(CommandError, match=r"\(\\udcff\)"):
        call_command("import_session", str(path), "--club", "nieuw", stdout=io.StringIO())
    # Both halves of a pair are one character: the emoji is text like any other.
    path.write_text(json.dumps(session_file(players=["\ud83d\udc51", "Bas"])))
    call_command("import_session", str(path), "--club", "nieuw", stdout=io.StringIO())


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["a player", "a session's notes", "a season"])
def test_a_lone_surrogate_in_a_club_export_is_refused_and_nothing_is_written(tmp_path, where):
    club = make_club()
    play_rounds(make_session(club), ["Anne"])
    out = io.StringIO()
    call_command("export_club", club.slug, stdout=out)
    data = json.loads(out.getvalue())
    data["club"]["slug"] = "elders"  # a club this database does not have yet
    if where == "a player":
        data["players"][0]["name"] = "\udcff"
    elif where == "a season":
        data["seasons"] = [{"name": "Winter\udcff", "starts_on": "2026-01-01"}]
    else:
        data["sessions"][0]["file"]["notes"] = "\udcff"
    path = tmp_path / "club.json"
    path.write_text(json.dumps(data))
    before = row_counts()
    with pytest.raises(CommandError, match="lone surrogate"):
        call_command("import_club", str(path), stdout=io.StringIO())
    assert row_counts() == before
