"""Pages bounded at any size: a game of 1,332 rounds and a toernooi of 400 players open with
answers of at most 200 KB and a number of queries that does not grow with them. What does not
fit is folded: a page shows the last rounds (or the last check-ins), the rest comes a page at a
time, never all at once.

The big game and the big toernooi are made once for the module (an import of 1,332 rounds
alone takes seconds) and thrown away after it; each test runs in its own transaction on top.
"""

from __future__ import annotations

import datetime
import json
import random
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring.engine.simulate import random_session
from scoring.league.archive_views import EVENING_TABLES_SHOWN, SHEET_ROUNDS_SHOWN
from scoring.lei import services
from scoring.lei.admin import AUDIT_SHOWN_CHARACTERS, ROUNDS_SHOWN, SESSIONS_LISTED
from scoring.models import AuditEntry, Club, ClubMembership, Round, Session, Tournament
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from scoring.toernooi.admin import ENTRIES_SHOWN
from scoring.toernooi.table_views import CARDS_PER_PAGE
from tests.builders import PEOPLE, make_club, make_session

MAX_BODY = 200 * 1024  # bytes of any answer (as tests/site/test_hostile_input.py)
ROUNDS = 1332  # the longest game the probe found in production
PLAYERS = 400  # the most a toernooi takes (scoring.toernooi.services.MAX_PLAYERS)
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}

# Every test here uses the database, so that it is set up for the module's fixtures, whichever
# of the tests runs.
pytestmark = pytest.mark.django_db


def _throw_away(club: Club) -> None:
    """The club and everything of it, committed outside the tests' transactions: first what
    keeps its players and games (PROTECT)."""
    Tournament.objects.filter(club=club).delete()
    Session.objects.filter(club=club).delete()
    club.delete()


@pytest.fixture(scope="module")
def long_game(django_db_setup, django_db_blocker) -> Any:
    """A public club's game of 1,332 rounds with a knock now and then, nobody out yet."""
    with django_db_blocker.unblock():
        club = make_club("Lange Adem", "lange-adem", standings_public=True)
        data = random_session(
            random.Random(2),
            PEOPLE[:4],
            rounds=ROUNDS,
            rules={"max_points": 1000, "knock_cap": "none"},
            knock_chance=0.1,
            extras=False,
        )
        session = services.session_import(club=club, data=data, played_on=datetime.date(2026, 1, 9))
        assert session.rounds.count() == ROUNDS
        yield session
        _throw_away(club)


@pytest.fixture(scope="module")
def big_toernooi(django_db_setup, django_db_blocker) -> Any:
    """A toernooi of 400 checked-in players whose first series (100 tables) is playing."""
    with django_db_blocker.unblock():
        club = make_club("Grote Zaal", "grote-zaal", standings_public=True)
        tournament = tournaments.tournament_create(club=club, name="Oliebollentoernooi")
        checkin.tournament_check_in(
            tournament=tournament, guests=[f"Speler {n}" for n in range(1, PLAYERS + 1)]
        )
        series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
        tournaments.series_start(series=series)
        yield tournament
        _throw_away(club)


def _club_admin(django_user_model, club: Club, username: str) -> Client:
    user = django_user_model.objects.create_user(username, is_staff=True)  # no hashing: fast
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def game_admin(db, long_game, django_user_model) -> Client:
    return _club_admin(django_user_model, long_game.club, "beheer")


@pytest.fixture
def toernooi_admin(db, big_toernooi, django_user_model) -> Client:
    return _club_admin(django_user_model, big_toernooi.club, "organisator")


def _bounded(response) -> Any:
    assert response.status_code == 200
    assert len(response.content) <= MAX_BODY, len(response.content)
    return response


def _round_numbers(page) -> list[int]:
    (rounds,) = [
        i.formset for i in page.context["inline_admin_formsets"] if i.formset.model is Round
    ]
    return [form.instance.number for form in rounds.forms]


def _sheet_rounds(body: str) -> list[int]:
    return [int(cell.split("<")[0]) for cell in body.split('<th scope="row">')[1:]]


# --- the admin ---------------------------------------------------------------------------------


