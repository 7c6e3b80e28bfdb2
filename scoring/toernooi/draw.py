"""The table draw of a toernooi series: pure Python, no Django.

``table_sizes`` splits the players present into tables of the preferred size (4 or 5), with
tables of 3, 4 or 5 where the count does not divide: the split closest to the preferred size
(the sum of each table's difference from it), then the one with fewer tables of three. So 13
players at tables of 4 sit 5+4+4, 15 sit 4+4+4+3, 14 sit 5+5+4; never a table below 3.

``draw_tables`` seats them so that players who met in earlier series meet again only when no
draw avoids it. Finding the best draw is the social golfer problem (hard in general), so the
search is bounded: a greedy construction (each player, in random order, to the table where they
have met the fewest) and then a min-conflicts local search (a player who meets somebody again
swaps with the player of another table that lowers the repeats most, sideways moves allowed,
now and then a random swap to leave a plateau), with restarts, all within a fixed budget of
swap evaluations. The best draw found is kept; the pairs that still meet again are reported.
Seats at each table and the first dealer are then drawn by lot. The same players, history and
seed give the same draw.

Each series is drawn knowing only the ones before (late arrivals and withdrawals change who
plays next), so where the players are few for the series (16 over 5 series) some pairs meet
again that a schedule of the whole evening made in advance could have kept apart.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypeVar

P = TypeVar("P")

MIN_TABLE = 3
MAX_TABLE = 5

# The search's budget, in swap evaluations (each a few table look-ups): at most about half a
# second of CPU, spent only where repeats cannot all be avoided. Three times as much found no
# fewer repeats (13 players over 4 series, 12 over 6, 16 over 5, 24 over 6: bench/tournament.py
# and the draw's tests), only slower.
BUDGET = 20_000
RESTARTS = 12


class DrawError(ValueError):
    """The players cannot be split into tables (fewer than three)."""


def table_sizes(count: int, preferred: int = 4) -> list[int]:
    """The table sizes for ``count`` players, largest first (see the module docstring)."""
    if preferred not in (4, 5):
        raise DrawError(f"a preferred table size is 4 or 5, not {preferred}")
    if count < MIN_TABLE:
        raise DrawError(f"{count} players cannot fill a table of {MIN_TABLE}")
    best: tuple[int, int, int] | None = None
    split: tuple[int, int, int] = (0, 0, 0)
    for fives in range(count // 5 + 1):
        for fours in range((count - 5 * fives) // 4 + 1):
            rest = count - 5 * fives - 4 * fours
            if rest % 3:
                continue
            threes = rest // 3
            distance = sum(
                n * abs(size - preferred) for size, n in ((5, fives), (4, fours), (3, threes))
            )
            key = (distance, threes, fives + fours + threes)
            if best is None or key < best:
                best, split = key, (fives, fours, threes)
    fives, fours, threes = split
    return [5] * fives + [4] * fours + [3] * threes


def pair(a: P, b: P) -> tuple[P, P]:
    """A pair in one spelling whatever the order (the smaller first)."""
    return (a, b) if a <= b else (b, a)  # type: ignore[operator]


def meetings(series: Iterable[Sequence[Sequence[P]]]) -> dict[tuple[P, P], int]:
    """How often each pair sat at one table, over ``series`` (each a list of tables)."""
    met: dict[tuple[P, P], int] = {}
    for tables in series:
        for table in tables:
            for a, b in combinations(table, 2):
                key = pair(a, b)
                met[key] = met.get(key, 0) + 1
    return met


def repeat_pairs(series: Iterable[Sequence[Sequence[P]]]) -> list[tuple[P, P]]:
    """The pairs that sat at one table in more than one of ``series``, sorted."""
    return sorted(key for key, n in meetings(series).items() if n > 1)


@dataclass
class Draw:
    tables: list[list[P]]  # each table's players in seat order, clockwise from seat 1
    dealers: list[P]  # the first dealer of each table, by lot
    repeats: list[tuple[P, P]] = field(default_factory=list)  # pairs that had met before
    evaluations: int = 0  # swap evaluations the search spent


def draw_tables(
    players: Sequence[P],
    *,
    met: Mapping[tuple[P, P], int] | None = None,
    preferred: int = 4,
    rng: random.Random,
    budget: int = BUDGET,
    restarts: int = RESTARTS,
) -> Draw:
    """Seat ``players`` at tables, avoiding the pairs of ``met`` (``pair(a, b)`` → times met).

    ``players`` must be in a fixed order (e.g. sorted ids) for a seed to reproduce a draw."""
    if len(set(players)) != len(players):
        raise DrawError("a player is listed twice")
    sizes = table_sizes(len(players), preferred)
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    weight = [[0] * n for _ in range(n)]
    for (a, b), times in (met or {}).items():
        if a in index and b in index and times > 0:
            weight[index[a]][index[b]] = weight[index[b]][index[a]] = times
    search = _Search(weight, sizes, rng)
    best, _best_cost, used = search.run(budget, restarts)
    tables: list[list[P]] = []
    dealers: list[P] = []
    for members in best:
        seated = [players[i] for i in members]
        rng.shuffle(seated)
        tables.append(seated)
        dealers.append(rng.choice(seated))
    repeats = sorted(
        pair(players[a], players[b])
        for members in best
        for a, b in combinations(members, 2)
        if weight[a][b]
    )
    return Draw(tables=tables, dealers=dealers, repeats=repeats, evaluations=used)


def random_draw(players: Sequence[P], *, preferred: int = 4, rng: random.Random) -> list[list[P]]:
    """Tables by lot alone, as on paper: the baseline the benchmark compares the draw with."""
    shuffled = list(players)
    rng.shuffle(shuffled)
    tables: list[list[P]] = []
    start = 0
    for size in table_sizes(len(players), preferred):
        tables.append(shuffled[start : start + size])
        start += size
    return tables


class _Search:
    """Tables of player indexes that lower the sum of ``weight`` over pairs at one table."""

    def __init__(self, weight: list[list[int]], sizes: list[int], rng: random.Random) -> None:
        self.weight = weight
        self.sizes = sizes
        self.rng = rng
        self.n = len(weight)

    def run(self, budget: int, restarts: int) -> tuple[list[list[int]], int, int]:
        best: list[list[int]] = []
        best_cost = -1
        used = 0
        for _ in range(max(1, restarts)):
            tables, where = self._greedy()
            cost, spent = self._improve(tables, where, budget - used)
            used += spent
            if best_cost < 0 or cost < best_cost:
                best, best_cost = [list(t) for t in tables], cost
            if best_cost == 0 or used >= budget:
                break
        return best, best_cost, used

    def _conflicts(self, i: int, table: list[int]) -> int:
        row = self.weight[i]
        return sum(row[j] for j in table if j != i)

    def _greedy(self) -> tuple[list[list[int]], list[int]]:
        order = list(range(self.n))
        self.rng.shuffle(order)
        tables: list[list[int]] = [[] for _ in self.sizes]
        where = [0] * self.n
        for i in order:
            open_tables = [t for t, size in enumerate(self.sizes) if len(tables[t]) < size]
            fewest = min(self._conflicts(i, tables[t]) for t in open_tables)
            # Among the tables where i meets the fewest again, the emptiest: players who met
            # nobody yet are spread rather than packed into the first tables.
            choices = [t for t in open_tables if self._conflicts(i, tables[t]) == fewest]
            room = max(self.sizes[t] - len(tables[t]) for t in choices)
            choices = [t for t in choices if self.sizes[t] - len(tables[t]) == room]
            t = self.rng.choice(choices)
            tables[t].append(i)
            where[i] = t
        return tables, where

    def _improve(self, tables: list[list[int]], where: list[int], budget: int) -> tuple[int, int]:
        weight, rng = self.weight, self.rng
        cost = sum(weight[a][b] for t in tables for a, b in combinations(t, 2))
        spent = 0
        # A restart gets a share of what is left, so that a hard start does not eat it all.
        limit = max(self.n * 8, budget // 3)
        while cost > 0 and spent < min(limit, budget):
            clashing = [i for i in range(self.n) if self._conflicts(i, tables[where[i]])]
            i = rng.choice(clashing)
            a = where[i]
            own = self._conflicts(i, tables[a])
            best_delta: int | None = None
            moves: list[int] = []
            for j in range(self.n):
                b = where[j]
                if b == a:
                    continue
                spent += 1
                delta = (
                    self._conflicts(i, tables[b])
                    + self._conflicts(j, tables[a])
                    - 2 * weight[i][j]
                    - own
                    - self._conflicts(j, tables[b])
                )
                if best_delta is None or delta < best_delta:
                    best_delta, moves = delta, [j]
                elif delta == best_delta:
                    moves.append(j)
            if best_delta is None:
                break
            if best_delta > 0 and rng.random() < 0.2:
                # A plateau: a random swap of i to shake the draw loose.
                j = rng.choice([j for j in range(self.n) if where[j] != a])
                best_delta = (
                    self._conflicts(i, tables[where[j]])
                    + self._conflicts(j, tables[a])
                    - 2 * weight[i][j]
                    - own
                    - self._conflicts(j, tables[where[j]])
                )
            elif best_delta > 0:
                continue
            else:
                j = rng.choice(moves)
            b = where[j]
            tables[a][tables[a].index(i)] = j
            tables[b][tables[b].index(j)] = i
            where[i], where[j] = b, a
            cost += best_delta
        return cost, spent
