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
- ``base_url``: the address of pytest-django's ``live_server`` (a real server in a thread, on
  the test database; tests that use it get a transactional database, so data made in the test
  is visible to the server).
- ``screenshot_dir``: ``test-artifacts/screenshots/`` (git-ignored). A failing browser test
  leaves a screenshot there by itself, named after the test.

Every test in this folder is marked ``browser`` (``-m "not browser"`` leaves them out). Without
Chromium they are skipped, except when ``CI`` is set: then they fail, so CI never passes
without having run them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

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
TABLET = {"width": 768, "height": 1024}
ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts"
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


@pytest.fixture
def base_url(live_server) -> str:
    return live_server.url


def console_errors(context) -> list[str]:
    """Collect every console error and uncaught exception of the context's pages from now on.

    A page that works leaves this empty; a Content-Security-Policy violation (an inline style
    htmx set, say) is a console error, so this is how the browser tests see one.
    """
    errors: list[str] = []

    def watch(page) -> None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))

    context.on("page", watch)
    return errors


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
