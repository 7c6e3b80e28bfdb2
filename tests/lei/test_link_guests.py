"""A scorer link (a pub tablet without an account) adds guests to its own game only, at most
``MAX_LINK_GUESTS``, and they are not public (initials, no player page) until a member of the
club confirms them. The one way a link makes players is a player sitting down (presence)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.clubs.services import MAX_LINK_GUESTS
from scoring.lei import services
from scoring.models import AuditEntry, Player, Session
from tests.builders import HX, admin_form_data, make_session, new_key, play_rounds


@pytest.fixture
def pub(club, people, season):
    """A public club's game of Anne and Bas in the season, and the pub's tablet on its link."""
    club.standings_public = True
    club.save()
    return make_session(club, ["Anne", "Bas"], season=season)


@pytest.fixture
def link_tablet(client, pub):
    """The test's ``client`` on the pub's scorer link: a tablet without an account."""
    client.get(reverse("scorer_link", args=[pub.scorer_token]))
    return client


def join(client, session, name):
    session.refresh_from_db()
    url = reverse("session_presence", args=[session.pk])
    answer = client.post(url, {"version": session.version, "key": new_key(), "join": name}, **HX)
    session.refresh_from_db()
    return answer


def test_finding_6_a_scorer_link_adds_at_most_four_guests_to_its_game(
    link_tablet, client, pub, club, organiser
):
    assert MAX_LINK_GUESTS == 4
    for n in range(1, 5):
        assert join(link_tablet, pub, f"Gast {n}")["X-Lei-Outcome"] == "recorded"
    players = Player.objects.count()
    refused = join(link_tablet, pub, "Gast 5")
    assert refused["X-Lei-Outcome"] == "refused"
    assert "hoogstens 4 gasten" in refused.content.decode()
    assert Player.objects.count() == players
    assert pub.seats.count() == 6
    guests = Player.objects.filter(added_in=pub)
    assert sorted(guests.values_list("name", "confirmed", "public_initials")) == [
        (f"Gast {n}", False, True) for n in range(1, 5)
    ]
    link_tablet.logout()
    client.force_login(organiser)  # a member of the club adds more, and they are public
    assert join(client, pub, "Gast 5")["X-Lei-Outcome"] == "recorded"
    assert Player.objects.get(name="Gast 5").confirmed


def test_a_guest_a_link_added_is_not_public_until_the_club_confirms_them(
    link_tablet, client, pub, club, season, organiser
):
    join(link_tablet, pub, "Gerrit Geheim")
    gerrit = Player.objects.get(name="Gerrit Geheim")
    play_rounds(pub, ["Anne"] * 3)
    services.session_finish(session=pub)
    link_tablet.logout()
    page = reverse("league_player", args=[club.slug, gerrit.pk])
    pages = [
        reverse("league_season", args=[club.slug, season.pk]),
        reverse("league_session", args=[club.slug, pub.pk]),
        reverse("league_evening", args=[club.slug, pub.played_on.isoformat()]),
        reverse("league_session_export", args=[club.slug, pub.pk]),
        reverse("league_player", args=[club.slug, Player.objects.get(name="Anne").pk]),
    ]
    for url in pages:
        body = client.get(url).content.decode()
        assert "Gerrit" not in body, url
        assert page not in body, url  # no link to a page there is not
    assert "G.G." in client.get(pages[0]).content.decode()
    assert client.get(page).status_code == 404
    client.force_login(organiser)
    changelist = reverse("admin:scoring_player_changelist")
    answer = client.post(changelist, {"action": "confirm_guests", "_selected_action": [gerrit.pk]})
    assert answer.status_code == 302
    entry = AuditEntry.objects.get(action="confirm")
    assert entry.after == {"players": ["Gerrit Geheim"]}
    client.logout()
    assert client.get(page).status_code == 200  # confirmed: a page, still by initials
    assert page in client.get(pages[0]).content.decode()
    assert "Gerrit" not in client.get(page).content.decode()


def test_a_new_game_with_the_same_players_on_a_link_makes_no_player(link_tablet, pub):
    join(link_tablet, pub, "Gerrit Geheim")
    play_rounds(pub, ["Anne"])
    services.session_finish(session=pub)
    players = Player.objects.count()
    answer = link_tablet.post(reverse("session_again", args=[pub.pk]))
    new = Session.objects.exclude(pk=pub.pk).get()
    assert answer["Location"] == reverse("tablet", args=[new.pk])
    assert Player.objects.count() == players
    assert [s.player.name for s in new.seats.order_by("position")] == [
        "Anne",
        "Bas",
        "Gerrit Geheim",
    ]
    assert not Player.objects.get(name="Gerrit Geheim").confirmed


def test_the_admin_shows_an_unconfirmed_guest_by_initials_until_confirmed(
    client, pub, link_tablet, organiser
):
    join(link_tablet, pub, "Gerrit Geheim")
    gerrit = Player.objects.get(name="Gerrit Geheim")
    link_tablet.logout()
    client.force_login(organiser)
    url = reverse("admin:scoring_player_change", args=[gerrit.pk])
    data = admin_form_data(client.get(url))
    data["public_initials"] = ""
    refused = client.post(url, data)
    assert refused.status_code == 200
    assert "bevestig hem eerst" in refused.content.decode()  # the admin speaks Dutch
    gerrit.refresh_from_db()
    assert gerrit.public_initials
    data["confirmed"] = "on"  # confirming and unticking at once is a member's choice
    assert client.post(url, data).status_code == 302
    gerrit.refresh_from_db()
    assert (gerrit.confirmed, gerrit.public_initials) == (True, False)


def test_the_admin_refuses_a_name_another_player_has_as_the_lei_compares_names(
    client, club, people, organiser
):
    client.force_login(organiser)
    url = reverse("admin:scoring_player_change", args=[people["Bas"].pk])
    data = admin_form_data(client.get(url))
    data["name"] = "  anne "
    refused = client.post(url, data)
    assert refused.status_code == 200
    assert "al een speler met deze naam" in refused.content.decode()  # the admin speaks Dutch
    assert Player.objects.get(pk=people["Bas"].pk).name == "Bas"
