"""The toernooi's pages through real HTTP: the organiser's and the room's.

Every refusal is shown as a message and changes nothing; the services' own tests
(``tests/test_tournament_*.py``) check the rules behind them.
"""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.urls import reverse

from scoring.lei import services
from scoring.models import (
    ClubMembership,
    Player,
    Series,
    Session,
    Tournament,
    TournamentEntry,
)
from scoring.toernooi import results as tournament_results
from scoring.toernooi import services as tournaments
from tests.builders import HX, make_club, new_key, play_out
from tests.csp import POLICY, directives, inline_parts
from tests.toernooi.tournaments import (
    check_in,
    drawn,
    finished_series,
    messages_of,
    state,
)

# --- creating -------------------------------------------------------------------------------


def test_an_admin_creates_a_tournament_and_lands_on_the_check_in(org, club):
    response = org.post(
        reverse("tournament_new"),
        {
            "club": club.pk,
            "name": "Koningsavond",
            "date": "2026-11-27",
            "series": "3",
            "end": "toepkoning",
            "table_points": "10, 7, 5, 3, 1",
            "table_size": "4",
            "final_table": "on",
            "preset": "",
        },
    )
    tournament = Tournament.objects.get(name="Koningsavond")
    assert response.status_code == 302
    assert response["Location"] == reverse("tournament_checkin", args=[tournament.pk])
    assert tournament.series_count == 3
    assert tournament.table_points == [10, 7, 5, 3, 1]
    assert tournament.final_table
    assert not tournament.rated  # the box was not ticked


def test_the_organiser_says_whether_a_tournament_counts_for_the_rating(org, club):
    form = org.get(reverse("tournament_new")).content.decode()
    assert "Telt mee voor de rating" in form
    # on unless the organiser says not
    assert re.search(r'<input type="checkbox" name="rated"[^>]* checked>', form)
    org.post(
        reverse("tournament_new"),
        {
            "club": club.pk,
            "name": "Voor de rating",
            "date": "2026-11-27",
            "series": "2",
            "end": "toepkoning",
            "table_points": "5, 3, 1",
            "table_size": "4",
            "rated": "on",
        },
    )
    assert Tournament.objects.get(name="Voor de rating").rated


