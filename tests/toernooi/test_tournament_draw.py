"""The table draw of a toernooi series (scoring/toernooi/draw.py): sizes, repeats,
reproducibility."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from scoring.toernooi.draw import (
    BUDGET,
    DrawError,
    draw_tables,
    meetings,
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
    rng = random.Random(seed)
    history: list[list[list[int]]] = []
    for _ in range(series):
        drawn = draw_tables(
            list(range(players)), met=meetings(history), preferred=preferred, rng=rng
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


def test_100_players_over_6_series_never_meet_twice():
    assert repeat_pairs(_tournament(100, 6, seed=7)) == []


def test_the_same_seed_and_history_give_the_same_draw():
    history = _tournament(20, 2, seed=3)
    first = draw_tables(list(range(20)), met=meetings(history), rng=random.Random(99))
    second = draw_tables(list(range(20)), met=meetings(history), rng=random.Random(99))
    other = draw_tables(list(range(20)), met=meetings(history), rng=random.Random(100))
    assert (first.tables, first.dealers) == (second.tables, second.dealers)
    assert (first.tables, first.dealers) != (other.tables, other.dealers)


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


def test_the_draw_beats_a_random_draw_where_repeats_are_unavoidable():
    ours = random_ones = 0
    for seed in range(10):
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
