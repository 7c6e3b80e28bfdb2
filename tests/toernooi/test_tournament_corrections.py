"""The director's corrections through real HTTP: a check-in taken back, a paper lei judged,
replaced and taken back, a result corrected before and after its series is closed, and a
series reopened. A closed series is closed for its tables' scorer links."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.lei import services
from scoring.models import (
    AuditEntry,
    Club,
    Player,
    Series,
    Session,
    Tournament,
    TournamentEntry,
)
from scoring.toernooi import checkin
from scoring.toernooi import results as tournament_results
from scoring.toernooi import services as tournaments
from scoring.toernooi.selectors import tournament_standings
from tests.builders import HX, new_key, play_out, standings_shown
from tests.lei.editor import editor_data

NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans"]


@pytest.fixture
def table_tablet(django_user_model):
    """A second browser: the tablet at a table, without an account."""
    from django.test import Client

    return Client()


def started(club, members, *, series_count: int = 2, **options) -> Series:
    tournament = tournaments.tournament_create(
        club=club, name="Wintertoernooi", series_count=series_count, **options
    )
    checkin.tournament_check_in(tournament=tournament, players=members)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    return tournaments.series_start(series=series)


def closed(club, members, *, leave_waiting: bool = False, **options) -> Series:
    series = started(club, members, **options)
    for table in series.tables.all():
        play_out(table.session)
    return tournament_results.series_finish(series=series, leave_waiting=leave_waiting)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def log_of(org, tournament: Tournament) -> str:
    page = org.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    return page[page.index('id="corrections"') :] if 'id="corrections"' in page else ""


def scorer_link(client, session: Session):
    client.get(reverse("scorer_link", args=[session.scorer_token]))
    return client


def tap(client, session: Session, kind: str, player: str, **headers):
    session.refresh_from_db()
    data = {"type": kind, "player": player, "version": session.version, "key": new_key()}
    return client.post(reverse("session_event", args=[session.pk]), data, **headers)


def undo(client, session: Session):
    session.refresh_from_db()
    data = {"version": session.version, "key": new_key()}
    return client.post(reverse("session_undo", args=[session.pk]), data, **HX)


def round_edit(client, session: Session, number: int, events: list[dict]):
    data = editor_data(session, events, key=new_key())
    return client.post(reverse("round_edit", args=[session.pk, number]), data, **HX)


def the_game(session: Session) -> tuple:
    session.refresh_from_db()
    return (
        session.status,
        session.version,
        list(session.rounds.order_by("number").values_list("events", flat=True)),
        sorted(session.results.values_list("player__name", "place", "total")),
    )


# --- a check-in taken back -----------------------------------------------------------------


def test_a_check_in_by_mistake_taken_back_at_once_leaves_no_ghost_anywhere(
    org, client, club, members
):
    club.standings_public = True
    club.save()
    series = closed(club, members[:6], series_count=3)
    tournament = series.tournament
    tournaments.series_start(
        series=tournaments.series_draw(tournament=tournament, expected_number=2, seed=4)
    )
    url = reverse("tournament_checkin", args=[tournament.pk])
    mistake = members[7]
    org.post(url, {"action": "in", "player": mistake.pk}, **HX)  # Hans, after series 2
    response = org.post(url, {"action": "out", "player": mistake.pk}, **HX)  # at once: out
    text = response.content.decode()
    assert "De aanmelding van Hans is ongedaan gemaakt." in text
    assert "Vertrokken" not in text
    assert not TournamentEntry.objects.filter(tournament=tournament, player=mistake).exists()
    # One who played is not taken back: they leave, and their series count.
    response = org.post(url, {"action": "out", "player": members[0].pk}, **HX)
    assert "Anne · speelde t/m serie 2" in response.content.decode()
    org.logout()
    standings = client.get(reverse("tournament_standings", args=[club.slug, tournament.pk]))
    assert [row[1] for row in standings_shown(standings) if "Hans" in row[1]] == []
    tv = client.get(reverse("tournament_tv", args=[club.slug, tournament.pk]))
    assert "Hans" not in tv.content.decode()


def test_the_prize_list_and_the_log_show_a_check_in_taken_back(org, club, members):
    tournament = tournaments.tournament_create(club=club, name="Avond", series_count=2)
    url = reverse("tournament_checkin", args=[tournament.pk])
    for player in members[:5]:
        org.post(url, {"action": "in", "player": player.pk}, **HX)
    org.post(url, {"action": "out", "player": members[4].pk}, **HX)  # Eva was not there
    prizes = org.get(reverse("tournament_prizes", args=[tournament.pk])).content.decode()
    assert "Eva" not in prizes
    assert "Aanmelding van Eva ongedaan gemaakt" in log_of(org, tournament)


# --- a closed series is closed for its tables' scorer links -----------------------------------


def test_a_closed_series_refuses_the_tables_taps_round_editor_and_new_games(
    club, members, table_tablet
):
    series = closed(club, members[:4])
    session = series.tables.get().session
    tablet = scorer_link(table_tablet, session)
    before = the_game(session)
    reason = "De serie van deze tafel is afgesloten: alleen de organisator kan de uitslag"
    page = tablet.get(reverse("tablet", args=[session.pk])).content.decode()
    assert reason in page
    assert "Nieuw spel, zelfde spelers" not in page
    assert "Ongedaan maken" not in page
    assert reason in undo(tablet, session).content.decode()
    assert reason in tap(tablet, session, "win", "Anne", **HX).content.decode()
    editor = tablet.get(reverse("round_edit", args=[session.pk, 1])).content.decode()
    assert reason in editor
    assert "Ronde opslaan" not in editor
    response = round_edit(tablet, session, 1, [{"type": "win", "player": "Bas"}])
    assert reason in response.content.decode()
    sessions = Session.objects.count()
    again = tablet.post(reverse("session_again", args=[session.pk]), **HX)
    assert "Dit is een toernooitafel" in again.content.decode()
    assert Session.objects.count() == sessions
    assert the_game(session) == before


def test_a_closed_series_takes_no_akkoord_from_its_tables_but_the_organiser_accepts(
    org, club, members, table_tablet
):
    # Under "alleen met akkoord" the akkoord decides whether a table counts: after the close
    # a table's tap would change the standings the organiser closed.
    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()
    # Closed over the waiting table, as the organiser chose once asked (closing.py).
    series = closed(club, members[:4], leave_waiting=True)
    session = series.tables.get().session
    tournament = series.tournament

    def played() -> int:
        return sum(r.series_played for r in tournament_standings(tournament).rows)

    assert played() == 0
    tablet = scorer_link(table_tablet, session)
    for answer in (
        tablet.post(reverse("session_agree", args=[session.pk]), {"key": "k1"}, **HX),
        tablet.post(
            reverse("session_dispute", args=[session.pk]), {"key": "k2", "note": "fout"}, **HX
        ),
    ):
        assert "De serie is afgesloten" in answer.content.decode()
    session.refresh_from_db()
    assert session.agreement == Session.Agreement.OPEN
    assert played() == 0
    answer = org.post(reverse("tournament_table_accept", args=[tournament.pk, 1, 1]))
    assert answer.status_code == 302
    session.refresh_from_db()
    assert session.agreement == Session.Agreement.ACCEPTED
    assert played() == 4


def test_a_tables_scorer_link_starts_no_new_game_outside_the_tournament(
    club, members, table_tablet
):
    series = started(club, members[:8])  # two tables: the series goes on
    session = series.tables.get(number=1).session
    play_out(session)
    tablet = scorer_link(table_tablet, session)
    assert (
        "Nieuw spel, zelfde spelers"
        not in tablet.get(reverse("tablet", args=[session.pk])).content.decode()
    )
    sessions = Session.objects.count()
    response = tablet.post(reverse("session_again", args=[session.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("tablet", args=[session.pk])
    assert Session.objects.count() == sessions


# --- correcting a result before and after the series is closed -------------------------------


def test_the_organiser_corrects_a_result_after_the_close_and_the_series_stays_closed(
    org, club, members
):
    series = closed(club, members[:4])
    tournament = series.tournament
    session = series.tables.get().session
    first = session.seats.select_related("player").first().player.name
    total_before = session.results.get(player__name=first).total
    # The first round was won with a jack: one point off for the toepkoning (RULES.md §6).
    response = round_edit(org, session, 1, [{"type": "win", "player": first, "jack": "on"}])
    assert response.status_code == 200
    assert 'id="live"' in response.content.decode()
    session.refresh_from_db()
    assert session.status == Session.Status.FINISHED
    assert session.result_closed
    assert session.results.get(player__name=first).total == total_before - 1
    series.refresh_from_db()
    assert series.state == Series.State.FINISHED
    assert "Ronde 1 verbeterd: serie 1, tafel 1" in log_of(org, tournament)
    standings = org.get(reverse("tournament_standings", args=[club.slug, tournament.pk]))
    assert not standings.context["standings"].provisional


def test_a_correction_that_would_let_a_closed_game_play_on_is_refused(org, club, members):
    series = closed(club, members[:4])
    session = series.tables.get().session
    before = the_game(session)
    response = undo(org, session)  # the winning round's last tap: the game would go on
    assert "Heropen eerst de serie" in response.content.decode()
    assert the_game(session) == before
    series.refresh_from_db()
    assert series.state == Series.State.FINISHED


def test_reopening_a_series_makes_it_provisional_and_opens_the_tables_again(
    org, club, members, table_tablet
):
    series = closed(club, members[:4])
    tournament = series.tournament
    session = series.tables.get().session
    response = org.post(reverse("tournament_series_reopen", args=[tournament.pk, 1]), follow=True)
    assert "Serie 1 is heropend" in messages_of(response)[0]
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    standings = org.get(reverse("tournament_standings", args=[club.slug, tournament.pk]))
    assert standings.context["standings"].provisional
    assert "Heropend: serie 1" in log_of(org, tournament)
    # The table's own tablet may correct again, and an undo lets the game play on.
    tablet = scorer_link(table_tablet, session)
    assert "afgesloten" not in undo(tablet, session).content.decode()
    session.refresh_from_db()
    assert session.status == Session.Status.RUNNING
    response = org.post(reverse("tournament_series_finish", args=[tournament.pk, 1]), follow=True)
    assert "Serie 1 is nog niet klaar: tafel 1 speelt nog." in messages_of(response)


def test_reopening_the_last_series_takes_back_a_final_table_not_yet_started(org, club, members):
    series = closed(club, members[:6], series_count=1)
    tournament = series.tournament
    final = tournament_results.final_table_create(tournament=tournament, seed=1)
    final_session = final.tables.get().session_id
    org.post(reverse("tournament_series_reopen", args=[tournament.pk, 1]))
    assert not Series.objects.filter(pk=final.pk).exists()
    assert not Session.objects.filter(pk=final_session).exists()
    page = org.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    assert "(de finaletafel is teruggenomen)" in page
    # Closed again, the final table is offered again, from the corrected standings.
    org.post(reverse("tournament_series_finish", args=[tournament.pk, 1]))
    page = org.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    assert "Finaletafel starten (de beste vier)" in page


def test_reopening_is_refused_once_the_final_table_plays_or_a_later_series_is_drawn(
    org, club, members
):
    series = closed(club, members[:6], series_count=1)
    tournament = series.tournament
    final = tournament_results.final_table_create(tournament=tournament, seed=1)
    final_game = final.tables.get().session
    services.session_record_event(
        session=final_game,
        event={"type": "win", "player": final_game.seats.first().player.name},
        version=final_game.version,
        key=new_key(),
    )
    response = org.post(reverse("tournament_series_reopen", args=[tournament.pk, 1]), follow=True)
    assert "de finaletafel speelt al" in messages_of(response)[0]
    series.refresh_from_db()
    assert series.state == Series.State.FINISHED
    other = closed(club, [Player.objects.create(club=club, name=n) for n in "PQRS"])
    tournaments.series_draw(tournament=other.tournament, expected_number=2, seed=2)
    response = org.post(
        reverse("tournament_series_reopen", args=[other.tournament_id, 1]), follow=True
    )
    assert "serie 2 is al geloot" in messages_of(response)[0]


# --- a paper lei: judged by the engine, replaced, taken back ---------------------------------


def paper_totals(org, series: Series, number: int, totals: list[int]):
    table = series.tables.get(number=number)
    seats = list(table.seats.order_by("position"))
    data = {f"total_{s.player_id}": str(t) for s, t in zip(seats, totals, strict=False)}
    url = reverse("tournament_table_paper", args=[series.tournament_id, series.number, number])
    return org.post(url, data, follow=True)


@pytest.mark.parametrize(
    ("totals", "shown"),
    [
        ([0, 1000, 1000, 1000], ["1000", "23"]),  # one round adds at most 14 to 9
        ([0, 0, 0, 0], ["0"]),  # nobody wrote on this lei
        ([12, 3, 5, 0], ["12", "10"]),  # out, while three play on: enter the rounds
    ],
)
def test_impossible_paper_totals_are_refused_with_the_reason(org, club, members, totals, shown):
    series = started(club, members[:4])
    table = series.tables.get()
    session = table.session_id
    response = paper_totals(org, series, 1, totals)
    assert response.status_code == 422
    error = response.content.decode().split('id="paper-error">', 1)[1].split("</div>", 1)[0]
    assert error.startswith("De papieren lei klopt niet: ")
    assert all(number in error for number in shown)
    table.refresh_from_db()
    assert table.session_id == session
    assert not AuditEntry.objects.filter(action="paper").exists()


def test_unfinished_paper_totals_are_entered_as_unfinished_and_the_table_plays_on(
    org, club, members
):
    series = started(club, members[:4])
    response = paper_totals(org, series, 1, [3, 7, 2, 5])  # nobody out in a game to 10
    assert messages_of(response) == [
        "De papieren lei van tafel 1 is ingevoerd als niet uitgespeeld: de tafel speelt verder"
        " op de lei, vanaf deze stand."
    ]
    session = series.tables.get().session
    assert session.status == Session.Status.RUNNING
    assert dict(session.results.values_list("player__name", "total")) == dict(
        zip([s.player.name for s in session.seats.order_by("position")], [3, 7, 2, 5], strict=True)
    )
    response = org.post(reverse("tournament_series_finish", args=[series.tournament_id, 1]))
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING  # a table that plays on is no result
    assert "(niet uitgespeeld: de tafel speelt verder)" in log_of(org, series.tournament)


def test_paper_totals_entered_for_the_wrong_table_are_taken_back(org, club, members):
    series = started(club, members[:8])
    table = series.tables.get(number=2)
    token = table.session.scorer_token
    paper_totals(org, series, 2, [4, 11, 12, 13])
    table.refresh_from_db()
    assert table.session.status == Session.Status.FINISHED
    assert table.session.scorer_token == token  # the printed card still works
    paper = org.get(reverse("tournament_table_paper", args=[series.tournament_id, 1, 2]))
    assert "Papieren lei terugnemen" in paper.content.decode()
    url = reverse("tournament_table_paper_undo", args=[series.tournament_id, 1, 2])
    response = org.post(url, follow=True)
    assert "De papieren lei van tafel 2 is teruggenomen: de tafel speelt weer." in messages_of(
        response
    )
    table.refresh_from_db()
    assert table.session.status == Session.Status.RUNNING
    assert not table.session.rounds.exists()
    assert not table.session.results.exclude(total=0).exists()
    assert table.session.scorer_token == token
    assert "Papieren lei teruggenomen: serie 1, tafel 2" in log_of(org, series.tournament)


def test_a_paper_lei_is_replaced_by_the_right_one_also_after_the_close(org, club, members):
    series = started(club, members[:4])
    paper_totals(org, series, 1, [4, 11, 12, 13])
    tournament_results.series_finish(series=series)
    response = paper_totals(org, series, 1, [13, 12, 11, 4])
    assert "De papieren lei van tafel 1 is ingevoerd." in messages_of(response)
    session = series.tables.get().session
    places = [p for _n, p in sorted(session.results.values_list("total", "place"))]
    assert places == [1, 2, 3, 4]
    assert session.result_closed  # still closed for the table's scorer link
    series.refresh_from_db()
    assert series.state == Series.State.FINISHED
    assert "Papieren lei vervangen: serie 1, tafel 1" in log_of(org, series.tournament)
    # An unfinished one would make the table play in a closed series: refused.
    response = paper_totals(org, series, 1, [3, 2, 1, 0])
    assert response.status_code == 422
    assert "Serie 1 is afgesloten en deze lei is niet uitgespeeld" in response.content.decode()
    # Taking it back too: the table would play again.
    url = reverse("tournament_table_paper_undo", args=[series.tournament_id, 1, 1])
    response = org.post(url, follow=True)
    assert "Serie 1 is afgesloten" in messages_of(response)[0]
    assert series.tables.get().session_id == session.pk