def test_the_admin_page_of_a_1332_round_game_shows_its_last_rounds_and_pages_the_rest(
    game_admin, long_game, django_assert_num_queries
):
    url = reverse("admin:scoring_session_change", args=[long_game.pk])
    game_admin.get(url)  # once before: Django caches the content types on the first page
    with django_assert_num_queries(12):
        # 1. the login's session; 2. its user; 3. the clubs the user is admin of;
        # 4. the session, looked up for the scope and 5. by Django's change view;
        # 6. the seats with their players; 7. the last rounds, with their session and club;
        # 8. the results with their players; 9.-10. the user's own and group permissions (the
        # admin's checks); 11. the session's club (a read-only field); 12. the count of rounds.
        page = _bounded(game_admin.get(url, **EN))
    assert _round_numbers(page) == list(range(ROUNDS - ROUNDS_SHOWN + 1, ROUNDS + 1))
    body = page.content.decode()
    assert f"{ROUNDS} rounds; the last {ROUNDS_SHOWN} are below." in body
    listed = f"{reverse('admin:scoring_round_changelist')}?session__id__exact={long_game.pk}"
    assert listed in body

    # All of them a page at a time, never all at once.
    first = _bounded(game_admin.get(listed))
    assert first.context["cl"].result_count == ROUNDS
    assert [r.number for r in first.context["cl"].result_list] == list(range(1, 101))
    last = _bounded(game_admin.get(f"{listed}&p=14"))
    assert [r.number for r in last.context["cl"].result_list] == list(range(1301, ROUNDS + 1))
    everything = _bounded(game_admin.get(f"{listed}&all="))
    assert len(everything.context["cl"].result_list) == 100


def test_a_game_of_a_few_rounds_shows_them_all_in_the_admin(
    client, club, people, django_user_model
):
    session = make_session(club)
    for winner in ("Anne", "Bas", "Cees"):
        services.session_record_event(
            session=session,
            event={"type": "win", "player": winner},
            version=session.version,
            key=f"k-{winner}",
        )
    admin = _club_admin(django_user_model, club, "beheer")
    page = admin.get(reverse("admin:scoring_session_change", args=[session.pk]), **EN)
    assert _round_numbers(page) == [1, 2, 3]
    assert "3 rounds, all below." in page.content.decode()


def test_an_audit_entry_of_a_long_import_shows_its_start_and_downloads_whole(game_admin, long_game):
    entry = AuditEntry.objects.get(session=long_game, action="import")
    assert len(json.dumps(entry.after)) > 9 * AUDIT_SHOWN_CHARACTERS  # the whole file
    page = _bounded(game_admin.get(reverse("admin:scoring_auditentry_change", args=[entry.pk])))
    download = reverse("admin:scoring_auditentry_file", args=[entry.pk])
    assert download in page.content.decode()
    whole = game_admin.get(download)
    assert whole.status_code == 200
    assert "attachment" in whole["Content-Disposition"]
    assert json.loads(whole.content)["after"] == entry.after


def test_an_audit_entry_of_another_club_is_not_downloaded(
    client, long_game, club, db, django_user_model
):
    entry = AuditEntry.objects.get(session=long_game, action="import")
    other = _club_admin(django_user_model, club, "buurman")
    assert other.get(reverse("admin:scoring_auditentry_file", args=[entry.pk])).status_code == 404


@pytest.mark.parametrize("sessions", [3, 40])
def test_the_audit_list_costs_the_same_queries_however_many_sessions_were_played(
    club, people, django_user_model, django_assert_num_queries, sessions
):
    played = [make_session(club) for _ in range(sessions)]
    admin = _club_admin(django_user_model, club, "beheer")
    url = reverse("admin:scoring_auditentry_changelist")
    admin.get(url)  # once before: Django caches the content types on the first page
    with django_assert_num_queries(13):
        # 1. the login's session; 2. its user; 3. the clubs the user is admin of; 4. the latest
        # sessions to filter on, with their clubs; 5. the users and 6. the clubs to filter on;
        # 7. the count of the entries shown and 8. of all; 9.-10. the user's own and group
        # permissions (the admin's checks); 11. the page of entries with their sessions,
        # clubs and users; 12.-13. the first and last day and the days of the date hierarchy.
        page = _bounded(admin.get(url))
    offered = page.context["cl"].filter_specs[1].lookup_choices
    assert [int(pk) for pk, _ in offered] == [s.pk for s in reversed(played)][:SESSIONS_LISTED]

    # A session chosen (an older one, say, from its own page) is offered besides the latest:
    # one query more, to name it.
    with django_assert_num_queries(14):
        chosen = _bounded(admin.get(url, {"session__id__exact": played[0].pk}))
    assert {e.session_id for e in chosen.context["cl"].result_list} == {played[0].pk}
    offered = chosen.context["cl"].filter_specs[1].lookup_choices
    assert str(played[0].pk) in [pk for pk, _ in offered]


def test_the_audit_list_refuses_a_session_that_is_no_number_as_django_refuses_a_filter(
    client, club, people, django_user_model
):
    admin = _club_admin(django_user_model, club, "beheer")
    url = reverse("admin:scoring_auditentry_changelist")
    for value in ("abc", "1" * 19, "٣", "-1"):
        response = admin.get(url, {"session__id__exact": value})
        assert response.status_code == 302
        assert response["Location"].endswith("?e=1")


