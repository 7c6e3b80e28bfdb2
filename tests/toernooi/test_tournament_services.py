"""The toernooi through its services: whole tournaments, standings, the final table, refusals."""

from __future__ import annotations

import datetime
import random
import threading
from fractions import Fraction
from itertools import combinations, pairwise

import pytest
from django.db import close_old_connections, connection

from scoring.clubs import services as club_services
from scoring.lei import services
from scoring.management.commands.simulate_tournament import play_table, player_names
from scoring.models import (
    Club,
    Player,
    Series,
    Session,
    SessionResult,
    TableSeat,
    Tournament,
    TournamentEntry,
)
from scoring.toernooi import checkin, finish
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments
from scoring.toernooi.draw import repeat_pairs
from tests.builders import make_club, new_key, record

DATE = datetime.date(2026, 12, 19)


def make_tournament(club, **options) -> Tournament:
    return tournaments.tournament_create(club=club, name="Kersttoernooi", date=DATE, **options)


def seating(series: Series) -> list[list[str]]:
    return [
        [s.player.name for s in table.seats.order_by("position")]
        for table in series.tables.order_by("number")
    ]


def draw_and_start(tournament: Tournament, number: int, seed: int) -> Series:
    series = tournaments.series_draw(tournament=tournament, expected_number=number, seed=seed)
    return tournaments.series_start(series=series)


def play_all(series: Series, rng: random.Random) -> None:
    for table in series.tables.select_related("series__tournament", "session"):
        play_table(table, rng)


def expected_points(tournament: Tournament) -> dict[str, int]:
    """Table points from the stored results, worked out here on their own: a shared place
    gets the average of the places it covers, rounded half up."""
    points = tournament.table_points
    totals: dict[str, int] = {}
    results = SessionResult.objects.filter(
        session__tournament_table__series__tournament=tournament,
        session__tournament_table__series__final=False,
    ).select_related("player")
    by_session: dict[int, list[SessionResult]] = {}
    for r in results:
        by_session.setdefault(r.session_id, []).append(r)
    for rows in by_session.values():
        for r in rows:
            k = sum(1 for o in rows if o.place == r.place)
            covered = range(r.place, r.place + k)
            share = Fraction(sum(points[p - 1] if p <= len(points) else 0 for p in covered), k)
            totals[r.player.name] = totals.get(r.player.name, 0) + int(share + Fraction(1, 2))
    return totals


def assert_standings_follow_the_tie_breakers(
    tournament: Tournament,
) -> tournament_selectors.Standings:
    standings = tournament_selectors.tournament_standings(tournament)
    points = expected_points(tournament)
    rows = standings.rows
    for row in rows:
        assert row.table_points == points.get(row.player.name, 0)
        assert row.table_points == sum(s[3] for s in row.series)
        assert row.strafpunten == sum(
            SessionResult.objects.filter(
                player=row.player, session__tournament_table__series__final=False
            ).values_list("total", flat=True)
        )
    keys = [(-r.table_points, r.strafpunten, -r.toepkoningen) for r in rows]
    assert keys == sorted(keys)
    for above, below in pairwise(rows):
        assert above.place <= below.place
        if above.place == below.place:
            assert above.shared
            assert below.shared
    assert rows[0].place == 1
    return standings


# --- whole tournaments ---------------------------------------------------------------------


