"""The standings' rows kept in the cache (``scoring.league.standings_cache``): never stale.

Every test first makes the page keep its rows and checks that the next request is served from
that copy (four queries), then changes the data the way the club does (the services, the admin
over HTTP, the import), and checks that the very next request shows the change: the rows served
are the rows a fresh computation gives, and the change itself is visible on the page.
"""

from __future__ import annotations

import datetime
import json
import random
import re
import threading
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe

from scoring.access import Viewer
from scoring.clubs import services as club_services
from scoring.clubs.ranking import TIE_BREAKER_TEXT
from scoring.engine.simulate import random_session
from scoring.league import standings, standings_cache
from scoring.league.views import _standings_rows
from scoring.lei import clubfile_import, seals, services
from scoring.lei.clubfile import club_to_file
from scoring.models import (
    Club,
    ClubMembership,
    Player,
    Season,
    Session,
)
from tests.builders import (
    DAY,
    admin_form_data,
    finish_order,
    make_club,
    play,
    record,
    standings_shown,
)

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: two connections reading and writing at once "
    "(set DATABASE_URL to a PostgreSQL database)",
)


# --- helpers -------------------------------------------------------------------------------------


def url_of(season: Season) -> str:
    return reverse("league_season", args=[season.club.slug, season.pk])


def rows_of(response) -> str:
    """The HTML of the standings' body rows as served."""
    assert response.status_code == 200
    body = response.content.decode()
    if "<tbody>" not in body:
        return ""
    return body[body.index("<tbody>") + len("<tbody>") : body.index("</tbody>")].strip()


def fresh_rows(season: Season, *, member: bool, language: str = "nl") -> str:
    """The body rows as a fresh computation from the database gives them, without the cache."""
    season = Season.objects.select_related("club").get(pk=season.pk)
    with translation.override(language):
        return str(_standings_rows(Viewer(club=season.club, member=member), season)).strip()


def shown(client, season: Season, *, member: bool, language: str = "nl") -> list[tuple]:
    """The standings as served, checked to be exactly what a fresh computation gives."""
    response = client.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language)
    assert rows_of(response) == fresh_rows(season, member=member, language=language)
    return standings_shown(response)


def login_queries(client) -> int:
    """A logged-in client's requests read its session and its user first."""
    return 2 if settings.SESSION_COOKIE_NAME in client.cookies else 0


def kept(client, season: Season, queries, *, language: str = "nl") -> list[tuple]:
    """Make the page keep its rows, then check that the next request is served from the copy
    (1 club, 2 season with its finished sessions' aggregates, 3 the players shown by initials,
    4 the cache; for someone logged in, first their session and their user) with the same
    rows."""
    first = client.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language)
    with queries(login_queries(client) + 4):
        again = client.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language)
    assert rows_of(again) == rows_of(first)
    return standings_shown(again)


def names(rows: list[tuple]) -> list[str]:
    return [row[1] for row in rows]


def row_of(rows: list[tuple], name: str) -> tuple:
    return next(row for row in rows if row[1] == name)


def admin_post(client, url: str, **changes):
    """Post an admin change form as the page shows it, with ``changes``."""
    response = client.post(url, {**admin_form_data(client.get(url)), **changes})
    assert response.status_code == 302, response.content.decode()[:3000]
    return response


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def league(public_club, season, people):
    """Two finished sessions: Anne wins the first, Bas the second a week later."""
    first = play(public_club, ["Anne", "Bas", "Cees"], season=season)
    second = play(public_club, ["Bas", "Anne", "Dirk"], season=season, days_later=7)
    return {"season": season, "first": first, "second": second}


# --- a copy is the page --------------------------------------------------------------------------


def _csrf_free(response) -> str:
    return re.sub(
        r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]*"', r"\1", response.content.decode()
    )


