"""The app as a pub gets it (tests/browser/conftest.py, ``live_server``: gunicorn, DEBUG off,
collectstatic's manifest): the service worker is served, and a tablet page reloaded without a
connection comes back from it with its hashed static files, the last lei and the outbox."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.outbox import button, drained, events, make_table, open_tablet, tap

pytestmark = pytest.mark.browser

HASHED = re.compile(r"^/static/.+\.[0-9a-f]{12}\.(js|css|svg|png)$")
CACHED = """caches.open('lei-tablet-v1').then((c) => c.keys())
    .then((keys) => keys.map((r) => new URL(r.url).pathname))"""


def test_the_server_runs_as_deployed_and_serves_the_service_worker(page, base_url):
    worker = page.request.get(base_url + "/lei-sw.js")
    assert worker.status == 200
    assert worker.headers["content-type"].startswith("text/javascript")
    assert 'const STATIC = "/static/";' in worker.text()
    missing = page.request.get(base_url + "/bestaat-niet/")
    assert missing.status == 404
    assert "URLconf" not in missing.text()  # DEBUG is off: no debug page


def test_a_tablet_page_reloaded_offline_shows_the_last_lei_and_its_outbox(
    tablet,
    context,
    base_url,
    screenshot_dir,
):
    session = make_table()
    open_tablet(tablet, base_url, session)
    tap(tablet, "Laatste slag: Anne")
    expect(tablet.locator("#round-flash")).to_contain_text("Ronde 1: Anne wint")
    # The files the page loaded, by the manifest's hashed names, are what the worker keeps.
    loaded = tablet.evaluate(
        "[...document.querySelectorAll('script[src], link[rel=stylesheet]')]"
        ".map((e) => new URL(e.src || e.href).pathname)"
    )
    assert loaded
    assert all(HASHED.match(path) for path in loaded), loaded
    kept = tablet.evaluate(CACHED)
    assert set(loaded) <= set(kept)

    context.set_offline(True)
    tap(tablet, "Toep: Bas")
    tablet.reload()  # no connection: the worker's copy, the lei kept by the page, the outbox
    expect(tablet.locator("#outbox")).to_contain_text("1 nog niet verstuurd: Toep Bas")
    expect(tablet.locator("#sheet")).to_contain_text("Anne")
    assert tablet.locator("#sheet tbody tr").count() >= 1  # round 1, won by Anne
    # Styled by the kept stylesheet (the browser alone leaves a margin of 8px).
    assert tablet.evaluate("getComputedStyle(document.body).margin") == "0px"
    tablet.screenshot(path=screenshot_dir / "deployed-offline-reload.png", full_page=True)

    context.set_offline(False)
    drained(tablet)
    assert events(session) == [("win", "Anne"), ("knock", "Bas")]
    assert button(tablet, "Mee: Anne").is_visible()
