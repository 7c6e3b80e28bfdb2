"""`manage.py replay`: the lei in the terminal, JSON, standard input, and bad files.

Run through ``call_command`` (tests/engine/commands.py); two tests run the real command line in a
process of its own, since there the process is what is tested: a session on standard input
answered as JSON on standard output, and a refusal as exit status 1 with one line on stderr."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.engine.commands import replay_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT.parent / "shared" / "rules-examples"


def run_replay_process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The real ``python manage.py replay``, in a process of its own."""
    return subprocess.run(
        [sys.executable, "manage.py", "replay", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def finished_session() -> dict:
    # Bas reaches 9 (armoede: the stake opens at 2), loses again and is out on 11.
    return {
        "format": "toepen/1",
        "players": ["Anne", "Bas"],
        "start": {"Anne": 5, "Bas": 8},
        "rounds": [
            {"events": [{"type": "win", "player": "Anne"}]},
            {"events": [{"type": "win", "player": "Anne", "jack": True}]},
        ],
    }


def test_lei_shows_players_as_columns_rounds_as_rows_and_the_toepkoning():
    out = io.StringIO()
    path = EXAMPLES / "06-armoede.json"
    call_command("replay", str(path), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["ronde", "inzet", "winnaar", "A", "B", "C", "D"]
    assert lines[2].split() == ["start", "9", "3", "5", "0"]
    assert lines[3].split() == ["1", "2", "C", "11", "4", "5", "1"]
    assert "A is dood met 11" in lines[4]
    assert lines[-1] == "Nog bezig."


def test_lei_crowns_the_toepkoning_and_marks_a_boer_win(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(finished_session()))
    run = replay_command(str(path))
    assert run.returncode == 0, run.stderr
    assert "Toepkoning: Anne" in run.stdout
    assert "4+" in run.stdout  # Anne's total after her boer win, with the boer mark
    assert "Bas is dood met 11" in run.stdout


def test_json_from_standard_input():
    run = run_replay_process("-", "--json", stdin=json.dumps(finished_session()))
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["finished"] is True
    assert result["winner"] == "Anne"
    assert result["totals"] == {"Anne": 4, "Bas": 11}
    assert result["eliminated"] == ["Bas"]


def test_refused_session_exits_1_with_one_line_on_stderr():
    data = finished_session()
    data["rounds"][0]["events"].insert(0, {"type": "fold", "player": "Bas"})
    run = run_replay_process("-", "--json", stdin=json.dumps(data))
    assert run.returncode == 1
    assert run.stderr.strip() == "round 1, event 1: Bas has no raise to answer"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "toepen/1", "players": ["A",', "is not JSON"),
        ("[]", "not a valid session file: the file must hold one JSON object"),
        ('{"players": ["A", "B"]}', 'not a valid session file: "format" must be "toepen/1"'),
    ],
)
def test_a_file_that_is_not_a_session_says_so(text, message):
    run = replay_command("-", "--json", stdin=text)
    assert run.returncode == 1
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("replay", str(tmp_path / "nope.json"))


def test_replay_shows_a_session_exported_mid_round_so_far_instead_of_refusing_it():
    data = finished_session()
    data["rounds"].append({"events": [{"type": "knock", "player": "Anne"}]})
    data["start"] = {"Anne": 0, "Bas": 0}
    run = replay_command("-", stdin=json.dumps(data))
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip().endswith("Nog bezig.")
    as_json = replay_command("-", "--json", stdin=json.dumps(data))
    assert as_json.returncode == 0, as_json.stderr
    result = json.loads(as_json.stdout)
    assert result["finished"] is False
    assert result["totals"] == {"Anne": -1, "Bas": 2}  # as after round 2


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("[" * 200_000 + "]" * 200_000, "nested deeper than 32"),
        ('{"n": ' + "9" * 5000 + "}", "a number too long to read"),
    ],
)
def test_a_hostile_file_is_a_message_not_a_traceback(stdin, message):
    run = replay_command("-", stdin=stdin)
    assert run.returncode == 1
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_a_file_that_is_not_utf8_says_so(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"format": "toepen/1", "players": ["B\xe9s", "Anne"]}')
    run = replay_command(str(path))
    assert run.returncode == 1
    assert "not UTF-8 text" in run.stderr
