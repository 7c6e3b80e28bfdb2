"""Names close to a member's are asked about before a second player is made for one person:
the comparison (``scoring/names.py``, ``alike``), the walk-in form and the pasted list of a
toernooi, and the club evening's phone check-in and organiser."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import EveningPlayer, Player, TournamentEntry
from scoring.names import alike
from scoring.toernooi import services as tournaments


@pytest.mark.parametrize(
    ("typed", "known", "asked"),
    [
        ("Kees Baker", "Kees Bakker", True),  # one letter dropped
        ("Kees Bakkre", "Kees Bakker", True),  # two swapped
        ("Kees Bakkor", "Kees Bakker", True),  # one changed
        ("K. Bakker", "Kees Bakker", True),  # initials
        ("Kees B", "Kees Bakker", True),
        ("Bakker Kees", "Kees Bakker", True),  # parts swapped
        ("Bakker, Kees", "Kees Bakker", True),
        ("Jan Willem", "Jan-Willem", True),  # spaces, hyphens, dots
        ("kees bakker", "Kees Bakker", False),  # the same name: that player, not a question
        ("Kees", "Kees Bakker", False),
        ("Bas", "Bob", False),  # short names are two people
        ("Anne", "Anna", False),
        ("Kees Bakker", "Klaas Bakker", False),
        ("J. Bakker", "Kees Bakker", False),
        ("Speler 1", "Speler 2", False),  # numbered, not misspelled
        ("Speler 1", "Speler 12", False),
    ],
)
def test_which_names_are_alike(typed, known, asked):
    assert alike(typed, known) is asked
    assert alike(known, typed) is asked


@pytest.fixture
def kees(club) -> Player:
    return Player.objects.create(club=club, name="Kees Bakker")


@pytest.fixture
def toernooi(club):
    return tournaments.tournament_create(
        club=club, name="Wintertoernooi", date=datetime.date(2026, 11, 27)
    )


def test_a_walk_in_one_letter_from_a_member_is_asked_about_then_either_way(org, toernooi, kees):
    url = reverse("tournament_checkin", args=[toernooi.pk])
    asked = org.post(url, {"action": "guest", "name": "Kees Baker"})
    text = asked.content.decode()
    assert "Bedoel je Kees Bakker?" in text
    assert "Ja, dat is Kees Bakker" in text
    assert "Nee, een nieuwe gast" in text
    assert not TournamentEntry.objects.filter(tournament=toernooi).exists()
    assert not Player.objects.filter(name="Kees Baker").exists()
    # "Ja": the member plays; "Nee": a new guest of that name.
    org.post(url, {"action": "guest-is", "player": kees.pk, "typed": "Kees Baker"})
    assert TournamentEntry.objects.filter(tournament=toernooi, player=kees).exists()
    org.post(url, {"action": "guest-new", "name": "K. Bakker"})
    guest = Player.objects.get(name="K. Bakker")
    assert guest.is_guest
    assert TournamentEntry.objects.filter(tournament=toernooi, player=guest).exists()


def test_the_pasted_list_points_out_a_name_like_a_members(org, toernooi, kees):
    url = reverse("tournament_paste", args=[toernooi.pk])
    page = org.post(url, {"names": "Bakker Kees\nFleur", "action": "plan"}).content.decode()
    assert "de club kent “Kees Bakker”" in page
    assert page.count("de club kent") == 1
    assert not Player.objects.filter(name="Bakker Kees").exists()


def test_the_phone_asks_bedoel_je_and_checks_in_the_member_or_a_sure_new_guest(evening, kees):
    phone = Client()
    url = reverse("checkin_phone", args=[evening.checkin_token])
    asked = phone.post(url, {"guest": "Kees Baker"})
    assert asked.status_code == 200  # the question, nothing saved
    text = asked.content.decode()
    assert "Bedoel je Kees Bakker?" in text
    assert 'id="alike-new"' in text
    assert not EveningPlayer.objects.filter(evening=evening).exists()
    phone.post(url, {"player": kees.pk})
    assert EveningPlayer.objects.filter(evening=evening, player=kees).exists()
    other = Client()
    other.post(url, {"guest": "Kees Baker", "zeker": "1"})
    guest = Player.objects.get(name="Kees Baker")
    assert EveningPlayer.objects.get(evening=evening, player=guest).pending


def test_the_evening_organiser_is_asked_too_and_may_say_new_guest(org, evening, kees):
    url = reverse("evening_add", args=[evening.pk])
    asked = org.post(url, {"name": "K. Bakker"}, follow=True)
    assert "Bedoel je Kees Bakker?" in asked.content.decode()
    assert not EveningPlayer.objects.filter(evening=evening).exists()
    org.post(url, {"name": "K. Bakker", "zeker": "1"})
    assert EveningPlayer.objects.filter(evening=evening, player__name="K. Bakker").exists()
