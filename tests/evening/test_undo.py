"""An organiser's mistake on a club evening put right (scoring/evening/): a player signed out
again leaves the next draws but keeps a table they sit at, and the last round's draw is thrown
away, tables and games, while none of its tables has played, once however often it is asked."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse

from scoring.evening import selectors, services
from scoring.lei import services as lei_services
from scoring.models import (
    ClubMembership,
    Evening,
    EveningPlayer,
    EveningTable,
    Player,
    Season,
    Seat,
    Session,
)
from scoring.toernooi import services as tournaments
from tests.builders import make_club, new_key

NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fenna", "Gijs", "Hanna"]


@pytest.fixture
def full_evening(club):
    """An evening of the club with all eight of NAMES checked in by the organiser."""
    evening = services.evening_create(club=club)
    for name in NAMES:
        services.checkin_by_organiser(evening=evening, name=name)
    return evening


def sign_out(client: Client, evening, name: str):
    player = Player.objects.get(club=evening.club, name=name)
    return client.post(
        reverse("evening_sign_out", args=[evening.pk]), {"player": player.pk}, follow=True
    )


def discard(client: Client, evening, number: int, drawn: int | None = None):
    """The organiser's "throw away" of round ``number``, from a page that shows the draw
    ``drawn`` (by default the one the evening has now)."""
    if drawn is None:
        drawn = selectors.board(evening).last_draw or 0
    return client.post(
        reverse("evening_draw_discard", args=[evening.pk]),
        {"round": str(number), "draw": str(drawn)},
        follow=True,
    )


def draw(client: Client, evening, number: int):
    return client.post(reverse("evening_draw", args=[evening.pk]), {"round": str(number)})


def seated(evening, number: int) -> set[str]:
    return set(
        Seat.objects.filter(
            session__evening_table__evening=evening, session__evening_table__round=number
        ).values_list("player__name", flat=True)
    )


def state(evening) -> tuple[list, list]:
    """The evening's tables and their games, as the database has them."""
    tables = list(evening.tables.order_by("round", "number").values_list("pk", "session_id"))
    sessions = list(Session.objects.order_by("pk").values_list("pk", "version"))
    return tables, sessions


def tap(table: EveningTable) -> None:
    """A knock at the table's lei, as its tablet sends it."""
    session = table.session
    player = session.seats.order_by("position").first().player
    lei_services.session_record_event(
        session=session,
        event={"type": "knock", "player": player.name},
        version=session.version,
        key=new_key(),
    )


# --- signing out ----------------------------------------------------------------------------


def test_a_player_signed_out_is_not_in_the_next_draw(org, full_evening):
    page = org.get(reverse("evening_page", args=[full_evening.pk])).content.decode()
    assert 'data-sign-out="Bas"' in page
    assert "Wie al aan een tafel zit, blijft daar" in page
    page = sign_out(org, full_evening, "Bas").content.decode()
    assert "Bas is afgemeld" in page
    assert "7 spelers aangemeld" in page
    assert not EveningPlayer.objects.filter(evening=full_evening, player__name="Bas").exists()
    draw(org, full_evening, 1)
    assert seated(full_evening, 1) == set(NAMES) - {"Bas"}


def test_a_member_or_an_earlier_guest_signed_out_stays_in_the_club(org, club):
    member = Player.objects.create(club=club, name="Marijke")
    regular = Player.objects.create(club=club, name="Opa Henk", is_guest=True)
    evening = services.evening_create(club=club)
    for name in ["Marijke", "Opa Henk"]:
        services.checkin_by_organiser(evening=evening, name=name)
    page = sign_out(org, evening, "Marijke").content.decode()
    assert "Marijke is afgemeld en wordt niet meer geloot" in page
    sign_out(org, evening, "Opa Henk")
    assert not evening.players.exists()
    assert set(Player.objects.filter(club=club)) == {member, regular}  # off the evening only
    # A guest new tonight who checked in on their own phone, by initials, stays so.
    services.checkin_guest(evening=evening, token=evening.checkin_token, name="Yvonne", phone="p")
    yvonne = Player.objects.get(name="Yvonne")
    services.guest_confirm(evening=evening, player_id=yvonne.pk)
    sign_out(org, evening, "Yvonne")
    yvonne.refresh_from_db()
    assert yvonne.public_initials