def test_a_form_the_service_refuses_is_shown_again_and_creates_nothing(org, club):
    response = org.post(
        reverse("tournament_new"),
        {
            "club": club.pk,
            "name": "Scheef",
            "date": "2026-11-27",
            "series": "3",
            "end": "rounds",
            "end_rounds": "",
            "table_points": "3, 7, 10",  # a lower place would get more
            "table_size": "4",
        },
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "Hoeveel rondes speelt een tafel?" in text
    assert not Tournament.objects.filter(name="Scheef").exists()
    response = org.post(
        reverse("tournament_new"),
        {
            "club": club.pk,
            "name": "Scheef",
            "date": "2026-11-27",
            "series": "3",
            "end": "toepkoning",
            "table_points": "3, 7, 10",
            "table_size": "4",
        },
    )
    assert "Een lagere plaats krijgt niet meer tafelpunten dan een hogere." in (
        response.content.decode()
    )
    assert not Tournament.objects.filter(name="Scheef").exists()


def test_a_scorer_of_the_club_may_not_organise(client, club, tournament, django_user_model):
    scorer = django_user_model.objects.create_user("teller")
    ClubMembership.objects.create(user=scorer, club=club, role="scorer")
    client.force_login(scorer)
    assert client.get(reverse("tournament_new")).status_code == 403
    assert client.get(reverse("tournament_page", args=[tournament.pk])).status_code == 404
    assert client.post(reverse("tournament_draw", args=[tournament.pk])).status_code == 404


def test_an_admin_of_another_club_gets_a_404(client, tournament, django_user_model):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    user = django_user_model.objects.create_user("zeven")
    ClubMembership.objects.create(user=user, club=other, role="admin")
    client.force_login(user)
    assert client.get(reverse("tournament_checkin", args=[tournament.pk])).status_code == 404


# --- check-in -------------------------------------------------------------------------------


def test_tapping_a_member_checks_them_in_and_tapping_again_out(org, tournament, members):
    url = reverse("tournament_checkin", args=[tournament.pk])
    response = org.post(url, {"action": "in", "player": members[0].pk}, **HX)
    assert response.status_code == 200
    text = response.content.decode()
    assert text.lstrip().startswith('<div id="checkin"')  # the fragment, not the page
    assert re.search(r'aria-pressed="true" data-player="Anne"', text)
    assert "1 speler speelt mee" in text
    response = org.post(url, {"action": "out", "player": members[0].pk}, **HX)
    assert re.search(r'aria-pressed="false" data-player="Anne"', response.content.decode())
    assert "0 spelers spelen mee" in response.content.decode()


def test_a_walk_in_is_added_as_a_guest_by_name(org, tournament):
    url = reverse("tournament_checkin", args=[tournament.pk])
    response = org.post(url, {"action": "guest", "name": "  Wim   de Wit "})
    assert response.status_code == 302
    entry = TournamentEntry.objects.get(tournament=tournament)
    assert entry.player.name == "Wim de Wit"
    assert entry.player.is_guest


def test_an_empty_guest_name_is_refused_with_a_message(org, tournament):
    url = reverse("tournament_checkin", args=[tournament.pk])
    response = org.post(url, {"action": "guest", "name": "   "}, **HX)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not TournamentEntry.objects.filter(tournament=tournament).exists()


def test_a_player_of_another_club_cannot_be_checked_in(org, tournament):
    stranger = Player.objects.create(club=make_club("Elders", "elders"), name="Vreemd")
    before = state(tournament)
    response = org.post(
        reverse("tournament_checkin", args=[tournament.pk]),
        {"action": "in", "player": stranger.pk},
        follow=True,
    )
    assert "Die speler is niet van deze club." in messages_of(response)
    assert state(tournament) == before


def test_a_late_arrival_joins_from_the_next_series(org, tournament, members):
    series = drawn(tournament, members[:12])
    tournaments.series_start(series=series)
    late = members[12]
    response = org.post(
        reverse("tournament_checkin", args=[tournament.pk]),
        {"action": "in", "player": late.pk},
        follow=True,
    )
    assert "Wie nu aanmeldt, speelt mee vanaf serie 2." in response.content.decode()
    assert TournamentEntry.objects.get(tournament=tournament, player=late).from_series == 2


def test_withdrawing_a_player_mid_game_lets_their_game_go_on(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    leaving = members[0]
    table = series.tables.get(seats__player=leaving)
    session = table.session
    org.post(
        reverse("tournament_checkin", args=[tournament.pk]),
        {"action": "out", "player": leaving.pk},
    )
    session.refresh_from_db()
    assert session.status == Session.Status.RUNNING  # the game goes on with them
    assert session.seats.filter(player=leaving).exists()
    for t in series.tables.all():
        play_out(t.session)
    tournament_results.series_finish(series=series)
    second = tournaments.series_draw(tournament=tournament, expected_number=2, seed=3)
    assert not second.seats.filter(player=leaving).exists()  # out of the next draw
    response = org.get(reverse("tournament_checkin", args=[tournament.pk]))
    assert "speelde t/m serie 1" in response.content.decode()


# --- the draw -------------------------------------------------------------------------------


def test_a_draw_with_fewer_than_three_players_is_refused(org, tournament, members):
    check_in(tournament, members[:2])
    before = state(tournament)
    response = org.post(
        reverse("tournament_draw", args=[tournament.pk]), {"number": "1"}, follow=True
    )
    assert any("minstens 3 nodig" in m for m in messages_of(response))
    assert state(tournament) == before


def test_a_draw_shows_the_tables_seed_and_dealers(org, tournament, members):
    check_in(tournament, members)
    response = org.post(
        reverse("tournament_draw", args=[tournament.pk]),
        {"number": "1", "seed": "424242"},
        follow=True,
    )
    series = Series.objects.get(tournament=tournament, number=1)
    assert series.seed == 424242
    text = response.content.decode()
    assert "Serie 1 is geloot." in messages_of(response)
    assert '<span class="seed" id="seed">424242</span>' in text
    assert text.count('data-state="drawn"') == 3  # 13 players: 5 + 4 + 4
    assert text.count("badge--deler") == 3
    assert "Opnieuw loten" in text


def test_a_draw_while_a_table_still_plays_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    first = series.tables.order_by("number").first()
    play_out(first.session)
    before = state(tournament)
    response = org.post(
        reverse("tournament_draw", args=[tournament.pk]), {"number": "2"}, follow=True
    )
    assert any("de tafels 2, 3 spelen nog" in m for m in messages_of(response))
    assert state(tournament) == before


def test_the_second_organiser_drawing_the_same_series_is_told(org, tournament, members):
    check_in(tournament, members)
    url = reverse("tournament_draw", args=[tournament.pk])
    first = org.post(url, {"number": "1", "seed": "1"})
    assert first.status_code == 302
    before = state(tournament)
    second = org.post(url, {"number": "1", "seed": "2"}, follow=True)  # the same page, later
    assert any("Serie 1 is al geloot" in m for m in messages_of(second))
    assert second.request["PATH_INFO"] == reverse("tournament_series", args=[tournament.pk, 1])
    assert state(tournament) == before
    assert Series.objects.get(tournament=tournament, number=1).seed == 1


@pytest.mark.django_db(transaction=True)
def test_two_organisers_drawing_at_once_one_wins(client, club, organiser, members):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no row locks: two writers at once need PostgreSQL")
    tournament = tournaments.tournament_create(club=club, name="Tegelijk", series_count=2)
    check_in(tournament, members)
    url = reverse("tournament_draw", args=[tournament.pk])
    answers: list[str] = []
    barrier = threading.Barrier(2)

    def draw(seed: int) -> None:
        from django.test import Client

        own = Client()
        own.force_login(organiser)
        barrier.wait()
        response = own.post(url, {"number": "1", "seed": str(seed)}, follow=True)
        # The page's text: the test client's captured context is shared between threads.
        answers.append(response.content.decode())
        connection.close()

    threads = [threading.Thread(target=draw, args=(seed,)) for seed in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    told = [a for a in answers if "Serie 1 is al geloot" in a]
    won = [a for a in answers if "Serie 1 is geloot." in a]
    assert len(told) == 1
    assert len(won) == 1
    assert Series.objects.filter(tournament=tournament).count() == 1


def test_a_swap_of_two_players_changes_their_seats(org, tournament, members):
    series = drawn(tournament, members)
    a, b = series.tables.get(number=1).seats.first(), series.tables.get(number=2).seats.first()
    response = org.post(
        reverse("tournament_series_swap", args=[tournament.pk, 1]),
        {"a": a.player_id, "b": b.player_id},
        follow=True,
    )
    assert f"{a.player.name} en {b.player.name} zijn gewisseld." in messages_of(response)
    assert series.seats.get(player_id=a.player_id).table.number == 2
    assert series.seats.get(player_id=b.player_id).table.number == 1


def test_a_swap_of_a_player_with_themselves_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    seat = series.seats.first()
    before = state(tournament)
    response = org.post(
        reverse("tournament_series_swap", args=[tournament.pk, 1]),
        {"a": seat.player_id, "b": seat.player_id},
        follow=True,
    )
    assert "Kies twee verschillende spelers om te wisselen." in messages_of(response)
    assert state(tournament) == before


def test_a_swap_of_a_400_digit_player_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    seat = series.seats.first()
    before = state(tournament)
    response = org.post(
        reverse("tournament_series_swap", args=[tournament.pk, 1]),
        {"a": seat.player_id, "b": "9" * 400},
        follow=True,
    )
    assert response.status_code == 200
    assert state(tournament) == before


def test_a_swap_that_would_seat_a_player_twice_is_refused(org, tournament, members):
    # A player not at any table of the series (checked in after the draw) would sit twice
    # if swapped in beside the drawn seats: the service refuses it.
    series = drawn(tournament, members[:12])
    check_in(tournament, [members[12]])
    before = state(tournament)
    response = org.post(
        reverse("tournament_series_swap", args=[tournament.pk, 1]),
        {"a": members[12].pk, "b": series.seats.first().player_id},
        follow=True,
    )
    assert any("zit niet aan een tafel van serie 1" in m for m in messages_of(response))
    assert state(tournament) == before


def test_a_swap_after_the_start_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    one, two = series.seats.all()[:2]
    before = state(tournament)
    response = org.post(
        reverse("tournament_series_swap", args=[tournament.pk, 1]),
        {"a": one.player_id, "b": two.player_id},
        follow=True,
    )
    assert any("de indeling staat vast" in m for m in messages_of(response))
    assert state(tournament) == before


def test_drawing_again_before_the_start_uses_the_new_seed(org, tournament, members):
    drawn(tournament, members, seed=1)
    response = org.post(
        reverse("tournament_series_redraw", args=[tournament.pk, 1]), {"seed": "99"}, follow=True
    )
    assert "Serie 1 is opnieuw geloot (lotnummer 99)." in messages_of(response)
    assert Series.objects.get(tournament=tournament, number=1).seed == 99


def test_a_seed_that_is_no_number_is_refused(org, tournament, members):
    drawn(tournament, members, seed=1)
    before = state(tournament)
    response = org.post(
        reverse("tournament_series_redraw", args=[tournament.pk, 1]), {"seed": "abc"}, follow=True
    )
    assert "Een lotnummer is een heel getal van 0 of meer." in messages_of(response)
    assert state(tournament) == before


# --- the series while it plays --------------------------------------------------------------


def test_the_running_series_polls_and_shows_each_tables_state(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    first = series.tables.get(number=1)
    play_out(first.session)
    url = reverse("tournament_series", args=[tournament.pk, 1])
    page = org.get(url).content.decode()
    assert 'hx-trigger="every 3s, shown"' in page
    assert "data-poll-visible" in page
    fragment = org.get(url, **HX).content.decode()
    assert fragment.lstrip().startswith('<div id="series-tables"')
    assert fragment.count('data-state="finished"') == 1
    assert fragment.count('data-state="running"') == 2
    assert "2 tafels spelen nog." in fragment
    assert "Kan zodra alle tafels klaar zijn." in fragment


def test_closing_a_series_before_every_table_is_done_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    before = state(tournament)
    response = org.post(reverse("tournament_series_finish", args=[tournament.pk, 1]), follow=True)
    assert any("is nog niet klaar" in m for m in messages_of(response))
    assert state(tournament) == before


def test_closing_a_series_when_all_tables_are_done(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    for table in series.tables.all():
        play_out(table.session)
    fragment = org.get(reverse("tournament_series", args=[tournament.pk, 1]), **HX)
    assert "Alle tafels zijn klaar." in fragment.content.decode()
    response = org.post(reverse("tournament_series_finish", args=[tournament.pk, 1]), follow=True)
    assert "Serie 1 is afgesloten." in messages_of(response)
    assert "Serie 2 loten" in response.content.decode()


def test_a_table_after_its_rounds_may_be_ended_by_the_organiser(org, club, members):
    tournament = tournaments.tournament_create(
        club=club, name="Kort", series_count=1, end_mode="rounds", end_rounds=1
    )
    series = drawn(tournament, members[:4])
    tournaments.series_start(series=series)
    table = series.tables.get()
    services.session_record_event(
        session=table.session,
        event={"type": "win", "player": table.seats.first().player.name},
        version=table.session.version,
        key=new_key(),
    )
    page = org.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert "mag stoppen" in page
    assert "Tafel beëindigen" in page
    response = org.post(reverse("tournament_table_finish", args=[tournament.pk, 1, 1]), follow=True)
    assert "Tafel 1 is klaar." in messages_of(response)
    table.session.refresh_from_db()
    assert table.session.status == Session.Status.FINISHED


# --- table cards and a paper lei ------------------------------------------------------------


def test_the_table_cards_carry_each_tables_scorer_link_as_a_qr_code(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    response = org.get(reverse("tournament_table_cards", args=[tournament.pk, 1]))
    text = response.content.decode()
    assert response.status_code == 200
    assert text.count('class="table-card"') == 3
    assert text.count("<svg") == 3
    for table in series.tables.all():
        assert f"Scoren aan tafel {table.number}" in text  # each QR's title
    assert "Content-Encoding" not in response  # secret links: never compressed
    one = org.get(reverse("tournament_table_cards", args=[tournament.pk, 1]) + "?tafel=2")
    assert one.content.decode().count('class="table-card"') == 1
    assert (
        org.get(reverse("tournament_table_cards", args=[tournament.pk, 1]) + "?tafel=9").status_code
        == 404
    )


def test_the_qr_code_encodes_the_tables_own_scorer_link(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    table = series.tables.get(number=1)
    from scoring.svg import qr_svg

    url = "http://testserver" + reverse("scorer_link", args=[table.session.scorer_token])
    card = org.get(reverse("tournament_table_cards", args=[tournament.pk, 1]) + "?tafel=1")
    assert qr_svg(url, "Scoren aan tafel 1") in card.content.decode()


def test_a_paper_lei_with_final_totals_finishes_the_table(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    table = series.tables.get(number=1)
    seats = list(table.seats.order_by("position"))
    # The first is the one left below 10: the others are out (RULES.md §10).
    data = {f"total_{s.player_id}": str(10 + i if i else 3) for i, s in enumerate(seats)}
    response = org.post(
        reverse("tournament_table_paper", args=[tournament.pk, 1, 1]), data, follow=True
    )
    assert "De papieren lei van tafel 1 is ingevoerd." in messages_of(response)
    table.refresh_from_db()
    assert table.session.status == Session.Status.FINISHED
    places = dict(table.session.results.values_list("player_id", "place"))
    assert places[seats[0].player_id] == 1


def test_a_paper_lei_the_engine_refuses_changes_nothing(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    table = series.tables.get(number=1)
    session_id = table.session_id
    a, b, c = (s.player.name for s in table.seats.order_by("position")[:3])
    # Round 2: whoever folded cannot take the last trick.
    rounds = f"{a} wint\n{b} toept, {c} weg, {c} wint"
    before = state(tournament)
    response = org.post(
        reverse("tournament_table_paper", args=[tournament.pk, 1, 1]),
        {"action": "rounds", "rounds": rounds},
    )
    assert response.status_code == 422
    text = response.content.decode()
    assert "De papieren lei klopt niet: ronde 2:" in text
    assert state(tournament) == before
    table.refresh_from_db()
    assert table.session_id == session_id
    assert not table.session.rounds.exists()


def test_a_paper_lei_of_rounds_not_played_out_replaces_the_tables_game_and_it_plays_on(
    org, tournament, members
):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    table = series.tables.get(number=1)
    names = [s.player.name for s in table.seats.order_by("position")]
    rounds = "\n".join(
        [f"{names[0]} wint"] * 3 + [f"{names[1]} toept, {names[0]} weg, {names[1]} wint"]
    )
    response = org.post(
        reverse("tournament_table_paper", args=[tournament.pk, 1, 1]),
        {"action": "rounds", "rounds": rounds},
        follow=True,
    )
    assert messages_of(response) == [
        "De papieren lei van tafel 1 is ingevoerd als niet uitgespeeld: de tafel speelt verder"
        " op de lei, vanaf deze stand."
    ]
    table.refresh_from_db()
    assert table.session.rounds.count() == 4
    assert table.session.status == Session.Status.RUNNING  # nobody is out: never a result


def test_a_paper_round_naming_someone_not_at_the_table_is_refused(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    before = state(tournament)
    response = org.post(
        reverse("tournament_table_paper", args=[tournament.pk, 1, 1]),
        {"action": "rounds", "rounds": "Onbekende wint"},
    )
    assert "Ronde 1: Onbekende zit niet aan deze tafel." in response.content.decode()
    assert state(tournament) == before


def test_a_paper_lei_with_a_missing_total_is_refused_by_the_form(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    before = state(tournament)
    response = org.post(reverse("tournament_table_paper", args=[tournament.pk, 1, 1]), {})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert state(tournament) == before


# --- standings, TV, final table and prizes --------------------------------------------------


def test_the_standings_are_provisional_while_a_series_plays(client, club, tournament, members):
    club.standings_public = True
    club.save()
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    play_out(series.tables.get(number=1).session)
    url = reverse("tournament_standings", args=[club.slug, tournament.pk])
    text = client.get(url).content.decode()
    assert "voorlopig" in text
    assert "Tafelpunten: meer tafelpunten staat hoger." in text
    for table in series.tables.exclude(number=1):
        play_out(table.session)
    tournament_results.series_finish(series=series)
    text = client.get(url).content.decode()
    assert "badge provisional" not in text
    assert "na serie 1 van 2" in text


def test_the_public_page_shows_initials_where_a_player_asked(client, club, tournament, members):
    club.standings_public = True
    club.save()
    shy = members[0]
    shy.name, shy.public_initials = "Anne van Dam", True
    shy.save()
    finished_series(tournament, members)
    url = reverse("tournament_standings", args=[club.slug, tournament.pk])
    public = client.get(url).content.decode()
    assert "A.V.D." in public
    assert "Anne van Dam" not in public
    tv = client.get(reverse("tournament_tv", args=[club.slug, tournament.pk])).content.decode()
    assert "A.V.D." in tv
    assert "Anne van Dam" not in tv


def test_a_club_that_does_not_publish_shows_its_standings_to_members_only(
    client, club, tournament, organiser
):
    url = reverse("tournament_standings", args=[club.slug, tournament.pk])
    assert client.get(url).status_code == 404
    client.force_login(organiser)
    assert client.get(url).status_code == 200


def standings_queries(django_assert_num_queries, client, club, count: int) -> None:
    players = [Player.objects.create(club=club, name=f"Speler {i:03}") for i in range(count)]
    tournament = tournaments.tournament_create(club=club, name=f"T{count}", series_count=2)
    finished_series(tournament, players)
    second = tournaments.series_draw(tournament=tournament, expected_number=2, seed=5)
    tournaments.series_start(series=second)  # running: provisional, read from current results
    url = reverse("tournament_standings", args=[club.slug, tournament.pk])
    # 1. the club (and whether the asker is a member); 2. the tournament; 3. its entries with
    # their players; 4. the series' states; 5. every table result of the regular series.
    with django_assert_num_queries(5):
        response = client.get(url)
    assert response.status_code == 200
    assert response.content.decode().count("<tr") == count + 1


@pytest.mark.parametrize("count", [12, 100])
def test_the_standings_page_reads_as_much_for_12_players_as_for_100(
    django_assert_num_queries, client, club, count
):
    club.standings_public = True
    club.save()
    standings_queries(django_assert_num_queries, client, club, count)


def test_the_tv_shows_the_standings_and_the_next_series_tables(client, club, tournament, members):
    club.standings_public = True
    club.save()
    finished_series(tournament, members)
    tournaments.series_draw(tournament=tournament, expected_number=2, seed=11)
    url = reverse("tournament_tv", args=[club.slug, tournament.pk])
    page = client.get(url).content.decode()
    assert 'class="tv tv-toernooi"' in page
    assert "Serie 2: zoek je tafel" in page
    assert page.count('class="tv-table"') == 3
    fragment = client.get(url, **HX).content.decode()
    assert fragment.lstrip().startswith('<div id="tv-board"')
    assert 'hx-trigger="every 8s, shown"' in fragment


def test_the_tv_turns_its_pages_when_the_standings_do_not_fit(client, club):
    club.standings_public = True
    club.save()
    players = [Player.objects.create(club=club, name=f"Speler {i:03}") for i in range(50)]
    tournament = tournaments.tournament_create(club=club, name="Groot", series_count=1)
    check_in(tournament, players)
    url = reverse("tournament_tv", args=[club.slug, tournament.pk])
    first = client.get(url, **HX).content.decode()
    assert "pagina 1 van 2" in first
    assert first.count("<tr>") == 42  # two columns of 20, each with its head
    assert f'hx-get="{url}?pagina=2"' in first
    second = client.get(url + "?pagina=2", **HX).content.decode()
    assert "pagina 2 van 2" in second
    assert second.count("<tr>") == 11
    assert f'hx-get="{url}?pagina=1"' in second
    assert "pagina 1 van 2" in client.get(url + "?pagina=x", **HX).content.decode()


def test_the_final_table_starts_from_the_organiser_page_and_the_prizes_follow(org, club, members):
    tournament = tournaments.tournament_create(club=club, name="Finale", series_count=1)
    series = finished_series(tournament, members)
    tournament_results.series_finish(series=series)
    page = org.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    assert "Finaletafel starten (de beste vier)" in page
    response = org.post(reverse("tournament_final", args=[tournament.pk]), follow=True)
    assert "De finaletafel speelt: print de tafelkaart." in messages_of(response)
    final = Series.objects.get(tournament=tournament, final=True)
    assert final.tables.get().seats.count() == 4
    play_out(final.tables.get().session)
    tournament_results.series_finish(series=final)
    prizes = org.get(reverse("tournament_prizes", args=[tournament.pk])).content.decode()
    winner = final.tables.get().session.results.get(place=1).player.name
    first_row = re.search(r"<tbody>\s*<tr>\s*<td[^>]*>1</td>\s*<th[^>]*>([^<]+)", prizes)
    assert first_row
    assert first_row.group(1).strip() == winner
    assert prizes.count("<tr>") == 1 + len(members)
    assert "data-print" in prizes


def test_starting_the_final_table_before_the_last_series_is_refused(org, tournament, members):
    finished_series(tournament, members)
    before = state(tournament)
    response = org.post(reverse("tournament_final", args=[tournament.pk]), follow=True)
    assert any("Eerst worden alle 2 series gespeeld." in m for m in messages_of(response))
    assert state(tournament) == before


def test_a_table_playing_to_the_toepkoning_is_not_ended_early(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    before = state(tournament)
    response = org.post(reverse("tournament_table_finish", args=[tournament.pk, 1, 1]), follow=True)
    assert "Tafel 1 speelt nog: die stopt niet eerder." in messages_of(response)
    assert state(tournament) == before
    assert series.tables.get(number=1).session.status == Session.Status.RUNNING


def test_pairs_that_must_meet_again_are_shown_to_the_organiser(org, club, members):
    # Four players, two series: one table each time, so every pair meets again.
    tournament = tournaments.tournament_create(club=club, name="Klein", series_count=2)
    finished_series(tournament, members[:4])
    org.post(reverse("tournament_draw", args=[tournament.pk]), {"number": "2"})
    text = org.get(reverse("tournament_series", args=[tournament.pk, 2])).content.decode()
    assert "Treffen elkaar opnieuw" in text
    pairs = re.findall(r"<li>(\w+) — (\w+)</li>", text)
    assert len(pairs) == 6  # every pair of four
    assert {name for pair in pairs for name in pair} == {p.name for p in members[:4]}
    # Every pair a second time: 6 extra meetings, and no draw of one table could do better.
    assert "Extra ontmoetingen tot en met deze serie: 6." in text
    assert "Met 4 spelers over 2 series zijn er minstens 6 niet te vermijden." in text


def test_the_first_draw_says_how_many_meetings_the_evening_cannot_avoid(org, club, members):
    # 13 players over 4 series at 5+4+4: 88 pairs at the tables, 78 pairs in all.
    tournament = tournaments.tournament_create(club=club, name="Krap", series_count=4)
    drawn(tournament, members)
    text = org.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert "Extra ontmoetingen tot en met deze serie: 0." in text
    assert "Met 13 spelers over 4 series zijn er minstens 10 niet te vermijden." in text


def test_a_draw_without_repeats_says_so(org, club, tournament, members):
    # Sixteen at four tables of four: the second series seats one of each first table together.
    extra = [Player.objects.create(club=club, name=n) for n in ("Nol", "Olga", "Piet")]
    finished_series(tournament, members + extra)
    tournament_results.series_finish(series=tournament.series.get(number=1))
    org.post(reverse("tournament_draw", args=[tournament.pk]), {"number": "2"})
    text = org.get(reverse("tournament_series", args=[tournament.pk, 2])).content.decode()
    assert "Niemand treft een tegenstander van een eerdere serie opnieuw." in text
    assert "Extra ontmoetingen" not in text  # none so far, none needed


@pytest.mark.parametrize(
    ("language", "words", "dutch"),
    [
        ("en", ["Draw again", "Swap two players", "Start series 1"], "Opnieuw loten"),
        ("de", ["Neu auslosen", "Zwei Spieler tauschen", "Serie 1 beginnen"], "Opnieuw loten"),
    ],
)
def test_the_draw_speaks_english_and_german(org, tournament, members, language, words, dutch):
    drawn(tournament, members)
    url = reverse("tournament_series", args=[tournament.pk, 1])
    text = org.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for word in words:
        assert word in text
    assert dutch not in text


def test_every_toernooi_page_has_nothing_inline_for_the_policy(org, club, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    pk = tournament.pk
    urls = [
        reverse("tournament_list"),
        reverse("tournament_new"),
        reverse("tournament_page", args=[pk]),
        reverse("tournament_checkin", args=[pk]),
        reverse("tournament_series", args=[pk, 1]),
        reverse("tournament_table_cards", args=[pk, 1]),
        reverse("tournament_table_paper", args=[pk, 1, 1]),
        reverse("tournament_prizes", args=[pk]),
        reverse("tournament_standings", args=[club.slug, pk]),
        reverse("tournament_tv", args=[club.slug, pk]),
    ]
    for url in urls:
        for headers in ({}, HX):
            response = org.get(url, **headers)
            assert response.status_code == 200, url
            assert directives(response["Content-Security-Policy"]) == directives(POLICY)
            assert inline_parts(response.content.decode()).found == [], url


def test_the_cards_print_on_a5_when_asked(org, tournament, members):
    series = drawn(tournament, members)
    tournaments.series_start(series=series)
    url = reverse("tournament_table_cards", args=[tournament.pk, 1])
    assert 'class="print-cards"' in org.get(url).content.decode()
    assert 'class="print-cards print-cards--a5"' in org.get(url + "?formaat=a5").content.decode()


def test_the_organiser_sees_the_tournaments_of_their_clubs_only(org, club, tournament):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    tournaments.tournament_create(club=other, name="Elders")
    text = org.get(reverse("tournament_list")).content.decode()
    assert "Wintertoernooi" in text
    assert "Elders" not in text
    assert reverse("tournament_new") in text
