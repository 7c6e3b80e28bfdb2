"""One way names are compared (scoring/names.py): a typed name finds the club's player
whatever its case, spaces or Unicode form, new names are stored tidied, and a player who asked
for initials is never shown in full because their name was typed otherwise."""

from __future__ import annotations

import json
import unicodedata

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from scoring import names
from scoring.clubs.services import PlayerNameClash, club_players
from scoring.lei import services
from scoring.models import Player, Session
from tests.builders import play_rounds, standings_shown


def start_form(club, players, **extra):
    data = {"club": club.pk, "dealer": 1, "game": "strafpunten", "preset": "standaard"}
    data.update({f"seat_{i}": name for i, name in enumerate(players, start=1)})
    return data | extra


@pytest.mark.django_db
def test_finding_3_a_name_typed_with_a_double_space_is_the_existing_player(
    scorer, client, club, season, user
):
    club.standings_public = True
    club.save()
    anne = Player.objects.create(club=club, name="Anne Geheimnaam", public_initials=True)
    for name in ("Bas", "Cees"):
        Player.objects.create(club=club, name=name)
    data = start_form(club, ["anne  geheimnaam ", "Bas", "Cees"], season=season.pk)
    assert scorer.post(reverse("session_new"), data).status_code == 302
    session = Session.objects.get()
    assert Player.objects.filter(club=club).count() == 3  # no guest made of the typo
    assert session.seats.get(position=1).player == anne
    while session.status == Session.Status.RUNNING:  # a finished game is in the standings
        play_rounds(session, ["Bas"])
    scorer.logout()
    urls = [
        reverse("league_season", args=[club.slug, season.pk]),
        reverse("league_evening", args=[club.slug, session.played_on.isoformat()]),
        reverse("league_session", args=[club.slug, session.pk]),
        reverse("league_session_export", args=[club.slug, session.pk]),
    ]
    for url in urls:
        body = client.get(url).content.decode()
        assert "geheimnaam" not in body.casefold(), url
    assert "A.G." in [row[1] for row in standings_shown(client.get(urls[0]))]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "typed",
    [
        " Anne\tGeheimnaam",
        "Anne\u00a0Geheimnaam",  # a no-break space from a phone's keyboard
        "\uff21nne Geheimnaam",  # a full-width A
    ],
)
def test_a_typed_name_finds_the_player_whatever_its_case_spaces_or_unicode_form(club, typed):
    anne = Player.objects.create(club=club, name="Anne Geheimnaam")
    assert club_players(club, [typed]) == {typed: anne}
    assert Player.objects.count() == 1


@pytest.mark.django_db
def test_an_accent_typed_decomposed_is_the_same_player(club):
    zoe = Player.objects.create(club=club, name="Zoë")  # as a keyboard types it (NFC)
    decomposed = unicodedata.normalize("NFD", "zoë")
    assert decomposed != "zoë"
    assert club_players(club, [decomposed]) == {decomposed: zoe}


@pytest.mark.django_db
def test_a_new_name_is_stored_tidied(club):
    typed = "  Eva \t de   Vrie\u0301s "
    guest = club_players(club, [typed])[typed]
    guest.refresh_from_db()
    assert guest.name == "Eva de Vriés"
    assert guest.name == unicodedata.normalize("NFC", guest.name)
    assert guest.is_guest


@pytest.mark.django_db
def test_two_spellings_of_one_name_at_one_table_are_refused(club):
    with pytest.raises(PlayerNameClash):
        club_players(club, ["Anne Vos", "anne  vos"])


@pytest.mark.django_db
def test_the_session_file_names_the_player_as_the_club_spells_them(club):
    Player.objects.create(club=club, name="Anne Vos")
    session = services.session_start(
        club=club, players=["anne  VOS", "Bas"], dealer="ANNE VOS", start={"anne vos": 3}
    )
    data = session.to_file()
    assert data["players"] == ["Anne Vos", "Bas"]
    assert data["dealer"] == "Anne Vos"
    assert data["start"] == {"Anne Vos": 3}


@pytest.mark.django_db
def test_a_team_typed_in_other_case_shows_initials_in_the_public_export(scorer, client, club):
    club.standings_public = True
    club.save()
    Player.objects.create(club=club, name="Anne Geheimnaam", public_initials=True)
    data = start_form(club, ["anne geheimnaam", "Bas", "Fleur", "Dirk"], teams="on")
    assert scorer.post(reverse("session_new"), data).status_code == 302
    session = Session.objects.get()
    assert "anne geheimnaam & Fleur" in session.teams  # the side as the tablet named it
    scorer.logout()
    url = reverse("league_session_export", args=[club.slug, session.pk])
    exported = client.get(url).content.decode()
    assert "geheimnaam" not in exported.casefold()
    assert "A.G. & Fleur" in json.loads(exported)["teams"]


@pytest.mark.django_db
def test_renaming_a_player_to_another_spelling_of_a_club_name_is_refused(club):
    from scoring.clubs.services import player_rename

    Player.objects.create(club=club, name="Anne Vos")
    bas = Player.objects.create(club=club, name="Bas")
    with pytest.raises(PlayerNameClash):
        player_rename(player=bas, name="anne   vos")


def test_a_name_is_found_in_a_side_by_whole_words_only():
    assert names.in_text("Bob & Eva", {"Bo": "B."}) == "Bob & Eva"
    assert names.in_text("Jan-Willem/Kees", {"jan willem": "J.W."}) == "J.W./Kees"
    assert names.in_text("ANNE VOS en anne vos", {"Anne Vos": "A.V."}) == "A.V. en A.V."


def test_a_name_keeps_no_bidirectional_control():
    for control in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert names.tidy(f"{control}Anne {control}Vos{control}") == "Anne Vos"
    assert names.name_key("\u202eanne vos") == names.name_key("Anne Vos")
    assert names.initials("\u202eanne vos") == "A.V."
    assert names.tidy("Anne\u200dVos") == "Anne\u200dVos"  # a joiner is part of what is typed


def test_initials_of_a_name_typed_untidily():
    assert names.initials("  anne   van dijk ") == "A.V.D."
    assert names.initials(unicodedata.normalize("NFD", "émile zola")) == "É.Z."


@given(st.text(max_size=30))
def test_the_key_of_a_name_is_the_key_of_its_tidy_form_and_of_its_key(text):
    key = names.name_key(text)
    assert names.name_key(names.tidy(text)) == key
    assert names.name_key(key) == key
    assert names.name_key(text.upper()) == names.name_key(text.lower()) or not text.isascii()
