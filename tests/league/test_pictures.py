"""The lei as a picture for a group chat (scoring/picture.py): readable, small, in the club's
language, with the names its page shows to the one who asks; and the Open Graph tags that
point a pasted link at it, on public pages only."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client
from django.urls import reverse
from PIL import Image, ImageFont

from scoring import names, picture
from scoring.models import Player
from tests.builders import play

# Eight names of 40 characters at most (Player.name), wide letters among them.
LONG_NAMES = [
    "Wilhelmina Alexandra van Oranje-Nassau",
    "Bartholomeus Maximiliaan de Vries-Mulder",
    "Cornelis Johannes van der Westhuizen",
    "Dorothea Henriëtte Schimmelpenninck",
    "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
    "Frederique Anna-Maria Hooghiemstra",
    "Gijsbrecht Willibrord Terpstra-Mwangi",
    "MMMMMMMMMMMMMMMMMMMM MMMMMMMMMMMMMMMMMMM",
]
SVG = "{http://www.w3.org/2000/svg}"
BOLD = ImageFont.truetype(str(picture.FONT_BOLD), 100)


def _png(response) -> Image.Image:
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert len(response.content) < 200_000
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    assert image.size == (1200, 630)
    return image


def _og(response) -> dict[str, str]:
    html = response.content.decode()
    return dict(re.findall(r'<meta property="og:([a-z:]+)" content="([^"]*)"', html))


def test_eight_long_names_fit_their_column_whole_and_are_drawn():
    card = picture.Card(
        title="De Gouden Boer",
        heading="Tafel 3 — zaterdag 28 november 2026",
        lines=[
            picture.Line(f"{i}.", name, total=7 * i, toepkoning=i == 1)
            for i, name in enumerate(LONG_NAMES, start=1)
        ],
    )
    root = ET.fromstring(picture.card_svg(card))  # noqa: S314 (our own SVG)
    drawn = root.findall(f".//{SVG}g[@class='name']")
    assert [g.get("data-name") for g in drawn] == LONG_NAMES
    for g in drawn:
        texts = g.findall(f"{SVG}text")
        # Nothing left out: one line, or two split at a space (or inside a name without one).
        assert g.get("data-name") in {
            " ".join(t.text for t in texts),
            "".join(t.text for t in texts),
        }
        for t in texts:
            size = float(t.get("font-size"))
            assert size >= 14, t.text  # readable in a chat's preview
            # Measured here as the test's own check of the font's widths: every line fits.
            assert BOLD.getlength(t.text) * size / 100 <= float(g.get("data-width")), t.text
    image = Image.open(io.BytesIO(picture.card_png(card))).convert("RGB")
    assert image.size == (1200, 630)
    # The font is there: every line's name column holds chalk-coloured pixels, not just slate.
    for i in range(8):
        top = picture.TOP + i * (picture.BOTTOM - picture.TOP) / 8
        box = image.crop((160, int(top), 600, int(top + 50)))
        assert max(max(px) for px in box.get_flattened_data()) > 200


@pytest.mark.django_db
def test_a_game_picture_shows_the_names_as_the_page_does(client, member_client, public_club):
    session = play(public_club, LONG_NAMES, table="Tafel 3")
    Player.objects.filter(club=public_club, name=LONG_NAMES[2]).update(public_initials=True)
    page = client.get(reverse("league_session", args=[public_club.slug, session.pk]))
    og = _og(page)
    assert og["type"] == "website"
    assert og["image"] == (
        f"http://testserver/club/{public_club.slug}/archief/{session.pk}/lei.png"
    )
    public = _png(client.get(og["image"]))
    text = public.text["Description"]
    assert text == og["image:alt"].replace("&#x27;", "'")
    assert names.initials(LONG_NAMES[2]) in text
    assert LONG_NAMES[2] not in text
    assert LONG_NAMES[2] not in page.content.decode()
    assert all(name in text for name in LONG_NAMES if name != LONG_NAMES[2])
    # A member sees the game with every name in full, on the page and in its picture.
    mine = _png(member_client.get(og["image"])).text["Description"]
    assert LONG_NAMES[2] in mine
    assert LONG_NAMES[2] in member_client.get(page.request["PATH_INFO"]).content.decode()


@pytest.mark.django_db
def test_the_picture_speaks_the_clubs_language(client, public_club):
    public_club.language = "de"
    public_club.save()
    session = play(public_club, ["Anne", "Bas", "Cees"])
    path = reverse("league_evening_picture", args=[public_club.slug, session.played_on])
    text = _png(client.get(path, HTTP_ACCEPT_LANGUAGE="nl")).text["Description"]
    assert "Toepkönige" in text or "Toepkoning" in text.title()
    assert "Montag" in text  # 2026-01-05, in German whatever the browser asked


@pytest.mark.django_db
def test_private_pages_have_no_open_graph_and_no_picture_for_the_public(
    member_client, club, scorer
):
    session = play(club, ["Anne", "Bas", "Cees"])
    page = member_client.get(reverse("league_session", args=[club.slug, session.pk]))
    assert page.status_code == 200
    assert _og(page) == {}
    evening = member_client.get(reverse("league_evening", args=[club.slug, session.played_on]))
    assert evening.status_code == 200
    assert _og(evening) == {}
    image = reverse("league_session_picture", args=[club.slug, session.pk])
    assert Client().get(image).status_code == 404  # the club does not publish
    # The tablet is the table's own screen: its "Delen" picture, never any og.
    tablet = scorer.get(reverse("tablet", args=[session.pk]))
    assert _og(tablet) == {}
    assert "data-share" in tablet.content.decode()
    _png(scorer.get(reverse("session_picture", args=[session.pk])))


@pytest.mark.django_db
def test_the_public_evening_page_previews_its_picture(client, public_club):
    session = play(public_club, ["Anne", "Bas", "Cees"], table="Tafel 1")
    page = client.get(reverse("league_evening", args=[public_club.slug, session.played_on]))
    og = _og(page)
    assert og["image"].endswith(f"/club/{public_club.slug}/avond/2026-01-05/lei.png")
    assert og["image:alt"] in _png(client.get(og["image"])).text["Description"]
    assert "Anne" in og["description"]
    assert 'download="lei.png" data-share' in page.content.decode()
