"""Words stored once and shown in the reader's language: a toernooi's table labels are made
in Dutch whoever draws the series and written in each reader's language when shown
(``scoring/labels.py``); the tie-breaker's word is the figure's, not the game's."""

from __future__ import annotations

from django.urls import reverse
from django.utils import translation

from scoring import labels
from scoring.toernooi import services as tournaments
from scoring.toernooi.selectors import DECIDED_BY
from tests.toernooi.tournaments import drawn


def test_a_table_label_made_by_a_german_organiser_reads_in_each_readers_language(
    member_client, tournament, members
):
    with translation.override("de"):  # the organiser's page is in German
        series = drawn(tournament, members[:8])
        tournaments.series_start(series=series)
    session = series.tables.get(number=1).session
    assert session.table_label == "Wintertoernooi: serie 1, tafel 1"
    url = reverse("tablet", args=[session.pk])
    expected = {
        "nl": "Wintertoernooi: serie 1, tafel 1",
        "de": "Wintertoernooi: Serie 1, Tisch 1",
        "en": "Wintertoernooi: series 1, table 1",
    }
    for language, words in expected.items():
        page = member_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert words in page, language
        home = member_client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE=language)
        assert words in home.content.decode(), language


def test_a_label_someone_typed_is_shown_as_typed():
    with translation.override("de"):
        assert labels.shown("Stamtafel") == "Stamtafel"
        assert labels.shown("Ronde 2 · tafel 3") == "Runde 2 · Tisch 3"
        assert labels.shown("Kerst: finaletafel") == "Kerst: Finaltisch"


def test_german_standings_name_the_tie_breaker_once_not_strafpunkte_strafpunten():
    with translation.override("de"):
        assert str(DECIDED_BY["strafpunten"]) == "Strafpunkte"
    with translation.override("en"):
        assert str(DECIDED_BY["strafpunten"]) == "penalty points"
