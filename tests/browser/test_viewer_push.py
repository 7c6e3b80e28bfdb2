"""A viewer's page in Chromium against a real ASGI server (uvicorn, PostgreSQL) takes a tap's
change from its stream, and sends no poll meanwhile (tests/push/test_push.py starts the
servers). Skipped without PostgreSQL, as push is."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from tests.push.test_push import pytestmark, tablet, tap, world  # noqa: F401 (the fixture)


def test_a_viewer_page_is_pushed_a_tap_and_does_not_poll(page, world):  # noqa: F811
    pk, base = world.ids["pk"], world.bases[1]
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
    page.goto(f"{base}/kijk/{world.ids['viewer']}/")
    expect(page.locator("body")).to_have_attribute("data-push", "/stroom/")
    page.wait_for_timeout(3500)  # past the page's 3 s poll: held back while the stream is open
    assert streams, "the page opened no stream"
    client, csrf = tablet(world.bases[0], world)  # through the other server
    version = tap(client, csrf, world)
    client.close()
    expect(page.locator("#live")).to_have_attribute(
        "data-etag", re.compile(rf"lei-{pk}-{version}-"), timeout=10_000
    )
    page.wait_for_timeout(500)
    assert polls == []
    assert len(streams) == 1  # one stream, never opened again
    assert httpx.get(base + "/", timeout=5).status_code == 200  # the server is still there
