"""The club's ratings: OpenSkill's own numbers on a fixed history, and always those of a fresh
computation after a game is corrected, removed or merged."""

from __future__ import annotations

import datetime
import random

import pytest
from openskill.models import PlackettLuce

from scoring.clubs import services as club_services
from scoring.lei import services
from scoring.models import Player, RatingSnapshot, Season, Session
from scoring.ratings import selectors
from scoring.ratings.history import rated_games
from scoring.ratings.services import ratings_fresh, ratings_refresh
from tests.builders import DAY, finish_order, play, play_rounds, record
from tests.ratings.games import computed_afresh, stored


def test_the_ratings_are_openskills_own_on_a_fixed_history(club, people):
    play(club, ["Anne", "Bas", "Cees", "Dirk"])
    play(club, ["Cees", ("Anne", "Dirk"), "Bas"], days_later=1)  # Anne and Dirk share second place
    play(club, ["Bas", "Eva", "Anne"], days_later=2)
    ratings_refresh(club_id=club.pk)

    pl = PlackettLuce()
    r = {name: pl.rating() for name in ["Anne", "Bas", "Cees", "Dirk", "Eva"]}
    for order, ranks in [
        (["Anne", "Bas", "Cees", "Dirk"], [1, 2, 3, 4]),
        (["Cees", "Anne", "Dirk", "Bas"], [1, 2, 2, 4]),
        (["Bas", "Eva", "Anne"], [1, 2, 3]),
    ]:
        rated = pl.rate([[r[n]] for n in order], ranks=ranks)
        for name, (rating,) in zip(order, rated, strict=True):
            r[name] = rating

    members, guests = selectors.club_ratings(club.pk)
    assert guests == []
    got = {row.name: (row.mu, row.sigma, row.games) for row in members}
    games = {"Anne": 3, "Bas": 3, "Cees": 2, "Dirk": 2, "Eva": 1}
    for name, rating in r.items():
        assert got[name][0] == pytest.approx(rating.mu, abs=1e-9)
        assert got[name][1] == pytest.approx(rating.sigma, abs=1e-9)
        assert got[name][2] == games[name]
    # Best first by mu - 3 sigma, the one number shown.
    shown = [row.rating for row in members]
    assert shown == sorted(shown, reverse=True)
    assert members[0].rating == pytest.approx(max(x.mu - 3 * x.sigma for x in r.values()))
    anne = selectors.player_history(people["Anne"].pk)
    assert len(anne) == 3
    assert anne[-1] == pytest.approx(r["Anne"].mu - 3 * r["Anne"].sigma)


def test_games_are_rated_in_the_order_they_were_played_not_stored(club, people):
    later = play(club, ["Anne", "Bas", "Cees"], days_later=3)
    earlier = play(club, ["Cees", "Bas", "Anne"], days_later=0)
    assert [g.session_id for g in rated_games(club.pk)] == [earlier.pk, later.pk]


def test_finishing_a_game_through_the_lei_rates_it(club, people, session):
    record(session, "penalty", "Dirk", points=20, reason="test")
    play_rounds(session, ["Anne"])
    for name in ["Bas", "Cees"]:
        record(session, "penalty", name, points=20, reason="test")
        play_rounds(session, ["Anne"])
    session.refresh_from_db()
    assert session.status == Session.Status.FINISHED
    # The funnel refreshed them in the write: no page needed.
    assert RatingSnapshot.objects.filter(session=session).count() == 4
    assert stored(club) == computed_afresh(club)


def test_a_corrected_game_changes_the_ratings_exactly_as_a_recompute_does(club, people):
    first = play(club, ["Anne", "Bas", "Cees", "Dirk"])
    play(club, ["Bas", "Anne", "Dirk", "Cees"], days_later=1)
    play(club, ["Cees", "Dirk", "Anne", "Bas"], days_later=2)
    ratings_refresh(club_id=club.pk)
    before = stored(club)

    # The first game's last round: Anne took the penalty and Bas won, so Bas is toepkoning.
    first.refresh_from_db()
    services.round_replace_events(
        session=first,
        number=3,
        events=[
            {"type": "penalty", "player": "Anne", "points": 10, "reason": "test"},
            {"type": "win", "player": "Bas"},
        ],
        version=first.version,
        key="correct-1",
    )
    after = stored(club)  # the funnel recomputed them in the correction's write
    assert after != before
    assert after == computed_afresh(club)
    # And a recompute from nothing gives the very same numbers.
    RatingSnapshot.objects.filter(club=club).delete()
    club.rating_state.key = ""
    club.rating_state.save()
    ratings_refresh(club_id=club.pk)
    assert stored(club) == after


