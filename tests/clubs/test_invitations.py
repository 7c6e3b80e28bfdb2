"""A club admin adds members by invitation, never by guessing usernames: the admin makes an
invitation (role, the club's player, until when), sends its link or QR code, and the one
invited takes it up on a page of ours, signed in. A username typed in the admin by a club admin
tells nothing about who has an account."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.models import AuditEntry, ClubInvitation, ClubMembership, Player
from tests.builders import admin_form_data, make_club

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def bram(django_user_model):
    return django_user_model.objects.create_user("bram", password="x")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def invite(club, **fields) -> ClubInvitation:
    return ClubInvitation.objects.create(club=club, **fields)


def link(invitation: ClubInvitation) -> str:
    return reverse("invitation_accept", args=[invitation.token])


# --- usernames tell nothing --------------------------------------------------------------------


def test_a_username_typed_by_a_club_admin_tells_nothing_about_who_has_an_account(
    club_admin_client, club, bram, people
):
    """Before, the membership form answered "There is no active user with that username" for
    one name and made the member for the other."""
    add = reverse("admin:scoring_clubmembership_add")
    answers = [
        club_admin_client.post(add, {"user": name, "club": club.pk, "role": "scorer"}, **EN)
        for name in ("bram", "nobody")
    ]
    assert [a.status_code for a in answers] == [403, 403]
    assert answers[0].content == answers[1].content

    # The club's own page: a new row typed in its members' table is not taken.
    page = reverse("admin:scoring_club_change", args=[club.pk])
    data = admin_form_data(club_admin_client.get(page))
    rows = []
    for name in ("bram", "nobody"):
        row = {**data, "memberships-TOTAL_FORMS": int(data["memberships-TOTAL_FORMS"]) + 1}
        index = int(data["memberships-TOTAL_FORMS"])
        row.update({f"memberships-{index}-user": name, f"memberships-{index}-role": "scorer"})
        rows.append(club_admin_client.post(page, row, **EN))
    assert [r.status_code for r in rows] == [302, 302]

    # A player's page: the account field is not there to type in.
    anne = people["Anne"]
    player_page = reverse("admin:scoring_player_change", args=[anne.pk])
    player_data = admin_form_data(club_admin_client.get(player_page))
    assert "user" not in player_data
    for name in ("bram", "nobody"):
        club_admin_client.post(player_page, {**player_data, "user": name}, **EN)
    anne.refresh_from_db()
    assert anne.user is None
    assert not ClubMembership.objects.filter(user=bram).exists()


# --- the admin makes an invitation --------------------------------------------------------------


def test_a_club_admin_makes_an_invitation_and_gets_its_link_and_qr_code(
    club_admin_client, club, club_admin, people
):
    add = reverse("admin:scoring_clubinvitation_add")
    assert club_admin_client.get(add).status_code == 200
    soon = timezone.localtime() + datetime.timedelta(days=3)
    made = club_admin_client.post(
        add,
        {
            "club": club.pk,
            "role": "scorer",
            "player": people["Eva"].pk,
            "note": "Eva, de nieuwe",
            "expires_at_0": soon.date().isoformat(),
            "expires_at_1": "20:00:00",
        },
        follow=True,
        HTTP_ACCEPT_ENCODING="gzip",
        **EN,
    )
    invitation = ClubInvitation.objects.get()
    assert (invitation.club, invitation.role, invitation.player) == (club, "scorer", people["Eva"])
    assert invitation.created_by == club_admin
    assert invitation.is_open
    assert made.redirect_chain[-1][0] == reverse(
        "admin:scoring_clubinvitation_change", args=[invitation.pk]
    )
    html = made.content.decode()
    assert f"http://testserver/uitnodiging/{invitation.token}/" in html
    assert "<svg" in html  # the QR code to scan
    assert "send its link below" in html
    assert "Content-Encoding" not in made  # a secret on the page: not compressed (BREACH)


def test_an_invitation_names_only_a_player_of_its_club_without_an_account(
    club_admin_client, club, bram, people
):
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    stranger = Player.objects.create(club=other, name="Zeven Anne")
    people["Bas"].user = bram
    people["Bas"].save()
    add = reverse("admin:scoring_clubinvitation_add")
    soon = timezone.localtime() + datetime.timedelta(days=3)
    when = {"expires_at_0": soon.date().isoformat(), "expires_at_1": "20:00:00"}
    for player in (stranger, people["Bas"]):
        data = {"club": club.pk, "role": "scorer", "player": player.pk, **when}
        refused = club_admin_client.post(add, data, **EN)
        assert refused.status_code == 200
        assert "player" in refused.context["adminform"].form.errors
    past = {"expires_at_0": "2020-01-01", "expires_at_1": "20:00:00"}
    refused = club_admin_client.post(add, {"club": club.pk, "role": "scorer", **past}, **EN)
    assert "Choose a moment in the future." in str(refused.context["adminform"].form.errors)
    assert not ClubInvitation.objects.exists()


def test_another_clubs_admin_sees_no_invitation_of_this_club(client, club, django_user_model):
    invitation = invite(club, note="Voor Bram")
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    admin = django_user_model.objects.create_user("zeven", is_staff=True)
    ClubMembership.objects.create(user=admin, club=other, role="admin")
    client.force_login(admin)
    page = reverse("admin:scoring_clubinvitation_change", args=[invitation.pk])
    assert client.get(page).status_code == 404
    listing = client.get(reverse("admin:scoring_clubinvitation_changelist"))
    assert invitation.token not in listing.content.decode()
    assert "Voor Bram" not in listing.content.decode()


# --- the one invited takes it up ----------------------------------------------------------------


def test_the_one_invited_signs_in_and_becomes_a_member_with_their_player(
    client, club, club_admin, bram, people
):
    invitation = invite(club, role="scorer", player=people["Eva"], created_by=club_admin)
    url = link(invitation)
    login = client.get(url)
    assert login.status_code == 302
    assert login["Location"] == f"{reverse('login')}?next={url}"

    client.force_login(bram)
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "De Gouden Boer nodigt je uit als schrijver" in html
    assert "Je account hoort daarna bij de speler Eva." in html
    assert "Je neemt de uitnodiging aan als bram." in html
    assert not ClubMembership.objects.filter(user=bram).exists()  # only looking changes nothing

    assert client.post(url).status_code == 200  # no confirmation: the page again
    assert not ClubMembership.objects.filter(user=bram).exists()

    taken = client.post(url, {"confirm": "ja"}, follow=True)
    assert taken.redirect_chain[0][0] == reverse("league_club", args=[club.slug])
    assert "Welkom bij De Gouden Boer: je bent nu lid." in taken.content.decode()
    membership = ClubMembership.objects.get(user=bram)
    assert (membership.club, membership.role) == (club, "scorer")
    people["Eva"].refresh_from_db()
    assert people["Eva"].user == bram
    invitation.refresh_from_db()
    assert (invitation.accepted_by, invitation.is_open) == (bram, False)
    entry = AuditEntry.objects.get(action="join")
    assert (entry.club, entry.user, entry.session) == (club, bram, None)
    assert entry.after == {
        "role": "scorer",
        "player": "Eva",
        "invitation": invitation.pk,
        "invited_by": "annemiek",
    }
    again = client.get(url)
    assert "Je hebt deze uitnodiging aangenomen" in again.content.decode()


def test_an_invitation_is_taken_up_once(club, bram, django_user_model):
    invitation = invite(club)
    signed_in(bram).post(link(invitation), {"confirm": "ja"})
    cees = django_user_model.objects.create_user("cees")
    late = signed_in(cees)
    page = late.get(link(invitation))
    assert page.status_code == 410
    assert "Deze uitnodiging is al gebruikt." in page.content.decode()
    assert late.post(link(invitation), {"confirm": "ja"}).status_code == 410
    assert not ClubMembership.objects.filter(user=cees).exists()
    assert AuditEntry.objects.filter(action="join").count() == 1


def test_an_expired_invitation_makes_nobody_a_member(club, bram):
    invitation = invite(club, expires_at=timezone.now() - datetime.timedelta(minutes=1))
    client = signed_in(bram)
    page = client.post(link(invitation), {"confirm": "ja"})
    assert page.status_code == 410
    assert "Deze uitnodiging is verlopen." in page.content.decode()
    assert not ClubMembership.objects.filter(user=bram).exists()


def test_an_admin_invitation_opens_the_clubs_admin_to_the_account(club, bram):
    invitation = invite(club, role="admin")
    client = signed_in(bram)
    client.post(link(invitation), {"confirm": "ja"})
    bram.refresh_from_db()
    assert bram.is_staff
    assert ClubMembership.objects.get(user=bram).role == "admin"
    assert client.get(reverse("admin:scoring_club_change", args=[club.pk])).status_code == 200


def test_an_invitation_never_lowers_a_members_role_nor_takes_anothers_player(
    club, club_admin, bram, people
):
    people["Eva"].user = bram
    people["Eva"].save()
    invitation = invite(club, role="scorer", player=people["Eva"])
    signed_in(club_admin).post(link(invitation), {"confirm": "ja"})
    assert ClubMembership.objects.get(user=club_admin).role == "admin"
    people["Eva"].refresh_from_db()
    assert people["Eva"].user == bram
    entry = AuditEntry.objects.get(action="join")
    assert entry.before == {"role": "admin"}
    assert entry.after["player"] is None


# A NUL in the link is refused before any page: tests/site/test_nul_characters.py.
@pytest.mark.parametrize("token", ["nope", "a" * 65, "%F0%9F%83%8F"])
def test_a_link_that_is_no_invitation_is_a_404(client, club, bram, token):
    invite(club)
    client.force_login(bram)
    assert client.get(f"/uitnodiging/{token}/").status_code == 404
    assert client.post(f"/uitnodiging/{token}/", {"confirm": "ja"}).status_code == 404


def test_the_invitation_page_is_sent_uncompressed(club, bram):
    invitation = invite(club)
    page = signed_in(bram).get(link(invitation), HTTP_ACCEPT_ENCODING="gzip")
    assert page.status_code == 200
    assert "Content-Encoding" not in page
    assert re.search(r"<form[^>]*method=\"post\"", page.content.decode())
