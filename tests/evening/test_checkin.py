"""Check-in by QR (scoring/evening/): the phone's search shows no list of names, a closed or
rotated QR is refused, one phone checks in at most three, a new guest waits for the organiser,
the organiser's screen shows who and by which phone, and a club evening's rounds are drawn
into ordinary games."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse

from scoring.evening import selectors, services
from scoring.models import EveningPlayer, Player, Session
from scoring.toernooi import services as tournaments
from tests.builders import make_club

NAMES = [
    "Anne Jansen",
    "Anna de Boer",
    "Annemiek Vos",
    "Annet Smit",
    "Annabel Kok",
    "Annelies Bos",
    "Bas Bakker",
    "Cees Visser",
    "Dirk Mulder",
]


@pytest.fixture
def regulars(club):
    made = {n: Player.objects.create(club=club, name=n) for n in NAMES}
    made["Anne Jansen"].public_initials = True
    made["Anne Jansen"].save()
    return made


def phone_url(evening) -> str:
    return reverse("checkin_phone", args=[evening.checkin_token])


def check_in(phone: Client, evening, player: Player, token: str | None = None):
    url = reverse("checkin_phone", args=[token or evening.checkin_token])
    return phone.post(url, {"player": str(player.pk)}, follow=True)


# --- starting an evening -----------------------------------------------------------------------


def test_a_second_start_of_the_same_evening_is_the_same_evening(org, club):
    # A second tap, or a second organiser: one evening, one QR, not two that split the players.
    url = reverse("evening_new")
    first = org.post(url, {"club": club.pk, "date": "2026-11-27"})
    second = org.post(url, {"club": club.pk, "date": "2026-11-27"})
    evening = club.evenings.get()
    assert first["Location"] == second["Location"] == reverse("evening_page", args=[evening.pk])
    org.post(url, {"club": club.pk, "date": "2026-11-28"})
    assert club.evenings.count() == 2


def test_a_new_evening_closes_the_qr_of_the_ones_before(club, regulars):
    last_week = services.evening_create(club=club, date=datetime.date(2026, 11, 20))
    next_week = services.evening_create(club=club, date=datetime.date(2026, 12, 4))
    old, later = last_week.checkin_token, next_week.checkin_token
    tonight = services.evening_create(club=club, date=datetime.date(2026, 11, 27))
    phone = Client()
    # Last week's poster, still hanging, checks nobody in on last week's evening.
    assert check_in(phone, last_week, regulars["Bas Bakker"], token=old).status_code == 410
    assert not EveningPlayer.objects.exists()
    check_in(phone, tonight, regulars["Bas Bakker"])
    assert list(EveningPlayer.objects.values_list("evening_id", flat=True)) == [tonight.pk]
    next_week.refresh_from_db()
    assert next_week.checkin_token == later  # an evening still to come keeps its QR


# --- the search ---------------------------------------------------------------------------------


def test_the_phone_page_lists_no_names_until_three_letters_are_typed(evening, regulars):
    phone = Client()
    page = phone.get(phone_url(evening)).content.decode()
    for name in NAMES:
        assert name not in page
    page = phone.get(phone_url(evening), {"naam": "Ba"}).content.decode()
    assert "Typ minstens 3 letters van je naam." in page
    assert "Bas Bakker" not in page
    page = phone.get(phone_url(evening), {"naam": "bak"}).content.decode()
    assert "Ik ben Bas Bakker" in page  # a word's start, case ignored
    assert "Cees" not in page


def test_too_many_matches_show_none(evening, regulars):
    found, note = selectors.search(evening, "ann")  # six names start so
    assert found == []
    assert note == "Te veel namen gevonden: typ meer letters."
    found, _ = selectors.search(evening, "anne")  # Anne, Annemiek, Annet, Annelies
    assert len(found) == 4


def test_a_player_who_asked_for_initials_is_found_by_them_only(evening, regulars):
    found, _ = selectors.search(evening, "jansen")
    assert [f.name for f in found] == ["A.J."]


def test_an_unconfirmed_guest_is_not_found(club, evening, regulars):
    Player.objects.create(club=club, name="Xander", confirmed=False, public_initials=True)
    assert selectors.search(evening, "xan")[0] == []


# --- checking in --------------------------------------------------------------------------------


def test_a_player_checks_in_once_however_often_they_tap(evening, regulars):
    phone = Client()
    page = check_in(phone, evening, regulars["Bas Bakker"]).content.decode()
    assert "Bas Bakker is aangemeld. Veel plezier!" in page
    check_in(phone, evening, regulars["Bas Bakker"])
    assert EveningPlayer.objects.filter(evening=evening).count() == 1
    page = phone.get(phone_url(evening), {"naam": "bas"}).content.decode()
    assert "al aangemeld" in page


def test_one_phone_checks_in_at_most_three(evening, regulars):
    phone = Client()
    for name in ["Bas Bakker", "Cees Visser", "Dirk Mulder"]:
        check_in(phone, evening, regulars[name])
    page = check_in(phone, evening, regulars["Annet Smit"]).content.decode()
    assert "Met deze telefoon zijn al 3 mensen aangemeld." in page
    assert not EveningPlayer.objects.filter(player=regulars["Annet Smit"]).exists()
    # Another phone still checks her in.
    check_in(Client(), evening, regulars["Annet Smit"])
    assert EveningPlayer.objects.filter(evening=evening).count() == 4


def test_a_closed_qr_is_refused_and_checks_in_nobody(evening, regulars):
    token = evening.checkin_token
    services.checkin_close(evening=evening)
    phone = Client()
    answer = phone.get(reverse("checkin_phone", args=[token]))
    assert answer.status_code == 410
    assert "Deze aanmeld-QR werkt niet meer" in answer.content.decode()
    url = reverse("checkin_phone", args=[token])
    answer = phone.post(url, {"player": regulars["Bas Bakker"].pk})
    assert answer.status_code == 410
    assert not EveningPlayer.objects.exists()


def test_a_rotated_qr_is_refused_and_the_new_one_works(evening, regulars):
    old = evening.checkin_token
    evening = services.checkin_rotate(evening=evening)
    assert evening.checkin_token != old
    phone = Client()
    assert phone.get(reverse("checkin_phone", args=[old])).status_code == 410
    assert check_in(phone, evening, regulars["Bas Bakker"], token=old).status_code == 410
    assert not EveningPlayer.objects.exists()
    check_in(phone, evening, regulars["Bas Bakker"])
    assert EveningPlayer.objects.count() == 1


def test_the_token_is_checked_inside_the_lock(evening, regulars):
    """A phone that read the evening before a rotation is still refused."""
    old = evening.checkin_token
    services.checkin_rotate(evening=evening)
    with pytest.raises(services.CheckinClosed):
        services.checkin_by_phone(
            evening=evening, token=old, player_id=str(regulars["Bas Bakker"].pk), phone="p"
        )


@pytest.mark.parametrize("player", ["", "abc", "-1", "9" * 30, "99999", "²", "1²"])
def test_a_player_id_that_is_no_player_of_the_club_is_refused(evening, regulars, player):
    page = Client().post(phone_url(evening), {"player": player}, follow=True).content.decode()
    assert "Die naam staat niet op de lijst van de club." in page
    assert not EveningPlayer.objects.exists()


def test_a_player_of_another_club_is_refused(evening, regulars):
    other = Player.objects.create(club=make_club("Elders", "elders"), name="Zeger")
    page = check_in(Client(), evening, other).content.decode()
    assert "Die naam staat niet op de lijst van de club." in page


# --- a new guest --------------------------------------------------------------------------------


def test_a_new_guest_waits_for_the_organiser(org, evening, regulars):
    phone = Client()
    page = phone.post(phone_url(evening), {"guest": "  Yvonne   Peters "}, follow=True)
    assert "Welkom, Yvonne Peters!" in page.content.decode()
    guest = Player.objects.get(name="Yvonne Peters")
    assert (guest.is_guest, guest.confirmed, guest.public_initials) == (True, False, True)
    board = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert 'data-waiting="Yvonne Peters"' in board
    org.post(reverse("evening_guest", args=[evening.pk]), {"player": guest.pk, "action": "confirm"})
    entry = EveningPlayer.objects.get(player=guest)
    guest.refresh_from_db()
    assert (entry.pending, guest.confirmed) == (False, True)


def test_a_guest_name_that_would_turn_the_tv_around_is_stored_without_its_controls(org, evening):
    """U+202E (right-to-left override) and its kin are invisible and turn the rest of a line
    around on every screen that shows the name: the name is kept, the controls are not."""
    Client().post(phone_url(evening), {"guest": "\u202eYvonne\u2066 Peters\u200f"})
    guest = Player.objects.get(is_guest=True)
    assert guest.name == "Yvonne Peters"
    board = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert "\u202e" not in board
    assert 'data-waiting="Yvonne Peters"' in board
    # Typed again with or without them, it is the same person.
    page = Client().post(phone_url(evening), {"guest": "yvonne peters"}, follow=True)
    assert "Die naam kent de club al" in page.content.decode()


def test_a_refused_guest_is_gone(org, evening):
    Client().post(phone_url(evening), {"guest": "Grapjas"})
    guest = Player.objects.get(name="Grapjas")
    org.post(reverse("evening_guest", args=[evening.pk]), {"player": guest.pk, "action": "refuse"})
    assert not Player.objects.filter(name="Grapjas").exists()
    assert not EveningPlayer.objects.exists()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "Vul je naam in."),
        ("x" * 41, "Die naam is te lang."),
        ("bas  BAKKER", "Die naam kent de club al"),
    ],
)
def test_a_bad_guest_name_is_refused(evening, regulars, name, reason):
    page = Client().post(phone_url(evening), {"guest": name}, follow=True).content.decode()
    assert reason in page
    assert not EveningPlayer.objects.exists()


# --- the organiser's screen -----------------------------------------------------------------


def test_the_screen_shows_who_checked_in_by_which_phone(
    org, evening, regulars, django_assert_num_queries
):
    shared = Client()
    check_in(shared, evening, regulars["Bas Bakker"])
    check_in(shared, evening, regulars["Cees Visser"])
    check_in(Client(), evening, regulars["Dirk Mulder"])
    org.post(reverse("evening_add", args=[evening.pk]), {"name": "Opa Toep"})
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert "4 spelers aangemeld" in page
    assert page.count('data-phone="telefoon A"') == 2
    assert "1 telefoon meldde meer dan één persoon aan (hoogstens 3 per telefoon)." in page
    assert 'Opa Toep <span class="muted">(door de organisator)</span>' in page
    assert "<svg" in page  # the QR
    # The poll: the login's session and user, the organiser's evening, the check-ins, the
    # tables. The next round is the draw form's, outside the board: the full page's alone.
    with django_assert_num_queries(5):
        org.get(reverse("evening_page", args=[evening.pk]), HTTP_HX_REQUEST="true")


def test_each_shared_phone_has_a_label_of_its_own_past_z(club, evening):
    for n in range(27 * 2):
        player = Player.objects.create(club=club, name=f"Speler {n}")
        services.checkin_by_phone(
            evening=evening,
            token=evening.checkin_token,
            player_id=str(player.pk),
            phone=f"p{n // 2}",
        )
    labels = selectors.board(evening).phone_label
    assert len(set(labels.values())) == len(labels) == 27
    assert (labels["p0"], labels["p25"], labels["p26"]) == (
        "telefoon A",
        "telefoon Z",
        "telefoon AA",
    )


@pytest.mark.parametrize("players", [6, 18])
def test_the_screen_with_rounds_drawn_costs_the_same_queries_for_any_number(
    org, evening, players, django_assert_num_queries
):
    for n in range(players):
        services.checkin_by_organiser(evening=evening, name=f"Speler {n}")
    services.evening_draw(evening=evening, expected_round=1, seed=1)
    services.evening_draw(evening=evening, expected_round=2, seed=2)
    url = reverse("evening_page", args=[evening.pk])
    # The login's session and user, the organiser's evening, the check-ins, the tables with
    # their games, the games' seats and their results (one query each, not one per table).
    with django_assert_num_queries(7):
        board = org.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert board.count("data-table=") == evening.tables.count() >= 4
    # The whole page: the same and the next round for the draw form, the QR drawn from the
    # token without a query.
    with django_assert_num_queries(8):
        assert org.get(url).status_code == 200


def test_a_toernooi_checks_in_by_qr_too(org, club, regulars):
    tournament = tournaments.tournament_create(club=club, name="Toernooi", series_count=2)
    answer = org.post(reverse("tournament_checkin_qr", args=[tournament.pk]))
    evening = tournament.evening
    assert answer["Location"] == reverse("evening_page", args=[evening.pk])
    check_in(Client(), evening, regulars["Bas Bakker"])
    assert list(tournament.entries.values_list("player__name", flat=True)) == ["Bas Bakker"]
    # The same screen again, not a second check-in.
    org.post(reverse("tournament_checkin_qr", args=[tournament.pk]))
    assert tournament.entries.count() == 1


# --- a club evening's rounds ------------------------------------------------------------------


def test_a_club_evening_draws_rounds_of_ordinary_games(org, evening, regulars):
    for name in NAMES[:8]:
        services.checkin_by_organiser(evening=evening, name=name)
    org.post(reverse("evening_draw", args=[evening.pk]), {"round": "1"})
    tables = list(evening.tables.order_by("number"))
    assert [len(t.session.seats.all()) for t in tables] == [4, 4]
    assert all(t.session.status == Session.Status.RUNNING for t in tables)
    assert tables[0].session.table_label == "Ronde 1 · tafel 1"
    # A second tap on the same button draws nothing twice.
    page = org.post(reverse("evening_draw", args=[evening.pk]), {"round": "1"}, follow=True)
    assert "Ronde 1 is al geloot: er is niets opnieuw geloot." in page.content.decode()
    assert evening.tables.count() == 2
    # A page from before another organiser threw a round away, or no round at all.
    for sent, said in [
        ("3", "Ronde 3 is nog niet aan de beurt: er is niets geloot."),
        ("abc", "Er is niets geloot: ververs de pagina."),
    ]:
        url = reverse("evening_draw", args=[evening.pk])
        page = org.post(url, {"round": sent}, follow=True)
        assert said in page.content.decode()
    assert evening.tables.count() == 2
    org.post(reverse("evening_draw", args=[evening.pk]), {"round": "2"})
    first = [{s.player_id for s in t.session.seats.all()} for t in tables]
    second = [{s.player_id for s in t.session.seats.all()} for t in evening.tables.filter(round=2)]
    # Eight players at two tables of four: round 2 splits every table of round 1.
    assert all(len(a & b) == 2 for a in first for b in second)


def test_a_drawn_table_ended_before_a_round_keeps_its_game_as_a_shared_place(
    org, evening, regulars
):
    # "Spel beëindigen" with no round played: the draw keeps its table (no 500 on the
    # protected link), and the game ends with everyone on one shared place, as a toernooi's.
    for name in NAMES[:4]:
        services.checkin_by_organiser(evening=evening, name=name)
    org.post(reverse("evening_draw", args=[evening.pk]), {"round": "1"})
    table = evening.tables.order_by("number").first()
    session = table.session
    from scoring.lei import services as lei_services

    lei_services.session_finish(session=session)
    session.refresh_from_db()
    assert session.status == Session.Status.FINISHED
    assert evening.tables.filter(pk=table.pk).exists()
    assert {r.place for r in session.results.all()} == {1}


def test_too_few_players_draw_nothing(org, evening, regulars):
    services.checkin_by_organiser(evening=evening, name="Bas Bakker")
    page = org.post(reverse("evening_draw", args=[evening.pk]), {"round": "1"}, follow=True)
    assert "Er is 1 speler aangemeld: een tafel heeft er minstens 3." in page.content.decode()
    assert not evening.tables.exists()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("nl", "Ronde 1 is geloot: 1 tafel."),
        ("en", "Round 1 has been drawn: 1 table."),
        ("de", "Runde 1 ist ausgelost: 1 Tisch."),
    ],
)
def test_one_table_drawn_is_one_tafel_in_every_language(org, evening, regulars, language, words):
    for name in NAMES[:5]:
        services.checkin_by_organiser(evening=evening, name=name)
    page = org.post(
        reverse("evening_draw", args=[evening.pk]),
        {"round": "1"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert words in page.content.decode()
    assert evening.tables.count() == 1
