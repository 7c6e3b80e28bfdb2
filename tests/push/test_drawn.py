"""Draw once, send everywhere (DESIGN decision 14; scoring/lei/drawn.py, watch.py): a write
draws the viewers' parts that open streams show, each as its page's poll draws it for that
audience and language, and sends it with its announcement; a stream server forwards it.
PostgreSQL only: NOTIFY is delivered on commit."""

from __future__ import annotations

import dataclasses
import datetime

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from scoring import access, notify
from scoring.lei import services, watch
from scoring.models import Player, PushWatch, Session
from scoring.push import audiences, fragments, listener
from tests.push.loop import run_apart

FULL = audiences.Audience("full", "")

pytestmark = pytest.mark.django_db(transaction=True)  # committed: NOTIFY is sent on commit


@pytest.fixture
def watched_game(club, settings):
    if connection.vendor != "postgresql":
        pytest.skip("push needs PostgreSQL's NOTIFY")
    settings.PUSH = "on"  # the pages open streams (a stream server of their own)
    session = services.session_start(club=club, players=["Anne Geheimnaam", "Bas", "Cees", "Dirk"])
    Player.objects.filter(club=club, name="Anne Geheimnaam").update(public_initials=True)
    for who, what in (("Bas", "knock"), ("Cees", "fold")):
        session.refresh_from_db()
        services.session_record_event(
            session=session, event={"type": what, "player": who}, version=session.version, key=None
        )
    session.refresh_from_db()
    return session


def viewer(session: Session) -> str:
    return f"/kijk/{access.viewer_token(session.pk, session.viewer_key or '')}/"


def knock_and_hear(
    session: Session, heard: list[str] | None = None
) -> dict[tuple[str, str, str], str]:
    """Dirk knocks; the parts the write sent, by (part, language, audience); ``heard``: filled
    with what was announced, as a stream server hears it."""
    heard = [] if heard is None else heard
    with psycopg.connect(**listener.conninfo(), autocommit=True) as listening:
        listening.execute(f"LISTEN {notify.CHANNEL}")
        services.session_record_event(
            session=session,
            event={"type": "knock", "player": "Dirk"},
            version=session.version,
            key=None,
        )
        for n in listening.notifies(timeout=2):
            heard.append(n.payload)
            if n.payload.startswith("lei "):
                break
    assert heard[-1].startswith(f"lei {session.pk} {session.version} ")  # the version last
    parts = {}
    for payload in heard[:-1]:
        pk, version, language, audience, part, html = notify.parse_part(payload)
        assert (pk, version) == (str(session.pk), str(session.version))
        parts[part, language, audience] = html
    return parts


