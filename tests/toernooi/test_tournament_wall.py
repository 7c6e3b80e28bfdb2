"""The wall and the clock through real HTTP: the seating sheet of a series to hang up, and the
round timer that the organiser starts and stops and every TV shows
(``scoring/toernooi/wall_views.py``, ``scoring/toernooi/clock.py``)."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.models import ClubMembership, Player, Series, Tournament
from scoring.toernooi import checkin, results
from scoring.toernooi import services as tournaments
from tests.builders import HX, make_club, play_out
from tests.csp import POLICY, directives, inline_parts

NAMES = [
    "Wilhelmina van den Berg", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs",
    "Hans", "Ilse", "Joop", "Kees", "Lies", "Mien",
]  # fmt: skip


def timed(club, **fields) -> Tournament:
    """A tournament whose tables play until a time ("op een tijd")."""
    return tournaments.tournament_create(
        club=club,
        name="Zomeravond",
        series_count=2,
        end_mode=Tournament.EndMode.TIME,
        end_time=datetime.time(22, 30),
        **fields,
    )


def started(tournament: Tournament, players: list[Player], seed: int = 7) -> Series:
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=seed)
    return tournaments.series_start(series=series)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def clock_url(tournament: Tournament, number: int = 1) -> str:
    return reverse("tournament_series_clock", args=[tournament.pk, number])


def tv_clock(client, tournament: Tournament) -> tuple[int, str] | None:
    """The TV's clock: the seconds left it was drawn with and the time it shows; None."""
    url = reverse("tournament_tv", args=[tournament.club.slug, tournament.pk])
    response = client.get(url)
    assert response.status_code == 200
    text = response.content.decode()
    found = re.search(r'data-seconds-left="(\d+)">\s*<span[^>]*data-clock-text>([^<]*)<', text)
    return (int(found[1]), found[2]) if found else None


# --- the seating sheet -------------------------------------------------------------------------


def test_the_seating_sheet_shows_every_table_with_its_players_in_seat_order(org, club, members):
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=members)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=7)
    url = reverse("tournament_series_sheet", args=[tournament.pk, 1])

    response = org.get(url)
    assert response.status_code == 200
    text = response.content.decode()
    assert 'class="print-seating"' in text  # printed on its own A4 page (static/css)
    assert "Serie 1: wie zit waar" in text
    assert "3 tafels · 13 spelers" in text
    for table in series.tables.all():
        heading, seats = re.search(
            rf'data-table="{table.number}">\s*<h2>([^<]*)</h2>\s*<ol>(.*?)</ol>', text, re.DOTALL
        ).groups()
        assert heading == f"Tafel {table.number}"
        seated = [s.player.name for s in table.seats.order_by("position")]
        shown = re.findall(r"<li>([^<]+?)(?: <span|</li>)", seats)
        assert shown == seated
    assert text.count("deelt eerst") == 3  # each table's first dealer
    assert "seating--l" in text  # three tables: the largest type
    # The series page links it, drawn and started.
    assert url in org.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    tournaments.series_start(series=series)
    assert url in org.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert org.get(url).status_code == 200


@pytest.mark.parametrize(("count", "density"), [(13, "l"), (60, "m"), (200, "lines")])
def test_the_seating_sheet_reads_as_much_for_13_players_as_for_200(
    django_assert_num_queries, org, club, count, density
):
    players = [Player.objects.create(club=club, name=f"Speler {i:03}") for i in range(count)]
    tournament = tournaments.tournament_create(club=club, name="Groot", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    tournaments.series_start(series=series)
    url = reverse("tournament_series_sheet", args=[tournament.pk, 1])
    # 1-2. the login's session and user; 3. the tournament, if the user organises it; 4. the
    # series; 5-7. its tables with dealers and games, their seats with the players, the results.
    with django_assert_num_queries(7):
        response = org.get(url)
    text = response.content.decode()
    assert text.count("data-table=") == series.tables.count()
    assert f"seating--{density}" in text  # the type shrinks as the tables grow
    for player in players:
        assert player.name in text


def test_the_seating_sheet_of_the_final_table_says_so(org, club, members):
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=1)
    first = started(tournament, members)
    for table in first.tables.select_related("session"):
        play_out(table.session)
    results.series_finish(series=first)
    final = results.final_table_create(tournament=tournament)
    response = org.get(reverse("tournament_series_sheet", args=[tournament.pk, final.number]))
    assert response.status_code == 200
    assert "Finaletafel: wie zit waar" in response.content.decode()


def test_the_seating_sheet_is_the_organisers_only(client, club, members, django_user_model):
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    started(tournament, members)
    url = reverse("tournament_series_sheet", args=[tournament.pk, 1])
    assert client.get(url).status_code == 302  # log in first
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    stranger = django_user_model.objects.create_user("zeven", is_staff=True)
    ClubMembership.objects.create(user=stranger, club=other, role="admin")
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    scorer = django_user_model.objects.create_user("teller")
    ClubMembership.objects.create(user=scorer, club=club, role="scorer")
    client.force_login(scorer)
    assert client.get(url).status_code == 404