@pytest.mark.parametrize("language", ["nl", "en"])
def test_a_kept_copy_is_the_page_a_fresh_computation_gives(
    client, member_client, public_club, season, people, django_assert_num_queries, language
):
    # A season with ties, tie-breakers, best N and toepkoning titles: every kind of cell.
    Player.objects.filter(name__in=["Anne", "Cees"]).update(public_initials=True)
    season.ranking = {"best_n": 3, "tie_breakers": ["toepkoningen", "head_to_head"]}
    season.save()
    rng = random.Random(6)
    for i in range(12):
        players = rng.sample(["Anne", "Bas", "Cees", "Dirk", "Eva"], rng.randint(2, 5))
        services.session_import(
            club=public_club,
            data=random_session(rng, players, rounds=300),
            season=season,
            played_on=DAY + datetime.timedelta(days=i),
        )
    for who, is_member in ((client, False), (member_client, True)):
        first = who.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language)
        with django_assert_num_queries(login_queries(who) + 4):
            again = who.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language)
        assert _csrf_free(again) == _csrf_free(first)
        assert rows_of(again) == fresh_rows(season, member=is_member, language=language)
        assert len(standings_shown(again)) == 5
    body = rows_of(member_client.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language))
    assert "badge--toepkoning" in body
    assert ">*</span>" in body  # the tie-breaker's mark, explained under the table
    assert "A." not in body
    assert "A." in rows_of(client.get(url_of(season), HTTP_ACCEPT_LANGUAGE=language))


def test_a_season_without_finished_sessions_keeps_its_empty_table(
    client, public_club, season, people, django_assert_num_queries
):
    assert kept(client, season, django_assert_num_queries) == []
    assert "Nog geen uitgespeelde sessies" in client.get(url_of(season)).content.decode()
    play(public_club, ["Anne", "Bas"], season=season)
    assert names(shown(client, season, member=False)) == ["Anne", "Bas"]


# --- what keeps the copy -------------------------------------------------------------------------


def test_a_tap_at_a_running_table_of_the_season_keeps_the_copy(
    client, league, people, django_assert_num_queries
):
    season = league["season"]
    live = services.session_start(club=season.club, players=["Anne", "Eva"], season=season)
    before = kept(client, season, django_assert_num_queries)
    record(live, "knock", "Eva")
    record(live, "fold", "Anne")  # a round ends: its scores and the running results are written
    with django_assert_num_queries(4):  # as ``kept``: club, season, initials, the cache
        assert standings_shown(client.get(url_of(season))) == before
    assert rows_of(client.get(url_of(season))) == fresh_rows(season, member=False)


# --- every change shows at once ------------------------------------------------------------------


def test_a_session_that_finishes_at_the_table_shows_at_once(
    client, league, people, django_assert_num_queries
):
    season = league["season"]
    live = services.session_start(club=season.club, players=["Eva", "Dirk"], season=season)
    record(live, "penalty", "Dirk", points=10, reason="test")
    assert "Eva" not in names(kept(client, season, django_assert_num_queries))
    record(live, "win", "Eva")  # Dirk is dead: the session is over
    assert row_of(shown(client, season, member=False), "Eva")[2] == "1"


def test_closing_time_shows_at_once(client, league, people, django_assert_num_queries):
    season = league["season"]
    live = services.session_start(club=season.club, players=["Eva", "Dirk"], season=season)
    record(live, "penalty", "Dirk", points=3, reason="test")
    record(live, "win", "Eva")
    assert "Eva" not in names(kept(client, season, django_assert_num_queries))
    services.session_finish(session=live)
    assert row_of(shown(client, season, member=False), "Eva")[2] == "1"


def test_a_correction_shows_at_once(client, league, django_assert_num_queries):
    season = league["season"]
    assert row_of(kept(client, season, django_assert_num_queries), "Bas")[3] == "1"
    # The first session's last round: Bas wins it, Anne takes the penalty.
    services.round_replace_events(
        session=league["first"],
        number=2,
        events=[
            {"type": "penalty", "player": "Anne", "points": 10, "reason": "test"},
            {"type": "win", "player": "Bas"},
        ],
    )
    assert row_of(shown(client, season, member=False), "Bas")[3] == "2"


def test_an_undo_that_reopens_a_finished_session_takes_it_out_at_once(
    client, league, django_assert_num_queries
):
    season = league["season"]
    assert row_of(kept(client, season, django_assert_num_queries), "Dirk")[2] == "1"
    services.session_undo(session=league["second"], version=league["second"].version, key="u1")
    assert league["second"].status == Session.Status.RUNNING
    assert "Dirk" not in names(shown(client, season, member=False))


