"""The evening's QR as the organiser's page showed it (DESIGN decision 13, issue 43 item 3):
two organisers at one evening do not undo each other's close or new code without a word, and
closing the QR names the guests it leaves waiting."""

from __future__ import annotations

import re

from django.urls import reverse

from scoring.evening import services
from scoring.models import Evening, EveningPlayer, Player


def shown_qr(page) -> dict[str, str]:
    return {"qr": re.search(r'name="qr" value="([^"]*)"', page.content.decode()).group(1)}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_a_new_qr_from_a_page_that_showed_the_old_one_is_refused(org, club_admin_client, evening):
    url = reverse("evening_qr", args=[evening.pk])
    page = reverse("evening_page", args=[evening.pk])
    first, second = org.get(page), club_admin_client.get(page)
    org.post(url, {"action": "rotate", **shown_qr(first)}, follow=True)
    printed = Evening.objects.get(pk=evening.pk).checkin_token  # the first organiser's poster
    late = club_admin_client.post(url, {"action": "rotate", **shown_qr(second)}, follow=True)
    assert messages_of(late) == [
        "Intussen is de aanmeld-QR al vervangen door een nieuwe code (door een andere"
        " organisator?). Er is niets veranderd: dit scherm toont nu die code."
    ]
    assert Evening.objects.get(pk=evening.pk).checkin_token == printed
    # A close from the stale page is refused alike; from the page as it is now, it closes.
    assert messages_of(
        club_admin_client.post(url, {"action": "close", **shown_qr(second)}, follow=True)
    )[0].startswith("Intussen is de aanmeld-QR al vervangen")
    club_admin_client.post(url, {"action": "close", **shown_qr(late)}, follow=True)
    assert Evening.objects.get(pk=evening.pk).checkin_token is None
    # Opening again from the first page, which showed the QR open, is refused: it was closed.
    reopened = org.post(url, {"action": "rotate", **shown_qr(first)}, follow=True)
    assert messages_of(reopened)[0].startswith("Intussen is de aanmeld-QR gesloten")
    assert Evening.objects.get(pk=evening.pk).checkin_token is None


def test_closing_the_qr_names_the_guests_still_waiting(org, evening):
    services.checkin_guest(
        evening=evening, token=evening.checkin_token, name="Piet Nieuw", phone="p1"
    )
    page = org.get(reverse("evening_page", args=[evening.pk]))
    closed = org.post(
        reverse("evening_qr", args=[evening.pk]), {"action": "close", **shown_qr(page)}, follow=True
    )
    assert messages_of(closed) == [
        "Nog te bevestigen: Piet Nieuw (aangemeld vóór het sluiten).",
        "De aanmeld-QR is gesloten.",
    ]


def test_a_sign_out_from_a_page_read_before_the_player_came_back_is_refused(
    org, club_admin_client, evening, club
):
    bas = Player.objects.create(club=club, name="Bas Bakker")
    services.checkin_by_organiser(evening=evening, name="Bas Bakker")
    page = org.get(reverse("evening_page", args=[evening.pk]))
    entry = re.search(r'name="entry" value="(\d+)"', page.content.decode()).group(1)
    url = reverse("evening_sign_out", args=[evening.pk])
    club_admin_client.post(url, {"player": bas.pk})  # the other organiser, meanwhile
    services.checkin_by_phone(
        evening=evening, token=evening.checkin_token, player_id=str(bas.pk), phone="p1"
    )  # and Bas checks in again on his phone
    late = org.post(url, {"player": bas.pk, "entry": entry}, follow=True)
    assert messages_of(late) == [
        "Bas Bakker heeft zich intussen opnieuw aangemeld. Er is niets veranderd: meld Bas"
        " Bakker opnieuw af als dat moet."
    ]
    assert EveningPlayer.objects.filter(evening=evening, player=bas).exists()
