"""The production stack as deploy/ has it: Debian's nginx with deploy/nginx.conf in front of
gunicorn (pages and taps) and the stream server (gunicorn with uvicorn's worker, /stroom/
unbuffered), both with PUSH=on (tests/browser/conftest.py, ``nginx_url``). A tablet taps a round
through nginx while a phone's viewer, also through nginx, gets it from its stream, and nginx
serves the static files itself. Skipped without PostgreSQL, as push is."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring import access
from tests.browser.outbox import make_table, open_tablet, tap

pytestmark = pytest.mark.browser


def test_a_round_tapped_through_nginx_reaches_a_viewer_by_its_stream(
    browser, nginx_url, tablet, screenshot_dir
):
    session = make_table()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="nl-NL")
    viewer = phone.new_page()
    streams: list[str] = []
    polls: list[str] = []
    viewer.on(
        "request",
        lambda r: (
            (streams if "/stroom/" in r.url else polls).append(r.url)
            if "/stroom/" in r.url or r.headers.get("hx-request") == "true"
            else None
        ),
    )
    viewer.clock.install()
    with viewer.expect_request(lambda r: "/stroom/" in r.url):
        viewer.goto(
            f"{nginx_url}/kijk/{access.viewer_token(session.pk, session.viewer_key or '')}/"
        )
    expect(viewer.locator("body")).to_have_attribute("data-push", "/stroom/")

    open_tablet(tablet, nginx_url, session)
    tap(tablet, "Toep: Bas")
    tap(tablet, "Weg: Cees")
    tap(tablet, "Weg: Dirk")
    tap(tablet, "Mee: Anne")
    tap(tablet, "Laatste slag: Bas")
    expect(tablet.locator("#round-flash")).to_contain_text("Ronde 1: Bas wint")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    expect(viewer.locator("#live")).to_have_attribute(
        "data-etag", re.compile(rf"lei-{session.pk}-{session.version}-"), timeout=10_000
    )
    viewer.clock.run_for(3500)  # past the sheet's 3 s poll: held back, the stream carries it
    assert polls == []
    assert len(streams) == 1
    viewer.screenshot(path=screenshot_dir / "nginx-viewer.png", full_page=True)

    # nginx serves the hashed static files itself, for a year.
    css = viewer.evaluate("document.querySelector('link[rel=stylesheet]').href")
    answer = viewer.request.get(css)
    assert answer.status == 200
    assert "immutable" in answer.headers["cache-control"]
    assert answer.headers["server"].startswith("nginx")
    phone.close()