# --- the toernooi's admin ---------------------------------------------------------------------


def test_the_admin_page_of_a_400_player_toernooi_shows_the_last_check_ins_and_links_to_all(
    toernooi_admin, big_toernooi, django_assert_num_queries
):
    url = reverse("admin:scoring_tournament_change", args=[big_toernooi.pk])
    toernooi_admin.get(url)  # once before: Django caches the content types on the first page
    with django_assert_num_queries(14):
        # 1. the login's session; 2. its user; 3. the clubs the user is admin of;
        # 4. the toernooi with its count of players, looked up for the scope and 5. by
        # Django's change view; 6. the players who checked in last, with toernooi and player;
        # 7. the series with their toernooi; 8.-9. the user's own and group permissions;
        # 10. the seasons to choose from; 11. the club (a read-only field); 12.-14. the
        # standings: the players, the series, and the results of the series' games.
        page = _bounded(toernooi_admin.get(url))
    (entries,) = [
        i.formset
        for i in page.context["inline_admin_formsets"]
        if i.formset.model.__name__ == "TournamentEntry"
    ]
    assert len(entries.forms) == ENTRIES_SHOWN
    listed = f"{reverse('admin:scoring_tournamententry_changelist')}?tournament__id__exact="
    assert f"{listed}{big_toernooi.pk}" in page.content.decode()
    players = _bounded(toernooi_admin.get(f"{listed}{big_toernooi.pk}"))
    assert players.context["cl"].result_count == PLAYERS
    assert len(players.context["cl"].result_list) == 100


def test_a_series_of_100_tables_opens_in_the_admin_without_a_query_per_table(
    toernooi_admin, big_toernooi, django_assert_num_queries
):
    series = big_toernooi.series.get()
    url = reverse("admin:scoring_series_change", args=[series.pk])
    toernooi_admin.get(url)  # once before: Django caches the content types on the first page
    with django_assert_num_queries(10):
        # 1. the login's session; 2. its user; 3. the clubs the user is admin of; 4. the
        # series, looked up for the scope and 5. by Django's change view; 6. its toernooi (a
        # read-only field); 7. the tables with their series, toernooi, dealer and game, and
        # 8. their seats with the players; 9.-10. the user's own and group permissions.
        page = _bounded(toernooi_admin.get(url))
    assert len(page.context["inline_admin_formsets"][0].formset.forms) == PLAYERS // 4


# --- the archive -------------------------------------------------------------------------------


def test_the_archive_page_of_a_1332_round_game_shows_the_last_rounds(
    long_game, django_assert_num_queries
):
    client = Client()
    url = reverse("league_session", args=[long_game.club.slug, long_game.pk])
    with django_assert_num_queries(6):
        # 1. the club; 2. the game with its last scored round; 3. its seats with the players;
        # 4. the round scores of the rounds shown; 5. the results with the players; 6. every
        # round's totals, for the chart.
        page = _bounded(client.get(url))
    body = page.content.decode()
    assert _sheet_rounds(body) == list(range(ROUNDS - SHEET_ROUNDS_SHOWN + 1, ROUNDS + 1))
    earlier = ROUNDS - SHEET_ROUNDS_SHOWN
    assert f'hx-get="?tot={earlier}"' in body
    assert f"Eerdere rondes ({earlier - SHEET_ROUNDS_SHOWN + 1}\N{EN DASH}{earlier})" in body
    assert 'class="lei-chart"' in body
    assert "Latere rondes" not in body


def test_earlier_rounds_of_the_archive_page_come_a_page_at_a_time(
    long_game, django_assert_num_queries
):
    client = Client()
    url = reverse("league_session", args=[long_game.club.slug, long_game.pk])
    with django_assert_num_queries(4):
        # 1. the club; 2. the game with its last scored round; 3. its seats with the players;
        # 4. the round scores of the rounds asked for.
        fragment = _bounded(client.get(url, {"tot": 1302}, headers={"HX-Request": "true"}))
    body = fragment.content.decode()
    assert "<html" not in body
    assert _sheet_rounds(body) == list(range(1273, 1303))
    assert 'hx-get="?tot=1272"' in body
    assert "HX-Request" in fragment["Vary"]

    # Without htmx the same rows are a page of their own, with a way back to the later ones.
    page = _bounded(client.get(url, {"tot": 1302}))
    assert _sheet_rounds(page.content.decode()) == list(range(1273, 1303))
    assert '<a href="?tot=1332#sheet">Latere rondes</a>' in page.content.decode()

    first = _bounded(client.get(url, {"tot": 30}, headers={"HX-Request": "true"}))
    assert _sheet_rounds(first.content.decode()) == list(range(1, 31))
    assert "Eerdere rondes" not in first.content.decode()


