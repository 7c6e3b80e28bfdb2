"""A viewer's page in Chromium, served by the streams' server as deployed (README,
"Production": gunicorn with uvicorn's worker, DEBUG off, collectstatic's manifest), takes the
change a tablet on the pages' server (gunicorn's sync workers) made from its stream, and sends
no poll meanwhile. Skipped without PostgreSQL, as push is."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring import access
from tests.browser.test_outbox import (
    context,  # noqa: F401 (a fixture)
    make_table,
    open_tablet,
    tablet,  # noqa: F401 (a fixture)
    tap,
)

pytestmark = pytest.mark.browser


def test_a_viewer_page_is_pushed_a_tap_and_does_not_poll(
    page,
    push_url,
    tablet,  # noqa: F811
    base_url,
):
    session = make_table()
    polls: list[str] = []
    streams: list[str] = []
    page.on(
        "request",
        lambda r: (
            (streams if "/stroom/" in r.url else polls).append(r.url)
            if "/stroom/" in r.url or r.headers.get("hx-request") == "true"
            else None
        ),
    )
    viewer = access.viewer_token(session.pk, session.viewer_key or "")
    page.goto(f"{push_url}/kijk/{viewer}/")
    expect(page.locator("body")).to_have_attribute("data-push", "/stroom/")
    page.wait_for_timeout(3500)  # past the page's 3 s poll: held back while the stream is open
    assert streams, "the page opened no stream"

    open_tablet(tablet, base_url, session)  # the other server: the tap reaches it by NOTIFY
    tap(tablet, "Toep: Bas")
    expect(tablet.locator("html")).to_have_attribute("data-taps-waiting", "0")
    session.refresh_from_db()
    expect(page.locator("#live")).to_have_attribute(
        "data-etag", re.compile(rf"lei-{session.pk}-{session.version}-"), timeout=10_000
    )
    page.wait_for_timeout(500)
    assert polls == []
    assert len(streams) == 1  # one stream, never opened again
