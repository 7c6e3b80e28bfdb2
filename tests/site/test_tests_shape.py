"""The tests stay cheap to extend: no test module imports another (what they share lives in a
conftest.py or a helper module such as tests/builders.py), a fixture's name means one thing in
the whole suite (defined once, so a test's ``member`` is the same User wherever it is written, and
no module quietly overrides a shared one), and they do not sleep their time away
(a fake clock, ``clock`` in tests/conftest.py, moves time instead; in the browser, Playwright's
``page.clock``, or a wait for the condition itself)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# Seconds of literal sleeps (time.sleep, asyncio.sleep, Playwright's wait_for_timeout) the whole
# suite may hold: the few short waits in polling loops that wait for another process or thread
# to get somewhere, and the real time between taps that some browser tests are about.
SLEEP_BUDGET = 2.0


def modules() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)


def imported(tree: ast.AST, here: str) -> list[tuple[int, str]]:
    """Every module an ``import`` names, at any depth (in functions too), as a dotted name;
    ``from tests.x import test_y`` names ``tests.x.test_y`` as well as ``tests.x``."""
    found = []
    package = here.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def is_test_module(name: str) -> bool:
    return name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")


def is_conftest(name: str) -> bool:
    return name.startswith("tests.") and name.rsplit(".", 1)[-1] == "conftest"


def test_no_test_module_imports_another_or_a_conftest():
    wrong = []
    for path in modules():
        here = module_name(path)
        for line, name in imported(ast.parse(path.read_text()), here):
            if is_test_module(name) or is_conftest(name):
                wrong.append(f"{path.relative_to(TESTS.parent)}:{line} imports {name}")
    assert wrong == [], "\n".join(wrong)


def fixtures(tree: ast.AST) -> list[tuple[int, str]]:
    """Each function decorated with ``pytest.fixture`` or ``fixture`` (called or not), under the
    name pytest knows it by (``name=`` if given)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            if ast.unparse(call.func if call else decorator) not in {"pytest.fixture", "fixture"}:
                continue
            names = [k.value for k in (call.keywords if call else []) if k.arg == "name"]
            given = [n.value for n in names if isinstance(n, ast.Constant)]
            found.append((node.lineno, given[0] if given else node.name))
    return found


def test_each_fixture_name_is_defined_once_in_the_suite():
    # A second definition either copies the first (change one, forget the other) or overrides it
    # with another meaning in one module or room: one name, one definition, one meaning. What
    # differs gets a name of its own (``member_client`` beside ``scorer``).
    where: dict[str, list[str]] = {}
    for path in modules():
        for line, name in fixtures(ast.parse(path.read_text())):
            where.setdefault(name, []).append(f"{path.relative_to(TESTS.parent)}:{line}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert twice == {}, "\n".join(f"{n}: {', '.join(p)}" for n, p in sorted(twice.items()))


# What each waiting call's first argument counts in: seconds, or Playwright's milliseconds.
WAITS = {"sleep": 1.0, "wait_for_timeout": 0.001}


def sleeps(tree: ast.AST) -> list[tuple[int, float | None]]:
    """Each ``sleep(...)`` call (``time.sleep``, ``asyncio.sleep``, a bare ``sleep``) and each
    ``wait_for_timeout(...)`` (Playwright's, in milliseconds) with its seconds when they are
    written as a number, else None."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in WAITS:
            continue
        args = [*node.args, *(k.value for k in node.keywords if k.arg in {"timeout", "secs"})]
        seconds = args[0] if args else None
        if isinstance(seconds, ast.Constant) and isinstance(seconds.value, int | float):
            found.append((node.lineno, float(seconds.value) * WAITS[name]))
        else:
            found.append((node.lineno, None))
    return found


def test_the_suite_sleeps_at_most_two_seconds_and_only_for_written_numbers():
    total = 0.0
    unbounded = []
    for path in modules():
        for line, seconds in sleeps(ast.parse(path.read_text())):
            if seconds is None:
                unbounded.append(f"{path.relative_to(TESTS.parent)}:{line}")
            else:
                total += seconds
    # A sleep of a computed time cannot be summed: move the clock (``clock.shift``, or in the
    # browser ``page.clock.run_for``) instead.
    assert unbounded == [], unbounded
    assert total <= SLEEP_BUDGET, f"{total:.2f} s of sleeps in tests"


def test_the_shape_checks_see_what_they_look_for():
    source = (
        "import time\nfrom tests.lei import test_views_tablet\n"
        "def f():\n    from tests.conftest import x\n    time.sleep(1.5)\n    time.sleep(n)\n"
        "    page.wait_for_timeout(250)\n    page.wait_for_timeout(gap_ms)\n"
        "    page.wait_for_timeout(timeout=500)\n    page.clock.run_for(9_000)\n"
    )
    tree = ast.parse(source)
    names = [name for _, name in imported(tree, "tests.site.test_x")]
    assert any(is_test_module(n) for n in names)
    assert any(is_conftest(n) for n in names)
    assert sleeps(tree) == [(5, 1.5), (6, None), (7, 0.25), (8, None), (9, 0.5)]
    source = (
        "@pytest.fixture\ndef a(): ...\n@fixture(scope='module')\ndef b(): ...\n"
        "@pytest.fixture(name='c')\ndef make_c(): ...\n@other\ndef d(): ...\n"
        "class T:\n    @pytest.fixture(autouse=True)\n    async def e(self): ...\n"
    )
    assert fixtures(ast.parse(source)) == [(2, "a"), (4, "b"), (6, "c"), (11, "e")]