def test_lock_and_unlock_keep_the_standings_right_and_a_later_correction_shows(
    client, league, django_assert_num_queries
):
    season = league["season"]
    before = kept(client, season, django_assert_num_queries)
    seals.session_lock(session=league["first"])
    assert shown(client, season, member=False) == before  # a locked session still counts
    seals.session_unlock(session=league["first"])
    assert shown(client, season, member=False) == before
    kept(client, season, django_assert_num_queries)
    services.round_replace_events(
        session=league["first"], number=2, events=[{"type": "win", "player": "Bas"}]
    )
    assert shown(client, season, member=False) != before


def test_an_imported_session_shows_at_once(client, league, django_assert_num_queries):
    season = league["season"]
    assert "Eva" not in names(kept(client, season, django_assert_num_queries))
    services.session_import(
        club=season.club, data=finish_order(["Eva", "Cees"]), season=season, played_on=DAY
    )
    assert row_of(shown(client, season, member=False), "Eva")[2] == "1"


def test_a_deleted_session_goes_at_once(client, league, django_assert_num_queries):
    season = league["season"]
    assert "Dirk" in names(kept(client, season, django_assert_num_queries))
    # Not through the admin: it refuses to delete a played session's rounds (RoundAdmin is
    # not deletable), so this is the shell's delete, with everything of the session.
    league["second"].delete()
    assert "Dirk" not in names(shown(client, season, member=False))


def test_a_session_moved_to_another_season_in_the_admin_moves_at_once(
    client, club_admin_client, league, django_assert_num_queries
):
    season = league["season"]
    other = Season.objects.create(club=season.club, name="Zomer 2026", starts_on="2026-06-01")
    assert "Dirk" in names(kept(client, season, django_assert_num_queries))
    assert kept(client, other, django_assert_num_queries) == []
    url = reverse("admin:scoring_session_change", args=[league["second"].pk])
    admin_post(club_admin_client, url, season=other.pk)
    assert "Dirk" not in names(shown(client, season, member=False))
    assert names(shown(client, other, member=False)) == ["Bas", "Anne", "Dirk"]


def test_a_date_changed_in_the_admin_shows_at_once_in_the_form(
    client, club_admin_client, league, django_assert_num_queries
):
    season = league["season"]
    # The form column lists the latest session first: Anne was second a week after she won.
    assert row_of(kept(client, season, django_assert_num_queries), "Anne")[8] == "2/3 1/3"
    url = reverse("admin:scoring_session_change", args=[league["first"].pk])
    admin_post(club_admin_client, url, played_on=(DAY + datetime.timedelta(days=14)).isoformat())
    assert row_of(shown(client, season, member=False), "Anne")[8] == "1/3 2/3"


def test_a_rename_in_the_admin_shows_at_once(
    client, member_client, club_admin_client, league, django_assert_num_queries
):
    season = league["season"]
    kept(client, season, django_assert_num_queries)
    kept(member_client, season, django_assert_num_queries)
    bas = Player.objects.get(name="Bas")
    url = reverse("admin:scoring_player_change", args=[bas.pk])
    admin_post(club_admin_client, url, name="Bastiaan de Boer")
    assert "Bastiaan de Boer" in names(shown(client, season, member=False))
    assert "Bastiaan de Boer" in names(shown(member_client, season, member=True))


def test_a_merge_shows_at_once(client, league, people, django_assert_num_queries):
    season = league["season"]
    guest = Player.objects.create(club=season.club, name="Eef", is_guest=True)
    play(season.club, ["Eef", "Dirk"], season=season, days_later=1)
    rows = kept(client, season, django_assert_num_queries)
    assert row_of(rows, "Eef")[2] == "1"
    assert "Eva" not in names(rows)
    club_services.player_merge(keep=people["Eva"], remove=guest)
    rows = shown(client, season, member=False)
    assert "Eef" not in names(rows)
    assert row_of(rows, "Eva")[2] == "1"


def test_initials_switched_on_and_off_in_the_admin_show_at_once(
    client, member_client, club_admin_client, league, django_assert_num_queries
):
    season = league["season"]
    anne = Player.objects.get(name="Anne")
    url = reverse("admin:scoring_player_change", args=[anne.pk])
    assert "Anne" in names(kept(client, season, django_assert_num_queries))
    kept(member_client, season, django_assert_num_queries)
    admin_post(club_admin_client, url, public_initials="on")
    assert "A." in names(shown(client, season, member=False))
    assert "Anne" in names(shown(member_client, season, member=True))
    # Bas asks for initials and Anne no longer does: as many players with initials as before.
    admin_post(club_admin_client, url, public_initials="")
    bas = Player.objects.get(name="Bas")
    admin_post(
        club_admin_client,
        reverse("admin:scoring_player_change", args=[bas.pk]),
        public_initials="on",
    )
    public = names(shown(client, season, member=False))
    assert ("Anne" in public, "A." in public, "B." in public, "Bas" in public) == (
        True,
        False,
        True,
        False,
    )


