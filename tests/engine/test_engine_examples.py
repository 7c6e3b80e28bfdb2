"""Every worked example of RULES.md §15, as a file in ../shared/rules-examples/, is a test."""

import json
from pathlib import Path

import pytest

from scoring.engine import Refusal, replay
from tests.engine.commands import replay_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT.parent / "shared" / "rules-examples"
CASES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def expected_for(path: Path) -> dict:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text())


def test_the_examples_are_there():
    assert len(CASES) >= 12, f"expected the worked examples in {EXAMPLES}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_engine_gives_the_expected_result(path):
    expected = expected_for(path)
    data = json.loads(path.read_text())
    if "refused" in expected:
        with pytest.raises(Refusal) as refusal:
            replay(data)
        assert str(refusal.value).startswith(expected["refused"] + ":")
    else:
        assert replay(data).to_json() == expected


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_replay_command_prints_the_expected_json(path):
    expected = expected_for(path)
    run = replay_command(str(path), "--json")
    if "refused" in expected:
        assert run.returncode == 1
        assert run.stdout == ""
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1
        assert lines[0].startswith(expected["refused"] + ":")
    else:
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == expected
