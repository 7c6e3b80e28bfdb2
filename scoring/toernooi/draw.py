"""The table draw of a toernooi series: pure Python, no Django.

``table_sizes`` splits the players present into tables of the preferred size (4 or 5), with
tables of 3, 4 or 5 where the count does not divide: the split closest to the preferred size
(the sum of each table's difference from it), then the one with fewer tables of three. So 13
players at tables of 4 sit 5+4+4, 15 sit 4+4+4+3, 14 sit 5+5+4; never a table below 3.

``draw_tables`` seats them so that players meet again as little as the evening allows, judged
first by the **most meetings**, the most series in which any one pair sat at one table, and only
then by the evening's **extra meetings**: for each pair of players, the number of series in
which they sat at one table, less one, summed over the pairs that sat together more than once
(``extra_meetings``; a pair together three times counts 2). Players remember "we sat together
all four times", not a count: 13 players over 4 series can do with 14 extra meetings, but only
with three pairs together in every series; the draw seats them so that no pair meets more than
twice, at 24 extra meetings, the least for that (any two series of 13 share at least 4 pairs:
``overlap_bound``). The **repeat pairs** are the pairs that met more than once
(``repeat_pairs``).

A series is not drawn on its own: the draw plans the rest of the evening at once (this series and
the ``series_left - 1`` after it, at most ``PLAN_AHEAD``, all with the players present now) and
seats this series as that plan does. Drawn one at a time, the early series use up the pairs that
the last ones need (16 players over 5 series at tables of 4 can meet everyone exactly once, but
not when each series only looks back). The next series is planned again from what was really
played, so a late arrival or a withdrawal simply changes the next plan.

Finding the best plan is the social golfer problem (hard in general), so the search is bounded:
each planned series is built greedily (each player, in random order, to the table where their
meetings cost least), then a min-conflicts search with annealing mends it: a player who meets
somebody again in some planned series swaps with the player of another table of that series who
lowers the cost most, and when every such swap adds some, it is still taken now and then (less
often the more it adds) to leave a dead end. The cost is the extra meetings plus a penalty for
each meeting of a pair above ``most_meetings_bound`` (the fewest most meetings the counting of
seats allows), growing the further above it; the plans are compared by (most meetings, extra
meetings), the lowest kept. The search starts again from a new greedy plan once, all within a
fixed budget of swap evaluations, and stops early when it reaches both bounds
(``most_meetings_bound``, then ``lower_bound`` or ``overlap_bound`` at that most, the higher).
This series' pairs that met before are reported.
Seats at each table and the first dealer are then drawn by lot. The same players, history,
number of series and seed give the same draw.
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
# only while the plan is above its bounds: about a quarter of a second of CPU for the evenings
# where it does not reach them (10 players over 4 series at 5+5); 13 over 4 reach theirs in a
# few hundred. Figures in BENCHMARKS.md (bench/tournament.py).
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
# What the search adds for each meeting of a pair above the most-meetings bound, times how far
# above it (a pair at bound + 2 weighs more than two at bound + 1); the plans themselves are
# compared by (most meetings, extra meetings). Higher keeps the search out of plans it must pass
# through (20 players over 7 series: 2 to 4 extra meetings more at 3); at 1, 13 over 4 finds
# plans where no pair meets more than twice. Nothing is added where the bound is 1: there any
# meeting again is already an extra meeting.
OVER = 1


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


def most_meetings(series: Iterable[Sequence[Sequence[P]]]) -> int:
    """The most of ``series`` in which any one pair sat at one table (0 without a pair).

    >>> most_meetings([[[1, 2, 3]], [[1, 2, 3]], [[1, 2], [3]]])  # (1, 2) thrice
    3
    """
    return max(meetings(series).values(), default=0)


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


def most_meetings_bound(
    players: Sequence[P],
    sizes: Sequence[int],
    series: int,
    met: Mapping[tuple[P, P], int] | None = None,
    played: Iterable[Sequence[Sequence[P]]] = (),
) -> int:
    """At least this many times some pair of ``players`` will have sat at one table, over the
    series already played (``met``; ``played``, their tables, where known) and ``series`` more
    at tables of ``sizes``, counting seats alone.

    The smallest ``m`` at or above the most any pair has met already for which the pairs can
    take the meetings planned without any pair going above ``m``: all pairs together (each
    takes ``m`` less what it has met), and each player (who sits with at least the smallest
    table's others each series) with the others they can still meet; and the pairs that any two
    series must share (``overlap_bound``: 13 players over 2 series share 4, so some pair meets
    twice though 78 pairs could take the 44 meetings).

    >>> most_meetings_bound(range(13), [5, 4, 4], 4)  # 88 meetings for 78 pairs
    2
    >>> most_meetings_bound(range(16), [4, 4, 4, 4], 5)  # 120 meetings for 120 pairs
    1
    """
    present = list(dict.fromkeys(players))
    n = len(present)
    planned = series * sum(size * (size - 1) // 2 for size in sizes)
    if n < 2 or planned <= 0:
        return max(_present_counts(present, met).values(), default=0)
    counts = _present_counts(present, met)
    # Per player: how often they met each of the others, those they never met at 0.
    seen: dict[P, list[int]] = {p: [] for p in present}
    for (a, b), times in counts.items():
        seen[a].append(times)
        seen[b].append(times)
    each = series * (min(sizes) - 1)
    pairs = n * (n - 1) // 2
    most = max(max(counts.values(), default=0), 1)
    # The (pair, two series) that must be shared (``overlap_bound``) against the most the
    # meetings can share without a pair above ``most``: as many pairs as can at ``most``.
    shared = _overlaps(counts, sizes, series, played, present)
    total = planned + sum(counts.values())
    while True:
        room = (pairs - len(counts)) * most + sum(most - t for t in counts.values() if t < most)
        at_most, rest = divmod(total, most)
        if (
            room >= planned
            and at_most * most * (most - 1) // 2 + rest * (rest - 1) // 2 >= shared
            and all(
                (n - 1 - len(times)) * most + sum(most - t for t in times if t < most) >= each
                for times in seen.values()
            )
        ):
            return most
        most += 1


def overlap_bound(
    players: Sequence[P],
    sizes: Sequence[int],
    series: int,
    most: int,
    met: Mapping[tuple[P, P], int] | None = None,
    played: Iterable[Sequence[Sequence[P]]] = (),
) -> int:
    """At least this many extra meetings over the series already played (``met``; ``played``,
    their tables, where known) and ``series`` more at tables of ``sizes`` for ``players``, if no
    pair meets more than ``most`` times: counting the pairs that any two series share.

    Two series of the same players share pairs: the players of a table of the one are spread
    over the tables of the other, at best evenly over the cells of the two series' tables (13
    players in the nine cells of 5+4+4 against 5+4+4: four cells hold two, so four pairs sit
    together in both). A pair that meets ``m`` times is shared by m(m - 1)/2 pairs of series
    and makes m - 1 extra meetings, at least 2/``most`` of that count.

    >>> overlap_bound(range(13), [5, 4, 4], 4, most=2)  # 6 pairs of series, 4 pairs each
    24
    """
    present = list(dict.fromkeys(players))
    shared = _overlaps(_present_counts(present, met), sizes, series, played, present)
    return -(-2 * shared // max(most, 1))


def _overlaps(
    counts: Mapping[tuple[P, P], int],
    sizes: Sequence[int],
    series: int,
    played: Iterable[Sequence[Sequence[P]]] = (),
    present: Sequence[P] = (),
) -> int:
    """The fewest (pair, two series) in which the pair sat together in both: those already
    played (``counts``, among the players present), those each planned series must share with
    each series ``played`` before, and those the ``series`` planned must share among them."""
    here = set(present)
    with_played = 0
    for tables in played:
        seated = [sum(1 for p in table if p in here) for table in tables]
        with_played += _spread(sum(seated), sum(1 for n in seated if n) * len(sizes))
    return (
        sum(t * (t - 1) // 2 for t in counts.values())
        + series * with_played
        + series * (series - 1) // 2 * _spread(sum(sizes), len(sizes) ** 2)
    )


def _spread(players: int, cells: int) -> int:
    """The fewest pairs in one cell when ``players`` are spread over ``cells``: evenly."""
    if not cells:
        return 0
    each, over = divmod(players, cells)
    return over * (each + 1) * each // 2 + (cells - over) * each * (each - 1) // 2


def _present_counts(
    present: Sequence[P], met: Mapping[tuple[P, P], int] | None
) -> dict[tuple[P, P], int]:
    """The pairs of ``present`` that met before, with how often."""
    here = set(present)
    return {
        key: times
        for key, times in (met or {}).items()
        if times > 0 and key[0] in here and key[1] in here and key[0] != key[1]
    }


@dataclass
class Draw:
    tables: list[list[P]]  # each table's players in seat order, clockwise from seat 1
    dealers: list[P]  # the first dealer of each table, by lot
    repeats: list[tuple[P, P]] = field(default_factory=list)  # pairs that had met before
    evaluations: int = 0  # swap evaluations the search spent
    planned: int = 1  # the series planned together: this one and those after it
    extra_meetings: int = 0  # of the plan: earlier series and planned ones, among these players
    # The fewest extra meetings any plan of as many series could have with no pair above
    # ``most_bound``: ``lower_bound`` or ``overlap_bound``, the higher.
    lower_bound: int = 0
    most_meetings: int = 0  # of the plan: the most times one pair sits together
    most_bound: int = 0  # the fewest most meetings any plan of as many series could have


def draw_tables(
    players: Sequence[P],
    *,
    met: Mapping[tuple[P, P], int] | None = None,
    preferred: int = 4,
    rng: random.Random,
    series_left: int = 1,
    budget: int = BUDGET,
    played: Sequence[Sequence[Sequence[P]]] = (),
) -> Draw:
    """Seat ``players`` at tables for this series, planning it with the ``series_left - 1``
    series after it, knowing ``met`` (``pair(a, b)`` → times met in the earlier series) and,
    where given, ``played``, the earlier series' tables (``met`` is ``meetings(played)``): with
    them the search knows sooner when it cannot do better (``overlap_bound``).

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
    most_bound = most_meetings_bound(players, sizes, planned, met, played)
    bound = max(
        lower_bound(players, sizes, planned, met),
        overlap_bound(players, sizes, planned, most_bound, met, played),
    )
    search = _Plan(matrix, sizes, planned, rng, most_bound)
    best, (most, cost), used = search.run(budget, (most_bound, bound))
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
        most_meetings=most,
        most_bound=most_bound,
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
    """``series`` series of tables of player indexes that keep low, first, the most times any
    pair meets and then the extra meetings, given the meetings before (``met``, a symmetric
    matrix of times met) and the most-meetings bound (``cap``)."""

    def __init__(
        self, met: list[list[int]], sizes: list[int], series: int, rng: random.Random, cap: int
    ) -> None:
        self.met = met
        self.sizes = sizes
        self.series = series
        self.rng = rng
        self.n = len(met)
        # What one more meeting of a pair that met m times costs the search (``step[m]``): an
        # extra meeting from the second on, and OVER per time above ``cap`` on top, more for
        # each time further above it, so that a pair at cap + 2 weighs more than two at cap + 1.
        top = max(max((max(row) for row in met), default=0), cap) + series + 3
        self.step = [
            (1 if m >= 1 else 0) + (OVER * (m - cap + 1) if m >= cap > 1 else 0) for m in range(top)
        ]

    def run(
        self, budget: int, bound: tuple[int, int]
    ) -> tuple[list[list[int]], tuple[int, int], int]:
        """The first series of the best plan found, its (most meetings, extra meetings), the
        evaluations spent."""
        best: list[list[int]] = []
        best_score = (-1, -1)
        used = 0
        rounds = ROUNDS if len(self.sizes) > 1 else 1  # one table: nothing to swap or redo
        for number in range(rounds):
            counts = [list(row) for row in self.met]
            plan = [self._greedy(counts) for _ in range(self.series)]
            share = (budget - used) // (rounds - number) if len(self.sizes) > 1 else 0
            score, spent, first = self._anneal(plan, counts, share, bound)
            used += spent
            if best_score[0] < 0 or score < best_score:
                best, best_score = first, score
            if best_score <= bound or used >= budget:
                break
        return best, best_score, used

    def _greedy(self, counts: list[list[int]]) -> list[list[int]]:
        """One series: each player in random order to an open table where the meetings cost
        least (``step``), the emptiest of those (so the first tables do not fill up with the
        players who met nobody), then by lot. ``counts`` takes the new meetings."""
        order = list(range(self.n))
        self.rng.shuffle(order)
        sizes, step = self.sizes, self.step
        tables: list[list[int]] = [[] for _ in sizes]
        for i in order:
            row = counts[i]
            best_key: tuple[int, int] | None = None
            choices: list[int] = []
            for t, members in enumerate(tables):
                room = sizes[t] - len(members)
                if not room:
                    continue
                key = (sum(step[row[k]] for k in members), -room)
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
        self,
        plan: list[list[list[int]]],
        counts: list[list[int]],
        budget: int,
        bound: tuple[int, int],
    ) -> tuple[tuple[int, int], int, list[list[int]]]:
        """Improve ``plan`` until it reaches ``bound`` (most meetings, extra meetings): a player
        who meets somebody again in a planned series swaps with the player of another table of
        that series who lowers the search's cost (``step``) most (ties by lot); a swap that adds
        to it is taken now and then (``HEAT``). Returns the best plan's (most meetings, extra
        meetings), the evaluations spent and that plan's first series."""
        rng, n, step = self.rng, self.n, self.step
        where = [[0] * n for _ in plan]
        for s, tables in enumerate(plan):
            for t, members in enumerate(tables):
                for i in members:
                    where[s][i] = t
        # How many pairs met how often: the most meetings is the highest count held.
        held = [0] * len(step)
        for i in range(n):
            for m in counts[i][i + 1 :]:
                held[m] += 1
        most = max(m for m, pairs in enumerate(held) if pairs)
        extra = sum((m - 1) * pairs for m, pairs in enumerate(held) if m > 1)
        best_score, best_first = (most, extra), [list(t) for t in plan[0]]
        spent = 0
        randrange, random_, choice = rng.randrange, rng.random, rng.choice
        # The chance to take a swap that adds 1, 2, ... to the cost; none for more.
        take = [1.0] + [math.exp(-d / HEAT) for d in range(1, 8 * MAX_TABLE)]
        series = len(plan)
        while best_score > bound and spent < budget:
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
            # Moving i from `here` to `there` and j back: i meets each of `there` once more and
            # each of `here` once less; the same for j the other way.
            leaves = sum(step[ci[k] - 1] for k in here if k != i)
            best_delta: int | None = None
            moves: list[tuple[int, int]] = []
            for b, there in enumerate(tables):
                if b == a:
                    continue
                joins = sum(step[ci[k]] for k in there) - leaves
                for j in there:
                    spent += 1
                    cj = counts[j]
                    delta = joins - step[ci[j]]
                    for k in here:
                        if k != i:
                            delta += step[cj[k]]
                    for k in there:
                        if k != j:
                            delta -= step[cj[k] - 1]
                    if best_delta is None or delta < best_delta:
                        best_delta, moves = delta, [(j, b)]
                    elif delta == best_delta:
                        moves.append((j, b))
            if best_delta is None or (
                best_delta > 0 and (best_delta >= len(take) or random_() >= take[best_delta])
            ):
                continue
            j, b = choice(moves)
            there, cj = tables[b], counts[j]
            for k in here:
                if k != i:
                    extra -= ci[k] > 1
                    held[ci[k]] -= 1
                    ci[k] -= 1
                    counts[k][i] -= 1
                    held[ci[k]] += 1
                    extra += cj[k] > 0
                    held[cj[k]] -= 1
                    cj[k] += 1
                    counts[k][j] += 1
                    held[cj[k]] += 1
            for k in there:
                if k != j:
                    extra -= cj[k] > 1
                    held[cj[k]] -= 1
                    cj[k] -= 1
                    counts[k][j] -= 1
                    held[cj[k]] += 1
                    extra += ci[k] > 0
                    held[ci[k]] -= 1
                    ci[k] += 1
                    counts[k][i] += 1
                    held[ci[k]] += 1
            here[here.index(i)] = j
            there[there.index(j)] = i
            where[s][i], where[s][j] = b, a
            if held[most + 1]:  # a swap moves each pair's count by one at most
                most += 1
            while not held[most]:
                most -= 1
            if (most, extra) < best_score:
                best_score, best_first = (most, extra), [list(t) for t in plan[0]]
        return best_score, spent, best_first