def test_a_seating_sheet_of_a_series_not_drawn_is_not_found(org, club, members):
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    started(tournament, members)
    assert org.get(reverse("tournament_series_sheet", args=[tournament.pk, 2])).status_code == 404
    too_long = f"/toernooi/{tournament.pk}/serie/{'9' * 40}/indeling/"
    assert org.get(too_long).status_code == 404


# --- the clock ---------------------------------------------------------------------------------


def test_the_organiser_starts_the_clock_and_every_tv_shows_the_same_time_left(
    org, client, club, members, django_user_model
):
    club.standings_public = True
    club.save()
    tournament = timed(club)
    series = started(tournament, members)
    page = org.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert "Klok starten" in page
    assert 'value="45"' in page  # the form's suggestion

    before = timezone.now()
    response = org.post(clock_url(tournament), {"action": "start", "minutes": "30"}, follow=True)
    assert "De klok loopt: 30 minuten." in messages_of(response)
    series.refresh_from_db()
    ends = series.clock_ends_at
    assert (
        before + datetime.timedelta(minutes=30)
        <= ends
        <= timezone.now() + datetime.timedelta(minutes=30)
    )
    page = response.content.decode()
    assert "Klok stoppen" in page
    assert f"Loopt tot {timezone.localtime(ends):%H:%M}" in page

    # Two TVs (the public, and a member's) and a reload: all from the one stored end.
    tv = django_user_model.objects.create_user("tv-lid")
    ClubMembership.objects.create(user=tv, club=club, role="scorer")
    member_tv = Client()
    member_tv.force_login(tv)
    for screen in (client, member_tv, client):
        seconds, shown = tv_clock(screen, tournament)
        assert 1790 <= seconds <= 1800
        assert shown in {"30:00", "29:59", "29:58", "29:57", "29:56", "29:55"}
    series.refresh_from_db()
    assert series.clock_ends_at == ends  # reading never moves it

    # The htmx poll of the board carries it too, so a swapped board keeps counting.
    url = reverse("tournament_tv", args=[club.slug, tournament.pk])
    assert "data-clock" in client.get(url, **HX).content.decode()


def test_starting_the_clock_again_sets_a_new_end_and_stopping_takes_it_off_the_tv(
    org, client, club, members
):
    club.standings_public = True
    club.save()
    tournament = timed(club)
    series = started(tournament, members)
    org.post(clock_url(tournament), {"action": "start", "minutes": "30"})
    response = org.post(clock_url(tournament), {"action": "start", "minutes": "90"}, follow=True)
    assert "De klok loopt: 90 minuten." in messages_of(response)
    seconds, shown = tv_clock(client, tournament)
    assert 5390 <= seconds <= 5400
    assert shown.startswith("1:29:") or shown == "1:30:00"

    response = org.post(clock_url(tournament), {"action": "stop"}, follow=True)
    assert "De klok is gestopt." in messages_of(response)
    series.refresh_from_db()
    assert series.clock_ends_at is None
    assert tv_clock(client, tournament) is None
    assert "Klok starten" in response.content.decode()


def test_when_the_time_is_up_the_tv_says_so_at_zero(org, client, club, members):
    club.standings_public = True
    club.save()
    tournament = timed(club)
    series = started(tournament, members)
    org.post(clock_url(tournament), {"action": "start", "minutes": "1"})
    Series.objects.filter(pk=series.pk).update(
        clock_ends_at=timezone.now() - datetime.timedelta(seconds=5)
    )
    url = reverse("tournament_tv", args=[club.slug, tournament.pk])
    text = client.get(url).content.decode()
    assert tv_clock(client, tournament) == (0, "0:00")
    assert "clock--up" in text
    up = re.search(r"<span class=\"clock__up\" data-clock-up( hidden)?>", text)
    assert up[1] is None  # "de tijd is om" shown, not hidden


def test_a_closed_series_takes_its_clock_off_the_tv(org, client, club, members):
    club.standings_public = True
    club.save()
    tournament = timed(club)
    series = started(tournament, members)
    org.post(clock_url(tournament), {"action": "start", "minutes": "20"})
    assert tv_clock(client, tournament) is not None
    response = org.post(reverse("tournament_series_finish", args=[tournament.pk, 1]), follow=True)
    assert "Serie 1 is afgesloten." in messages_of(response)
    assert tv_clock(client, tournament) is None
    # ... and a closed series' clock cannot be started again.
    response = org.post(clock_url(tournament), {"action": "start", "minutes": "20"}, follow=True)
    assert messages_of(response) == [
        "De klok loopt alleen terwijl de serie speelt: serie 1 speelt niet."
    ]
    series.refresh_from_db()
    assert series.state == Series.State.FINISHED


