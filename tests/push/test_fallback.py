"""Without push the pages poll, and do not even try a stream: under the test client (WSGI) and
on SQLite, as ``make run`` serves them (scoring/push/context.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import access
from scoring.lei import services


@pytest.mark.django_db
def test_a_viewer_page_served_without_push_polls_and_opens_no_stream(client, club):
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    page = client.get(viewer)
    html = page.content.decode()
    assert 'hx-trigger="every 3s, shown"' in html  # the poll, as before
    assert "data-push=" not in html  # <body> names no stream: poll.js opens none
    # The viewer's own part, which a pushing server streams ("/" it would refuse either way).
    stream = client.get(reverse("push_stream"), {"deel": viewer})
    assert stream.status_code == 404  # and the stream's URL says push is off
