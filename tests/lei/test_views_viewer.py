"""The viewers' page: the same sheet read-only, polled with ETag/If-None-Match; query counts."""

from __future__ import annotations

import re
from html import escape, unescape

from django.urls import reverse

from scoring import access
from tests.builders import HX, play_rounds, record


def viewer_url(session, tv=False):
    return reverse("viewer", args=[access.viewer_token(session.pk)]) + ("?tv=1" if tv else "")


def test_the_viewer_shows_the_sheet_without_buttons(client, session):
    play_rounds(session, ["Cees"])
    html = client.get(viewer_url(session)).content.decode()
    assert 'id="sheet"' in html
    assert 'hx-trigger="every 3s, shown"' in html  # static/js/poll.js
    assert "data-poll-visible" in html
    assert 'value="knock"' not in html
    assert "/ronde/" not in html  # no correction links


def test_the_tv_mode_is_dark_and_large(client, session):
    html = client.get(viewer_url(session, tv=True)).content.decode()
    assert '<body class="tv"' in html


def test_the_live_round_line_tells_what_happened_in_words(client, session):
    record(session, "knock", "Bas")
    record(session, "fold", "Cees")
    html = client.get(viewer_url(session), **HX).content.decode()
    assert "Bas toept — inzet 2 — Cees weg" in html
    client.cookies["django_language"] = "en"
    html = client.get(viewer_url(session), **HX).content.decode()
    assert "Bas knocks — stake 2 — Cees folds" in html


def test_the_poll_gets_304_while_nothing_changed_and_the_fragment_after(client, session):
    first = client.get(viewer_url(session), **HX)
    assert first.status_code == 200
    assert "<html" not in first.content.decode()
    etag = first["ETag"]
    assert f'data-etag="{escape(etag)}"' in first.content.decode()  # the poll sends it back
    same = client.get(viewer_url(session), HTTP_IF_NONE_MATCH=etag, **HX)
    assert same.status_code == 304
    record(session, "win", "Anne")
    changed = client.get(viewer_url(session), HTTP_IF_NONE_MATCH=etag, **HX)
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_the_first_poll_after_opening_the_page_is_a_304(client, session):
    # A phone opens the page, then polls with the fragment's ETag the page carries
    # (static/js/lei.js); the load benchmark's viewers open their page the same way.
    record(session, "knock", "Bas")
    page = client.get(viewer_url(session))
    assert page.status_code == 200
    assert "<html" in page.content.decode()
    etag = re.search(r'data-etag="([^"]+)"', page.content.decode()).group(1)
    poll = client.get(viewer_url(session), HTTP_IF_NONE_MATCH=unescape(etag), **HX)
    assert poll.status_code == 304
    record(session, "fold", "Cees")
    assert (
        client.get(viewer_url(session), HTTP_IF_NONE_MATCH=unescape(etag), **HX).status_code == 200
    )


def test_the_etag_depends_on_the_language(client, session):
    dutch = client.get(viewer_url(session), **HX)["ETag"]
    client.cookies["django_language"] = "de"
    german = client.get(viewer_url(session), HTTP_IF_NONE_MATCH=dutch, **HX)
    assert german.status_code == 200
    assert german["ETag"] != dutch


def test_an_unchanged_poll_costs_one_query(client, session, django_assert_num_queries):
    etag = client.get(viewer_url(session), **HX)["ETag"]
    with django_assert_num_queries(1):  # the session (with its club), for its version
        assert client.get(viewer_url(session), HTTP_IF_NONE_MATCH=etag, **HX).status_code == 304


def test_a_changed_poll_costs_three_queries(client, session, django_assert_num_queries):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    url = viewer_url(session)
    # 1. the session with its club, for the ETag (and its corrected rounds, for their
    # "verbeterd"); 2. seats with players; 3. the rounds. However many rounds were played.
    with django_assert_num_queries(3):
        assert client.get(url, **HX).status_code == 200
    play_rounds(session, ["Dirk", "Anne"])
    with django_assert_num_queries(3):
        assert client.get(url, **HX).status_code == 200


def test_the_tablet_page_query_count(scorer, session, django_assert_num_queries):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    url = reverse("tablet", args=[session.pk])
    # 1. the Django session; 2. the user; 3. the session with its club and whether the user is
    # a member (and admin) of it (its corrected rounds with it, for their "verbeterd" on the
    # sheet); 4. seats with players; 5. rounds.
    with django_assert_num_queries(5):
        assert scorer.get(url, **HX).status_code == 200
    with django_assert_num_queries(5):  # the whole page adds the QR codes, not queries
        assert scorer.get(url).status_code == 200


def test_the_event_post_query_count(scorer, session, django_assert_num_queries):
    play_rounds(session, ["Anne", "Bas", "Cees"])
    session.refresh_from_db()
    url = reverse("session_event", args=[session.pk])
    data = {"type": "knock", "player": "Bas", "version": session.version, "key": "q1"}
    # Access: 1. the Django session; 2. the user; 3. the session, club and membership.
    # 4. The tap limit's count (scoring/lei/taplimit.py).
    # The service (scoring.lei.funnel.session_write): 5. savepoint; 6. lock the session row;
    # 7. the idempotency key; 8. seats with players; 9. rounds with whether they are scored;
    # 10. insert the new round; 11. the tail: update the session (version, status), the audit
    # entry, the key's answer (on PostgreSQL one statement, scoring/models/hotsql.py
    # ``write_tail``; elsewhere three); 12. release the savepoint. On PostgreSQL also the
    # NOTIFY of the change to the open streams (scoring/notify.py) and the read of the notes of
    # the viewers' parts those streams show, which the write draws (scoring/lei/watch.py).
    # The answer is drawn from the write's own log and replay; the tablet did not say which
    # sheet it shows, so the whole sheet is drawn, its corrected rounds read with the lock.
    # PostgreSQL: the NOTIFY and the notes; elsewhere: the tail's two more saves (2 either way).
    with django_assert_num_queries(12 + 2):
        response = scorer.post(url, data, **HX)
    assert response.status_code == 200


def test_every_viewer_of_a_version_gets_the_same_sheet_and_a_new_version_anew(client, session):
    play_rounds(session, ["Anne", "Bas"])
    url = viewer_url(session)
    first = client.get(url, **HX)
    second = client.get(url, **HX)
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]
    play_rounds(session, ["Cees"])
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HX)
    assert changed.status_code == 200
    assert changed.content != first.content  # a new version: drawn again
    assert client.get(url, **HX).content == changed.content


def test_a_poll_with_another_query_string_is_drawn_for_it(client, session):
    url = viewer_url(session)
    odd = client.get(url + "?tv=1&x=1", **HX)
    assert "x=1" in odd.content.decode()
    assert "x=1" not in client.get(url + "?tv=1", **HX).content.decode()