def test_a_mistyped_walk_in_signed_out_goes_from_the_club_unless_they_played(org, club):
    """A walk-in "Jna" typed for "Jan": signed out again, the guest the check-in made goes
    too, so next week's check-in does not offer "Jna"; a new guest who played keeps their game."""
    evening = services.evening_create(club=club)
    for name in NAMES[:4]:
        services.checkin_by_organiser(evening=evening, name=name)
    services.checkin_by_organiser(evening=evening, name="Jna Jansen")
    page = sign_out(org, evening, "Jna Jansen").content.decode()
    assert (
        "Jna Jansen is afgemeld. Deze gast was vanavond nieuw en had nog niet gespeeld,"
        " dus staat Jna Jansen ook niet meer bij de club."
    ) in page
    assert not Player.objects.filter(club=club, name="Jna Jansen").exists()
    draw(org, evening, 1)
    page = sign_out(org, evening, "Anne").content.decode()
    assert "Anne is afgemeld en wordt niet meer geloot" in page
    assert Player.objects.filter(club=club, name="Anne").exists()  # she sits at a table
    assert "Anne" in seated(evening, 1)
    org.post(reverse("set_language"), {"language": "de"})
    services.checkin_by_organiser(evening=evening, name="Jna Jansen")
    page = sign_out(org, evening, "Jna Jansen").content.decode()
    assert "Jna Jansen ist abgemeldet." in page


def test_a_seated_player_signed_out_keeps_their_table(org, full_evening):
    draw(org, full_evening, 1)
    before = state(full_evening)
    table = EveningTable.objects.get(
        evening=full_evening, round=1, session__seats__player__name="Bas"
    )
    sign_out(org, full_evening, "Bas")
    assert state(full_evening) == before
    assert "Bas" in table.session.seats.values_list("player__name", flat=True)
    assert table.session.status == Session.Status.RUNNING
    page = org.get(reverse("evening_page", args=[full_evening.pk])).content.decode()
    assert 'data-player="Bas"' not in page  # not in the list of who is here...
    assert "<li>Bas</li>" in page  # ...but still at the table of round 1
    draw(org, full_evening, 2)
    assert "Bas" not in seated(full_evening, 2)
    assert seated(full_evening, 2) == set(NAMES) - {"Bas"}


def test_signing_out_twice_or_a_waiting_guest_changes_nothing(org, full_evening):
    bas = Player.objects.get(name="Bas")
    url = reverse("evening_sign_out", args=[full_evening.pk])
    org.post(url, {"player": bas.pk})  # (a guest new tonight: gone from the club too)
    page = org.post(url, {"player": bas.pk}, follow=True).content.decode()
    assert "Die speler is niet (meer) aangemeld." in page
    services.checkin_guest(
        evening=full_evening, token=full_evening.checkin_token, name="Gast", phone="p"
    )
    page = sign_out(org, full_evening, "Gast").content.decode()
    assert "Die speler is niet (meer) aangemeld." in page  # a guest waiting is refused instead
    assert EveningPlayer.objects.filter(evening=full_evening, player__name="Gast").exists()
    assert full_evening.players.count() == 8


def test_a_toernooi_signs_out_on_its_own_page(org, club):
    tournament = tournaments.tournament_create(club=club, name="Toernooi", series_count=2)
    evening = services.evening_of_tournament(tournament=tournament)
    services.checkin_by_organiser(evening=evening, name="Bas")
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert "data-sign-out" not in page
    page = sign_out(org, evening, "Bas").content.decode()
    assert "Bij een toernooi meld je iemand af op de pagina van het toernooi." in page
    assert evening.players.count() == 1