def poll(client: Client, part: str, language: str) -> str:
    answer = client.get(part, HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_write_draws_each_watched_part_once_as_its_page_draws_it(watched_game, member_client):
    page = viewer(watched_game)
    watched = [
        (page, "nl", "public"),
        (page + "?tv=1", "en", "public"),
        (page + "?tot=1", "nl", "full"),
        (page, "de", "full"),
    ]
    for part, language, audience in watched:
        watch.note(watched_game.pk, watch.Watched(part, language, audience))

    parts = knock_and_hear(watched_game)

    assert sorted(parts) == sorted(watched)
    for (part, language, audience), html in parts.items():
        client = member_client if audience == "full" else Client()
        assert html == poll(client, part, language)
        assert ("Geheimnaam" in html) == (audience == "full")
    assert "Dirk knocks" in parts[page + "?tv=1", "en", "public"]  # its live line, in English


def test_a_write_draws_only_the_newest_notes_and_never_an_old_link(watched_game):
    """At most ``DRAWN_PER_CHANGE`` parts a change (the stream servers draw the rest); a part
    of a link renewed since is left to its own view (a 410)."""
    page = viewer(watched_game)
    old_link = f"/kijk/{access.viewer_token(watched_game.pk, 'vernieuwd')}/"
    now = timezone.now()
    noted = [(page + f"?tot={n}", 60 * n) for n in range(1, 6)] + [(old_link, 600)]
    for part, seconds in noted:
        PushWatch.objects.create(
            session=watched_game, part=part, language="nl", audience="public",
            until=now + datetime.timedelta(seconds=seconds),
        )  # fmt: skip
    PushWatch.objects.create(  # nobody renewed this one
        session=watched_game, part=page, language="nl", audience="public",
        until=now - datetime.timedelta(seconds=1),
    )  # fmt: skip

    parts = knock_and_hear(watched_game)

    # The four most recent notes: the old link's (not drawn) and ?tot=5, 4 and 3.
    assert sorted(part for part, _, _ in parts) == [page + f"?tot={n}" for n in (3, 4, 5)]


def test_a_stream_server_forwards_what_the_write_drew_and_draws_nothing(monkeypatch, watched_game):
    drawn: list[str] = []
    monkeypatch.setattr(fragments, "draw", lambda asked, version: drawn.append(asked.path))
    page = viewer(watched_game)
    watch.note(watched_game.pk, watch.Watched(page, "nl", "public"))
    heard: list[str] = []
    html = knock_and_hear(watched_game, heard)[page, "nl", "public"]
    version = heard[-1].split()[2]

    hub = listener.Hub()
    for payload in heard:  # as the stream server's LISTEN connection hears them
        hub.dispatch(payload)
    asked = fragments.Ask(page, "nl", audiences.PUBLIC, ())

    async def stream_gets() -> fragments.Part:
        return await fragments.drawings.part(asked, version)

    assert run_apart(stream_gets()) == fragments.Part(200, fragments.message(version, html))
    assert drawn == []
    # Not for another language or audience of the part, nor for another version.
    for other in (dataclasses.replace(asked, language="en"), fragments.Ask(page, "nl", FULL, ())):
        assert fragments.drawings.delivered(other, version) is None
    assert fragments.drawings.delivered(asked, str(int(version) - 1)) is None


def test_a_drawing_that_fails_costs_the_table_nothing(monkeypatch, watched_game):
    """The tap is stored and announced; the part is left to the stream servers to draw."""

    def broken(*args, **kwargs):
        raise RuntimeError("a template that breaks")

    monkeypatch.setattr("scoring.lei.viewer_views.viewer_part_html", broken)
    watch.note(watched_game.pk, watch.Watched(viewer(watched_game), "nl", "public"))
    before = watched_game.version
    assert knock_and_hear(watched_game) == {}  # no part sent, the version announced
    assert Session.objects.get(pk=watched_game.pk).version == before + 1


def tap_and_hear(session: Session, language: str = "nl") -> tuple[str, dict[tuple[str, str], str]]:
    """Dirk knocks on the tablet (its scorer link, over HTTP): the tablet's answer, and the
    parts the write sent, by (language, audience)."""
    tablet = Client(HTTP_ACCEPT_LANGUAGE=language)
    assert tablet.get(f"/tafel/{session.scorer_token}/").status_code == 302
    with psycopg.connect(**listener.conninfo(), autocommit=True) as listening:
        listening.execute(f"LISTEN {notify.CHANNEL}")
        form = {"type": "knock", "player": "Dirk", "version": session.version, "key": "tik-d"}
        answer = tablet.post(f"/sessies/{session.pk}/gebeurtenis/", form, HTTP_HX_REQUEST="true")
        heard = []
        for n in listening.notifies(timeout=2):
            heard.append(n.payload)
            if n.payload.startswith("lei "):
                break
    assert answer["X-Lei-Outcome"] == "recorded"
    parts = {}
    for payload in heard[:-1]:
        _, _, part_language, audience, _, html = notify.parse_part(payload)
        parts[part_language, audience] = html
    return answer.content.decode(), parts


def test_the_tablets_answer_names_everyone_and_the_publics_part_of_the_same_tap_initials(
    watched_game, member_client
):
    """The answer is drawn from the lei the write built for its drawings (names in full, the
    tablet's language); the public's part from a lei of its own, with initials."""
    page = viewer(watched_game)
    for audience in ("public", "full"):
        watch.note(watched_game.pk, watch.Watched(page, "nl", audience))
    answer, parts = tap_and_hear(watched_game)
    assert "Anne Geheimnaam" in answer
    assert "Geheimnaam" not in parts["nl", "public"]
    assert "Anne Geheimnaam" in parts["nl", "full"]
    assert parts["nl", "public"] == poll(Client(), page, "nl")
    assert parts["nl", "full"] == poll(member_client, page, "nl")


def test_with_nobody_asking_for_initials_the_public_sees_the_lei_the_tablet_sees(watched_game):
    Player.objects.filter(name="Anne Geheimnaam").update(public_initials=False)
    page = viewer(watched_game)
    watch.note(watched_game.pk, watch.Watched(page, "en", "public"))
    answer, parts = tap_and_hear(watched_game, language="en")
    assert "Anne Geheimnaam" in parts["en", "public"]
    assert "Dirk knocks" in parts["en", "public"]
    assert parts["en", "public"] == poll(Client(), page, "en")
    assert "Knock: Anne Geheimnaam" in answer  # the tablet's answer, in its language