def test_the_seasons_ranking_changed_in_the_admin_shows_at_once(
    client, club_admin_client, league, django_assert_num_queries
):
    season = league["season"]
    assert row_of(kept(client, season, django_assert_num_queries), "Bas")[5] == "3"
    ranking = {"scoring": "placement", "placement_points": [10, 6, 4], "tie_breakers": []}
    url = reverse("admin:scoring_season_change", args=[season.pk])
    admin_post(club_admin_client, url, ranking=json.dumps(ranking))
    assert row_of(shown(client, season, member=False), "Bas")[5] == "16"


def test_a_new_club_slug_shows_in_the_players_links_at_once(
    client, league, django_assert_num_queries
):
    season = league["season"]
    kept(client, season, django_assert_num_queries)
    club = Club.objects.get(pk=season.club_id)
    club.slug = "de-boer"
    club.save()  # a superuser's edit: club admins cannot change the slug
    season = Season.objects.get(pk=season.pk)
    body = rows_of(client.get(url_of(season)))
    assert "/club/de-boer/" in body
    assert "/club/gouden-boer/" not in body


def test_a_club_that_stops_publishing_shows_the_public_nothing_at_once(
    client, member_client, league, django_assert_num_queries
):
    season = league["season"]
    kept(client, season, django_assert_num_queries)
    Club.objects.filter(pk=season.club_id).update(standings_public=False)
    assert client.get(url_of(season)).status_code == 404
    assert names(shown(member_client, season, member=True))


def test_someone_who_becomes_a_member_sees_full_names_at_once(
    client, league, django_user_model, django_assert_num_queries
):
    season = league["season"]
    Player.objects.filter(name="Anne").update(public_initials=True)
    user = django_user_model.objects.create_user(username="nieuw")
    client.force_login(user)
    assert "A." in names(kept(client, season, django_assert_num_queries))
    ClubMembership.objects.create(club=season.club, user=user)
    assert "Anne" in names(shown(client, season, member=True))


def test_a_club_imported_from_its_backup_shows_its_standings(client, league):
    season = league["season"]
    before = shown(client, season, member=False)
    backup = json.loads(json.dumps(club_to_file(season.club), default=str))
    Session.objects.filter(club_id=season.club_id).delete()  # seats protect the players
    Club.objects.filter(pk=season.club_id).delete()
    club = clubfile_import.club_import(data=backup)
    restored = Season.objects.get(club=club)
    assert shown(client, restored, member=False) == before


def test_a_new_release_computes_the_rows_again(
    client, league, monkeypatch, django_assert_num_queries
):
    """``RELEASE`` is part of the key: rows made by the code before a deploy that bumped it are
    not served after it."""
    season = league["season"]
    kept(client, season, django_assert_num_queries)

    def marked(*args):
        return mark_safe("<!-- next release -->")

    monkeypatch.setattr("scoring.league.views._standings_rows", marked)
    assert "next release" not in client.get(url_of(season)).content.decode()  # the copy
    monkeypatch.setattr(standings_cache, "RELEASE", "the next release")
    assert "next release" in client.get(url_of(season)).content.decode()


# --- never another variant's or season's copy ----------------------------------------------------


def test_members_and_the_public_each_get_their_own_copy(
    client, member_client, league, django_assert_num_queries
):
    season = league["season"]
    Player.objects.filter(name="Anne").update(public_initials=True)
    for _ in range(2):
        assert "A." in names(kept(client, season, django_assert_num_queries))
        assert "Anne" in names(kept(member_client, season, django_assert_num_queries))


