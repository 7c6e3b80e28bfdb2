"""Streams keyed by the audience their request resolves to (scoring/push/audiences.py, DESIGN
decision 14), and the bound on what one client holds open (scoring/push/views.py): a change is
drawn once per audience however many streams with made-up queries and cookies ask for it,
without a server (the drawings through the whole of Django, on the drawing threads)."""

from __future__ import annotations

import asyncio

import pytest
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.test import Client, RequestFactory
from django.urls import reverse

from scoring import access
from scoring.models import ClubMembership, Player
from scoring.push import audiences, fragments, views
from tests.builders import make_session, record
from tests.push.loop import run_apart


def _request(path: str, cookie: str = ""):
    """A stream's request for ``path`` as the middleware leaves it: its session and user."""
    factory = RequestFactory()
    headers = {"HTTP_COOKIE": f"sessionid={cookie}"} if cookie else {}
    request = factory.get("/stroom/", {"deel": path}, **headers)
    SessionMiddleware(lambda r: None).process_request(request)
    AuthenticationMiddleware(lambda r: None).process_request(request)
    request.LANGUAGE_CODE = "nl"
    return request


def _ask(path: str, cookie: str = "") -> fragments.Ask:
    route, _, query = path.partition("?")
    request = _request(path, cookie)
    signed = route.rstrip("/").rpartition("/")[2]
    whom = audiences.audience(request, "viewer", {"signed": signed})
    return fragments.ask(request, audiences.part_path("viewer", route, query), whom)


# Committed rows: the drawing threads read them through connections of their own.
@pytest.mark.django_db(transaction=True)
def test_600_streams_with_made_up_queries_and_cookies_cost_one_drawing_per_audience(
    monkeypatch, club, people, django_user_model, drawing_threads_closed
):
    Player.objects.filter(club=club, name="Anne").update(public_initials=True)
    table, other = make_session(club), make_session(club)
    record(table, "knock", "Bas")
    table.refresh_from_db()
    member = django_user_model.objects.create_user("lid", password="x")
    ClubMembership.objects.create(club=club, user=member)
    members = []
    for _ in range(2):  # two phones of one member, each with its own login
        browser = Client()
        browser.force_login(member)
        members.append(browser.cookies["sessionid"].value)
    viewer = reverse("viewer", args=[access.viewer_token(table.pk, table.viewer_key or "")])
    elsewhere = reverse("viewer", args=[access.viewer_token(other.pk, other.viewer_key or "")])
    asks = [_ask(f"{viewer}?n={n}") for n in range(300)]
    asks += [_ask(viewer, cookie=f"verzonnen-{n}") for n in range(300)]
    asks += [_ask(viewer, cookie=key) for key in members]
    asks.append(_ask(elsewhere))
    drawn: list[tuple[str, str]] = []
    draw = fragments.draw

    def counted(asked, version):
        drawn.append((asked.path, asked.audience.key))
        return draw(asked, version)

    monkeypatch.setattr(fragments, "draw", counted)

    async def scenario() -> list[fragments.Part]:
        drawings = fragments.Drawings()
        parts = []
        for asked in asks:  # one change: every stream asks for its version
            version = str(other.version) if asked.path == elsewhere else str(table.version)
            parts.append(drawings.part(asked, version))
        return await asyncio.gather(*parts)

    parts = run_apart(scenario())
    assert sorted(drawn) == sorted(
        [(viewer, "public"), (viewer, "full"), (elsewhere, "public")]
    )  # not 603: the viewer of the other table waits for three drawings, not for 603
    assert {p.status for p in parts} == {200}
    shown = {a.audience.key: p.event.decode() for a, p in zip(asks, parts, strict=True)}
    assert "Anne" not in shown["public"]  # by initials for the public, bogus cookies included
    assert "Anne" in shown["full"]  # in full for the club's members


def test_a_part_is_kept_by_what_its_view_reads_in_one_spelling():
    assert audiences.part_path("viewer", "/kijk/x/", "n=7&tv=1&tot=012") == "/kijk/x/?tot=12&tv=1"
    assert audiences.part_path("viewer", "/kijk/x/", "tv=2&tot=abc") == "/kijk/x/"
    assert audiences.part_path("league_evening", "/club/a/avond/d/", "pagina=2&x=1") == (
        "/club/a/avond/d/?pagina=2"
    )
    assert audiences.part_path("tournament_series", "/t/", "pagina=2") == "/t/"


def test_one_client_holds_at_most_its_bound_and_gets_them_back_when_they_end(settings):
    settings.PUSH_STREAMS_PER_CLIENT = 500
    slots = views.Slots()
    taken = [slots.take("203.0.113.9") for _ in range(1000)]
    held = [release for release in taken if release is not None]
    assert len(held) == 500  # the rest refused
    pub = [slots.take("198.51.100.7") for _ in range(400)]  # 200 phones, two streams each
    assert None not in pub
    for release in held:
        release()
        release()  # a stream's end and the collector both let go: counted once
    assert slots.held == {"198.51.100.7": 400}  # nothing kept for a client that holds none
    assert slots.take("203.0.113.9") is not None


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
    ],
)
def test_a_client_is_its_address_and_an_ipv6_client_its_64(address, client):
    request = RequestFactory().get("/stroom/", REMOTE_ADDR=address)
    assert views.client_of(request) == client


def test_a_drawing_is_not_kept_by_the_port_a_client_writes_in_its_host():
    asks = [
        fragments.ask(RequestFactory().get("/stroom/", HTTP_HOST=host), "/p/", audiences.PUBLIC)
        for host in ("testserver", "testserver:1", "testserver:2")
    ]
    assert len({asked.key for asked in asks}) == 1


def test_at_most_8_spellings_of_a_part_are_drawn_at_once_and_each_is_let_go_with_its_streams():
    variants = views.Variants()
    part = ("/kijk/x/", "http", "nl", "public")
    held = [variants.take(part, f"/kijk/x/?tot={n}") for n in range(1, 9)]
    assert None not in held
    assert variants.take(part, "/kijk/x/?tot=9") is None  # one spelling too many
    assert variants.take(part, "/kijk/x/") is not None  # but never the sheet's own
    again = variants.take(part, "/kijk/x/?tot=1")  # a spelling drawn already: no new drawing
    assert again is not None
    assert variants.take(("/kijk/y/", "http", "nl", "public"), "/kijk/y/") is not None
    for release in held:
        release()
    again()
    assert variants.take(part, "/kijk/x/?tot=9") is not None
    assert list(variants.held[part]) == ["/kijk/x/", "/kijk/x/?tot=9"]