def test_a_removed_game_and_a_merged_player_are_recomputed_by_the_next_page(club, people):
    play(club, ["Anne", "Bas", "Cees"])
    gone = play(club, ["Cees", "Bas", "Anne"], days_later=1)
    twice = Player.objects.create(club=club, name="Anne J", is_guest=True)
    services.session_import(
        club=club,
        data={**finish_order(["Anne J", "Dirk", "Bas"])},
        played_on=DAY + datetime.timedelta(days=2),
    )
    ratings_refresh(club_id=club.pk)

    gone.delete()  # as the admin deletes it
    ratings_fresh(club_id=club.pk)
    assert stored(club) == computed_afresh(club)
    assert not RatingSnapshot.objects.filter(session_id=gone.pk).exists()

    club_services.player_merge(keep=people["Anne"], remove=twice)
    ratings_fresh(club_id=club.pk)
    assert stored(club) == computed_afresh(club)
    assert RatingSnapshot.objects.get(player=people["Anne"], latest=True).games == 2


def test_a_toernooi_counts_unless_its_organiser_says_not_to(club, people):
    from scoring.models import Series, Tournament, TournamentTable

    game = play(club, ["Anne", "Bas", "Cees", "Dirk"])
    tournament = Tournament.objects.create(club=club, name="Kerst")
    series = Series.objects.create(tournament=tournament, number=1, seed=1)
    TournamentTable.objects.create(series=series, number=1, session=game)
    assert [g.session_id for g in rated_games(club.pk)] == [game.pk]
    ratings_fresh(club_id=club.pk)
    assert RatingSnapshot.objects.filter(session=game).count() == 4

    tournament.rated = False
    tournament.save()
    assert rated_games(club.pk) == []
    ratings_fresh(club_id=club.pk)
    assert not RatingSnapshot.objects.filter(club=club).exists()


def test_the_season_ranking_by_rating_takes_each_players_last_game_of_the_season(club, people):
    season = Season.objects.create(club=club, name="Winter", starts_on=DAY)
    play(club, ["Anne", "Bas", "Cees"], season=season)
    play(club, ["Bas", "Cees", "Anne"], season=season, days_later=1)
    play(club, ["Anne", "Bas", "Cees"], days_later=9)  # after the season: not in its ranking
    ratings_refresh(club_id=club.pk)
    by_season = selectors.season_ratings(season)
    history = selectors.player_history(people["Anne"].pk)
    assert by_season[people["Anne"].pk] == (pytest.approx(history[1]), 2)


def test_win_chances_sum_to_one_and_favour_the_better_rated(club, people):
    for day in range(5):
        play(club, ["Anne", "Bas", "Cees", "Dirk"], days_later=day)
    ratings_refresh(club_id=club.pk)
    ids = [people[n].pk for n in ["Anne", "Bas", "Cees", "Dirk", "Eva"]]
    chances = selectors.win_chances(club.pk, ids)
    assert sum(chances.values()) == pytest.approx(1)
    assert chances[ids[0]] > chances[ids[1]] > chances[ids[3]]


def test_a_disputed_game_is_rated_per_the_clubs_akkoord_rule_and_once_accepted(club, people):
    from scoring.lei import akkoord
    from scoring.models import Club

    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()
    agreed = play(club, ["Anne", "Bas", "Cees", "Dirk"])
    disputed = play(club, ["Eva", "Anne", "Bas"], days_later=1)  # Eva played nothing else
    akkoord.session_agree(session=agreed)
    akkoord.session_dispute(session=disputed, note="Bas had de boer")

    # "Alleen akkoord": the disputed game is out, and who played only that has no rating.
    assert [g.session_id for g in rated_games(club.pk)] == [agreed.pk]
    ratings_fresh(club_id=club.pk)
    assert not RatingSnapshot.objects.filter(session=disputed).exists()
    assert not RatingSnapshot.objects.filter(player=people["Eva"]).exists()
    assert RatingSnapshot.objects.get(player=people["Anne"], latest=True).games == 1

    # "Alle spellen": the same game is in, and the next page recomputes.
    club.agreement_rule = Club.AgreementRule.ALL
    club.save()
    assert [g.session_id for g in rated_games(club.pk)] == [agreed.pk, disputed.pk]
    ratings_fresh(club_id=club.pk)
    assert RatingSnapshot.objects.get(player=people["Eva"], latest=True).games == 1
    assert stored(club) == computed_afresh(club)
    with_the_dispute = stored(club)

    # Back to "alleen akkoord", then the club admin accepts the game: the accept itself
    # recomputes the ratings, to what a recompute from nothing gives.
    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()
    ratings_fresh(club_id=club.pk)
    assert not RatingSnapshot.objects.filter(player=people["Eva"]).exists()
    assert akkoord.session_accept(session=disputed)
    accepted = stored(club)
    assert accepted == with_the_dispute == computed_afresh(club)
    RatingSnapshot.objects.filter(club=club).delete()
    club.rating_state.key = ""
    club.rating_state.save()
    ratings_refresh(club_id=club.pk)
    assert stored(club) == accepted


