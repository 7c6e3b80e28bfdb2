"""The engine is plain Python: the web app, the admin and the commands all go through it."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "scoring" / "engine"


def test_engine_package_imports_nothing_from_django():
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "django"]
    assert list(ENGINE.glob("*.py")), "the engine package is missing"
    assert offenders == []