# --- throwing a round's draw away -------------------------------------------------------------


def test_an_unplayed_round_is_thrown_away_and_drawn_again(org, full_evening):
    draw(org, full_evening, 1)
    round_1 = state(full_evening)
    draw(org, full_evening, 2)
    page = org.get(reverse("evening_page", args=[full_evening.pk])).content.decode()
    assert "Loting van ronde 2 weggooien" in page
    thrown = list(full_evening.tables.filter(round=2).values_list("session_id", flat=True))
    page = discard(org, full_evening, 2).content.decode()
    assert "De loting van ronde 2 is weggegooid (2 tafels): loot hem opnieuw." in page
    assert state(full_evening) == round_1  # round 1's tables and games as they were
    assert not Session.objects.filter(pk__in=thrown).exists()
    assert "Ronde 2 loten" in page
    draw(org, full_evening, 2)
    assert full_evening.tables.filter(round=2).count() == 2
    assert seated(full_evening, 2) == set(NAMES)


def test_a_round_with_one_tap_at_one_table_is_refused(org, full_evening):
    draw(org, full_evening, 1)
    tap(full_evening.tables.get(round=1, number=2))
    before = state(full_evening)
    page = discard(org, full_evening, 1).content.decode()
    assert "Tafel 2 heeft al gespeeld: ronde 1 blijft staan." in page
    assert state(full_evening) == before
    assert full_evening.tables.filter(round=1).count() == 2


def test_a_tap_taken_back_still_counts_as_played(org, full_evening):
    # The undo leaves the game as it began, but its version says a table was at it.
    draw(org, full_evening, 1)
    table = full_evening.tables.get(round=1, number=1)
    tap(table)
    session = Session.objects.get(pk=table.session_id)
    lei_services.session_undo(session=session, version=session.version, key=new_key())
    before = state(full_evening)
    page = discard(org, full_evening, 1).content.decode()
    assert "Tafel 1 heeft al gespeeld" in page
    assert state(full_evening) == before


def test_a_table_ended_without_a_round_counts_as_played(org, full_evening):
    # "Spel beëindigen" before a round: the table's shared place is a result of the evening.
    draw(org, full_evening, 1)
    for table in full_evening.tables.all():
        lei_services.session_finish(session=table.session)
    before = state(full_evening)
    page = discard(org, full_evening, 1).content.decode()
    assert "Tafels 1, 2 hebben al gespeeld: ronde 1 blijft staan." in page
    assert state(full_evening) == before


def test_a_stale_round_or_a_second_tap_throws_nothing_away(org, full_evening):
    draw(org, full_evening, 1)
    draw(org, full_evening, 2)
    before = state(full_evening)
    page = discard(org, full_evening, 1).content.decode()  # not the last round
    assert "Ronde 1 is niet (meer) de laatste ronde: ververs de pagina." in page
    assert state(full_evening) == before
    discard(org, full_evening, 2)
    after = state(full_evening)
    page = discard(org, full_evening, 2).content.decode()  # the same button again
    assert "Ronde 2 is niet (meer) de laatste ronde" in page
    assert state(full_evening) == after
    assert full_evening.tables.filter(round=1).count() == 2


def test_a_page_from_before_a_round_was_drawn_again_throws_nothing_away(org, full_evening):
    # Two organisers see round 2; one throws it away and draws it again, then the other's
    # page, still on the first draw, asks to throw it away: the new round 2 stays.
    draw(org, full_evening, 1)
    draw(org, full_evening, 2)
    page = org.get(reverse("evening_page", args=[full_evening.pk])).content.decode()
    first = selectors.board(full_evening).last_draw
    assert f'name="draw" value="{first}"' in page
    discard(org, full_evening, 2, drawn=first)
    draw(org, full_evening, 2)
    before = state(full_evening)
    page = discard(org, full_evening, 2, drawn=first).content.decode()
    assert "Ronde 2 is intussen opnieuw geloot: ververs de pagina." in page
    assert state(full_evening) == before
    assert full_evening.tables.filter(round=2).count() == 2


