"""Check-in as the organiser does it, through real HTTP: a walk-in whose name the club knows is
asked about, a player in two tournaments of one evening is warned about, and a pasted list is
shown before it is saved whole (``scoring/toernooi/checkin.py``)."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, Player, TournamentEntry
from scoring.toernooi import checkin, selectors
from scoring.toernooi import results as tournament_results
from scoring.toernooi import services as tournaments
from tests.builders import HX, make_club, play_out

DAY = datetime.date(2026, 11, 27)


@pytest.fixture
def dated_tournament(club):
    return tournaments.tournament_create(club=club, name="Wintertoernooi", date=DAY)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def playing(dated_tournament) -> list[str]:
    return sorted(
        TournamentEntry.objects.filter(
            tournament=dated_tournament, withdrawn_after=None
        ).values_list("player__name", flat=True)
    )


def logged(dated_tournament, action=AuditEntry.Action.CHECK_IN) -> list[dict]:
    return [e.after for e in AuditEntry.objects.filter(tournament=dated_tournament, action=action)]


# --- a walk-in whose name the club knows ---------------------------------------------------


@pytest.mark.parametrize("typed", ["anne", " Anne ", "ANNE", "anne\t"])
def test_a_walk_in_named_like_a_member_is_asked_about_and_nothing_is_saved(
    org, dated_tournament, people, typed
):
    url = reverse("tournament_checkin", args=[dated_tournament.pk])
    response = org.post(url, {"action": "guest", "name": typed})
    text = response.content.decode()
    assert response.status_code == 200  # the question, not a redirect
    assert "Is dit Anne (lid)?" in text
    assert "Ja, dat is Anne" in text
    assert "Nee, een nieuwe gast" in text
    assert playing(dated_tournament) == []
    assert Player.objects.filter(club=dated_tournament.club).count() == len(people)


def test_yes_that_is_anne_checks_in_the_member_and_the_log_says_so(org, dated_tournament, people):
    url = reverse("tournament_checkin", args=[dated_tournament.pk])
    asked = org.post(url, {"action": "guest", "name": "anne"}, **HX)
    assert "Is dit Anne (lid)?" in asked.content.decode()
    response = org.post(
        url, {"action": "guest-is", "player": people["Anne"].pk, "typed": "anne"}, **HX
    )
    assert response.status_code == 200
    assert "Is dit Anne" not in response.content.decode()
    assert playing(dated_tournament) == ["Anne"]
    assert Player.objects.filter(club=dated_tournament.club, name_key="anne").count() == 1
    assert logged(dated_tournament) == [{"matched": [["anne", "Anne"]], "also_in": {}}]
    texts = [c.text for c in selectors.corrections(dated_tournament)]
    assert texts == ["Aangemeld: binnenloper “anne” is Anne"]


def test_no_a_new_guest_needs_a_name_the_club_does_not_have(org, dated_tournament, people):
    url = reverse("tournament_checkin", args=[dated_tournament.pk])
    org.post(url, {"action": "guest", "name": "anne"})
    # "Nee" with the same name: refused in words, asked again, nothing saved.
    same = org.post(url, {"action": "guest-new", "name": " ANNE "})
    assert same.status_code == 200
    assert any("De club heeft al een speler Anne" in m for m in messages_of(same))
    assert "Is dit Anne (lid)?" in same.content.decode()
    assert playing(dated_tournament) == []
    # "Nee" with a name of its own: a new guest, and only that guest, checked in.
    new = org.post(url, {"action": "guest-new", "name": "Anne de Wit"}, follow=True)
    assert new.status_code == 200
    assert playing(dated_tournament) == ["Anne de Wit"]
    guest = Player.objects.get(club=dated_tournament.club, name="Anne de Wit")
    assert guest.is_guest
    assert not TournamentEntry.objects.filter(tournament=dated_tournament, player=people["Anne"])
    assert logged(dated_tournament) == [{"new_guests": ["Anne de Wit"], "also_in": {}}]


def test_a_new_name_checks_the_guest_in_without_asking(org, dated_tournament, people):
    url = reverse("tournament_checkin", args=[dated_tournament.pk])
    response = org.post(url, {"action": "guest", "name": "  fleur  "}, follow=True)
    assert "Is dit" not in response.content.decode()
    assert playing(dated_tournament) == ["fleur"]


def test_a_known_guest_is_asked_about_as_a_guest(org, dated_tournament, club):
    Player.objects.create(club=club, name="Wim", is_guest=True)
    response = org.post(
        reverse("tournament_checkin", args=[dated_tournament.pk]),
        {"action": "guest", "name": "wim"},
    )
    assert "Is dit Wim (gast)?" in response.content.decode()


def test_yes_for_a_player_of_another_club_is_refused(org, dated_tournament, people):
    stranger = Player.objects.create(club=make_club(name="Elders", slug="elders"), name="Anne")
    response = org.post(
        reverse("tournament_checkin", args=[dated_tournament.pk]),
        {"action": "guest-is", "player": stranger.pk, "typed": "anne"},
        follow=True,
    )
    assert "Die speler is niet van deze club." in messages_of(response)
    assert playing(dated_tournament) == []


def test_the_service_refuses_a_new_guest_named_like_a_member(dated_tournament, people):
    with pytest.raises(checkin.NameTaken):
        checkin.tournament_check_in(tournament=dated_tournament, new_guests=[" aNNe"])
    assert playing(dated_tournament) == []


# --- the same player in two tournaments of one evening -------------------------------------


@pytest.fixture
def other_tournament(club):
    return tournaments.tournament_create(club=club, name="Zomeravond in de bovenzaal", date=DAY)


def test_checking_in_a_player_of_another_tournament_tonight_warns_and_checks_in(
    org, dated_tournament, other_tournament, people
):
    checkin.tournament_check_in(tournament=other_tournament, players=[people["Bas"]])
    response = org.post(
        reverse("tournament_checkin", args=[dated_tournament.pk]),
        {"in": people["Bas"].pk},
        follow=True,
    )
    assert "Let op: Bas speelt vanavond ook in Zomeravond in de bovenzaal." in messages_of(response)
    assert playing(dated_tournament) == ["Bas"]  # a warning, not a refusal
    assert logged(dated_tournament) == [
        {"players": ["Bas"], "also_in": {"Bas": ["Zomeravond in de bovenzaal"]}}
    ]
    assert "Bas speelt vanavond ook in Zomeravond in de bovenzaal" in (
        selectors.corrections(dated_tournament)[0].text
    )


def test_no_warning_for_another_day_a_withdrawal_or_another_club(
    org, dated_tournament, other_tournament, people, club
):
    yesterday = tournaments.tournament_create(
        club=club, name="Gisteren", date=DAY - datetime.timedelta(days=1)
    )
    checkin.tournament_check_in(tournament=yesterday, players=[people["Cees"]])
    checkin.tournament_check_in(tournament=other_tournament, players=[people["Dirk"]])
    checkin.tournament_withdraw(tournament=other_tournament, player=people["Dirk"])
    url = reverse("tournament_checkin", args=[dated_tournament.pk])
    for name in ("Cees", "Dirk"):
        response = org.post(url, {"in": people[name].pk}, follow=True)
        assert not any("Let op" in m for m in messages_of(response))
    assert playing(dated_tournament) == ["Cees", "Dirk"]
    assert logged(dated_tournament) == []  # an ordinary check-in is no entry of the log


def test_a_walk_in_confirmed_as_a_player_of_another_tournament_tonight_is_warned_about(
    org, dated_tournament, other_tournament, people
):
    checkin.tournament_check_in(tournament=other_tournament, players=[people["Eva"]])
    response = org.post(
        reverse("tournament_checkin", args=[dated_tournament.pk]),
        {"action": "guest-is", "player": people["Eva"].pk, "typed": "eva"},
        follow=True,
    )
    assert any("Eva speelt vanavond ook in Zomeravond" in m for m in messages_of(response))


# --- a pasted list -------------------------------------------------------------------------


def paste(client, dated_tournament, text: str, **extra):
    return client.post(
        reverse("tournament_paste", args=[dated_tournament.pk]), {"names": text, **extra}
    )


def plan_of(response):
    assert response.status_code == 200
    return response.context["plan"]


def test_a_pasted_list_is_shown_before_anything_is_saved(
    org, dated_tournament, other_tournament, people
):
    checkin.tournament_check_in(tournament=dated_tournament, players=[people["Cees"]])
    checkin.tournament_check_in(tournament=other_tournament, players=[people["Dirk"]])
    text = "anne\n  Fleur van Dam \n\nCEES\ndirk\nGijs\n"
    response = paste(org, dated_tournament, text)
    plan = plan_of(response)
    assert [(line.name, line.kind) for line in plan.lines] == [
        ("Anne", "member"),
        ("Fleur van Dam", "new"),
        ("Cees", "playing"),
        ("Dirk", "member"),
        ("Gijs", "new"),
    ]
    assert [line.number for line in plan.lines] == [1, 2, 4, 5, 6]
    page = response.content.decode()
    for kind in ("nieuwe gast", "lid van de club", "speelt al mee"):
        assert kind in page
    assert "let op: speelt vanavond ook in Zomeravond in de bovenzaal" in page
    assert "5 namen aanmelden" in page
    assert playing(dated_tournament) == ["Cees"]  # nothing saved yet
    assert not Player.objects.filter(name__in=["Fleur van Dam", "Gijs"]).exists()

    saved = paste(org, dated_tournament, text, action="save", plan=plan.digest)
    assert saved.status_code == 302
    assert saved.url == reverse("tournament_checkin", args=[dated_tournament.pk])
    assert playing(dated_tournament) == ["Anne", "Cees", "Dirk", "Fleur van Dam", "Gijs"]
    assert Player.objects.get(name="Gijs").is_guest
    after = org.get(saved.url)
    shown = messages_of(after)
    assert (
        "5 namen van de lijst verwerkt: nieuwe gast: 2, van de club: 2, was al aangemeld: 1."
        in shown
    )
    assert "Let op: Dirk speelt vanavond ook in Zomeravond in de bovenzaal." in shown
    [entry] = logged(dated_tournament)
    assert entry["via"] == "paste"
    assert entry["new_guests"] == ["Fleur van Dam", "Gijs"]
    assert entry["also_in"] == {"Dirk": ["Zomeravond in de bovenzaal"]}
    assert selectors.corrections(dated_tournament)[0].text.startswith("Lijst aangemeld (5)")


def test_a_new_guest_named_like_a_known_player_is_pointed_out(org, dated_tournament, club):
    Player.objects.create(club=club, name="Jan-Willem")
    Player.objects.create(club=club, name="Anne")
    response = paste(org, dated_tournament, "Jan Willem\nJ.W. Smit\nAnne")
    plan = plan_of(response)
    assert [(line.name, line.kind, line.like) for line in plan.lines] == [
        ("Jan Willem", "new", "Jan-Willem"),
        ("J.W. Smit", "new", ""),
        ("Anne", "member", ""),
    ]
    assert "let op: de club kent “Jan-Willem”" in response.content.decode()
    assert not Player.objects.filter(name="Jan Willem").exists()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Anne\nBas\nanne\n", "regel 3, “Anne”: staat al op regel 1"),
        ("Anne\n" + "x" * 41 + "\n", "langer dan 40 tekens"),
        ("Anne\nBo\x1bb\n", "er staat een stuurteken in"),
        ("Anne\nBo\x07b\n", "er staat een stuurteken in"),  # a NUL: 400 (middleware)
    ],
)
def test_a_list_with_a_bad_line_explains_it_and_saves_nothing(
    org, dated_tournament, people, text, why
):
    response = paste(org, dated_tournament, text)
    plan = plan_of(response)
    assert not plan.ok
    assert why in response.content.decode().replace("Regel", "regel")
    assert "aanmelden</button>" not in response.content.decode()  # no way to save it
    saved = paste(org, dated_tournament, text, action="save", plan=plan.digest)
    assert saved.status_code == 200
    assert any("kan niet" in m or "kunnen niet" in m for m in messages_of(saved))
    assert playing(dated_tournament) == []
    assert Player.objects.filter(club=dated_tournament.club).count() == len(people)


def test_a_list_of_more_than_200_names_is_refused_whole(org, dated_tournament):
    text = "\n".join(f"Speler {n}" for n in range(201))
    response = paste(org, dated_tournament, text)
    assert "De lijst heeft 201 regels: hoogstens 200 namen tegelijk." in response.content.decode()
    saved = paste(org, dated_tournament, text, action="save", plan=plan_of(response).digest)
    assert saved.status_code == 200
    assert playing(dated_tournament) == []
    # 200 is fine.
    ok = plan_of(paste(org, dated_tournament, "\n".join(f"Speler {n}" for n in range(200))))
    assert ok.ok
    assert len(ok.of_kind("new")) == 200


def test_a_list_too_long_for_the_form_is_refused_in_words(org, dated_tournament):
    response = paste(org, dated_tournament, "x" * 20_001)
    assert response.status_code == 200
    assert response.context["form"].errors["names"]
    assert playing(dated_tournament) == []


def test_an_empty_list_says_so(org, dated_tournament):
    response = paste(org, dated_tournament, " \n \n")
    assert "De lijst is leeg" in response.content.decode()


def test_a_list_saved_after_the_club_changed_is_shown_again(org, dated_tournament, club):
    text = "Hanna\nIvo\n"
    plan = plan_of(paste(org, dated_tournament, text))
    assert [line.kind for line in plan.lines] == ["new", "new"]
    Player.objects.create(club=club, name="hanna")  # added by someone else meanwhile
    saved = paste(org, dated_tournament, text, action="save", plan=plan.digest)
    assert saved.status_code == 200
    assert any("Intussen is er iets veranderd" in m for m in messages_of(saved))
    assert [line.kind for line in saved.context["plan"].lines] == ["member", "new"]
    assert playing(dated_tournament) == []
    assert not Player.objects.filter(name="Ivo").exists()


def test_a_list_after_every_series_began_is_refused(org, club, people):
    small = tournaments.tournament_create(club=club, name="Kort", series_count=1, date=DAY)
    checkin.tournament_check_in(tournament=small, players=list(people.values())[:4])
    series = tournaments.series_draw(tournament=small, expected_number=1, seed=1)
    tournaments.series_start(series=series)
    response = paste(org, small, "Zoë\n")
    assert "Alle series zijn begonnen" in response.content.decode()


def test_the_paste_page_is_linked_from_the_check_in(org, dated_tournament):
    page = org.get(reverse("tournament_checkin", args=[dated_tournament.pk]))
    assert reverse("tournament_paste", args=[dated_tournament.pk]) in page.content.decode()


def test_a_player_who_missed_a_series_does_not_come_back_by_name_or_by_list(org, club, people):
    three = tournaments.tournament_create(club=club, name="Drie", series_count=3, date=DAY)
    checkin.tournament_check_in(tournament=three, players=list(people.values()))
    first = tournaments.series_draw(tournament=three, expected_number=1, seed=1)
    tournaments.series_start(series=first)
    checkin.tournament_withdraw(tournament=three, player=people["Eva"])  # after series 1
    for table in first.tables.all():
        play_out(table.session)
    tournament_results.series_finish(series=first)
    second = tournaments.series_draw(tournament=three, expected_number=2, seed=1)
    tournaments.series_start(series=second)
    checkin.tournament_withdraw(tournament=three, player=people["Dirk"])  # during series 2
    # Eva missed series 2: she stays out. Dirk missed none: he comes back for series 3.
    with pytest.raises(tournaments.TournamentError, match="kan niet meer terugkomen"):
        checkin.tournament_check_in(tournament=three, players=[people["Eva"]])
    plan = plan_of(paste(org, three, "Eva\nDirk\n"))
    assert [(line.name, line.kind) for line in plan.lines] == [
        ("Eva", "problem"),
        ("Dirk", "member"),
    ]
    assert plan.lines[0].problem == "trok zich terug na serie 1 en kan niet terugkomen"
    checkin.tournament_check_in(tournament=three, players=[people["Dirk"]])
    assert "Dirk" in playing(three)
    assert "Eva" not in playing(three)


def test_a_full_tournament_takes_back_a_player_who_withdrew_by_list_too(
    org, dated_tournament, people, monkeypatch
):
    monkeypatch.setattr(checkin, "MAX_PLAYERS", len(people))
    checkin.tournament_check_in(tournament=dated_tournament, players=list(people.values()))
    checkin.tournament_withdraw(tournament=dated_tournament, player=people["Eva"])
    plan = plan_of(paste(org, dated_tournament, "Eva\n"))
    assert plan.ok, plan.problem  # her place is hers: the check-in takes her back
    saved = paste(org, dated_tournament, "Eva\n", action="save", plan=plan.digest)
    assert saved.status_code == 302
    assert "Eva" in playing(dated_tournament)
    full = plan_of(paste(org, dated_tournament, "Fleur\n"))
    assert full.problem == f"Een toernooi heeft hoogstens {len(people)} spelers."