def test_36_players_play_4_series_without_meeting_twice_then_a_final_table(club):
    rng = random.Random(36)
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(36))
    seatings = []
    for number in range(1, 5):
        series = draw_and_start(tournament, number, seed=rng.randrange(2**31))
        tables = seating(series)
        assert [len(t) for t in tables] == [4] * 9
        assert sorted(n for t in tables for n in t) == sorted(player_names(36))
        assert series.repeat_pairs == []
        play_all(series, rng)
        assert tournament_selectors.tournament_standings(tournament).provisional
        tournament_results.series_finish(series=series)
        seatings.append(tables)
    assert repeat_pairs(seatings) == []
    standings = assert_standings_follow_the_tie_breakers(tournament)
    assert not standings.provisional
    assert all(row.series_played == 4 for row in standings.rows)

    final = tournament_results.final_table_create(tournament=tournament, seed=5)
    finalists = {row.player.name for row in standings.rows[:4]}
    assert set(seating(final)[0]) == finalists
    assert final.state == Series.State.RUNNING
    assert final.number == 5
    play_all(final, rng)
    tournament_results.series_finish(series=final)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    prizes = finish.prize_list(tournament)
    assert len(prizes) == 36
    assert [p.place for p in prizes[:4]] == [1, 2, 3, 4]
    assert all(a.place <= b.place for a, b in pairwise(prizes))
    final_places = dict(
        SessionResult.objects.filter(session__tournament_table__series=final).values_list(
            "player__name", "place"
        )
    )
    top = [p.player.name for p in prizes[:4]]
    assert set(top) == finalists
    assert [final_places[n] for n in top] == sorted(final_places.values())
    rest = [p.player.name for p in prizes[4:]]
    assert rest == [r.player.name for r in standings.rows if r.player.name not in finalists]
    # The final table does not count in the standings.
    assert tournament_selectors.tournament_standings(tournament).rows[0].series_played == 4


def test_13_players_with_a_late_arrival_and_a_withdrawal(club):
    rng = random.Random(13)
    tournament = make_tournament(club, series_count=4)
    names = player_names(13)
    checkin.tournament_check_in(tournament=tournament, guests=names)

    first = draw_and_start(tournament, 1, seed=1)
    assert sorted(len(t) for t in seating(first)) == [4, 4, 5]
    # Somebody walks in during the first series: they play from the second on.
    [late] = checkin.tournament_check_in(tournament=tournament, guests=["Laatkomer"])
    assert late.from_series == 2
    play_all(first, rng)
    tournament_results.series_finish(series=first)

    second = draw_and_start(tournament, 2, seed=2)
    assert sorted(len(t) for t in seating(second)) == [4, 5, 5]
    assert any("Laatkomer" in t for t in seating(second))
    # Somebody leaves in the middle of their game: the game goes on and counts.
    leaver = Player.objects.get(club=club, name=names[0])
    table = second.tables.get(seats__player=leaver)
    record(table.session, "knock", leaver.name)
    checkin.tournament_withdraw(tournament=tournament, player=leaver)
    record(table.session, "fold", next(s.player.name for s in table.seats.exclude(player=leaver)))
    others = table.seats.exclude(player=leaver).order_by("position")[1:]
    for seat in others:
        record(table.session, "fold", seat.player.name)
    table.session.refresh_from_db()
    assert table.session.rounds.count() == 1
    for other in second.tables.exclude(pk=table.pk).select_related("series__tournament", "session"):
        play_table(other, rng)
    with pytest.raises(tournaments.SeriesNotDone):  # toepkoning mode: that table still plays
        tournament_results.series_finish(series=second)
    tournament_results.table_finish(table=table)
    tournament_results.series_finish(series=second)

    for number in (3, 4):
        series = draw_and_start(tournament, number, seed=number)
        assert sorted(len(t) for t in seating(series)) == [4, 4, 5]
        assert all(leaver.name not in t for t in seating(series))
        play_all(series, rng)
        tournament_results.series_finish(series=series)

    # Everyone played every series they were present for, and only those.
    for entry in TournamentEntry.objects.filter(tournament=tournament).select_related("player"):
        played = set(
            TableSeat.objects.filter(series__final=False, player=entry.player).values_list(
                "series__number", flat=True
            )
        )
        assert played == {n for n in range(1, 5) if entry.plays_in(n)}, entry.player.name
    standings = assert_standings_follow_the_tie_breakers(tournament)
    rows = {row.player.name: row for row in standings.rows}
    assert rows[leaver.name].series_played == 2
    assert rows[leaver.name].withdrawn
    assert rows["Laatkomer"].series_played == 3
    assert len(standings.rows) == 14

    final = tournament_results.final_table_create(tournament=tournament, seed=3)
    present = [r.player.name for r in standings.rows if not r.withdrawn]
    assert set(seating(final)[0]) == set(present[:4])
    play_all(final, rng)
    tournament_results.series_finish(series=final)
    prizes = finish.prize_list(tournament)
    assert len(prizes) == 14
    assert {p.player.name for p in prizes[:4]} == set(present[:4])
    assert [p.final_place is not None for p in prizes] == [True] * 4 + [False] * 10