@pytest.mark.parametrize("minutes", ["", "0", "241", "-5", "abc", "1.5", "9" * 400, "30 ", "٣٠٠٠٠"])
def test_a_clock_of_no_sensible_minutes_is_refused_and_changes_nothing(org, club, members, minutes):
    tournament = timed(club)
    series = started(tournament, members)
    response = org.post(clock_url(tournament), {"action": "start", "minutes": minutes}, follow=True)
    assert response.status_code == 200
    series.refresh_from_db()
    if minutes == "30 ":  # spaces around a number are no mistake
        assert messages_of(response) == ["De klok loopt: 30 minuten."]
        assert series.clock_ends_at is not None
        return
    assert messages_of(response) == ["De klok loopt 1 tot 240 minuten."]
    assert series.clock_ends_at is None


def test_the_clock_is_only_for_a_series_played_at_a_time_while_it_plays(org, club, members):
    to_the_end = tournaments.tournament_create(club=club, name="Tot de koning", series_count=2)
    series = started(to_the_end, members)
    page = org.get(reverse("tournament_series", args=[to_the_end.pk, 1])).content.decode()
    assert "Klok starten" not in page
    response = org.post(clock_url(to_the_end), {"action": "start", "minutes": "30"}, follow=True)
    assert messages_of(response) == [
        "De klok is er alleen voor een toernooi dat op een tijd speelt."
    ]
    series.refresh_from_db()
    assert series.clock_ends_at is None

    timed_one = timed(club)
    checkin.tournament_check_in(tournament=timed_one, players=members)
    drawn = tournaments.series_draw(tournament=timed_one, expected_number=1, seed=2)
    page = org.get(reverse("tournament_series", args=[timed_one.pk, 1])).content.decode()
    assert "Klok starten" not in page  # not before the series starts
    response = org.post(clock_url(timed_one), {"action": "start", "minutes": "30"}, follow=True)
    assert messages_of(response) == [
        "De klok loopt alleen terwijl de serie speelt: serie 1 speelt niet."
    ]
    drawn.refresh_from_db()
    assert drawn.clock_ends_at is None


def test_stopping_a_clock_that_does_not_run_or_an_unknown_action_is_refused(org, club, members):
    tournament = timed(club)
    series = started(tournament, members)
    response = org.post(clock_url(tournament), {"action": "stop"}, follow=True)
    assert messages_of(response) == ["De klok loopt niet."]
    response = org.post(clock_url(tournament), {"action": "pauze"}, follow=True)
    assert messages_of(response) == ["Onbekende actie."]
    series.refresh_from_db()
    assert series.clock_ends_at is None


def test_only_the_organiser_starts_or_stops_the_clock(client, club, members, django_user_model):
    tournament = timed(club)
    series = started(tournament, members)
    start = {"action": "start", "minutes": "30"}
    assert client.post(clock_url(tournament), start).status_code == 403  # not logged in
    assert client.get(clock_url(tournament)).status_code == 405
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    stranger = django_user_model.objects.create_user("zeven", is_staff=True)
    ClubMembership.objects.create(user=stranger, club=other, role="admin")
    client.force_login(stranger)
    assert client.post(clock_url(tournament), start).status_code == 404
    scorer = django_user_model.objects.create_user("teller")
    ClubMembership.objects.create(user=scorer, club=club, role="scorer")
    client.force_login(scorer)
    assert client.post(clock_url(tournament), start).status_code == 404
    assert client.post(clock_url(tournament), {"action": "stop"}).status_code == 404
    series.refresh_from_db()
    assert series.clock_ends_at is None


def test_the_wall_and_the_clock_have_nothing_inline_for_the_policy(org, club, members):
    club.standings_public = True
    club.save()
    tournament = timed(club)
    started(tournament, members)
    org.post(clock_url(tournament), {"action": "start", "minutes": "30"})
    for url in (
        reverse("tournament_series_sheet", args=[tournament.pk, 1]),
        reverse("tournament_series", args=[tournament.pk, 1]),
        reverse("tournament_tv", args=[club.slug, tournament.pk]),
    ):
        for headers in ({}, HX):
            response = org.get(url, **headers)
            assert response.status_code == 200, url
            assert directives(response["Content-Security-Policy"]) == directives(POLICY)
            assert inline_parts(response.content.decode()).found == [], url


def test_closing_a_series_stops_its_clock_so_a_reopened_series_shows_none(org, club, members):
    tournament = timed(club)
    started(tournament, members)
    org.post(clock_url(tournament), {"action": "start", "minutes": "30"})
    series = tournament.series.get(number=1)
    assert series.clock_ends_at is not None
    for table in series.tables.all():
        results.table_finish(table=table)
    results.series_finish(series=series)
    series.refresh_from_db()
    assert series.clock_ends_at is None
