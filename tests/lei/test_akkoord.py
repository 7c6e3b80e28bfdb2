"""The table's akkoord with the final lei (scoring/lei/akkoord.py): the tablet's two taps, what
they refuse, that a repeat changes nothing, the club's rule in the standings, the admin's filter
and action, and the toernooi organiser's "Accepteren"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.league import standings
from scoring.lei import akkoord, funnel, outbox, services
from scoring.models import AuditEntry, Club, ClubMembership, Season, Session
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import HX, make_session, play_rounds, standings_shown


def finished(club, players=None, winners=("Anne",), **options) -> Session:
    session = make_session(club, players, **options)
    play_rounds(session, list(winners))
    services.session_finish(session=session)
    session.refresh_from_db()
    return session


def agree(client, session, **extra):
    return client.post(reverse("session_agree", args=[session.pk]), {"key": "k1"}, **extra)


def dispute(client, session, note, **extra):
    url = reverse("session_dispute", args=[session.pk])
    return client.post(url, {"key": "k2", "note": note}, **extra)


def entries(session, action) -> int:
    return AuditEntry.objects.filter(session=session, action=action).count()


# --- the tablet ------------------------------------------------------------------------------


def test_a_finished_game_asks_the_table_and_a_running_one_does_not(scorer, session):
    page = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert 'id="akkoord"' not in page
    play_rounds(session, ["Anne"])
    services.session_finish(session=session)
    page = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert 'data-agreement="open"' in page
    assert "Iedereen akkoord" in page
    assert "Niet akkoord" in page
    # Both are taps of the outbox: sent in order, with a key.
    panel = page[page.index('id="akkoord"') : page.index("Niet akkoord</button>")]
    assert panel.count("data-outbox") == 2


def test_everyone_agrees_once_however_often_it_is_tapped(scorer, club, people):
    session = finished(club)
    answer = agree(scorer, session, **HX)
    assert answer.status_code == 200
    assert answer["X-Lei-Outcome"] == "recorded"
    assert "Iedereen akkoord: deze uitslag telt." in answer.content.decode()
    session.refresh_from_db()
    version = session.version
    assert session.agreement == "agreed"
    again = agree(scorer, session, **HX)  # the outbox resends after a lost answer
    assert again["X-Lei-Outcome"] == "recorded"
    session.refresh_from_db()
    assert (session.agreement, session.version) == ("agreed", version)
    assert entries(session, "agree") == 1


def test_an_akkoord_kept_for_another_person_is_refused_and_changes_nothing(
    scorer, club, people, user, django_user_model
):
    """Both akkoord forms are the outbox's (``data-outbox``): a tap it kept for someone else
    who used this browser is refused, as every other tap is (scoring/lei/outbox.py)."""
    session = finished(club)
    other = outbox.person_id(django_user_model.objects.create_user("tweede", password="x"))
    for answer in (
        agree(scorer, session, HTTP_X_LEI_PERSON=other, **HX),
        dispute(scorer, session, "telt niet", HTTP_X_LEI_PERSON=other, **HX),
    ):
        assert (answer.status_code, answer["X-Lei-Other-Person"]) == (403, "1")
    session.refresh_from_db()
    assert session.agreement == "open"
    mine = agree(scorer, session, HTTP_X_LEI_PERSON=outbox.person_id(user), **HX)
    assert mine["X-Lei-Outcome"] == "recorded"


def test_an_akkoord_for_a_game_deleted_meanwhile_says_it_is_gone(club, people):
    """Deleted by an admin while the tap waited: the write's own refusal (the tap view answers
    it as a tap for a thrown-away game), not a crash."""
    session = finished(club)
    Session.objects.filter(pk=session.pk).delete()
    with pytest.raises(funnel.SessionGone):
        akkoord.session_agree(session=session)


def test_not_agreeing_marks_the_game_disputed_with_the_words(scorer, club, people):
    session = finished(club)
    answer = dispute(scorer, session, "  Bas had  boer, niet Anne ", **HX)
    assert "Niet akkoord: “Bas had boer, niet Anne”" in answer.content.decode()
    session.refresh_from_db()
    assert (session.agreement, session.dispute_note) == ("disputed", "Bas had boer, niet Anne")
    dispute(scorer, session, "Bas had boer, niet Anne", **HX)  # the same tap again
    assert entries(session, "dispute") == 1
    entry = AuditEntry.objects.get(session=session, action="dispute")
    assert entry.before == {"agreement": "open"}
    assert entry.after == {"agreement": "disputed", "note": "Bas had boer, niet Anne"}


@pytest.mark.parametrize(
    ("note", "reason"),
    [
        ("", "Zeg in een paar woorden wat er niet klopt."),
        ("   ", "Zeg in een paar woorden wat er niet klopt."),
        ("x" * 141, "Hoogstens 140 tekens"),
    ],
)
def test_bad_words_are_refused_with_a_message_and_change_nothing(
    scorer, club, people, note, reason
):
    session = finished(club)
    version = session.version
    answer = dispute(scorer, session, note, **HX)
    assert answer.status_code == 200
    assert answer["X-Lei-Outcome"] == "refused"
    assert reason in answer.content.decode()
    session.refresh_from_db()
    assert (session.agreement, session.version) == ("open", version)
    assert entries(session, "dispute") == 0


def test_a_tap_against_what_the_table_said_is_refused(scorer, club, people):
    session = finished(club)
    agree(scorer, session, **HX)
    answer = dispute(scorer, session, "toch niet", **HX)
    assert answer["X-Lei-Outcome"] == "refused"
    assert "De tafel heeft al gekozen (akkoord)" in answer.content.decode()
    other = finished(club)
    dispute(scorer, other, "fout", **HX)
    answer = agree(scorer, other, **HX)
    assert "Er is al &#x27;niet akkoord&#x27; gezegd" in answer.content.decode()
    other.refresh_from_db()
    assert other.agreement == "disputed"


def test_a_running_game_cannot_be_agreed_to(scorer, session):
    answer = agree(scorer, session, **HX)
    assert answer["X-Lei-Outcome"] == "refused"
    assert "Het spel is nog niet uitgespeeld." in answer.content.decode()
    session.refresh_from_db()
    assert session.agreement == "open"


def test_without_javascript_the_tap_goes_back_to_the_tablet(scorer, club, people):
    session = finished(club)
    answer = agree(scorer, session)
    assert answer.status_code == 302
    assert answer["Location"] == reverse("tablet", args=[session.pk])


# --- the standings, by the club's rule --------------------------------------------------------


def three_games(club, season) -> tuple[Session, Session, Session]:
    """Anne wins the first two games, Bas the third; the second is disputed, the third is not
    answered."""
    one = finished(club, ["Anne", "Bas"], winners=["Anne"], season=season)
    two = finished(club, ["Anne", "Bas"], winners=["Anne"], season=season)
    three = finished(club, ["Anne", "Bas"], winners=["Bas"], season=season)
    akkoord.session_agree(session=one)
    akkoord.session_dispute(session=two, note="verkeerd geteld")
    return one, two, three


def sessions_of(season) -> dict[str, int]:
    return {r.name: r.sessions for r in standings.season_standings(season).rows}


def test_all_games_count_and_the_disputed_one_is_marked(client, club, people):
    club.standings_public = True
    club.save()
    season = Season.objects.create(club=club, name="Voorjaar", starts_on="2000-01-01")
    three_games(club, season)
    table = {r.name: r for r in standings.season_standings(season).rows}
    assert (table["Anne"].sessions, table["Anne"].disputed) == (3, 1)
    page = client.get(reverse("league_season", args=[club.slug, season.pk]))
    shown = {row[1]: row[2] for row in standings_shown(page)}
    assert shown["Anne"] == "3 1 betwist"


def test_only_agreed_games_count_when_the_club_says_so(client, club, people):
    club.standings_public = True
    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()
    season = Season.objects.create(club=club, name="Voorjaar", starts_on="2000-01-01")
    one, two, _three = three_games(club, season)
    assert sessions_of(season) == {"Anne": 1, "Bas": 1}
    assert set(Session.objects.counted_for(club)) == {one}
    # The club admin accepts the disputed game: it counts from then on, and the page's copy
    # in the cache is not served any more.
    url = reverse("league_season", args=[club.slug, season.pk])
    assert [row[2] for row in standings_shown(client.get(url))] == ["1", "1"]
    akkoord.session_accept(session=two)
    assert sessions_of(season) == {"Anne": 2, "Bas": 2}
    assert [row[2] for row in standings_shown(client.get(url))] == ["2", "2"]
    assert set(Session.objects.counted_for(club)) == {one, two}


def test_counted_for_is_every_finished_game_under_the_default_rule(club, people):
    one, two, three = three_games(club, None)
    running = make_session(club)
    assert set(Session.objects.counted_for(club)) == {one, two, three}
    assert running not in Session.objects.counted_for(club)
    assert list(Session.objects.disputed()) == [two]


# --- the admin --------------------------------------------------------------------------------


def test_the_admin_lists_disputed_games_and_accepts_them(admin_client, club, people):
    one, two, _three = three_games(club, None)
    listed = admin_client.get(
        reverse("admin:scoring_session_changelist"), {"agreement": "disputed"}
    )
    assert list(listed.context["cl"].queryset) == [two]
    answer = admin_client.post(
        reverse("admin:scoring_session_changelist"),
        {"action": "accept_results", "_selected_action": [two.pk, one.pk]},
        follow=True,
    )
    # One accepted: the agreed game is no result the admin accepted.
    assert [str(m) for m in answer.context["messages"]] == ["Uitslagen geaccepteerd: 1."]
    two.refresh_from_db()
    assert (two.agreement, two.dispute_note) == ("accepted", "verkeerd geteld")
    assert [e.action for e in AuditEntry.objects.filter(session=two).order_by("at", "pk")][-2:] == [
        "dispute",
        "accept",
    ]
    one.refresh_from_db()
    assert one.agreement == "agreed"  # agreed stays agreed: nothing to accept


# --- a toernooi table -------------------------------------------------------------------------


def test_a_toernooi_table_counts_once_agreed_or_accepted(client, club, people, django_user_model):
    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()
    admin = django_user_model.objects.create_user("beheer")
    ClubMembership.objects.create(user=admin, club=club, role="admin")
    client.force_login(admin)
    tournament = tournaments.tournament_create(club=club, name="Toernooi", series_count=2)
    checkin.tournament_check_in(
        tournament=tournament, players=club.players.all(), guests=["Fleur", "Gijs", "Hans"]
    )
    series = tournaments.series_start(
        series=tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    )
    sessions = [t.session for t in series.tables.order_by("number")]
    for s in sessions:
        play_rounds(s, [s.seats.first().player.name])
        services.session_finish(session=s)
    from scoring.toernooi.selectors import tournament_standings

    def played() -> int:
        return sum(r.series_played for r in tournament_standings(tournament).rows)

    assert played() == 0
    assert len(sessions) == 2
    page = client.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert page.count("wacht op akkoord") == len(sessions)
    akkoord.session_agree(session=sessions[0])
    assert played() == sessions[0].seats.count()
    answer = client.post(reverse("tournament_table_accept", args=[tournament.pk, 1, 2]))
    assert answer.status_code == 302
    assert played() == sum(s.seats.count() for s in sessions[:2])
    page = client.get(reverse("tournament_series", args=[tournament.pk, 1])).content.decode()
    assert "geaccepteerd" in page
    assert "De uitslag van tafel 2 is geaccepteerd." in page


def test_what_the_table_agreed_to_cannot_be_undone_at_the_table(scorer, club, people):
    """A game that ended by itself takes an undo at the table; once the table agreed, an undo
    would reopen it and let another result stand as "akkoord". Refused, with the reason; a
    club admin still corrects it."""
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(session, ["Anne", "Anne"])
    session.refresh_from_db()
    assert session.status == "finished"
    assert agree(scorer, session, **HX)["X-Lei-Outcome"] == "recorded"
    session.refresh_from_db()
    version = session.version
    url = reverse("session_undo", args=[session.pk])
    answer = scorer.post(url, {"version": version, "key": "u1"}, **HX)
    assert answer["X-Lei-Outcome"] == "refused"
    assert "De tafel was akkoord met de eindstand" in answer.content.decode()
    session.refresh_from_db()
    assert (session.status, session.agreement, session.version) == ("finished", "agreed", version)
    assert session.rounds.count() == 2
    # A command (or a club admin) may correct it; a game that plays on again asks the table
    # again once it is over.
    services.session_undo(session=session, version=version, key="u2")
    session.refresh_from_db()
    assert (session.status, session.agreement) == ("running", "open")
    play_rounds(session, ["Bas"])
    session.refresh_from_db()
    assert (session.status, session.agreement) == ("finished", "open")


def test_undo_is_not_offered_once_the_table_agreed(scorer, club, people):
    """An action that can only be refused is not offered: before akkoord the last trick can be
    taken back at the table, after it not (the test above: refused)."""
    session = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(session, ["Anne", "Anne"])
    tablet = reverse("tablet", args=[session.pk])
    assert "Ongedaan maken" in scorer.get(tablet).content.decode()
    assert "Ongedaan maken" not in agree(scorer, session, **HX).content.decode()
    assert "Ongedaan maken" not in scorer.get(tablet).content.decode()