def test_without_a_final_table_the_last_series_ends_the_tournament(club):
    tournament = make_tournament(club, series_count=1, final_table=False)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=1)
    play_all(series, random.Random(1))
    tournament_results.series_finish(series=series)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    prizes = finish.prize_list(tournament)
    standings = tournament_selectors.tournament_standings(tournament)
    assert [(p.place, p.player) for p in prizes] == [(r.place, r.player) for r in standings.rows]
    with pytest.raises(tournaments.TournamentError):
        tournament_results.final_table_create(tournament=tournament)


# --- standings -----------------------------------------------------------------------------


def test_shared_places_share_the_points_rounded_half_up():
    points = [10, 7, 5, 3, 1]
    assert tournament_selectors.table_points(points, {"a": 1, "b": 2, "c": 2, "d": 4}) == {
        "a": 10,
        "b": 6,
        "c": 6,
        "d": 3,
    }
    assert tournament_selectors.table_points(points, {"a": 1, "b": 1, "c": 3}) == {
        "a": 9,
        "b": 9,
        "c": 5,
    }
    # Three sharing 1st: (10 + 7 + 5) / 3 = 7.33 → 7; places past the list score nothing.
    assert tournament_selectors.table_points(points, {"a": 1, "b": 1, "c": 1}) == {
        "a": 7,
        "b": 7,
        "c": 7,
    }
    assert tournament_selectors.table_points([3, 1], {"a": 1, "b": 2, "c": 3}) == {
        "a": 3,
        "b": 1,
        "c": 0,
    }


def _row(pk: int, name: str) -> TournamentEntry:
    player = Player(pk=pk, name=name)
    return TournamentEntry(player=player, player_id=pk)


def test_ties_go_to_strafpunten_then_toepkoningen_then_head_to_head(club):
    tournament = Tournament(club=club, table_points=[10, 7, 5, 3])
    entries = [_row(i, n) for i, n in enumerate(["Anne", "Bas", "Cees", "Dirk", "Eva"], start=1)]
    # (session, player, place, total, toepkoning, series, table)
    results = [
        # Series 1: Anne 1st, Bas 2nd, Cees 3rd, Dirk 4th.
        (1, 1, 1, 10, True, 1, 1),
        (1, 2, 2, 12, False, 1, 1),
        (1, 3, 3, 14, False, 1, 1),
        (1, 4, 4, 15, False, 1, 1),
        # Series 2: Dirk 1st, Cees 2nd, Bas 3rd, Anne 4th.
        (2, 4, 1, 10, True, 2, 1),
        (2, 3, 2, 12, False, 2, 1),
        (2, 2, 3, 14, False, 2, 1),
        (2, 1, 4, 16, False, 2, 1),
        # Eva sits a table of three twice with nobody else of the tournament.
    ]
    rows = tournament_selectors._rows(tournament, entries, results)
    by = {r.player.name: r for r in rows}
    # Anne and Dirk: 13 points, 26 vs 25 strafpunten → Dirk above.
    # Bas and Cees: 12 points, 26 strafpunten each, no toepkoning: head-to-head 1-1 → shared.
    assert [r.player.name for r in rows[:2]] == ["Dirk", "Anne"]
    assert by["Anne"].decided_by == "strafpunten"
    assert by["Bas"].place == by["Cees"].place == 3
    assert by["Bas"].shared
    assert by["Eva"].place == 5
    assert by["Eva"].table_points == 0


