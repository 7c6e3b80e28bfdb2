"""Toernooien in the club admin: their standings follow a correction of a table's game."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.lei import services
from scoring.models import Session, Tournament
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import admin_form_data, correction, record


@pytest.fixture
def started_tournament(club) -> Tournament:
    started_tournament = tournaments.tournament_create(club=club, name="Kersttoernooi")
    checkin.tournament_check_in(
        tournament=started_tournament, guests=["Anne", "Bas", "Cees", "Dirk"]
    )
    series = tournaments.series_draw(tournament=started_tournament, expected_number=1, seed=1)
    tournaments.series_start(series=series)
    return started_tournament


def _standings_cells(response) -> list[list[str]]:
    html = response.content.decode()
    body = html.split("<tbody>", 2)[1].split("</tbody>")[0] if "<tbody>" in html else ""
    rows = [r for r in body.split("<tr>") if "</td>" in r]
    return [[c.split("</td>")[0] for c in r.split("<td>")[1:]] for r in rows]


def test_a_correction_of_a_table_round_is_in_the_admin_standings_at_once(
    client, club_admin, started_tournament
):
    client.force_login(club_admin)
    session = Session.objects.get(tournament_table__series__tournament=started_tournament)
    record(session, "win", "Anne")
    # The table ends after its round: the series counts from its first finished table.
    services.session_finish(session=session)
    url = reverse("admin:scoring_tournament_change", args=[started_tournament.pk])
    page = client.get(url)
    assert "Voorlopige stand" in page.content.decode()
    assert _standings_cells(page)[0][:4] == ["1", "Anne", "10", "0"]

    round_url = reverse("admin:scoring_round_change", args=[session.rounds.get().pk])
    page = client.get(round_url)
    corrected = correction(page, [{"type": "win", "player": "Cees", "jack": False}])
    assert client.post(round_url, corrected).status_code == 302
    assert session.rounds.get().events[0]["player"] == "Cees"
    assert _standings_cells(client.get(url))[0][:4] == ["1", "Cees", "10", "0"]


def test_the_admin_changes_name_and_table_points_and_refuses_bad_points(
    client, club_admin, started_tournament
):
    client.force_login(club_admin)
    url = reverse("admin:scoring_tournament_change", args=[started_tournament.pk])
    form = admin_form_data(client.get(url))
    form.update(name="Oliebollentoernooi", table_points="[5, 7]")
    refused = client.post(url, form)
    assert refused.status_code == 200
    assert "Een lagere plaats krijgt niet meer tafelpunten" in refused.content.decode()
    started_tournament.refresh_from_db()
    assert started_tournament.name == "Kersttoernooi"
    form.update(table_points="[12, 8, 4, 2, 0]")
    assert client.post(url, form).status_code == 302
    started_tournament.refresh_from_db()
    assert (started_tournament.name, started_tournament.table_points) == (
        "Oliebollentoernooi",
        [12, 8, 4, 2, 0],
    )


def test_a_series_page_links_each_table_to_its_game(client, club_admin, started_tournament):
    client.force_login(club_admin)
    series = started_tournament.series.get()
    page = client.get(reverse("admin:scoring_series_change", args=[series.pk]))
    session = Session.objects.get(tournament_table__series=series)
    assert reverse("admin:scoring_session_change", args=[session.pk]) in page.content.decode()
