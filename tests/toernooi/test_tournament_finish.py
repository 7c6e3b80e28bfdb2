"""The finish for the room (``scoring/toernooi/finish.py``): after the final the TV and the
public standings show the final order, marked "Einduitslag"; the prize list is public unless
the organiser hides it, with "=" for a shared place and withdrawals marked; the final
standings as CSV; and a series that has just begun does not count before a table finishes."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace

import pytest
from django.urls import reverse

from scoring.models import Player, Tournament
from scoring.toernooi import checkin, finish, room_views
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments
from tests.builders import HX, play_out, record
from tests.toernooi.tournaments import finished_series, messages_of

LONG = "Wilhelmina van den Berg-Hoogendoorn"


def won_by(session, winner: str) -> None:
    """Every round won by ``winner`` until the game is over."""
    session.refresh_from_db()
    while session.status == session.Status.RUNNING:
        record(session, "win", winner)
        session.refresh_from_db()


def with_final(club, players: list[Player], *, underdog: bool = True) -> Tournament:
    """One series and the final table, won by the finalist lowest in the standings."""
    tournament = tournaments.tournament_create(club=club, name="Finale-avond", series_count=1)
    series = finished_series(tournament, players)
    tournament_results.series_finish(series=series)
    final = tournament_results.final_table_create(tournament=tournament, seed=3)
    table = final.tables.get()
    standings = tournament_selectors.tournament_standings(tournament)
    seated = {s.player_id for s in table.seats.all()}
    finalists = [r for r in standings.rows if r.player.pk in seated]
    winner = finalists[-1] if underdog else finalists[0]
    won_by(table.session, winner.player.name)
    tournament_results.series_finish(series=final)
    tournament.refresh_from_db()
    return tournament


def standings_names(html: str, table_id: str) -> list[tuple[str, str]]:
    """(place, name) of every row of the table ``table_id``."""
    body = html.split(f'id="{table_id}"', 1)[1].split("</tbody>", 1)[0]
    return [
        (place, name.strip())
        for place, name in re.findall(
            r"<tr[^>]*>\s*<td[^>]*>([^<]+)</td>\s*<th scope=\"row\">([^<]+)", body
        )
    ]


def test_after_the_final_the_public_standings_show_the_final_order(client, public_club, members):
    tournament = with_final(public_club, members)
    assert tournament.status == Tournament.Status.FINISHED
    order = finish.final_order(tournament)
    final_winner = next(row for row in order if row.final_place == 1)
    standings = tournament_selectors.tournament_standings(tournament)
    # The underdog won the final: 1st now, though 2nd to 4th after the series.
    assert standings.by_player()[final_winner.player.pk].place > 1
    assert order[0].player == final_winner.player
    # Places 1 to 4 by the final table; a place shared there keeps the standings' order.
    top = order[:4]
    assert [row.place for row in top] == sorted(row.place for row in top)
    # Places count the rows above (1, 2, 2, 4); an equal place is marked shared.
    assert all(r.place == 1 + sum(o.place < r.place for o in order) for r in order)
    assert all(r.shared == (sum(o.place == r.place for o in order) > 1) for r in order)
    assert [(r.final_place, standings.by_player()[r.player.pk].place) for r in top] == sorted(
        (r.final_place, standings.by_player()[r.player.pk].place) for r in top
    )
    assert [row.player for row in order[4:]] == [r.player for r in standings.rows[4:]]

    html = client.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    text = html.content.decode()
    assert "Einduitslag" in text
    assert "voorlopig" not in text
    rows = standings_names(text, "tournament-standings")
    assert rows[0] == ("1", final_winner.player.name)
    assert [name for _, name in rows] == [row.player.name for row in order]
    assert "finaletafel: 1e" in text


def test_equal_at_the_final_table_the_row_below_says_the_series_decided(client, public_club):
    """Two tables' winners and two seconds at the final, won by a second: the other three
    share 2nd place there, and the standings after the series put the second below the
    winners. The page says why."""
    eight = [Player.objects.create(club=public_club, name=f"Speler {n}") for n in range(1, 9)]
    tournament = with_final(public_club, eight)
    top = finish.final_order(tournament)[:4]
    # At the final table as the series decided it: shared 2nd twice, then 4th, never "3e" twice.
    assert [r.final_place for r in top] == [1, 2, 2, 4]
    assert [(r.place, r.decided_by) for r in top] == [
        (1, ""),
        (2, ""),
        (2, ""),
        (4, "stand na de series"),
    ]
    html = client.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    assert html.content.decode().count("(stand na de series)") == 1
    assert html.content.decode().count("finaletafel: 4e") == 1
    english = client.get(
        reverse("tournament_standings", args=[public_club.slug, tournament.pk]),
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "final table: 4th" in english
    assert "final table: 2nd" in english


def test_the_final_table_is_closed_by_its_own_name(org, club):
    eight = [Player.objects.create(club=club, name=f"Speler {n}") for n in range(1, 9)]
    tournament = tournaments.tournament_create(club=club, name="Finale-avond", series_count=1)
    tournament_results.series_finish(series=finished_series(tournament, eight))
    final = tournament_results.final_table_create(tournament=tournament, seed=3)
    page = org.get(reverse("tournament_series", args=[tournament.pk, final.number]))
    text = page.content.decode()
    assert "Finaletafel afsluiten" in text
    assert "Serie afsluiten" not in text


def test_after_the_final_the_tv_shows_the_final_order(client, public_club, members):
    tournament = with_final(public_club, members)
    order = finish.final_order(tournament)
    tv = client.get(reverse("tournament_tv", args=[public_club.slug, tournament.pk]), **HX)
    text = tv.content.decode()
    assert "Einduitslag" in text
    names = re.findall(r'<td class="name" data-name>([^<]+)</td>', text)
    assert names == [row.player.name for row in order]
    assert 'class="tv-board tv-board--wide"' in text  # no tables left to show


def test_before_the_final_is_closed_the_room_sees_the_standings(client, public_club, members):
    tournament = tournaments.tournament_create(
        club=public_club, name="Finale-avond", series_count=1
    )
    series = finished_series(tournament, members)
    tournament_results.series_finish(series=series)
    tournament_results.final_table_create(tournament=tournament, seed=3)
    text = client.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    assert "Einduitslag" not in text.content.decode()
    standings = tournament_selectors.tournament_standings(tournament)
    rows = standings_names(text.content.decode(), "tournament-standings")
    assert [name for _, name in rows] == [r.player.name for r in standings.rows]


def test_a_shared_place_has_an_equals_sign_and_a_withdrawal_is_marked(org, club, members):
    # Two tables played alike: both winners equal on everything, the others too.
    tournament = tournaments.tournament_create(
        club=club, name="Gelijk", series_count=2, final_table=False
    )
    series = finished_series(tournament, members[:8], seed=2)
    tournament_results.series_finish(series=series)
    leaver = series.tables.get(number=1).seats.order_by("position").last().player
    checkin.tournament_withdraw(tournament=tournament, player=leaver)
    rows = finish.prize_list(tournament)
    assert [finish.place_text(r) for r in rows] == ["1=", "1="] + ["3="] * 6
    page = org.get(reverse("tournament_prizes", args=[tournament.pk])).content.decode()
    shown = standings_names(page, "prize-list")
    assert [place for place, _ in shown] == ["1=", "1="] + ["3="] * 6
    row = page.split(f"{leaver.name}", 1)[1].split("</tr>", 1)[0]
    assert "vertrokken" in row
    assert "Een = achter de plaats: die plaats wordt gedeeld." in page


def test_the_public_prize_list_comes_with_the_end_and_shows_initials(client, public_club, members):
    shy = members[0]
    shy.name, shy.public_initials = LONG, True
    shy.save()
    tournament = tournaments.tournament_create(club=public_club, name="Avond", series_count=1)
    series = finished_series(tournament, members)
    url = reverse("tournament_public_prizes", args=[public_club.slug, tournament.pk])
    before = client.get(url).content.decode()
    assert "De prijslijst komt hier zodra het toernooi is afgelopen." in before
    assert 'id="prize-list"' not in before
    tournament_results.series_finish(series=series)
    tournament_results.final_table_create(tournament=tournament, seed=1)
    play_out(tournament.series.get(final=True).tables.get().session)
    tournament_results.series_finish(series=tournament.series.get(final=True))
    after = client.get(url).content.decode()
    assert after.count("<tr") == 1 + len(members)
    assert "Einduitslag" in after
    assert "W.V.D.B." in after
    assert LONG not in after
    standings = client.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    assert url in standings.content.decode()  # the standings link to the prize list


def test_the_organiser_hides_the_prize_list_and_shows_it_again(org, client, public_club, members):
    tournament = with_final(public_club, members)
    prizes = reverse("tournament_public_prizes", args=[public_club.slug, tournament.pk])
    public_csv = reverse("tournament_public_csv", args=[public_club.slug, tournament.pk])
    switch = reverse("tournament_prizes_public", args=[tournament.pk])
    response = org.post(switch, {"public": "0"}, follow=True)
    assert "De prijslijst is verborgen: alleen de organisator ziet haar." in messages_of(response)
    tournament.refresh_from_db()
    assert not tournament.prizes_public
    # Kept back from everyone but the organiser's own page: a member of the club included.
    assert org.get(prizes).status_code == 404
    assert org.get(public_csv).status_code == 404
    standings = org.get(reverse("tournament_standings", args=[public_club.slug, tournament.pk]))
    assert prizes not in standings.content.decode()
    assert org.get(reverse("tournament_prizes", args=[tournament.pk])).status_code == 200
    assert org.post(switch, {"public": "1"}).status_code == 302
    assert client.get(prizes).status_code == 200


@pytest.mark.parametrize("value", ["", "2", "ja", "1\x00"])
def test_a_switch_that_says_neither_is_refused_and_changes_nothing(org, tournament, value):
    response = org.post(
        reverse("tournament_prizes_public", args=[tournament.pk]), {"public": value}, follow=True
    )
    assert response.status_code in (200, 400)
    tournament.refresh_from_db()
    assert tournament.prizes_public
    if response.status_code == 200:
        assert "Kies of de prijslijst openbaar is." in messages_of(response)


def read_csv(response) -> list[dict[str, str]]:
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_final_standings_as_csv_for_the_organiser_and_the_public(
    org, client, public_club, members
):
    shy = members[1]
    shy.name, shy.public_initials = "=Bas de Vries", True  # a formula, were it not defused
    shy.save()
    tournament = with_final(public_club, members)
    order = finish.final_order(tournament)
    mine = read_csv(org.get(reverse("tournament_csv", args=[tournament.pk])))
    assert [r["player"] for r in mine] == [
        "'" + row.player.name if row.player.name.startswith("=") else row.player.name
        for row in order
    ]
    assert [int(r["place"]) for r in mine] == [row.place for row in order]
    assert [r["final_table_place"] for r in mine[:4]] == [str(r.final_place) for r in order[:4]]
    assert all(r["final_table_place"] == "" for r in mine[4:])
    assert {r["final"] for r in mine} == {"1"}
    client.logout()
    theirs = read_csv(
        client.get(reverse("tournament_public_csv", args=[public_club.slug, tournament.pk]))
    )
    assert "=Bas de Vries" not in {r["player"] for r in theirs}
    assert "'=Bas de Vries" not in {r["player"] for r in theirs}
    assert "'=.D.V." in {r["player"] for r in theirs}  # initials, and no formula either
    assert len(theirs) == len(members)


def test_a_series_that_has_just_begun_shows_the_last_closed_standings(client, public_club, members):
    tournament = tournaments.tournament_create(club=public_club, name="Avond", series_count=2)
    first = finished_series(tournament, members)
    tournament_results.series_finish(series=first)
    url = reverse("tournament_standings", args=[public_club.slug, tournament.pk])
    closed = standings_names(client.get(url).content.decode(), "tournament-standings")
    second = tournaments.series_draw(tournament=tournament, expected_number=2, seed=9)
    tournaments.series_start(series=second)
    text = client.get(url).content.decode()
    assert standings_names(text, "tournament-standings") == closed
    assert "serie 2 telt mee zodra de eerste tafel klaar is" in text
    assert [place for place, _ in closed].count("1=") < len(members)
    play_out(second.tables.get(number=1).session)
    counted = client.get(url).content.decode()
    assert "na serie 2 van 2" in counted
    assert "telt mee zodra" not in counted


@pytest.mark.parametrize("over", [False, True])
def test_the_standings_page_reads_one_query_more_once_over(
    django_assert_num_queries, client, public_club, members, over
):
    tournament = (
        with_final(public_club, members)
        if over
        else tournaments.tournament_create(club=public_club, name="Avond", series_count=2)
    )
    url = reverse("tournament_standings", args=[public_club.slug, tournament.pk])
    # The club, the tournament, the standings' three; once over the final table's places.
    with django_assert_num_queries(6 if over else 5):
        assert client.get(url).status_code == 200
    prizes = reverse("tournament_public_prizes", args=[public_club.slug, tournament.pk])
    with django_assert_num_queries(6 if over else 2):
        assert client.get(prizes).status_code == 200


# --- the TV that holds any night ------------------------------------------------------------


def test_the_tv_pages_200_players_tables_beside_their_standings(client, public_club):
    players = [Player.objects.create(club=public_club, name=f"{LONG} {i:03}") for i in range(200)]
    tournament = tournaments.tournament_create(club=public_club, name="Groot", series_count=3)
    checkin.tournament_check_in(tournament=tournament, players=players)
    tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    url = reverse("tournament_tv", args=[public_club.slug, tournament.pk])
    seen: list[int] = []
    standings_pages = set()
    page, turns = 1, 0
    while True:
        text = client.get(f"{url}?pagina={page}", **HX).content.decode()
        tables = [int(n) for n in re.findall(r'tv-table__number" data-num>(\d+)', text)]
        # Names this long are one to a line (room_views.TV_HALF_NAME): 7 tables of four a page.
        assert 0 < len(tables) <= 7
        assert f"tafel {tables[0]}\u2013{tables[-1]} van 50" in text  # an en dash
        seen += tables
        standings_pages.add(re.search(r"pagina (\d+) van 10", text).group(1))
        turns += 1
        page = int(re.search(r"\?pagina=(\d+)", text).group(1))
        if page == 1:
            break
    # Ten turns show the ten pages of standings (one column of 20 a page: the names are long),
    # and every table at least once, in order.
    assert turns == 10
    assert standings_pages == {str(n) for n in range(1, 11)}
    assert sorted(set(seen)) == list(range(1, 51))
    assert seen[: seen.index(50) + 1] == list(range(1, 51))


@pytest.mark.parametrize(("name", "columns"), [("Speler {:02}", 2), (LONG + " {:02}", 1)])
def test_the_tv_gives_long_names_the_whole_width(client, public_club, name, columns):
    """Names that fit half a column stand 40 to a screen in two columns, two to a table's
    line; one longer name (room_views.TV_HALF_NAME) and they stand in one column, one a line."""
    players = [Player.objects.create(club=public_club, name=name.format(i)) for i in range(30)]
    tournament = tournaments.tournament_create(club=public_club, name="Avond", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    url = reverse("tournament_tv", args=[public_club.slug, tournament.pk])
    text = client.get(url, **HX).content.decode()
    assert text.count("<tbody>") == columns
    assert ("tv-standings--wide" in text) == (columns == 1)
    assert ("tv-tables--wide" in text) == (columns == 1)
    assert text.count("data-name>") == 30 + (20 if columns == 1 else 30)  # tables + standings


def test_a_tv_whose_tables_turn_pages_keeps_polling(client, public_club, monkeypatch):
    """A pushed part is drawn only when something changes: a TV whose standings fit one page
    but whose tables need more than one would stay on its first tables, so it polls."""
    players = [Player.objects.create(club=public_club, name=f"Speler {i:02}") for i in range(20)]
    tournament = tournaments.tournament_create(club=public_club, name="Avond", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    url = reverse("tournament_tv", args=[public_club.slug, tournament.pk])
    board = client.get(url, **HX).content.decode().split(">", 1)[0]
    assert "data-push" in board  # five tables and 20 players: one screen, pushed
    monkeypatch.setattr(room_views, "TV_TABLE_LINES", 5)  # two tables of four to a page
    text = client.get(url, **HX).content.decode()
    assert "pagina" not in text.split("tv-standings-heading", 1)[1].split("</h1>", 1)[0]
    assert "data-push" not in text.split(">", 1)[0]
    assert "?pagina=2" in text.split(">", 1)[0]


def test_a_tie_breaker_is_said_only_under_the_row_it_names(club):
    """A finalist who stood between two others in the standings moves up: the row that now
    follows another is not said to be below it by the tie-breaker that named the finalist."""
    eight = [Player.objects.create(club=club, name=f"Speler {n}") for n in range(1, 9)]
    tournament = tournaments.tournament_create(club=club, name="Finale-avond", series_count=1)
    tournament_results.series_finish(series=finished_series(tournament, eight, seed=1))
    standings = tournament_selectors.tournament_standings(tournament)
    # The second withdraws: the final table passes over them, to the fifth.
    checkin.tournament_withdraw(tournament=tournament, player=standings.rows[1].player)
    final = tournament_results.final_table_create(tournament=tournament, seed=3)
    play_out(final.tables.get().session)
    tournament_results.series_finish(series=final)
    tournament.refresh_from_db()
    seated = {s.player_id for s in final.tables.get().seats.all()}
    standings = tournament_selectors.tournament_standings(tournament)
    rows = standings.rows
    # The first row after a finalist in the standings that is not the first one below the
    # finalists here: its tie-breaker (given it one) speaks of the finalist above it.
    i = next(
        i
        for i in range(2, len(rows))
        if rows[i].player.pk not in seated and rows[i - 1].player.pk in seated
    )
    rows[i] = replace(rows[i], decided_by="strafpunten", shared=False)
    order = finish.final_order(tournament, standings)
    below = next(r for r in order if r.player == rows[i].player)
    above = order[order.index(below) - 1]
    assert above.player.pk not in seated
    assert below.decided_by == ""
    # Where the row above is the one above in the standings too, its tie-breaker stays.
    j = next(
        j
        for j in range(1, len(rows))
        if rows[j].player.pk not in seated and rows[j - 1].player.pk not in seated
    )
    rows[j] = replace(rows[j], decided_by="toepkoningen", shared=False, place=rows[j - 1].place + 1)
    order = finish.final_order(tournament, standings)
    assert next(r for r in order if r.player == rows[j].player).decided_by == "toepkoningen"