@pytest.mark.parametrize(
    ("tot", "shown"),
    [
        ("abc", (1303, 1332)),
        ("", (1303, 1332)),
        ("١٢", (1303, 1332)),  # digits, but not ASCII ones
        ("99999", (1303, 1332)),
        ("9" * 400, (1303, 1332)),
        ("0", (1, 1)),
        ("5", (1, 5)),
    ],
)
def test_a_page_of_rounds_that_is_no_round_number_shows_the_nearest(long_game, tot, shown):
    url = reverse("league_session", args=[long_game.club.slug, long_game.pk])
    page = _bounded(Client().get(url, {"tot": tot}, headers={"HX-Request": "true"}))
    rounds = _sheet_rounds(page.content.decode())
    assert (rounds[0], rounds[-1]) == shown


def test_the_evening_of_a_toernooi_day_shows_its_tables_a_page_at_a_time(
    big_toernooi, django_assert_num_queries
):
    client = Client()
    url = reverse("league_evening", args=[big_toernooi.club.slug, big_toernooi.date.isoformat()])
    with django_assert_num_queries(4):
        # 1. the club; 2. the evening's games (the ETag); 3. the evenings before and after (the
        # whole page's links); 4. the page's results with players.
        first = _bounded(client.get(url))
    body = first.content.decode()
    assert body.count('class="sheet evening__table"') == EVENING_TABLES_SHOWN
    assert f'hx-get="{url}"' in body
    assert f"Tafels 1\N{EN DASH}{EVENING_TABLES_SHOWN} van {PLAYERS // 4}" in body
    assert '<a href="?pagina=2">' in body

    last_page = -(-PLAYERS // 4 // EVENING_TABLES_SHOWN)
    with django_assert_num_queries(3):
        last = _bounded(client.get(url, {"pagina": last_page}, headers={"HX-Request": "true"}))
    body = last.content.decode()
    assert body.count('class="sheet evening__table"') == PLAYERS // 4 % EVENING_TABLES_SHOWN
    assert f'hx-get="{url}?pagina={last_page}"' in body
    assert last["ETag"] != client.get(url, headers={"HX-Request": "true"})["ETag"]
    for nonsense in ("abc", "0", "9" * 400):  # a NUL is refused before: test_nul_characters
        assert _bounded(client.get(url, {"pagina": nonsense})).context["page"].number in (
            1,
            last_page,
        )


def test_the_table_cards_of_a_series_of_100_tables_are_printed_a_page_at_a_time(
    toernooi_admin, big_toernooi
):
    url = reverse("tournament_table_cards", args=[big_toernooi.pk, 1])
    first = _bounded(toernooi_admin.get(url))
    body = first.content.decode()
    assert body.count('class="table-card"') == CARDS_PER_PAGE
    assert f"{PLAYERS // 4} tafels: print ze in delen." in body
    assert '<a class="btn" href="?pagina=2">Tafels 25\N{EN DASH}48</a>' in body
    assert '<a class="btn" href="?formaat=a5">' in body

    last_page = -(-PLAYERS // 4 // CARDS_PER_PAGE)
    last = _bounded(toernooi_admin.get(url, {"pagina": last_page, "formaat": "a5"}))
    body = last.content.decode()
    assert body.count('class="table-card"') == PLAYERS // 4 % CARDS_PER_PAGE
    assert "Tafel 100</p>" in body
    assert f'href="?pagina={last_page}&amp;formaat=a6"' in body
    one = _bounded(toernooi_admin.get(url, {"tafel": 100}))
    assert one.content.decode().count('class="table-card"') == 1


def test_the_check_in_of_a_400_player_toernooi_is_one_form_a_list(toernooi_admin, big_toernooi):
    """Each toggle was a form of its own with a CSRF token: 217 KB for 400 players. The
    toggles and the list of who plays are one form each; a button says who and what."""
    url = reverse("tournament_checkin", args=[big_toernooi.pk])
    body = _bounded(toernooi_admin.get(url)).content.decode()
    assert body.count('name="csrfmiddlewaretoken"') <= 4  # toggles, walk-in, who plays, the QR
    player = big_toernooi.entries.select_related("player").first().player
    assert f'name="out" value="{player.pk}"' in body
    # A tap's answer is the whole check-in again (a player of no club here: nothing changes).
    answer = toernooi_admin.post(url, {"out": "999999999"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert "Die speler is niet van deze club." in answer.content.decode()
    assert len(answer.content) <= MAX_BODY