def test_head_to_head_decides_between_players_equal_on_everything_else(club):
    tournament = Tournament(club=club, table_points=[10, 7, 5])
    entries = [_row(i, n) for i, n in enumerate(["Anne", "Bas", "Cees", "Dirk"], start=1)]
    results = [
        (1, 1, 1, 5, False, 1, 1),  # Anne above Bas at their table...
        (1, 2, 2, 7, False, 1, 1),
        (1, 3, 3, 9, False, 1, 1),
        (2, 4, 1, 5, False, 1, 2),
        # ... then Bas wins a table without Anne, Anne comes 2nd at another: equal points.
        (3, 2, 1, 5, False, 2, 1),
        (3, 3, 2, 7, False, 2, 1),
        (4, 1, 2, 7, False, 2, 2),
        (4, 4, 1, 5, False, 2, 2),
    ]
    rows = tournament_selectors._rows(tournament, entries, results)
    anne, bas = (next(r for r in rows if r.player.name == n) for n in ("Anne", "Bas"))
    assert (anne.table_points, anne.strafpunten) == (bas.table_points, bas.strafpunten)
    assert anne.place < bas.place
    assert bas.decided_by == "onderling"


def test_standings_are_provisional_while_a_series_runs_and_follow_a_correction_at_once(club):
    tournament = make_tournament(club, series_count=2)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=8)
    table = series.tables.select_related("session").first()
    first_seat = table.seats.order_by("position").first().player.name
    record(table.session, "win", first_seat)  # one round at one table: the rest 1 point
    # No table has finished: the series does not count yet (nobody gets points for a lei
    # that has just begun).
    standings = tournament_selectors.tournament_standings(tournament)
    assert standings.provisional
    assert standings.waiting == 1
    assert standings.series_counted == 0
    assert {r.table_points for r in standings.rows} == {0}

    for other in series.tables.exclude(pk=table.pk).select_related("series__tournament", "session"):
        play_table(other, random.Random(other.pk))
    # Another table finished: the series counts, the table still playing with its places now.
    standings = tournament_selectors.tournament_standings(tournament)
    assert standings.provisional
    assert standings.waiting is None
    assert standings.series_counted == 1
    row = standings.by_player()[Player.objects.get(club=club, name=first_seat).pk]
    assert row.place == 1
    assert row.table_points == 10
    assert row.strafpunten == 0
    tournament_results.table_finish(table=table)
    tournament_results.series_finish(series=series)
    before = tournament_selectors.tournament_standings(tournament)
    assert not before.provisional
    # A correction of that table's game (another player won the round) is in them at once.
    second_seat = table.seats.order_by("position")[1].player.name
    session = Session.objects.get(pk=table.session_id)
    services.round_replace_events(
        session=session, number=1, events=[{"type": "win", "player": second_seat}], key=new_key()
    )
    after = tournament_selectors.tournament_standings(tournament)
    winner = Player.objects.get(club=club, name=second_seat).pk
    assert after.by_player()[winner].strafpunten == 0
    assert after.by_player()[winner].table_points > before.by_player()[winner].table_points
    assert_standings_follow_the_tie_breakers(tournament)


@pytest.mark.parametrize("players", [12, 100])
def test_the_standings_cost_three_queries_whatever_the_number_of_players(
    club, players, django_assert_num_queries
):
    tournament = make_tournament(club, series_count=2)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(players))
    for number in (1, 2):
        series = draw_and_start(tournament, number, seed=number)
        for table in series.tables.all():
            names = [s.player.name for s in table.seats.all()]
            tournament_results.table_enter_totals(
                table=table, totals={n: 10 + i if i else 4 for i, n in enumerate(names)}
            )
        tournament_results.series_finish(series=series)
    tournament = Tournament.objects.get(pk=tournament.pk)
    with django_assert_num_queries(3):  # entries with players, series states, results
        standings = tournament_selectors.tournament_standings(tournament)
    assert len(standings.rows) == players
    assert all(r.series_played == 2 for r in standings.rows)


# --- the end of a table's game -------------------------------------------------------------


