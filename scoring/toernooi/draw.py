"""The table draw of a toernooi series: pure Python, no Django.

``table_sizes`` splits the players present into tables of the preferred size (4 or 5), with
tables of 3, 4 or 5 where the count does not divide: the split closest to the preferred size
(the sum of each table's difference from it), then the one with fewer tables of three. So 13
players at tables of 4 sit 5+4+4, 15 sit 4+4+4+3, 14 sit 5+5+4; never a table below 3.

``draw_tables`` seats them so that players meet again as little as the evening allows. What it
keeps low is the evening's **extra meetings**: for each pair of players, the number of series in
which they sat at one table, less one, summed over the pairs that sat together more than once
(``extra_meetings``; a pair together three times counts 2). The **repeat pairs** are those pairs
themselves (``repeat_pairs``), however often they met.

A series is not drawn on its own: the draw plans the rest of the evening at once (this series and
the ``series_left - 1`` after it, at most ``PLAN_AHEAD``, all with the players present now) and
seats this series as that plan does. Drawn one at a time, the early series use up the pairs that
the last ones need (16 players over 5 series at tables of 4 can meet everyone exactly once, but
not when each series only looks back). The next series is planned again from what was really
played, so a late arrival or a withdrawal simply changes the next plan.

Finding the best plan is the social golfer problem (hard in general), so the search is bounded:
each planned series is built greedily (each player, in random order, to the table where they meet
the fewest they met before), then a min-conflicts search with annealing mends it: a player who
meets somebody again in some planned series swaps with the player of another table of that
series who lowers the extra meetings most, and when every such swap adds some, it is still taken
now and then (less often the more it adds) to leave a dead end. The search starts again from a
new greedy plan once, all within a fixed budget of swap evaluations, and stops early at
``lower_bound``, what the counting of seats alone makes unavoidable. The best plan found is kept;
this series' pairs that met before are reported. Seats at each table and the first dealer are
then drawn by lot. The same players, history, number of series and seed give the same draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypeVar

P = TypeVar("P")

MIN_TABLE = 3
MAX_TABLE = 5

# The search's budget, in swap evaluations (each a few look-ups in the meetings matrix), spent
# only while the plan is above its lower bound: about a quarter of a second of CPU for the
# hardest small evenings (13 players over 4 series, where it never reaches the bound). Figures
# in BENCHMARKS.md (bench/tournament.py).
BUDGET = 100_000
# The search starts from a new greedy plan this many times within the budget: a plan stuck a
# few meetings above the best is sometimes left faster that way than by searching on.
ROUNDS = 2
# The most series planned at once: planning further ahead changes little (who plays later is
# not known) and the work grows with every series planned.
PLAN_AHEAD = 8
# How readily a swap that adds extra meetings is taken (the annealing's temperature, kept
# constant): one adding 1 about one time in three and a half, one adding 2 one time in twelve.
# Cooler keeps larger evenings stuck above their best (24 over 6 series), hotter wanders.
HEAT = 0.8


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


def extra_meetings(series: Iterable[Sequence[Sequence[P]]]) -> int:
    """The extra meetings over ``series``: for each pair, the series they sat together less one,
    summed over the pairs that sat together more than once.

    >>> extra_meetings([[[1, 2, 3]], [[1, 2, 3]], [[1, 2], [3]]])  # (1, 2) thrice, the rest twice
    4
    """
    return sum(n - 1 for n in meetings(series).values() if n > 1)


def lower_bound(
    players: Sequence[P],
    sizes: Sequence[int],
    series: int,
    met: Mapping[tuple[P, P], int] | None = None,
) -> int:
    """At least this many extra meetings over the series already played (``met``) and
    ``series`` more at tables of ``sizes`` for ``players``, counting seats alone.

    Each pair at a table is a meeting: the meetings planned, less the pairs of ``players`` who
    have not met yet, must go to pairs that meet again. The same counted per player: one who
    sits with more others than they have not met yet meets the rest again. The larger of the
    two, on top of the extra meetings already played among ``players``.

    >>> lower_bound(range(13), [5, 4, 4], 4)  # 4 series of 22 meetings, 78 pairs
    10
    """
    present = set(players)
    before = 0
    known: dict[P, int] = dict.fromkeys(present, 0)
    for (a, b), times in (met or {}).items():
        if times > 0 and a in present and b in present and a != b:
            before += times - 1
            known[a] += 1
            known[b] += 1
    n = len(present)
    new_pairs = n * (n - 1) // 2 - sum(known.values()) // 2
    by_pairs = series * sum(size * (size - 1) // 2 for size in sizes) - new_pairs
    smallest = min(sizes) - 1 if sizes else 0
    by_player = sum(max(0, series * smallest - (n - 1 - known[p])) for p in present) // 2
    return before + max(0, by_pairs, by_player)


@dataclass
class Draw:
    tables: list[list[P]]  # each table's players in seat order, clockwise from seat 1
    dealers: list[P]  # the first dealer of each table, by lot
    repeats: list[tuple[P, P]] = field(default_factory=list)  # pairs that had met before
    evaluations: int = 0  # swap evaluations the search spent
    planned: int = 1  # the series planned together: this one and those after it
    extra_meetings: int = 0  # of the plan: earlier series and planned ones, among these players
    lower_bound: int = 0  # the fewest extra meetings any plan of as many series could have


def draw_tables(
    players: Sequence[P],
    *,
    met: Mapping[tuple[P, P], int] | None = None,
    preferred: int = 4,
    rng: random.Random,
    series_left: int = 1,
    budget: int = BUDGET,
) -> Draw:
    """Seat ``players`` at tables for this series, planning it with the ``series_left - 1``
    series after it, knowing ``met`` (``pair(a, b)`` → times met in the earlier series).

    ``players`` must be in a fixed order (e.g. sorted ids) for a seed to reproduce a draw."""
    if len(set(players)) != len(players):
        raise DrawError("a player is listed twice")
    sizes = table_sizes(len(players), preferred)
    planned = max(1, min(series_left, PLAN_AHEAD))
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    matrix = [[0] * n for _ in range(n)]
    for (a, b), times in (met or {}).items():
        if a in index and b in index and a != b and times > 0:
            matrix[index[a]][index[b]] = matrix[index[b]][index[a]] = times
    bound = lower_bound(players, sizes, planned, met)
    search = _Plan(matrix, sizes, planned, rng)
    best, cost, used = search.run(budget, bound)
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
        if matrix[a][b]
    )
    return Draw(
        tables=tables,
        dealers=dealers,
        repeats=repeats,
        evaluations=used,
        planned=planned,
        extra_meetings=cost,
        lower_bound=bound,
    )


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


class _Plan:
    """``series`` series of tables of player indexes with the fewest extra meetings, given the
    meetings before (``met``, a symmetric matrix of times met)."""

    def __init__(
        self, met: list[list[int]], sizes: list[int], series: int, rng: random.Random
    ) -> None:
        self.met = met
        self.sizes = sizes
        self.series = series
        self.rng = rng
        self.n = len(met)

    def run(self, budget: int, bound: int) -> tuple[list[list[int]], int, int]:
        """The first series of the best plan found, its extra meetings, the evaluations spent."""
        best: list[list[int]] = []
        best_cost = -1
        used = 0
        rounds = ROUNDS if len(self.sizes) > 1 else 1  # one table: nothing to swap or redo
        for number in range(rounds):
            counts = [list(row) for row in self.met]
            plan = [self._greedy(counts) for _ in range(self.series)]
            share = (budget - used) // (rounds - number) if len(self.sizes) > 1 else 0
            cost, spent, first = self._anneal(plan, counts, share, bound)
            used += spent
            if best_cost < 0 or cost < best_cost:
                best, best_cost = first, cost
            if best_cost <= bound or used >= budget:
                break
        return best, best_cost, used

    def _greedy(self, counts: list[list[int]]) -> list[list[int]]:
        """One series: each player in random order to an open table where they meet the fewest
        they met before, the emptiest of those (so the first tables do not fill up with the
        players who met nobody), then by lot. ``counts`` takes the new meetings."""
        order = list(range(self.n))
        self.rng.shuffle(order)
        sizes = self.sizes
        tables: list[list[int]] = [[] for _ in sizes]
        for i in order:
            row = counts[i]
            best_key: tuple[int, int] | None = None
            choices: list[int] = []
            for t, members in enumerate(tables):
                room = sizes[t] - len(members)
                if not room:
                    continue
                key = (sum(1 for k in members if row[k]), -room)
                if best_key is None or key < best_key:
                    best_key, choices = key, [t]
                elif key == best_key:
                    choices.append(t)
            members = tables[self.rng.choice(choices)]
            for k in members:
                row[k] += 1
                counts[k][i] += 1
            members.append(i)
        return tables

    def _anneal(
        self, plan: list[list[list[int]]], counts: list[list[int]], budget: int, bound: int
    ) -> tuple[int, int, list[list[int]]]:
        """Improve ``plan`` while it has more extra meetings than ``bound``: a player who meets
        somebody again in a planned series swaps with the player of another table of that
        series who lowers the extra meetings most (ties by lot); a swap that adds some is taken
        now and then (``HEAT``). Returns the best plan's extra meetings, the evaluations spent
        and that plan's first series."""
        rng, n = self.rng, self.n
        where = [[0] * n for _ in plan]
        for s, tables in enumerate(plan):
            for t, members in enumerate(tables):
                for i in members:
                    where[s][i] = t
        cost = sum(m - 1 for i in range(n) for m in counts[i][i + 1 :] if m > 1)
        best_cost, best_first = cost, [list(t) for t in plan[0]]
        spent = 0
        randrange, random_, choice = rng.randrange, rng.random, rng.choice
        # The chance to take a swap that adds 1, 2, ... extra meetings.
        take = [1.0] + [math.exp(-d / HEAT) for d in range(1, 4 * MAX_TABLE)]
        series = len(plan)
        while cost > bound and spent < budget:
            spent += 1
            s = randrange(series)
            i = randrange(n)
            a = where[s][i]
            tables = plan[s]
            here = tables[a]
            ci = counts[i]
            if not any(ci[k] > 1 for k in here if k != i):
                continue  # i meets nobody again here: nothing to mend
            if spent + n > budget:
                break  # not enough left to weigh every swap of i
            # Moving i from `here` to `there` and j back: i meets each of `there` (an extra
            # meeting where they met already) and one fewer of `here` (one extra fewer where
            # they met twice or more); the same for j the other way.
            leaves = sum(1 for k in here if k != i and ci[k] > 1)
            best_delta: int | None = None
            moves: list[tuple[int, int]] = []
            for b, there in enumerate(tables):
                if b == a:
                    continue
                joins = sum(1 for k in there if ci[k]) - leaves
                for j in there:
                    spent += 1
                    cj = counts[j]
                    delta = joins - (1 if ci[j] else 0)
                    for k in here:
                        if k != i and cj[k]:
                            delta += 1
                    for k in there:
                        if k != j and cj[k] > 1:
                            delta -= 1
                    if best_delta is None or delta < best_delta:
                        best_delta, moves = delta, [(j, b)]
                    elif delta == best_delta:
                        moves.append((j, b))
            if best_delta is None or (best_delta > 0 and random_() >= take[best_delta]):
                continue
            j, b = choice(moves)
            there, cj = tables[b], counts[j]
            for k in here:
                if k != i:
                    ci[k] -= 1
                    counts[k][i] -= 1
                    cj[k] += 1
                    counts[k][j] += 1
            for k in there:
                if k != j:
                    cj[k] -= 1
                    counts[k][j] -= 1
                    ci[k] += 1
                    counts[k][i] += 1
            here[here.index(i)] = j
            there[there.index(j)] = i
            where[s][i], where[s][j] = b, a
            cost += best_delta
            if cost < best_cost:
                best_cost, best_first = cost, [list(t) for t in plan[0]]
        return best_cost, spent, best_first