def test_each_language_gets_its_own_copy(client, league, django_assert_num_queries):
    season = league["season"]
    for _ in range(2):
        for language, average in (("nl", "1,50"), ("en", "1.50"), ("de", "1,50")):
            row = row_of(kept(client, season, django_assert_num_queries, language=language), "Bas")
            assert row[4] == average
    # The tie-breaker's line is in the page's language too.
    season.ranking = {"tie_breakers": ["average_place"]}
    season.save()
    play(season.club, ["Cees", "Eva"], season=season, days_later=2)
    with translation.override("en"):
        english = str(TIE_BREAKER_TEXT["average_place"])
    assert english in rows_of(client.get(url_of(season), HTTP_ACCEPT_LANGUAGE="en"))
    assert english not in rows_of(client.get(url_of(season), HTTP_ACCEPT_LANGUAGE="nl"))


def test_each_season_gets_its_own_copy(client, league, django_assert_num_queries):
    season = league["season"]
    other = Season.objects.create(club=season.club, name="Zomer 2026", starts_on="2026-06-01")
    play(season.club, ["Eva", "Cees"], season=other)
    for _ in range(2):
        assert names(kept(client, season, django_assert_num_queries)) == [
            "Anne",
            "Bas",
            "Cees",
            "Dirk",
        ]
        assert names(kept(client, other, django_assert_num_queries)) == ["Eva", "Cees"]


def test_another_clubs_season_id_is_not_found_even_with_a_copy(client, league):
    season = league["season"]
    client.get(url_of(season))
    other = make_club(name="Elders", slug="elders", standings_public=True)
    assert client.get(reverse("league_season", args=[other.slug, season.pk])).status_code == 404


# --- two at once ---------------------------------------------------------------------------------


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_misses_at_once_both_answer_and_leave_one_right_copy(monkeypatch):
    club = make_club(standings_public=True)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    for name in ("Anne", "Bas", "Cees"):
        Player.objects.create(club=club, name=name)
    play(club, ["Anne", "Bas", "Cees"], season=season)
    both_inside = threading.Barrier(2, timeout=10)
    compute = standings.season_standings

    def together(season):
        both_inside.wait()  # neither keeps its rows before the other has computed them
        return compute(season)

    monkeypatch.setattr(standings, "season_standings", together)
    answers: list = []
    errors: list[BaseException] = []

    def view() -> None:
        try:
            answers.append(rows_of(Client().get(url_of(season))))
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=view) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    close_old_connections()
    monkeypatch.setattr(standings, "season_standings", compute)
    assert errors == []
    fresh = fresh_rows(season, member=False)
    assert answers == [fresh, fresh]
    assert rows_of(Client().get(url_of(season))) == fresh


@on_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("meanwhile", ["before the snapshot", "while computing"])
def test_a_miss_keeps_rows_of_the_very_state_its_key_is_of(monkeypatch, meanwhile):
    """A session finishes in another connection after the miss read the key of the copy it
    found (or while it computes the rows), and is deleted again before anyone looks: the key
    is back to a value a copy may carry, so that copy must not have the session in it."""
    club = make_club(standings_public=True)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    for name in ("Anne", "Bas", "Cees", "Eva"):
        Player.objects.create(club=club, name=name)
    play(club, ["Anne", "Bas", "Cees"], season=season)
    late: list[Session] = []
    isolation: list[str] = []

    def finish_a_session_in_another_connection() -> None:
        def finish() -> None:
            try:
                late.append(play(club, ["Eva", "Bas"], season=season))
            finally:
                connection.close()

        other = threading.Thread(target=finish)  # committed when it ends
        other.start()
        other.join()

    snapshot, compute = standings_cache.snapshot, standings.season_standings

    @contextmanager
    def late_snapshot():
        finish_a_session_in_another_connection()
        with snapshot():
            yield

    def late_compute(season):
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('transaction_isolation')")
            isolation.append(cursor.fetchone()[0])
        finish_a_session_in_another_connection()
        return compute(season)

    if meanwhile == "before the snapshot":
        monkeypatch.setattr(standings_cache, "snapshot", late_snapshot)
    else:
        monkeypatch.setattr(standings, "season_standings", late_compute)
    client = Client()
    client.get(url_of(season))
    monkeypatch.undo()
    assert late, "the other connection did not finish its session"
    if meanwhile == "while computing":
        assert isolation == ["repeatable read"]
    late[0].delete()
    assert rows_of(client.get(url_of(season))) == fresh_rows(season, member=False)
    assert "Eva" not in names(standings_shown(client.get(url_of(season))))
