"""Fixtures for real browser tests: headless Chromium (Debian's) driven by Playwright.

Usage, in ``tests/browser/test_<page>.py``::

    import pytest

    pytestmark = pytest.mark.browser

    def test_the_sheet_shows_the_totals(page, base_url, screenshot_dir):
        page.goto(base_url + "/")
        assert page.title() == "De digitale lei"
        page.screenshot(path=screenshot_dir / "home.png", full_page=True)

- ``browser``: one Chromium for the whole run (``/usr/bin/chromium``, or ``$CHROMIUM``).
  Playwright's own browser download (``playwright install``) is not used.
- ``page``: a fresh browser context per test (no cookies carried over), 768 x 1024 like a
  tablet in portrait, Dutch (``nl-NL``) as the browser language. Change the size with
  ``page.set_viewport_size({"width": 375, "height": 812})``.
- ``base_url`` (and ``live_server.url``): the app served the way it is deployed (README,
  "Production"): gunicorn, DEBUG off, the static files from ``collectstatic`` under the manifest
  storage (``tests/browser/deployed_settings.py`` says what else differs, and why), on the test
  database (PostgreSQL when ``DATABASE_URL`` says so, as in CI; else SQLite, then a file). Started
  once per run, or under ``pytest -n`` (pytest-xdist) once per worker: on a free port, on that
  worker's test database, logging to ``test-artifacts/server-gw0.log`` and so on (``server.log``
  without workers); ``collectstatic`` runs once for them all. This ``live_server`` takes the
  place of pytest-django's, so tests that use it still get a transactional database: data made
  in the test is visible to the server. A test during which the server logged a traceback fails.
- ``push_url``: the streams' server beside it (gunicorn with uvicorn's worker on
  ``toepen_site.asgi``, the same settings and database), whose pages push; PostgreSQL only.
- ``screenshot_dir``: ``test-artifacts/screenshots/`` (git-ignored). A failing browser test
  leaves a screenshot there by itself, named after the test.

Every test in this folder is marked ``browser`` (``-m "not browser"`` leaves them out). Without
Chromium they are skipped, except when ``CI`` is set: then they fail, so CI never passes
without having run them.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.outbox import NETWORK
from tests.browser.pages import TABLET, console_errors

# Playwright's sync API runs an asyncio event loop in the test's thread, and Django refuses
# database access from a thread with a running loop. The tests are still synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root in a container
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # no calls home: the only host is the live server
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parent.parent.parent
ARTIFACTS = ROOT / "test-artifacts"
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    # Keep each phase's report on the item, so the page fixture knows the test failed.
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


# With pytest-xdist, each worker's name (gw0, gw1, ...): its servers' logs carry it.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def _log(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / (f"{name}-{WORKER}.log" if WORKER else f"{name}.log")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser tests (see .ci/run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        _unavailable(
            f"no Chromium at {CHROMIUM}: apt-get install chromium chromium-driver "
            "(or set CHROMIUM to its path)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -r requirements.txt)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def screenshot_dir() -> Path:
    path = ARTIFACTS / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


class DeployedServer:
    """gunicorn serving the app in production mode, in a process group of its own: the sync
    server of the pages and taps, or with ``asgi`` the streams' server (uvicorn's worker on
    ``toepen_site.asgi``, one worker, as README "Production" runs it).

    pytest-django calls ``_live_server_modified_settings.enable()`` and ``.disable()`` around
    each test that uses ``live_server``: here they mark where the test's part of the server's
    log begins, and fail the test if the server logged a traceback (a 500) meanwhile."""

    def __init__(self, log: Path, *, asgi: bool = False) -> None:
        self.url = ""
        self.log = log
        self.asgi = asgi
        self.env: dict[str, str] = {}
        self.process: subprocess.Popen | None = None
        self._live_server_modified_settings = self
        self._mark = 0

    def start(self, env: dict[str, str]) -> None:
        self.env = env
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        if self.asgi:
            command = [sys.executable, "-m", "gunicorn", "toepen_site.asgi:application"]
            command += ["-b", f"127.0.0.1:{port}", "-w", "1"]
            command += ["-k", "uvicorn_worker.UvicornWorker"]
        else:
            command = [sys.executable, "-m", "gunicorn", "toepen_site.wsgi:application"]
            # Two workers of four threads: the taps of two tablets, the viewers' polls and a
            # page load at once, as the in-process server of pytest-django took them.
            command += ["-b", f"127.0.0.1:{port}", "-w", "2", "--threads", "4"]
        command += ["--graceful-timeout", "5"]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(self.url + "/lei-sw.js", timeout=2):  # noqa: S310
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not come up; its log: {self.log}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def enable(self) -> None:
        self._mark = self.log.stat().st_size

    def disable(self) -> None:
        with self.log.open("rb") as log:
            log.seek(self._mark)
            logged = log.read().decode(errors="replace")
        if "Traceback" in logged:
            pytest.fail(f"the server logged an error during the test:\n{logged}", pytrace=False)


def _deployed_env() -> dict[str, str]:
    from django.conf import settings
    from django.db import connections

    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        DJANGO_SETTINGS_MODULE="tests.browser.deployed_settings",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=settings.SECRET_KEY,
        LEI_DATABASE_NAME=str(connections["default"].settings_dict["NAME"]),
    )
    return env


def _collected_static(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    """``collectstatic`` into a folder of the run, once: of xdist's workers the first to need it
    collects (seconds of CPU, minifying and compressing) while the others wait on the lock."""
    base = tmp_path_factory.getbasetemp()
    run = base.parent if WORKER else base  # xdist gives each worker a folder in the run's own
    static_root = run / "static"
    with (run / "static.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (static_root / "staticfiles.json").exists():
            return static_root
        collected = subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            env={**env, "LEI_STATIC_ROOT": str(static_root)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if collected.returncode:
            pytest.fail(f"collectstatic failed:\n{collected.stderr}", pytrace=False)
    return static_root


@pytest.fixture(scope="session")
def live_server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[DeployedServer]:
    from django.db import connection

    if connection.vendor == "sqlite":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            # readers and a writer at once; kept in the file, for the server's connections too
            cursor.execute("PRAGMA journal_mode=WAL")
    env = _deployed_env()
    env["LEI_STATIC_ROOT"] = str(_collected_static(tmp_path_factory, env))
    server = DeployedServer(_log("server"))
    server.start(env)
    yield server
    server.stop()


@pytest.fixture
def base_url(live_server) -> str:
    return live_server.url


@pytest.fixture(scope="session")
def push_server(request: pytest.FixtureRequest) -> Iterator[DeployedServer]:
    """The streams' server beside ``live_server``, on the same settings and database: its
    pages push (PostgreSQL only, as push is: skipped on SQLite, before any server starts)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("push needs PostgreSQL's NOTIFY")
    server = DeployedServer(_log("push-server"), asgi=True)
    server.start(request.getfixturevalue("live_server").env)
    yield server
    server.stop()


