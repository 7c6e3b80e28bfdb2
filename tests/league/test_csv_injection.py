"""The league's CSV exports open in a spreadsheet as text, never as a formula (OWASP's rule:
a cell that starts with ``= + - @``, a tab or a carriage return gets a leading single quote)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from scoring.http import csv_cell
from scoring.lei import services
from scoring.models import Player
from tests.builders import DAY, play

HOSTILE = [
    '=HYPERLINK("http://x.nl","klik")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
]


def _rows(response) -> list[list[str]]:
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode(), newline="")))


@pytest.mark.parametrize("value", HOSTILE)
def test_a_cell_that_could_start_a_formula_gets_a_quote(value):
    assert csv_cell(value) == "'" + value


def test_numbers_and_plain_text_stay_as_they_are():
    assert csv_cell(-12) == -12  # a negative total is a number, not a formula
    assert csv_cell(0) == 0
    assert csv_cell("Anne") == "Anne"
    assert csv_cell("2026-01-05") == "2026-01-05"
    assert csv_cell("") == ""


def test_a_formula_in_a_name_is_neutralised_in_stand_csv(client, public_club, season):
    names = ["Anne", *HOSTILE[:3]]
    for name in names:
        Player.objects.create(club=public_club, name=name)
    play(public_club, names, season=season)
    rows = _rows(client.get(reverse("league_season_csv", args=[public_club.slug, season.pk])))
    players = [row[1] for row in rows[1:]]
    assert sorted(players) == sorted(["Anne", *("'" + n for n in HOSTILE[:3])])
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row


def test_a_formula_in_a_name_or_table_label_is_neutralised_in_rondes_csv(
    client, public_club, season
):
    names = ["@SUM(A1:A9)", "\t=1+1"]
    for name in names:
        Player.objects.create(club=public_club, name=name)
    play(public_club, names, season=season, table="=HYPERLINK(1)")
    rows = _rows(
        client.get(reverse("league_season_rounds_csv", args=[public_club.slug, season.pk]))
    )
    assert {row[2] for row in rows[1:]} == {"'=HYPERLINK(1)"}
    assert {row[4] for row in rows[1:]} == {"'@SUM(A1:A9)", "'\t=1+1"}


def test_negative_totals_stay_numbers_in_the_csv(client, public_club, season, people):
    data = {
        "format": "toepen/1",
        "players": ["Anne", "Bas"],
        "rules": {"armoede": False},
        "start": {"Anne": 0, "Bas": 0},
        "rounds": [
            {
                "events": [
                    {"type": "penalty", "player": "Anne", "points": -3, "reason": "test"},
                    {"type": "penalty", "player": "Bas", "points": 10, "reason": "test"},
                    {"type": "win", "player": "Anne"},
                ]
            }
        ],
    }
    services.session_import(club=public_club, data=data, season=season, played_on=DAY)
    rows = _rows(
        client.get(reverse("league_season_rounds_csv", args=[public_club.slug, season.pk]))
    )
    anne = next(row for row in rows[1:] if row[4] == "Anne")
    assert anne[13] == "-3"  # penalty: the number, no quote
