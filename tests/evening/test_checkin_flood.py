"""A check-in QR that a stranger cannot fill (scoring/evening/flood.py): one client adding guest
after guest, with a fresh cookie each time, is stopped after the crowd's burst while the
organiser and the club's members still check in; the organiser sees the flood and refuses it in
one go; 100 honest phones behind the same address, at the pace people type, all check in; and a
toernooi's QR check-in (the same page) is held the same way."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from scoring.evening import services
from scoring.models import EveningPlayer, Player, TournamentEntry
from scoring.toernooi import services as tournaments

PUB = "203.0.113.7"  # the pub's one address, every phone behind it


def phone_url(evening) -> str:
    return reverse("checkin_phone", args=[evening.checkin_token])


def new_phone() -> Client:
    """A phone (or a script) with no cookie yet: the per-phone limit knows nothing of it."""
    return Client(REMOTE_ADDR=PUB)


def flood(evening, count: int, start: int = 0) -> list[int]:
    return [
        new_phone().post(phone_url(evening), {"guest": f"Robot {n}"}).status_code
        for n in range(start, start + count)
    ]


def test_a_flood_of_new_guests_is_stopped_and_the_evening_stays_open(org, club, evening, clock):
    burst = settings.CHECKIN_GUEST_BURST
    members = [Player.objects.create(club=club, name=f"Lid {n}") for n in range(3)]
    answers = flood(evening, burst + 40)
    # The crowd's burst goes through (the organiser still decides on each), then the script
    # is refused: 429 with the wait, and nothing stored.
    assert answers[:burst] == [302] * burst
    assert set(answers[burst:]) == {429}
    refused = new_phone().post(phone_url(evening), {"guest": "Robot x"})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert "meld je bij de organisator" in refused.content.decode()
    assert EveningPlayer.objects.filter(evening=evening, pending=True).count() == burst
    # The organiser and the club's members are not held up by it.
    org.post(reverse("evening_add", args=[evening.pk]), {"name": members[0].name})
    org.post(reverse("evening_add", args=[evening.pk]), {"name": "Gast van de organisator"})
    answer = new_phone().post(phone_url(evening), {"player": str(members[1].pk)})
    assert answer.status_code == 302
    checked_in = set(
        EveningPlayer.objects.filter(evening=evening, pending=False).values_list(
            "player__name", flat=True
        )
    )
    assert checked_in == {"Lid 0", "Lid 1", "Gast van de organisator"}
    # The organiser sees the flood, and refuses all its waiting guests in one action.
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert 'data-flood="41"' in page
    assert "data-flood-clear" in page
    source = EveningPlayer.objects.filter(pending=True).values_list("source", flat=True)[0]
    org.post(reverse("evening_flood", args=[evening.pk]), {"source": source})
    assert not EveningPlayer.objects.filter(evening=evening, pending=True).exists()
    assert not Player.objects.filter(name__startswith="Robot").exists()
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert "data-flood=" not in page
    # Cleared is not forgiven: the script gets no fresh burst, only the steady pace.
    assert flood(evening, 1, start=500) == [429]
    clock.shift(60)
    per_minute = settings.CHECKIN_GUESTS_PER_MINUTE
    assert flood(evening, per_minute + 1, start=600).count(302) == per_minute


def test_a_hundred_honest_phones_behind_one_address_all_check_in(org, club, evening, clock):
    # Doors open: a hundred people at the QR within a few minutes, each typing a name.
    for n in range(100):
        phone = new_phone()
        phone.get(phone_url(evening))
        clock.shift(1.5)  # reading the page, typing a name
        page = phone.post(phone_url(evening), {"guest": f"Gast nummer {n}"}, follow=True)
        assert page.status_code == 200
        assert "De organisator bevestigt je aanmelding zo" in page.content.decode()
    assert EveningPlayer.objects.filter(evening=evening, pending=True).count() == 100
    page = org.get(reverse("evening_page", args=[evening.pk])).content.decode()
    assert "data-flood=" not in page


def test_guests_waiting_fill_no_evening(org, club, evening, settings):
    # A full list of waiting guests takes no place from the organiser or the members.
    settings.CHECKIN_PENDING_LIMIT = 3
    settings.CHECKIN_GUEST_BURST = 100
    for n in range(3):
        assert new_phone().post(phone_url(evening), {"guest": f"Wacht {n}"}).status_code == 302
    page = new_phone().post(phone_url(evening), {"guest": "Wacht 3"}, follow=True)
    assert "wachten al heel veel nieuwe gasten" in page.content.decode()
    assert not Player.objects.filter(name="Wacht 3").exists()
    member = Player.objects.create(club=club, name="Marieke")
    assert new_phone().post(phone_url(evening), {"player": str(member.pk)}).status_code == 302
    assert EveningPlayer.objects.get(player=member).pending is False


def test_a_full_evening_takes_no_guest_confirmed(org, club, evening, monkeypatch):
    new_phone().post(phone_url(evening), {"guest": "Late Gast"})
    guest = Player.objects.get(name="Late Gast")
    monkeypatch.setattr(services, "MAX_PLAYERS", 1)
    org.post(reverse("evening_add", args=[evening.pk]), {"name": "Eerste"})
    page = org.post(
        reverse("evening_guest", args=[evening.pk]),
        {"player": guest.pk, "action": "confirm"},
        follow=True,
    )
    assert "Deze avond is vol." in page.content.decode()
    assert EveningPlayer.objects.get(player=guest).pending is True


@pytest.mark.django_db
def test_a_toernooi_qr_is_held_the_same_way(org, club, clock):
    tournament = tournaments.tournament_create(club=club, name="Winter", series_count=3)
    evening = services.evening_of_tournament(tournament=tournament)
    burst = settings.CHECKIN_GUEST_BURST
    assert set(flood(evening, burst + 5)[burst:]) == {429}
    member = Player.objects.create(club=club, name="Toernooilid")
    assert new_phone().post(phone_url(evening), {"player": str(member.pk)}).status_code == 302
    assert TournamentEntry.objects.filter(tournament=tournament, player=member).exists()