@pytest.mark.parametrize("raw", ["", "0", "x", "9" * 9])
def test_a_round_that_is_no_round_throws_nothing_away(org, full_evening, raw):
    draw(org, full_evening, 1)
    before = state(full_evening)
    url = reverse("evening_draw_discard", args=[full_evening.pk])
    org.post(url, {"round": raw, "draw": selectors.board(full_evening).last_draw})
    org.post(url, {"round": "1", "draw": raw})  # no draw, or none of this evening's
    assert state(full_evening) == before


@pytest.mark.parametrize("raw", ["²", "1²", "9" * 5000])
def test_a_number_python_cannot_read_changes_nothing(org, full_evening, raw):
    # "²" passes str.isdigit and fails int: each form's field is refused, never a 500.
    draw(org, full_evening, 1)
    before = state(full_evening), full_evening.players.count()
    writes = [
        ("evening_sign_out", {"player": raw}),
        ("evening_guest", {"player": raw, "action": "confirm"}),
        ("evening_draw", {"round": raw}),
        ("evening_draw_discard", {"round": raw, "draw": selectors.board(full_evening).last_draw}),
        ("evening_draw_discard", {"round": "1", "draw": raw}),
    ]
    for name, data in writes:
        answer = org.post(reverse(name, args=[full_evening.pk]), data)
        assert answer.status_code == 302, name
    assert (state(full_evening), full_evening.players.count()) == before


def test_nothing_drawn_is_nothing_to_throw_away(org, full_evening):
    page = org.get(reverse("evening_page", args=[full_evening.pk])).content.decode()
    assert "weggooien" not in page
    page = discard(org, full_evening, 0).content.decode()
    assert "Ronde 0 is niet (meer) de laatste ronde" in page


# --- who may ----------------------------------------------------------------------------------


def test_only_the_organiser_signs_out_or_throws_a_round_away(
    full_evening, django_user_model, client
):
    services.evening_draw(evening=full_evening, expected_round=1, seed=1)
    bas = Player.objects.get(name="Bas")
    before = state(full_evening), full_evening.players.count()
    elsewhere = django_user_model.objects.create_user("elders")
    ClubMembership.objects.create(user=elsewhere, club=make_club("Elders", "elders"), role="admin")
    scorer = django_user_model.objects.create_user("teller")
    ClubMembership.objects.create(user=scorer, club=full_evening.club, role="scorer")
    admin = django_user_model.objects.create_user("beheer")
    ClubMembership.objects.create(user=admin, club=full_evening.club, role="admin")
    no_token = Client(enforce_csrf_checks=True)
    no_token.force_login(admin)
    # The draw the organiser's page names: without it the throw-away is refused anyway, and the
    # unchanged state below would not show that the refusal was the access check's.
    shown = selectors.board(full_evening).last_draw
    writes = [
        ("evening_sign_out", {"player": bas.pk}),
        ("evening_draw_discard", {"round": "1", "draw": shown}),
        ("evening_date", {"date": "2026-01-01"}),
    ]
    for name, data in writes:
        url = reverse(name, args=[full_evening.pk])
        assert Client().post(url, data).status_code == 403  # not logged in
        for user in (elsewhere, scorer):
            client.force_login(user)
            assert client.post(url, data).status_code == 404
        client.force_login(admin)
        assert client.get(url).status_code == 405
        assert no_token.post(url, data).status_code == 403  # the organiser, without CSRF
    assert (state(full_evening), full_evening.players.count()) == before
    assert Evening.objects.get(pk=full_evening.pk).date == full_evening.date


# --- the wrong day ------------------------------------------------------------------------


def redate(client: Client, evening, day: str):
    return client.post(reverse("evening_date", args=[evening.pk]), {"date": day}, follow=True)