def test_after_n_rounds_a_table_is_done_and_the_series_finish_ends_it(club):
    tournament = make_tournament(club, series_count=1, end_mode="rounds", end_rounds=2)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(4))
    series = draw_and_start(tournament, 1, seed=1)
    table = series.tables.select_related("session").get()
    names = [s.player.name for s in table.seats.order_by("position")]
    record(table.session, "win", names[0])
    with pytest.raises(tournaments.SeriesNotDone):
        tournament_results.series_finish(series=series)
    record(table.session, "win", names[1])
    [status] = tournament_selectors.series_overview(series)
    assert status.state == "done"
    assert status.rounds_played == 2
    tournament_results.series_finish(series=series)
    table.session.refresh_from_db()
    assert table.session.status == Session.Status.FINISHED
    places = dict(table.session.results.values_list("player__name", "place"))
    # Ended by hand: the places are by total (names[0] and names[1] each 1 point, the rest 2).
    assert places[names[0]] == places[names[1]] == 1
    assert places[names[2]] == places[names[3]] == 3


def test_at_a_time_the_series_finish_ends_every_table_still_playing(club):
    tournament = make_tournament(
        club, series_count=1, end_mode="time", end_time=datetime.time(22, 30)
    )
    checkin.tournament_check_in(tournament=tournament, guests=player_names(9))
    series = draw_and_start(tournament, 1, seed=1)
    assert {s.state for s in tournament_selectors.series_overview(series)} == {"done"}
    tournament_results.series_finish(series=series)
    assert set(
        Session.objects.filter(tournament_table__series=series).values_list("status", flat=True)
    ) == {"finished"}


def test_a_paper_lei_by_totals_records_the_places_by_total(club):
    tournament = make_tournament(club, series_count=1)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(4))
    series = draw_and_start(tournament, 1, seed=1)
    table = series.tables.get()
    names = [s.player.name for s in table.seats.order_by("position")]
    session = tournament_results.table_enter_totals(
        table=table, totals={names[0]: 16, names[1]: 9, names[2]: 15, names[3]: 16}
    )
    assert session.status == Session.Status.FINISHED
    table.refresh_from_db()
    assert table.session_id == session.pk
    places = dict(session.results.values_list("player__name", "place"))
    assert places == {names[1]: 1, names[2]: 2, names[0]: 3, names[3]: 3}
    assert Session.objects.filter(club=club).count() == 1  # the unplayed one is gone


# --- bad input: a clear message, nothing changed -------------------------------------------


def test_a_draw_with_fewer_than_three_players_is_refused(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=["Anne", "Bas"])
    with pytest.raises(tournaments.TooFewPlayers, match="minstens 3"):
        tournaments.series_draw(tournament=tournament, expected_number=1)
    assert not Series.objects.exists()


def test_a_draw_while_a_table_still_plays_is_refused_and_names_the_table(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=1)
    first, _second = series.tables.order_by("number").select_related(
        "series__tournament", "session"
    )
    play_table(first, random.Random(1))
    with pytest.raises(tournaments.SeriesNotDone, match="tafel 2 speelt nog") as refused:
        tournaments.series_draw(tournament=tournament, expected_number=2)
    assert refused.value.tables == [2]
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    assert list(tournament.series.values_list("number", flat=True)) == [1]