def latest_once(club) -> bool:
    """Every rated player has exactly one latest snapshot, and it is their last game's."""
    latest = list(
        RatingSnapshot.objects.filter(club=club, latest=True).values_list("player_id", "seq")
    )
    tops = {}
    for player_id, seq in RatingSnapshot.objects.filter(club=club).values_list("player_id", "seq"):
        tops[player_id] = max(seq, tops.get(player_id, 0))
    return sorted(latest) == sorted(tops.items())


def test_the_game_played_last_is_added_to_the_ratings_as_a_recompute_would_give(club, people):
    play(club, ["Anne", "Bas", "Cees", "Dirk"])
    play(club, ["Bas", "Anne", "Dirk", "Cees"], days_later=1)
    ratings_refresh(club_id=club.pk)
    kept = set(RatingSnapshot.objects.filter(club=club).values_list("pk", flat=True))
    newest = play(club, ["Cees", "Dirk", "Eva", "Anne"], days_later=2)
    ratings_refresh(club_id=club.pk, game=newest.pk)  # (done already if the import finished it)
    now = set(RatingSnapshot.objects.filter(club=club).values_list("pk", flat=True))
    assert kept < now  # added to, not written anew
    assert stored(club) == computed_afresh(club)
    assert latest_once(club)


def test_a_game_played_before_the_rated_ones_is_rated_in_its_place(club, people):
    first = play(club, ["Anne", "Bas", "Cees", "Dirk"], days_later=1)
    play(club, ["Bas", "Anne", "Dirk", "Cees"], days_later=5)
    play(club, ["Eva", "Bas", "Anne", "Dirk"], days_later=6)
    ratings_refresh(club_id=club.pk)
    kept = set(RatingSnapshot.objects.filter(session=first).values_list("pk", flat=True))
    earlier = play(club, ["Cees", "Dirk", "Eva", "Anne"], days_later=3)  # a paper lei of last week
    ratings_refresh(club_id=club.pk, game=earlier.pk)
    # the game played before it keeps its snapshots; it and the two after it are rated anew
    assert kept == set(
        RatingSnapshot.objects.filter(session__played_on__lt=earlier.played_on).values_list(
            "pk", flat=True
        )
    )
    assert stored(club) == computed_afresh(club)
    assert latest_once(club)


def finish(table: Session, rng: random.Random) -> None:
    """The table's game played to its end through the lei: its players go out in a random
    order (each a penalty and a round), each tap refreshing the ratings as the tablet's does."""
    names = list(table.seats.order_by("position").values_list("player__name", flat=True))
    rng.shuffle(names)
    *out, winner = names
    for name in out:
        record(table, "penalty", name, points=20, reason="test")
        play_rounds(table, [winner])
    table.refresh_from_db()
    assert table.status == Session.Status.FINISHED


@pytest.mark.parametrize("seed", range(6))
def test_a_club_evenings_tables_that_finish_in_any_order_are_rated_as_a_recompute_would(
    club, people, seed
):
    """Four tables started one after the other finish in any order: each finishing tap rates
    its game in its place, never recomputing the club's history."""
    rng = random.Random(seed)
    names = ["Anne", "Bas", "Cees", "Dirk", "Eva"]
    play(club, ["Anne", "Bas", "Cees", "Dirk"])
    ratings_refresh(club_id=club.pk)
    kept = set(RatingSnapshot.objects.values_list("pk", flat=True))
    tables = []
    for _ in range(4):  # started in this order, all on the evening's day
        seats = rng.sample(names, rng.randint(2, 4))
        tables.append(services.session_start(club=club, players=seats, played_on=DAY))
    for table in rng.sample(tables, len(tables)):
        finish(table, rng)
        assert stored(club) == computed_afresh(club)
        assert latest_once(club)
        assert kept <= set(RatingSnapshot.objects.values_list("pk", flat=True))
