"""Every page of the tablet and the viewers loads from its own host only (pub wifi, privacy)."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

from django.urls import reverse

from scoring import access
from scoring.models import ClubMembership
from tests.builders import make_session, play_rounds

URL_ATTRIBUTES = {"src", "href", "action", "hx-get", "hx-post", "poster", "data"}


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in URL_ATTRIBUTES and value]


def foreign_urls(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    assert parser.urls, "no links at all: the parser missed them"
    return [u for u in parser.urls if urlsplit(u).netloc not in ("", "testserver")]


def test_no_page_references_another_host(client, club, people, user):
    ClubMembership.objects.create(user=user, club=club, role="admin")
    session = make_session(club)
    play_rounds(session, ["Anne"])
    finished = make_session(club, players=["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(finished, ["Anne", "Anne"])
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    anonymous = [reverse("home"), reverse("login"), viewer, viewer + "?tv=1"]
    members = [
        reverse("home"),
        reverse("session_new"),
        reverse("tablet", args=[session.pk]),
        reverse("tablet", args=[finished.pk]),
        reverse("round_edit", args=[session.pk, 1]),
        reverse("viewer", args=[access.viewer_token(finished.pk)]),
    ]
    for url in anonymous:
        response = client.get(url)
        assert response.status_code == 200, url
        assert foreign_urls(response.content.decode()) == [], url
    client.force_login(user)
    for url in members:
        response = client.get(url)
        assert response.status_code == 200, url
        assert foreign_urls(response.content.decode()) == [], url


def test_every_control_of_the_tablet_has_an_accessible_name(client, club, people, user):
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    session = make_session(club)
    client.force_login(user)
    html = client.get(reverse("tablet", args=[session.pk])).content.decode()

    class Buttons(HTMLParser):
        unnamed: list[str] = []

        def handle_starttag(self, tag, attrs):
            names = dict(attrs)
            if tag == "button" and not names.get("aria-label"):
                self.unnamed.append(str(attrs))

    parser = Buttons()
    parser.feed(html)
    # The language switch (base.html) names its buttons by their text.
    assert [b for b in parser.unnamed if "language" not in b] == []