def test_a_swap_that_would_seat_a_player_twice_is_refused(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
    before = seating(series)
    anne = Player.objects.get(club=club, name=before[0][0])
    with pytest.raises(tournaments.SeatedTwice, match="twee keer"):
        tournaments.series_swap(series=series, a=anne, b=anne)
    stranger = Player.objects.create(club=club, name="Buitenstaander")
    with pytest.raises(tournaments.TournamentError, match="zit niet aan een tafel"):
        tournaments.series_swap(series=series, a=anne, b=stranger)
    assert seating(series) == before


def test_a_swap_trades_seats_and_is_refused_once_the_series_started(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
    before = seating(series)
    a = Player.objects.get(club=club, name=before[0][0])
    b = Player.objects.get(club=club, name=before[1][2])
    tournaments.series_swap(series=series, a=a, b=b)
    after = seating(series)
    assert after[0][0] == b.name
    assert after[1][2] == a.name
    tournaments.series_start(series=series)
    with pytest.raises(tournaments.TournamentError, match="al begonnen"):
        tournaments.series_swap(series=series, a=a, b=b)
    assert seating(series) == after


def test_withdrawing_in_the_middle_of_a_game_lets_it_go_on_and_leaves_them_out_of_the_next_draw(
    club,
):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=1)
    table = series.tables.select_related("session").first()
    names = [s.player.name for s in table.seats.order_by("position")]
    record(table.session, "knock", names[0])
    leaver = Player.objects.get(club=club, name=names[0])
    entry = checkin.tournament_withdraw(tournament=tournament, player=leaver)
    assert entry.withdrawn_after == 1
    # The game goes on, with them.
    for name in names[1:]:
        record(table.session, "stay", name)
    record(table.session, "win", names[0])
    assert table.session.rounds.count() == 1
    with pytest.raises(tournaments.TournamentError, match="al teruggetrokken"):
        checkin.tournament_withdraw(tournament=tournament, player=leaver)
    for other in series.tables.select_related("series__tournament", "session"):
        if other.pk != table.pk:
            play_table(other, random.Random(2))
    tournament_results.table_finish(table=table)
    series2 = tournaments.series_draw(tournament=tournament, expected_number=2, seed=2)
    assert all(leaver.name not in t for t in seating(series2))
    assert sorted(len(t) for t in seating(series2)) == [3, 4]
    assert (
        tournament_selectors.tournament_standings(tournament).by_player()[leaver.pk].series_played
        == 1
    )


def test_a_paper_lei_that_breaks_the_rules_is_refused_and_changes_nothing(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(4))
    series = draw_and_start(tournament, 1, seed=1)
    table = series.tables.get()
    session_id = table.session_id
    names = [s.player.name for s in table.seats.order_by("position")]
    knocks_twice = [
        {"events": [{"type": "knock", "player": names[0]}, {"type": "knock", "player": names[0]}]}
    ]
    with pytest.raises(tournaments.PaperLeiRefused, match="ronde 1") as refused:
        tournament_results.table_enter_rounds(table=table, rounds=knocks_twice)
    assert refused.value.refusal.code == "knock_own_raise"
    table.refresh_from_db()
    assert table.session_id == session_id
    assert Session.objects.filter(club=club).count() == 1
    assert not Session.objects.get(pk=session_id).rounds.exists()
    with pytest.raises(tournaments.TournamentError, match="precies de spelers"):
        tournament_results.table_enter_totals(table=table, totals={names[0]: 3})
    with pytest.raises(tournaments.TournamentError, match="heel getal"):
        tournament_results.table_enter_totals(table=table, totals=dict.fromkeys(names, 1001))
    table.refresh_from_db()
    assert table.session_id == session_id


def test_two_organisers_drawing_the_same_series_one_wins_the_other_is_told(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    seen_by_both = tournaments.next_series_number(tournament)
    first = tournaments.series_draw(tournament=tournament, expected_number=seen_by_both, seed=1)
    drawn = seating(first)
    with pytest.raises(tournaments.DrawTaken, match="al geloot"):
        tournaments.series_draw(tournament=tournament, expected_number=seen_by_both, seed=2)
    assert list(tournament.series.values_list("number", flat=True)) == [1]
    assert seating(first) == drawn


def test_a_start_after_the_check_ins_changed_asks_for_a_new_draw(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
    [late] = checkin.tournament_check_in(tournament=tournament, guests=["Laatkomer"])
    assert late.from_series == 1  # the series has not started: it still takes them
    with pytest.raises(tournaments.TournamentError, match="loot de serie opnieuw"):
        tournaments.series_start(series=series)
    assert not Session.objects.exists()
    tournaments.series_redraw(series=series, seed=4)
    assert sorted(len(t) for t in seating(series)) == [4, 5]
    tournaments.series_start(series=series)
    assert Session.objects.filter(tournament_table__series=series).count() == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": " "}, "naam"),
        ({"series_count": 0}, "1 tot 20"),
        ({"table_size": 6}, "4 of 5"),
        ({"end_mode": "rounds"}, "aantal rondes"),
        ({"end_mode": "time"}, "tijd"),
        ({"table_points": [5, 7]}, "lagere plaats"),
        ({"table_points": ["10"]}, "hele getallen"),
        ({"rules": {"max_points": "veel"}}, "regels kloppen niet"),
        ({"preset": "onbekend"}, "regels kloppen niet"),
    ],
)
def test_a_tournament_with_bad_settings_is_refused(club, options, message):
    fields = {"name": "Kersttoernooi", **options}
    with pytest.raises(tournaments.TournamentError, match=message):
        tournaments.tournament_create(club=club, **fields)
    assert not Tournament.objects.exists()


def test_a_check_in_of_another_clubs_player_is_refused(club):
    other = make_club("De Zwarte Zes", "zwarte-zes")
    stranger = Player.objects.create(club=other, name="Vreemde")
    tournament = make_tournament(club)
    with pytest.raises(tournaments.TournamentError, match="geen speler van deze club"):
        checkin.tournament_check_in(tournament=tournament, players=[stranger])
    assert not TournamentEntry.objects.exists()


def test_check_in_is_by_member_or_by_name_and_twice_is_once(club, people):
    tournament = make_tournament(club)
    entries = checkin.tournament_check_in(
        tournament=tournament, players=[people["Anne"]], guests=["bas", "Nieuweling"]
    )
    assert [e.player.name for e in entries] == ["Anne", "Bas", "Nieuweling"]
    assert Player.objects.get(club=club, name="Nieuweling").is_guest
    checkin.tournament_check_in(tournament=tournament, players=[people["Anne"]])
    assert TournamentEntry.objects.filter(tournament=tournament).count() == 3


def test_every_pair_at_a_table_is_seated_once_per_series(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(13))
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=9)
    for table in series.tables.all():
        seats = list(table.seats.all())
        assert table.dealer_id in {s.player_id for s in seats}
        assert sorted(s.position for s in seats) == list(range(1, len(seats) + 1))
        for a, b in combinations(seats, 2):
            assert a.player_id != b.player_id


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite has no row locks (set DATABASE_URL to a PostgreSQL database)",
)
@pytest.mark.django_db(transaction=True)
def test_two_organisers_drawing_at_the_same_moment_get_one_draw():
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    tournament = tournaments.tournament_create(club=club, name="Kersttoernooi")
    checkin.tournament_check_in(tournament=tournament, guests=player_names(12))
    both_ready = threading.Barrier(2, timeout=10)
    drawn: list[Series] = []
    told: list[tournaments.DrawTaken] = []
    errors: list[BaseException] = []

    def organiser(seed: int) -> None:
        try:
            expected = tournaments.next_series_number(tournament)
            both_ready.wait()
            drawn.append(
                tournaments.series_draw(
                    tournament=Tournament(pk=tournament.pk), expected_number=expected, seed=seed
                )
            )
        except tournaments.DrawTaken as refusal:
            told.append(refusal)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=organiser, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(drawn) == 1
    assert len(told) == 1
    assert "al geloot" in str(told[0])
    assert Series.objects.filter(tournament=tournament).count() == 1
    assert TableSeat.objects.filter(series=drawn[0]).count() == 12


