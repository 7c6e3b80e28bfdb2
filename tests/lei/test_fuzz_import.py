"""``manage.py import_session`` with damaged files: cut off, wrong types, parts deleted or
doubled, odd unicode in names. Each run either stops with a clear message (a ``CommandError``
with text) and writes nothing, or imports a session whose stored projection equals a fresh
replay of its file. Nothing else (a traceback, a database error) is allowed.
"""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine.simulate import random_session
from scoring.models import Session
from tests.builders import example_files
from tests.safety import FUZZ, note, projection_problems, row_counts

# Names and texts a file may hold: every plane of unicode, control characters, NUL, RTL marks.
ODD_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "\x00", "Ånne\u200f", "👑🍺", "A" * 300, "anne", "ANNE", "null"]),
)
ODD_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    ODD_TEXT,
    st.lists(st.integers(), max_size=3),
    st.dictionaries(ODD_TEXT, st.integers(), max_size=2),
)


def sources() -> list[dict[str, Any]]:
    files = [json.loads(p.read_text()) for p in example_files()]
    rng = random.Random(7)
    for n in range(6):
        players = ["Anne", "Bas", "Cees", "Dirk", "Eva"][: 3 + n % 3]
        files.append(random_session(rng, players, rounds=12, open_last=n % 2 == 0))
    return files


SOURCES = sources()


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*prefix, index))
    return found


def parent_of(data: Any, path: tuple) -> Any:
    for step in path[:-1]:
        data = data[step]
    return data


def mutate(data: dict[str, Any], draw: Any) -> str:
    """The file's text after one to three random damages."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "retype", "rename", "double", "truncate"]))
        places = paths(data)
        if kind == "truncate" or not places:
            text = json.dumps(data, ensure_ascii=False)
            return text[: draw(st.integers(0, max(0, len(text) - 1)))]
        path = draw(st.sampled_from(places))
        parent, last = parent_of(data, path), path[-1]
        if kind == "delete":
            del parent[last]
        elif kind == "retype":
            parent[last] = draw(ODD_VALUE)
        elif kind == "double" and isinstance(parent, list):
            parent.insert(last, json.loads(json.dumps(parent[last])))
        elif kind == "rename":
            players = data.get("players")
            names = [p for p in players if isinstance(p, str)] if isinstance(players, list) else []
            if names:
                old, new = draw(st.sampled_from(names)), draw(ODD_TEXT)
                data = json.loads(json.dumps(data).replace(json.dumps(old), json.dumps(new)))
    return json.dumps(data, ensure_ascii=False)


TRIED = {"files": 0, "refused": 0, "imported": 0}


@pytest.fixture(autouse=True, scope="module")
def note_import_figures():
    """What this file's tests tried, for bench/safety.py: noted after the last of them, whichever
    of them ran and in whatever order."""
    yield
    note("import_session", **TRIED)


@pytest.mark.django_db
@settings(FUZZ, max_examples=150)
@given(st.data())
def test_a_damaged_session_file_is_refused_clearly_or_imported_whole(tmp_path_factory, data):
    source = json.loads(json.dumps(data.draw(st.sampled_from(SOURCES))))
    text = mutate(source, data.draw)
    path = tmp_path_factory.mktemp("fuzz") / "session.json"
    path.write_text(text, encoding="utf-8")
    before = row_counts()
    out = io.StringIO()
    TRIED["files"] += 1
    refusal = ""
    try:
        call_command(
            "import_session", str(path), "--club", "fuzz", stdout=out, stderr=io.StringIO()
        )
    except CommandError as error:
        refusal = str(error)
    if refusal:
        TRIED["refused"] += 1
        assert refusal.strip(), "a refusal says why"
        assert "Traceback" not in refusal
        assert row_counts() == before, "a refused file writes nothing"
        return
    TRIED["imported"] += 1
    session = Session.objects.get(pk=int(out.getvalue().strip()))
    assert projection_problems(session) == []


@pytest.mark.django_db
def test_a_name_that_differs_from_a_players_only_in_non_ascii_case_is_found():
    """Found by the fuzzer: SQLite's lower() folds ASCII letters only, so "ÅNNE" missed "Ånne"
    in Python's lowering, clashed with the database's unique index and crashed the import."""
    from scoring.lei import services
    from scoring.models import Club

    club = Club.objects.create(name="Fuzz", slug="fuzz")
    first = {"format": "toepen/1", "players": ["Ånne", "Bas"], "rounds": []}
    second = {"format": "toepen/1", "players": ["ÅNNE", "Bas"], "rounds": []}
    services.session_import(club=club, data=first)
    services.session_import(club=club, data=second)
    assert club.players.filter(name__in=["Ånne", "ÅNNE", "ånne"]).count() >= 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("players", "events", "message"),
    [
        (["A" * 41, "Bas"], [], "longer than 40 characters"),
        (["An\x00ne", "Bas"], [], "NUL"),
        (
            ["Anne", "Bas"],
            [{"type": "penalty", "player": "Anne", "points": 1, "reason": "\x00"}],
            "NUL",
        ),
        (["Anne", "Bas"], [{"type": [], "player": "Anne"}], "unknown"),
    ],
)
def test_what_the_fuzzer_found_is_refused_with_a_message(tmp_path, players, events, message):
    """Found by the fuzzer: names too long for the column and NUL characters (PostgreSQL stores
    neither) and an event type that is a list (the engine's set lookup raised TypeError)."""
    path = tmp_path / "session.json"
    file = {"format": "toepen/1", "players": players, "rounds": [{"events": events}]}
    path.write_text(json.dumps(file))
    before = row_counts()
    with pytest.raises(CommandError, match=message):
        call_command("import_session", str(path), "--club", "fuzz", stdout=io.StringIO())
    assert row_counts() == before
