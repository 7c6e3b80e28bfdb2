"""Signs and order that mean what they say: recent games by when they ended, dates and
ordinals as each language writes them, the tie-breaker's mark."""

from __future__ import annotations

import datetime
from pathlib import Path

from django.urls import reverse
from django.utils import dateformat, timezone, translation

from scoring.models import AuditEntry, Session
from tests.builders import play


def test_recent_games_are_listed_by_when_they_ended_not_by_their_last_change(
    member_client, club, people, clock
):
    september = play(club, ["Anne", "Bas", "Cees"], table="September")
    clock.shift(datetime.timedelta(hours=1))
    november = play(club, ["Bas", "Cees", "Dirk"], days_later=60, table="November")
    clock.shift(datetime.timedelta(days=3))
    # A correction (or an akkoord, a lock) of the September game weeks later.
    Session.objects.filter(pk=september.pk).update(updated_at=timezone.now())
    AuditEntry.objects.create(
        session=september, club=club, action=AuditEntry.Action.CORRECT, round_number=1
    )
    page = member_client.get(reverse("home")).content.decode()
    recent = page[page.index("Onlangs uitgespeeld") :]
    assert recent.index("November") < recent.index("September")
    assert november.status in ("finished", "locked")


def test_no_page_marks_a_tie_breaker_with_a_cross_that_reads_deceased():
    """ "†" beside a name reads "overleden" in the Netherlands: the mark is "*", explained."""
    root = Path(__file__).resolve().parents[2]
    for folder in ("templates", "scoring", "static"):
        for path in (root / folder).rglob("*"):
            if path.suffix in {".html", ".py", ".js", ".css", ".txt"}:
                assert "\N{DAGGER}" not in path.read_text(encoding="utf-8"), path
    for language in ("nl", "en", "de"):
        catalogue = root / "locale" / language / "LC_MESSAGES" / "django.po"
        assert "\N{DAGGER}" not in catalogue.read_text(encoding="utf-8")


def test_dates_and_places_as_each_language_writes_them(client, public_club, people):
    """Dutch "1 jan" lowercase, German "29. November 2026", English "1st", never "1.: 9 times"."""
    game = play(public_club, ["Anne", "Bas", "Cees"])
    anne = people["Anne"]
    day = game.played_on
    player_url = reverse("league_player", args=[public_club.slug, anne.pk])
    evening_url = reverse("league_evening", args=[public_club.slug, day.isoformat()])
    archive_url = reverse("league_archive", args=[public_club.slug])
    with translation.override("nl"):
        short_nl = dateformat.format(day, "j b Y")
        month_nl = dateformat.format(day, "F")
    archive = client.get(archive_url).content.decode()
    assert short_nl in archive
    assert short_nl.split()[1].islower()
    dutch = client.get(player_url).content.decode()
    assert ">1e: 1\N{MULTIPLICATION SIGN}<" in dutch
    assert f"{day.day} {month_nl} {day.year}" in client.get(evening_url).content.decode()
    english = client.get(player_url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert ">1st: 1\N{MULTIPLICATION SIGN}<" in english
    assert "1.: " not in english
    with translation.override("de"):
        month_de = dateformat.format(day, "F")
    german = client.get(evening_url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert f"{day.day}. {month_de} {day.year}" in german