def test_a_draw_does_not_end_games_still_playing_at_a_time_tournament(club):
    tournament = make_tournament(club, end_mode="time", end_time=datetime.time(22, 0))
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=1)
    with pytest.raises(tournaments.SeriesNotDone, match="1, 2"):
        tournaments.series_draw(tournament=tournament, expected_number=2)
    assert set(
        Session.objects.filter(tournament_table__series=series).values_list("status", flat=True)
    ) == {"running"}
    tournament_results.series_finish(series=series)  # the organiser calls time
    assert tournaments.series_draw(tournament=tournament, expected_number=2).number == 2


def test_a_table_already_over_is_not_ended_again(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(4))
    table = draw_and_start(tournament, 1, seed=1).tables.get()
    tournament_results.table_finish(table=table)
    version = Session.objects.get(pk=table.session_id).version
    with pytest.raises(tournaments.TournamentError, match="al afgelopen"):
        tournament_results.table_finish(table=table)
    assert Session.objects.get(pk=table.session_id).version == version


def test_walk_ins_named_twice_are_refused_and_nobody_is_checked_in(club):
    tournament = make_tournament(club)
    with pytest.raises(tournaments.TournamentError, match="twee keer in de lijst"):
        checkin.tournament_check_in(tournament=tournament, guests=["Anne", "Bas", "anne"])
    with pytest.raises(tournaments.TournamentError, match="geen bruikbare naam"):
        checkin.tournament_check_in(tournament=tournament, guests=["x" * 41])
    assert not TournamentEntry.objects.exists()
    assert not Player.objects.exists()