def test_an_evening_started_on_the_wrong_day_moves_with_its_games(org, club):
    autumn = Season.objects.create(club=club, name="Najaar", starts_on="2026-09-01")
    autumn.ends_on = datetime.date(2026, 11, 30)
    autumn.save()
    winter = Season.objects.create(club=club, name="Winter", starts_on="2026-12-01")
    evening = services.evening_create(club=club, date=datetime.date(2026, 12, 29))  # for 11-29
    assert evening.season == winter
    for name in NAMES:
        services.checkin_by_organiser(evening=evening, name=name)
    draw(org, evening, 1)
    tap(EveningTable.objects.filter(evening=evening).first())
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert 'name="date" type="date" required value="2026-12-29"' in page
    page = redate(org, evening, "2026-11-29").content.decode()
    assert "De clubavond en zijn 2 leien staan nu op 29 november 2026." in page
    evening.refresh_from_db()
    assert (evening.date, evening.season) == (datetime.date(2026, 11, 29), autumn)
    games = Session.objects.filter(evening_table__evening=evening)
    assert games.count() == 2
    assert set(games.values_list("played_on", "season")) == {
        (datetime.date(2026, 11, 29), autumn.pk)
    }
    # the next round's games are of the new day too
    draw(org, evening, 2)
    assert set(games.values_list("played_on", flat=True)) == {datetime.date(2026, 11, 29)}


def test_an_evening_without_tables_says_so_in_each_language(org, club):
    evening = services.evening_create(club=club, date=datetime.date(2026, 12, 29))
    page = redate(org, evening, "2026-11-29").content.decode()
    assert "De clubavond staat nu op 29 november 2026." in page
    org.post(reverse("set_language"), {"language": "en"})
    page = redate(org, evening, "2026-11-28").content.decode()
    assert "The club evening is now on" in page
    org.post(reverse("set_language"), {"language": "de"})
    page = redate(org, evening, "2026-11-27").content.decode()
    assert "Der Clubabend ist jetzt am" in page


def test_a_wrong_date_a_taken_day_or_a_toernooi_changes_nothing(org, club):
    taken = services.evening_create(club=club, date=datetime.date(2026, 11, 26))
    evening = services.evening_create(club=club, date=datetime.date(2026, 11, 29))
    page = redate(org, evening, "2026-11-26").content.decode()
    assert "Op 26 november 2026 heeft de club al een clubavond." in page
    for wrong in ["", "2026-02-30", "29-11-2026", "1999-12-31", "30000-01-01", "²"]:
        page = redate(org, evening, wrong).content.decode()
        assert "Kies een datum." in page
    evening.refresh_from_db()
    taken.refresh_from_db()
    assert (evening.date, taken.date) == (datetime.date(2026, 11, 29), datetime.date(2026, 11, 26))
    tournament = tournaments.tournament_create(club=club, name="Toernooi", series_count=2)
    checkin = services.evening_of_tournament(tournament=tournament)
    page = org.get(reverse("evening_page", args=[checkin.pk])).content.decode()
    assert "evening-date" not in page
    page = redate(org, checkin, "2026-11-20").content.decode()
    assert "Een toernooi heeft de datum van het toernooi." in page
    assert Evening.objects.get(pk=checkin.pk).date == checkin.date


def test_an_evening_with_a_locked_game_keeps_its_date(org, club):
    evening = services.evening_create(club=club, date=datetime.date(2026, 12, 29))
    for name in NAMES[:4]:
        services.checkin_by_organiser(evening=evening, name=name)
    draw(org, evening, 1)
    game = Session.objects.get(evening_table__evening=evening)
    Session.objects.filter(pk=game.pk).update(status=Session.Status.LOCKED)
    page = redate(org, evening, "2026-11-29").content.decode()
    assert "Een lei van deze avond is op slot: de datum blijft staan." in page
    evening.refresh_from_db()
    game.refresh_from_db()
    assert (evening.date, game.played_on) == (datetime.date(2026, 12, 29),) * 2