@pytest.fixture
def push_url(push_server) -> Iterator[str]:
    """``push_server``'s address; the test fails if that server logged a traceback meanwhile."""
    push_server.enable()
    yield push_server.url
    push_server.disable()


@pytest.fixture
def page(browser, request: pytest.FixtureRequest, screenshot_dir: Path) -> Iterator[object]:
    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    context.set_default_timeout(10_000)
    errors = console_errors(context)
    page = context.new_page()
    yield page
    report = getattr(request.node, "report_call", None)
    failed = report is not None and report.failed
    if failed:
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        page.screenshot(path=screenshot_dir / f"FAILED-{name}.png", full_page=True)
    context.close()
    if errors and not failed:
        pytest.fail("the browser console showed errors:\n" + "\n".join(errors), pytrace=False)


# The tablet in a browser context that forgives the network errors an offline tablet logs
# (tests/browser/outbox.py), for the outbox's tests in several modules.
@pytest.fixture
def context(browser):
    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    context.set_default_timeout(15_000)
    errors = console_errors(context)
    yield context
    context.close()
    assert [e for e in errors if not NETWORK.search(e)] == []


@pytest.fixture
def tablet(context):
    return context.new_page()


@pytest.fixture(scope="session")
def nginx_url(live_server, tmp_path_factory) -> Iterator[str]:
    """deploy/nginx.conf (tests/browser/nginx.py renders it, without TLS) in front of a pages'
    server and a streams' server of its own, both with ``PUSH=on`` as README "Production" runs
    them, on ``live_server``'s settings and database; nginx as the current user, its files in a
    folder of the run. PostgreSQL only, as push is."""
    from django.db import connection

    from tests.browser import nginx

    if connection.vendor != "postgresql":
        pytest.skip("push needs PostgreSQL's NOTIFY")
    if not nginx.NGINX.exists():
        _unavailable("nginx is not installed (.ci/run installs it)")
    env = {**live_server.env, "PUSH": "on"}
    pages = DeployedServer(_log("nginx-pages"))
    streams = DeployedServer(_log("nginx-streams"), asgi=True)
    pages.start(env)
    streams.start(env)
    folder = tmp_path_factory.mktemp("nginx")
    port = nginx.free_port()
    main = nginx.render(
        folder,
        port=port,
        pages=pages.url.removeprefix("http://"),
        streams=streams.url.removeprefix("http://"),
        static=Path(env["LEI_STATIC_ROOT"]),
    )
    command = [str(nginx.NGINX), "-p", str(folder), "-c", str(main), "-g", "daemon off;"]
    with _log("nginx").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(url + "/lei-sw.js", timeout=2):  # noqa: S310
                break
        except OSError:
            time.sleep(0.1)
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=15)
    streams.stop()
    pages.stop()


@pytest.fixture
def strict_screen(browser):
    """``strict_screen(size, scheme="light", bypass_csp=True)``: a fresh Dutch page of that
    size; console errors fail the test as in the ``page`` fixture. ``bypass_csp`` lets a test
    inject axe-core past the Content-Security-Policy (only the test adds a script)."""
    contexts = []

    def open_page(size: dict[str, int], scheme: str = "light", bypass_csp: bool = True):
        context = browser.new_context(
            viewport=size, locale="nl-NL", bypass_csp=bypass_csp, color_scheme=scheme
        )
        context.set_default_timeout(10_000)
        contexts.append((context, console_errors(context)))
        return context.new_page()

    yield open_page
    errors = []
    for context, found in contexts:
        errors += found
        context.close()
    assert not errors, "the browser console showed errors:\n" + "\n".join(errors)