def test_merging_a_guest_typed_twice_moves_their_tournament_seats_too(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(8))
    series = draw_and_start(tournament, 1, seed=1)
    play_all(series, random.Random(1))  # the series counts once a table has finished
    keep = Player.objects.create(club=club, name="Anne de Vries")
    remove = Player.objects.get(club=club, name="Anne")
    club_services.player_merge(keep=keep, remove=remove)
    assert TournamentEntry.objects.filter(tournament=tournament, player=keep).exists()
    assert any("Anne de Vries" in table for table in seating(series))
    assert (
        tournament_selectors.tournament_standings(tournament).by_player()[keep.pk].series_played
        == 1
    )
    # Two people who both played the tournament (at different tables) are not one person.
    first, second = (table[0] for table in seating(series))
    one, other = (Player.objects.get(club=club, name=n) for n in (first, second))
    with pytest.raises(club_services.MergeRefused, match="both play in the tournament"):
        club_services.player_merge(keep=one, remove=other)
    assert Player.objects.filter(pk=other.pk).exists()


def test_nobody_checks_in_once_the_last_series_has_started(club):
    tournament = make_tournament(club, series_count=1)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(4))
    draw_and_start(tournament, 1, seed=1)
    with pytest.raises(tournaments.TournamentError, match="niemand meer"):
        checkin.tournament_check_in(tournament=tournament, guests=["Laatkomer"])
    assert TournamentEntry.objects.filter(tournament=tournament).count() == 4


def test_a_swap_shows_the_pairs_it_makes_meet_again(club):
    tournament = make_tournament(club)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(16))
    first = draw_and_start(tournament, 1, seed=1)
    for table in first.tables.all():
        tournament_results.table_finish(table=table)
    second = tournaments.series_draw(tournament=tournament, expected_number=2, seed=2)
    assert second.repeat_pairs == []
    # Move Anne to a table where somebody she sat with in series 1 sits.
    before = seating(first)
    anne_met = set(next(t for t in before if "Anne" in t)) - {"Anne"}
    tables = seating(second)
    there = next(t for t in tables if "Anne" not in t and anne_met & set(t))
    b = next(n for n in there if n not in anne_met)
    anne = Player.objects.get(club=club, name="Anne")
    tournaments.series_swap(series=second, a=anne, b=Player.objects.get(club=club, name=b))
    second.refresh_from_db()
    names = dict(Player.objects.filter(club=club).values_list("pk", "name"))
    pairs = {frozenset((names[x], names[y])) for x, y in second.repeat_pairs}
    assert {frozenset(("Anne", n)) for n in anne_met & set(there)} <= pairs


@pytest.mark.parametrize("players", [12, 100])
def test_the_series_overview_and_prize_list_cost_the_same_whatever_the_players(
    club, players, django_assert_num_queries
):
    tournament = make_tournament(club, series_count=1, final_table=False)
    checkin.tournament_check_in(tournament=tournament, guests=player_names(players))
    series = draw_and_start(tournament, 1, seed=1)
    series = Series.objects.select_related("tournament").get(pk=series.pk)
    with django_assert_num_queries(3):  # tables with dealers and sessions, seats, results
        overview = tournament_selectors.series_overview(series)
    assert sum(len(t.players) for t in overview) == players
    assert {t.state for t in overview} == {"running"}
    tournament = Tournament.objects.get(pk=tournament.pk)
    with django_assert_num_queries(4):  # the standings' three, the final table's places
        prizes = finish.prize_list(tournament)
    assert len(prizes) == players
