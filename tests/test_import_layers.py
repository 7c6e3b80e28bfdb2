"""The modules import one way: the session file knows no model, so that ``Session.to_file``
can call it from ``scoring/models.py`` without an import circle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules_loaded_by(module: str) -> set[str]:
    """The ``scoring`` modules a fresh interpreter has loaded after importing ``module``."""
    code = (
        f"import sys, {module}; "
        "print('\\n'.join(m for m in sys.modules if m.startswith('scoring')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def test_the_session_file_imports_no_model():
    assert "scoring.models" not in modules_loaded_by("scoring.sessionfile")


def test_the_engine_imports_nothing_of_django_or_the_app():
    loaded = modules_loaded_by("scoring.engine")
    assert {m for m in loaded if not m.startswith("scoring.engine")} <= {"scoring"}
