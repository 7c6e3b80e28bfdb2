"""The table draw of a toernooi series (scoring/toernooi/draw.py): sizes, repeats, the quality
of a whole evening on fixed seeds, reproducibility. Timings are in BENCHMARKS.md
(bench/tournament.py), never asserted here."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.toernooi.draw import (
    BUDGET,
    DrawError,
    draw_tables,
    extra_meetings,
    lower_bound,
    meetings,
    most_meetings,
    most_meetings_bound,
    overlap_bound,
    pair,
    random_draw,
    repeat_pairs,
    table_sizes,
)


@pytest.mark.parametrize(
    ("count", "preferred", "sizes"),
    [
        (3, 4, [3]),
        (4, 4, [4]),
        (5, 4, [5]),
        (6, 4, [3, 3]),
        (7, 4, [4, 3]),
        (12, 4, [4, 4, 4]),
        (13, 4, [5, 4, 4]),
        (14, 4, [5, 5, 4]),
        (15, 4, [4, 4, 4, 3]),
        (36, 4, [4] * 9),
        (13, 5, [5, 4, 4]),
        (15, 5, [5, 5, 5]),
        (8, 5, [4, 4]),
        (17, 5, [5, 4, 4, 4]),
    ],
)
def test_tables_are_of_the_preferred_size_with_threes_and_fives_where_it_does_not_divide(
    count, preferred, sizes
):
    assert table_sizes(count, preferred) == sizes


@pytest.mark.parametrize("count", range(3, 120))
def test_no_table_is_below_three_or_above_five_and_everyone_sits(count):
    for preferred in (4, 5):
        sizes = table_sizes(count, preferred)
        assert sum(sizes) == count
        assert all(3 <= s <= 5 for s in sizes)


def test_fewer_than_three_players_cannot_be_drawn():
    with pytest.raises(DrawError):
        table_sizes(2)
    with pytest.raises(DrawError):
        draw_tables([1, 2], rng=random.Random(1))


def _tournament(players: int, series: int, seed: int, preferred: int = 4) -> list[list[list[int]]]:
    """An evening drawn as the services draw it: each series knowing the ones before and how
    many are still to come."""
    rng = random.Random(seed)
    history: list[list[list[int]]] = []
    for number in range(series):
        drawn = draw_tables(
            list(range(players)),
            met=meetings(history),
            played=history,
            preferred=preferred,
            rng=rng,
            series_left=series - number,
        )
        history.append(drawn.tables)
    return history


@pytest.mark.parametrize("seed", range(25))
def test_36_players_over_4_series_at_tables_of_4_never_meet_twice(seed):
    history = _tournament(36, 4, seed)
    assert repeat_pairs(history) == []
    for tables in history:
        assert sorted(len(t) for t in tables) == [4] * 9
        assert sorted(p for t in tables for p in t) == list(range(36))


@pytest.mark.parametrize(("players", "series"), [(36, 6), (50, 5), (100, 6)])
def test_larger_evenings_never_meet_twice(players, series):
    for seed in (7, 8):
        assert repeat_pairs(_tournament(players, series, seed)) == []


@pytest.mark.parametrize("seed", range(8))
def test_16_players_over_5_series_meet_everyone_exactly_once(seed):
    # Each player sits with 3 others a series, 15 over the evening: all of the others once.
    # Drawn one series at a time, looking only back, 8 pairs met again on every seed.
    met = meetings(_tournament(16, 5, seed))
    assert sorted(met.values()) == [1] * (16 * 15 // 2)


@pytest.mark.parametrize("seed", range(3))
def test_13_players_over_4_series_never_sit_together_more_than_twice(seed):
    # 5+4+4 seats 22 pairs a series, 88 over four, and there are 78 pairs: some pair meets
    # twice, and at least 10 extra meetings. Judged by extra meetings alone the search found 14,
    # with three pairs together in all four series; now nobody meets more than twice, at 24
    # extra meetings, the least for that: any two series share at least 4 pairs.
    evening = _tournament(13, 4, seed)
    assert most_meetings_bound(range(13), [5, 4, 4], 4) == 2
    assert lower_bound(range(13), [5, 4, 4], 4) == 10
    assert overlap_bound(range(13), [5, 4, 4], 4, most=2) == 24
    assert most_meetings(evening) == 2
    assert extra_meetings(evening) == 24


def test_13_players_over_4_series_stop_searching_at_the_bound():
    # The bound reached, the search stops: each series' draw a few hundred evaluations where it
    # spent its whole budget before. Known as played, the series before keep the bound sharp.
    history: list[list[list[int]]] = []
    for number in range(4):
        drawn = draw_tables(
            list(range(13)),
            met=meetings(history),
            played=history,
            rng=random.Random(number),
            series_left=4 - number,
        )
        assert (drawn.most_meetings, drawn.extra_meetings) == (drawn.most_bound, 24)
        assert drawn.lower_bound == 24
        assert drawn.evaluations < BUDGET // 20
        history.append(drawn.tables)


def test_two_series_of_13_share_a_pair_whatever_the_seats_left():
    assert most_meetings_bound(range(13), [5, 4, 4], 2) == 2  # 44 meetings for 78 pairs
    assert most_meetings_bound(range(12), [4, 4, 4], 2) == 2  # 12 in 9 cells
    assert most_meetings_bound(range(16), [4, 4, 4, 4], 2) == 1  # 16 in 16 cells
    # Known as played, the first series of 13 is shared with both series to come.
    first = [[0, 1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    assert overlap_bound(range(13), [5, 4, 4], 2, 2, meetings([first]), [first]) == 3 * 4
    # The eight who stay sat at two tables of four: two new tables of four keep four pairs.
    assert overlap_bound(range(5, 13), [4, 4], 1, 2, meetings([first]), [first]) == 4


# (players, series): the most meetings' bound, the most extra meetings allowed (the extra
# meetings' own bound is 0 for all of these: every pair can meet at most once).
SIZES = [(16, 5, 1, 0), (26, 4, 1, 0), (36, 4, 1, 0), (36, 6, 1, 0)]


@pytest.mark.parametrize(("players", "series", "most", "extra"), SIZES)
def test_the_sizes_in_benchmarks_keep_the_most_meetings_at_its_bound(players, series, most, extra):
    sizes = table_sizes(players)
    assert most_meetings_bound(range(players), sizes, series) == most
    for seed in (11, 12):
        evening = _tournament(players, series, seed)
        assert most_meetings(evening) == most
        assert extra_meetings(evening) <= extra


def _changing(roster, series: int, seed: int) -> list[list[list[int]]]:
    """An evening whose players change: ``roster(number)`` plays series ``number`` (from 0)."""
    rng = random.Random(seed)
    history: list[list[list[int]]] = []
    for number in range(series):
        players = roster(number)
        drawn = draw_tables(
            players, met=meetings(history), played=history, rng=rng, series_left=series - number
        )
        assert sorted(p for t in drawn.tables for p in t) == players
        history.append(drawn.tables)
    return history


@pytest.mark.parametrize("seed", range(3))
def test_a_late_arrival_replans_the_rest_of_the_evening(seed):
    # 15 players, a 16th from series 2 on: the plan made for 15 is redone, nobody meets twice.
    # Drawn looking only back, 6 or 7 pairs met again.
    history = _changing(lambda number: list(range(15 if number < 1 else 16)), 5, seed)
    assert repeat_pairs(history) == []


@pytest.mark.parametrize("seed", range(3))
def test_a_withdrawal_replans_the_rest_of_the_evening(seed):
    # 14 players (5+5+4), 13 from series 3 on (5+4+4): counting seats, the 13 who stay meet
    # again at least 10 times. Drawn looking only back, 22 to 25 extra meetings; planned by
    # extra meetings alone, 15 to 17 with a pair together all four times. Nobody meets more
    # than twice now.
    history = _changing(lambda number: list(range(14 if number < 2 else 13)), 4, seed)
    assert most_meetings(history) == 2
    assert extra_meetings(history) <= 25


def test_extra_meetings_count_each_pairs_meetings_beyond_the_first():
    evening = [[[1, 2, 3], [4, 5]], [[1, 2, 4], [3, 5]], [[1, 2, 5], [3, 4]]]
    # (1, 2) three times: 2 extra; every other pair at most once.
    assert extra_meetings(evening) == 2
    assert repeat_pairs(evening) == [(1, 2)]
    assert extra_meetings([[[1, 2, 3]]]) == 0


def test_the_lower_bound_counts_seats_against_pairs_and_what_was_played():
    assert lower_bound(range(16), [4, 4, 4, 4], 5) == 0  # 5 x 24 seats' pairs = 120 pairs
    assert lower_bound(range(16), [4, 4, 4, 4], 6) == 24
    assert lower_bound(range(4), [4], 2) == 6  # one table: every pair again
    # Already met twice (1 extra), and 3 and 4 have no one left to meet at a table of four.
    played = {(1, 2): 2, (1, 3): 1, (2, 3): 1, (3, 4): 1, (1, 4): 1, (2, 4): 1}
    assert lower_bound([1, 2, 3, 4], [4], 1, played) == 1 + 6


def test_the_draw_reports_its_plan_and_its_bound():
    history = _tournament(13, 3, seed=2)
    last = draw_tables(list(range(13)), met=meetings(history), rng=random.Random(3))
    assert last.planned == 1
    # The last series: the plan is the evening as it will have been played.
    assert last.extra_meetings == extra_meetings([*history, last.tables])
    assert last.most_meetings == most_meetings([*history, last.tables])
    # What was played counts: 10 for the whole evening, more where the series before spent
    # pairs the last one needs.
    assert last.extra_meetings >= last.lower_bound >= 10  # without the tables played
    assert last.most_meetings >= last.most_bound == 2
    first = draw_tables(list(range(13)), rng=random.Random(3), series_left=4)
    assert (first.planned, first.lower_bound, first.most_bound) == (4, 24, 2)
    assert first.extra_meetings >= 24
    assert first.most_meetings == 2
    assert first.repeats == []  # nobody has met yet


@pytest.mark.parametrize(("players", "series_left"), [(20, 1), (20, 3), (13, 2)])
def test_the_same_seed_and_history_give_the_same_draw(players, series_left):
    history = _tournament(players, 2, seed=3)

    def drawn(seed: int) -> tuple[list[list[int]], list[int]]:
        result = draw_tables(
            list(range(players)),
            met=meetings(history),
            rng=random.Random(seed),
            series_left=series_left,
        )
        return result.tables, result.dealers

    assert drawn(99) == drawn(99)
    assert drawn(99) != drawn(100)


def test_each_table_has_a_first_dealer_who_sits_at_it():
    drawn = draw_tables(list(range(13)), rng=random.Random(4))
    assert [len(t) for t in drawn.tables] == [5, 4, 4]
    assert all(dealer in table for table, dealer in zip(drawn.tables, drawn.dealers, strict=True))


def test_pairs_that_cannot_be_avoided_are_reported_and_bounded_in_work():
    # Six players at two tables of three, a fourth time: somebody must meet again.
    history = _tournament(6, 3, seed=1)
    drawn = draw_tables(list(range(6)), met=meetings(history), rng=random.Random(2))
    assert drawn.repeats  # no draw of 3+3 avoids every pair met before
    met_before = meetings(history)
    assert all(met_before.get(p) for p in drawn.repeats)
    together = {pair(a, b) for t in drawn.tables for a in t for b in t if a < b}
    assert set(drawn.repeats) == {p for p in together if met_before.get(p)}
    assert drawn.evaluations <= BUDGET


def test_the_search_is_bounded_where_the_bound_cannot_be_reached():
    # 10 players (5+5): the search does not reach its bounds, so it spends its whole budget,
    # planning many series ahead or few, and never more.
    for series_left in (4, 20):
        drawn = draw_tables(list(range(10)), rng=random.Random(1), series_left=series_left)
        assert BUDGET - 10 < drawn.evaluations <= BUDGET
    assert drawn.planned == 8  # at most PLAN_AHEAD series planned at once


def test_the_draw_beats_a_random_draw_where_repeats_are_unavoidable():
    ours = random_ones = 0
    for seed in range(4):
        ours += len(repeat_pairs(_tournament(13, 4, seed)))
        rng = random.Random(seed)
        random_ones += len(repeat_pairs(random_draw(list(range(13)), rng=rng) for _ in range(4)))
    assert ours < random_ones


def test_meetings_count_each_pair_once_per_table_in_either_order():
    met = meetings([[[1, 2, 3]], [[3, 1], [2, 4]]])
    assert met == Counter({(1, 2): 1, (1, 3): 2, (2, 3): 1, (2, 4): 1})
    assert repeat_pairs([[[1, 2, 3]], [[3, 1], [2, 4]]]) == [(1, 3)]


def test_a_player_listed_twice_is_refused():
    with pytest.raises(DrawError):
        draw_tables([1, 2, 3, 3], rng=random.Random(1))


@st.composite
def _evenings(draw_):
    """Players present now (some who played before may be gone, some new), what was played
    before by a draw by lot and whether its tables are known, the preferred size, the series
    still to come, a seed, a budget."""
    before = draw_(st.integers(min_value=3, max_value=40))
    played = draw_(st.integers(min_value=0, max_value=3))
    preferred = draw_(st.sampled_from([4, 5]))
    rng = random.Random(draw_(st.integers(min_value=0, max_value=2**31)))
    history = [
        random_draw(list(range(before)), preferred=preferred, rng=rng) for _ in range(played)
    ]
    gone = draw_(st.integers(min_value=0, max_value=max(0, before - 3)))
    new = draw_(st.integers(min_value=0, max_value=5))
    players = list(range(gone, before + new))
    return (
        players,
        history,
        draw_(st.booleans()),  # the tables played are known (as the services know them)
        preferred,
        draw_(st.integers(min_value=1, max_value=5)),
        draw_(st.integers(min_value=0, max_value=2**31)),
        draw_(st.sampled_from([0, 300, 3000])),
    )


@settings(max_examples=120, deadline=None)
@given(_evenings())
def test_every_draw_is_a_seating_and_never_beats_its_bounds(evening):
    players, history, known, preferred, series_left, seed, budget = evening
    met = meetings(history)

    def drawn():
        return draw_tables(
            players,
            met=met,
            played=history if known else (),
            preferred=preferred,
            rng=random.Random(seed),
            series_left=series_left,
            budget=budget,
        )

    result = drawn()
    # Everyone present sits once, at tables of the sizes of today's split, with a dealer there.
    assert sorted(p for table in result.tables for p in table) == players
    assert [len(t) for t in result.tables] == table_sizes(len(players), preferred)
    assert all(d in t for t, d in zip(result.tables, result.dealers, strict=True))
    # The pairs reported are exactly this series' pairs that met before.
    together = {pair(a, b) for t in result.tables for a, b in combinations(t, 2)}
    assert set(result.repeats) == {p for p in together if met.get(p)}
    # The plan is never better than the bounds say any plan can be; the last series' plan is
    # the evening as played.
    assert result.most_meetings >= result.most_bound
    sizes = table_sizes(len(players), preferred)
    assert result.extra_meetings >= lower_bound(players, sizes, result.planned, met)
    if result.most_meetings == result.most_bound:  # the bound for plans at the most's bound
        assert result.extra_meetings >= result.lower_bound
    assert result.evaluations <= budget
    if result.planned == 1:
        present = set(players)
        evening_here = [
            [[p for p in t if p in present] for t in tables] for tables in [*history, result.tables]
        ]
        assert result.most_meetings == most_meetings(evening_here)
        assert result.extra_meetings == extra_meetings(evening_here)
    # A seed gives one draw.
    again = drawn()
    assert (again.tables, again.dealers) == (result.tables, result.dealers)
