"""A toernooi's standings as a picture for a group chat (scoring/toernooi/picture_views.py),
with the Open Graph tags of its public page; names as that page shows them."""

from __future__ import annotations

import io
import re

from django.test import Client
from django.urls import reverse
from PIL import Image

from scoring import names
from tests.toernooi.tournaments import finished_series


def test_the_public_standings_preview_their_picture_with_initials_where_asked(
    client, public_club, tournament, members, member_client
):
    finished_series(tournament, members)
    members[0].public_initials = True
    members[0].save()
    page = client.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    og = dict(re.findall(r'<meta property="og:([a-z:]+)" content="([^"]*)"', page.content.decode()))
    assert og["image"] == (
        f"http://testserver/club/{public_club.slug}/toernooi/{tournament.pk}/stand.png"
    )
    assert "Wintertoernooi" in og["title"]
    answer = client.get(og["image"])
    assert answer["Content-Type"] == "image/png"
    assert len(answer.content) < 200_000
    image = Image.open(io.BytesIO(answer.content))
    assert image.size == (1200, 630)
    shown = image.text["Description"]
    assert shown == og["image:alt"]
    assert "Anne" not in shown  # on the page by initials, so in the picture
    assert "Anne" not in page.content.decode()
    if names.initials("Anne") in page.content.decode().split("<tbody>")[-1][:2000]:
        assert names.initials("Anne") in shown or "en nog" in shown
    # A member sees Anne's name in full on the page and in the picture.
    mine = Image.open(io.BytesIO(member_client.get(og["image"]).content)).text["Description"]
    assert "Anne" in mine or "en nog" in mine


def test_a_club_that_does_not_publish_shows_no_tags_and_no_picture(
    club, tournament, members, member_client
):
    finished_series(tournament, members)
    page = member_client.get(reverse("tournament_standings", args=[club.slug, tournament.pk]))
    assert page.status_code == 200
    assert "og:image" not in page.content.decode()
    picture = reverse("tournament_standings_picture", args=[club.slug, tournament.pk])
    assert Client().get(picture).status_code == 404
    assert member_client.get(picture).status_code == 200
