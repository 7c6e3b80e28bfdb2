"""The club's standings on its own website (a frame only the named sites may show, a JSON
feed) and its calendar (iCalendar): only for clubs that publish, names as the public sees them
(scoring/league/embed_views.py, scoring/league/calendar.py)."""

from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from icalendar import Calendar

from scoring.days import evening_day
from scoring.lei.clubfile import club_to_file
from scoring.lei.clubfile_import import ClubImportError, club_import
from scoring.models import Club, Evening, Player, Season, Tournament
from tests.builders import play

SITE = "https://www.toepclub.nl"


def _frame_ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(p.strip() for p in policy.split(";") if p.strip().startswith("frame-ancestors"))


@pytest.fixture
def embedding(public_club):
    public_club.embed_origins = f"{SITE}\nhttps://toepen.example.org:8443/"
    public_club.save()
    season = Season.objects.create(club=public_club, name="Winter 2026", starts_on="2026-01-01")
    play(public_club, ["Anne Jansen", "Bas", "Cees"], season=season)
    Player.objects.filter(name="Anne Jansen").update(public_initials=True)
    return public_club


def test_the_embed_is_framed_only_by_the_named_sites(client, embedding):
    page = client.get(reverse("embed_standings", args=[embedding.slug]))
    assert page.status_code == 200
    assert _frame_ancestors(page) == f"frame-ancestors {SITE} https://toepen.example.org:8443"
    assert "X-Frame-Options" not in page
    html = page.content.decode()
    assert "A.J." in html
    assert "Anne Jansen" not in html
    evening = client.get(reverse("embed_evening", args=[embedding.slug, "2026-01-05"]))
    assert _frame_ancestors(evening) == f"frame-ancestors {SITE} https://toepen.example.org:8443"
    assert "A.J." in evening.content.decode()
    # Every other page still refuses every frame.
    other = client.get(reverse("league_club", args=[embedding.slug]))
    assert _frame_ancestors(other) == "frame-ancestors 'none'"
    assert other["X-Frame-Options"] == "DENY"


def test_no_embed_without_named_sites_or_for_a_club_that_does_not_publish(client, embedding):
    embedding.embed_origins = ""
    embedding.save()
    assert client.get(reverse("embed_standings", args=[embedding.slug])).status_code == 404
    embedding.embed_origins = SITE
    embedding.standings_public = False
    embedding.save()
    for name in ("embed_standings", "standings_feed", "club_calendar"):
        assert client.get(reverse(name, args=[embedding.slug])).status_code == 404


@pytest.mark.parametrize(
    "origin",
    [
        "http://www.toepclub.nl",
        "https://*.toepclub.nl",
        "https://a.nl/stand",
        "'self'",
        "https://a.nl;x",
    ],
)
def test_an_embed_origin_must_be_one_https_site(embedding, origin):
    embedding.embed_origins = f"{SITE}\n{origin}"
    with pytest.raises(ValidationError):
        embedding.full_clean()


def test_the_feed_holds_the_standings_as_the_public_sees_them(client, embedding):
    answer = client.get(reverse("standings_feed", args=[embedding.slug]))
    assert answer["Content-Type"] == "application/json"
    data = answer.json()
    assert data["season"] == "Winter 2026"
    assert [row["name"] for row in data["standings"]] == ["A.J.", "Bas", "Cees"]
    assert data["standings"][0]["place"] == 1
    evening = client.get(reverse("evening_feed", args=[embedding.slug, "2026-01-05"])).json()
    first = evening["tables"][0]["players"][0]
    assert (first["place"], first["name"], first["toepkoning"]) == (1, "A.J.", True)
    assert client.get(reverse("evening_feed", args=[embedding.slug, "gisteren"])).status_code == 404


def test_the_calendar_holds_the_next_evening_and_is_subscribed_from_the_club_page(
    client, embedding
):
    next_evening = evening_day() + datetime.timedelta(days=7)
    Evening.objects.create(club=embedding, date=next_evening)
    Tournament.objects.create(club=embedding, name="Paastoernooi", date=next_evening + ONE)
    answer = client.get(reverse("club_calendar", args=[embedding.slug]))
    assert answer["Content-Type"].startswith("text/calendar")
    calendar = Calendar.from_ical(answer.content)
    events = {(e.decoded("dtstart"), str(e["summary"])) for e in calendar.walk("VEVENT")}
    assert (next_evening, "Clubavond De Gouden Boer") in events
    assert (next_evening + ONE, "Paastoernooi — De Gouden Boer") in events
    assert (datetime.date(2026, 1, 1), "Begin seizoen Winter 2026") in events
    club_page = client.get(reverse("league_club", args=[embedding.slug])).content.decode()
    assert f'href="webcal://testserver/club/{embedding.slug}/kalender.ics"' in club_page


ONE = datetime.timedelta(days=1)


def test_the_clubs_backup_keeps_its_language_and_sites_and_checks_the_sites(club):
    club.language = "de"
    club.embed_origins = f"{SITE}\nhttps://toepen.example.org:8443/"
    club.save()
    data = club_to_file(club)
    data["club"]["slug"] = "reservekopie"
    copy = club_import(data=data)
    assert (copy.language, copy.frame_origins) == ("de", [SITE, "https://toepen.example.org:8443"])
    data["club"] |= {"slug": "nog-een", "embed_origins": "https://a.nl; script-src *"}
    with pytest.raises(ClubImportError):
        club_import(data=data)
    assert not Club.objects.filter(slug="nog-een").exists()
