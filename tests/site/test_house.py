"""The house keeps its shape: rooms that import one way, modules a person can read.

The rooms stand in one order, from the engine up, each built on the ones before it (``ROOMS``,
the order of the README's map): a module imports its own room and the rooms before it, never one
after it. Every import in ``scoring/`` counts, at the top of a module, inside a function or under
``TYPE_CHECKING``: an import of a later room, even a type-only one, ties a room to one that is
built on it, and the rooms become one knot. The engine may be long (``game.py`` follows RULES.md
section by section); every other module stays short enough to read in one sitting.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCORING = ROOT / "scoring"
MAX_LINES = 650
LONG_ALLOWED = {"scoring/engine/game.py"}

# The rooms from the engine up, each with the modules or packages it holds. A room may import
# itself and the rooms before it. A new module goes into a room here, or the house test fails
# (``scoring`` itself names the package's ``__init__`` only, not what lies in it).
ROOMS: list[tuple[str, tuple[str, ...]]] = [
    # The rules of RULES.md: pure Python, imports nothing of the app or of Django.
    ("engine", ("scoring.engine",)),
    # What every room shares and that knows no model: names, the evening's day, a write's actor
    # and refusal, HTTP answers (private, refused, CSV, uncompressed), pictures, the toepen/1
    # file to and from rows, the NOTIFY of a write.
    (
        "base",
        (
            "scoring.names",
            "scoring.days",
            "scoring.writes",
            "scoring.http",
            "scoring.svg",
            "scoring.figures",
            "scoring.labels",
            "scoring.picture",
            "scoring.sessionfile",
            "scoring.notify",
        ),
    ),
    # The data, and the hot path's reads of it written out (scoring/models/hotsql.py).
    ("models", ("scoring.models",)),
    # Who may do what, and the admin's scoping by club built on it.
    ("access", ("scoring.access", "scoring.admin_base")),
    # A club's ratings over its games: every room that changes a game asks them to refresh.
    ("ratings", ("scoring.ratings",)),
    ("clubs", ("scoring.clubs",)),
    ("lei", ("scoring.lei",)),
    ("league", ("scoring.league",)),
    ("toernooi", ("scoring.toernooi",)),
    ("evening", ("scoring.evening",)),
    ("push", ("scoring.push",)),
    # What ties the rooms together: URLs, the admin's one file, commands, template tags.
    (
        "site",
        (
            "scoring",
            "scoring.urls",
            "scoring.admin",
            "scoring.apps",
            "scoring.management",
            "scoring.templatetags",
        ),
    ),
]


def python_files() -> Iterator[Path]:
    for path in sorted(SCORING.rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, known: set[str], here: str | None = None) -> set[str]:
    """The ``scoring`` modules that ``path`` imports, anywhere in the file."""
    here = here or module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in names:
            # ``from scoring.lei import services`` imports the module scoring.lei.services
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != here and not here.startswith(name + "."):
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = list(python_files())
    known = {module_name(p) for p in paths}
    graph = {module_name(p): imports_of(p, known) for p in paths}
    # A package's __init__ is imported on the way to its modules: not an edge of its own.
    return {m: {t for t in targets if t != "scoring"} for m, targets in graph.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def room_of(module: str) -> int | None:
    """The place in ``ROOMS`` of the room that holds ``module``: the longest name that holds it."""
    places = [
        (len(name), place)
        for place, (_, names) in enumerate(ROOMS)
        for name in names
        if module == name or (name != "scoring" and module.startswith(name + "."))
    ]
    return max(places)[1] if places else None


def imports_upwards(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a room after the importing module's, as ``a (room) -> b (room)``."""
    found = []
    for module, targets in sorted(graph.items()):
        here = room_of(module)
        for target in sorted(targets):
            there = room_of(target)
            if here is not None and there is not None and there > here:
                found.append(f"{module} ({ROOMS[here][0]}) -> {target} ({ROOMS[there][0]})")
    return found


def test_every_module_stands_in_a_room():
    assert [module for module in import_graph() if room_of(module) is None] == []


def test_a_new_module_stands_in_no_room_until_it_is_placed():
    assert room_of("scoring.brandnew") is None
    assert room_of("scoring.brandnew.views") is None
    assert ROOMS[room_of("scoring.lei.brandnew")][0] == "lei"
    assert ROOMS[room_of("scoring")][0] == "site"


def test_no_room_imports_a_later_room():
    assert imports_upwards(import_graph()) == []


def test_an_import_upwards_is_found():
    graph = {
        "scoring.clubs.admin": {"scoring.lei.funnel", "scoring.models"},
        "scoring.access": {"scoring.league.standings"},
        "scoring.lei.funnel": {"scoring.clubs.services", "scoring.notify"},
    }
    assert imports_upwards(graph) == [
        "scoring.access (access) -> scoring.league.standings (league)",
        "scoring.clubs.admin (clubs) -> scoring.lei.funnel (lei)",
    ]


def test_no_circle_of_imports_in_scoring():
    assert cycles(import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_type_only_import_counts(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from scoring.lei import services\n"
        "def f():\n"
        "    from scoring.models import Session\n"
    )
    known = {"scoring.lei.services", "scoring.models", "scoring.lei", "scoring"}
    found = imports_of(module, known, here="scoring.league.m")
    assert found == {"scoring.lei", "scoring.lei.services", "scoring.models"}


def test_no_module_longer_than_one_sitting():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in python_files()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert set(long) <= LONG_ALLOWED, long


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


def pinned(path: Path) -> set[str]:
    """The package names a requirements file pins itself (not those of a file it includes)."""
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return {line.split("==")[0].split("[")[0].lower() for line in lines if "==" in line}


def test_the_app_requirements_hold_no_test_or_benchmark_tool():
    """``make run`` and production install requirements.txt alone: no tool of the tests or the
    benchmarks comes with it, and neither file pins again what the app runs on."""
    app = pinned(ROOT / "requirements.txt")
    tools = pinned(ROOT / "requirements-test.txt") | pinned(ROOT / "requirements-bench.txt")
    assert {"django", "gunicorn"} <= app
    assert {"pytest", "playwright", "ruff", "granian"} <= tools
    assert app & tools == set()
