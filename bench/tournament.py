"""Toernooi benchmark: the quality of the table draw, and the cost of the standings.

Run with `make bench-tournament` (or `python bench/tournament.py [--database-url URL]
[--seeds N] [--draw-only] [--write FILE]`; `--draw-only` measures and writes the draw's section
alone).

1. Draw quality: for each size (players x series at tables of 4), per seed, a whole evening
   drawn through the services by ``manage.py simulate_tournament --json --draw-only`` (each
   series drawn as the organiser's page draws it, planning the series still to come; the
   games are not played, as the draw does not look at results), inside its own transaction
   that is rolled back. Its figures: the most series any one pair sat together
   (``most_meetings``), what the draw keeps low first; the extra meetings (``scoring.toernooi.
   draw.extra_meetings``: for each pair, the series they sat together less one, summed over
   the pairs that sat together more than once), the pairs that met more than once, and each
   series' draw time (the service call, database included). Against a draw by lot alone
   (``random_draw``, as on paper) of the same sizes and seed; the mean and the maximum over
   ``--seeds`` seeds. Then 100 and 200 players over 6 series (a tenth of the seeds).
2. The standings of a 100-player, 6-series tournament in PostgreSQL: the tournament is played
   through the services (``simulate_tournament``'s games, entered as paper leis) inside a
   transaction that is rolled back at the end, so the database keeps nothing; then
   ``tournament_standings`` is timed (median, p95) and its queries counted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import sys
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/toepen_bench"

# (players, series) at tables of 4: evenings where repeats cannot all be avoided (13 over 4),
# where a schedule without any exists but is hard to find (16 over 5), and larger ones.
SIZES = [(13, 4), (16, 5), (26, 4), (36, 4), (36, 6)]
# Large evenings, a tenth of the seeds each: they always reach their bounds, and each costs
# many tables' writes.
LARGE = [(100, 6), (200, 6)]


def draw_quality(players: int, series: int, seeds: int) -> dict[str, float]:
    from django.core.management import call_command

    from scoring.toernooi.draw import extra_meetings, most_meetings, random_draw, repeat_pairs

    ours_most: list[int] = []
    lot_most: list[int] = []
    most_bounds: set[int] = set()
    ours: list[int] = []
    ours_pairs: list[int] = []
    by_lot: list[int] = []
    lot_pairs: list[int] = []
    bounds: set[int] = set()
    seconds: list[float] = []
    for seed in range(seeds):
        out = StringIO()
        call_command(
            "simulate_tournament",
            *("--players", str(players), "--series", str(series), "--seed", str(seed)),
            "--json",
            "--draw-only",
            stdout=out,
        )
        evening = json.loads(out.getvalue())
        ours_most.append(evening["most_meetings"])
        most_bounds.add(evening["most_bound"])
        ours.append(evening["extra_meetings"])
        ours_pairs.append(len(evening["repeat_pairs"]))
        bounds.add(evening["lower_bound"])
        seconds += [drawn["draw_ms"] / 1000 for drawn in evening["series"]]
        rng = random.Random(seed)
        lot = [random_draw(list(range(players)), rng=rng) for _ in range(series)]
        lot_most.append(most_meetings(lot))
        by_lot.append(extra_meetings(lot))
        lot_pairs.append(len(repeat_pairs(lot)))
    seconds.sort()
    return {
        "most_bound": max(most_bounds),
        "ours_most": max(ours_most),
        "ours_most_at_bound": sum(1 for n in ours_most if n == max(most_bounds)),
        "lot_most_mean": statistics.fmean(lot_most),
        "lot_most": max(lot_most),
        "bound": max(bounds),
        "ours_mean": statistics.fmean(ours),
        "ours_max": max(ours),
        "ours_pairs": statistics.fmean(ours_pairs),
        "ours_zero": sum(1 for n in ours if n == 0),
        "lot_mean": statistics.fmean(by_lot),
        "lot_max": max(by_lot),
        "lot_pairs": statistics.fmean(lot_pairs),
        "draw_ms_median": 1000 * statistics.median(seconds),
        "draw_ms_max": 1000 * seconds[-1],
    }


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    from bench.league import _create_database

    _create_database(url)
    import django

    django.setup()


class _RollBack(Exception):
    pass


def standings_cost(runs: int) -> dict[str, float]:
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from scoring.management.commands.simulate_tournament import play_tournament, player_names
    from scoring.models import Club
    from scoring.toernooi import checkin
    from scoring.toernooi import selectors as tournament_selectors
    from scoring.toernooi import services as tournaments

    figures: dict[str, float] = {}
    try:
        with transaction.atomic():
            club = Club.objects.create(name="Bench toernooi", slug="bench-toernooi")
            tournament = tournaments.tournament_create(
                club=club,
                name="Bench",
                date=datetime.date(2026, 12, 19),
                series_count=6,
                final_table=False,
            )
            checkin.tournament_check_in(tournament=tournament, guests=player_names(100))
            start = time.perf_counter()
            play_tournament(tournament, random.Random(100))
            figures["build_s"] = time.perf_counter() - start
            for _ in range(3):  # warm-up
                tournament_selectors.tournament_standings(tournament)
            with CaptureQueriesContext(connection) as queries:
                standings = tournament_selectors.tournament_standings(tournament)
            figures["queries"] = len(queries.captured_queries)
            figures["rows"] = len(standings.rows)
            figures["results"] = sum(r.series_played for r in standings.rows)
            times: list[float] = []
            for _ in range(runs):
                start = time.perf_counter()
                tournament_selectors.tournament_standings(tournament)
                times.append(time.perf_counter() - start)
            times.sort()
            figures["median_ms"] = 1000 * statistics.median(times)
            figures["p95_ms"] = 1000 * times[int(0.95 * (len(times) - 1))]
            raise _RollBack
    except _RollBack:
        pass
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--draw-only", action="store_true", help="the draw's figures alone")
    parser.add_argument("--write", metavar="FILE", help="write the sections into this file")
    args = parser.parse_args()

    from bench.report import measured

    started = time.perf_counter()
    _setup(args.database_url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    draws = [(players, series, args.seeds) for players, series in SIZES]
    draws += [(players, series, max(1, args.seeds // 10)) for players, series in LARGE]
    quality = []
    for players, series, seeds in draws:
        quality.append((players, series, seeds, draw_quality(players, series, seeds)))
        print(f"draw: {players} x {series} done", file=sys.stderr)
    elapsed = time.perf_counter() - started

    lines = [
        "## Toernooi (`make bench-tournament`)",
        "",
        f"{measured('bench-tournament')}; the draw {elapsed:.0f} s.",
        "",
        "Draw quality: whole evenings drawn through the services (`manage.py simulate_tournament"
        " --json --draw-only --seed N`, one per seed; `scoring/toernooi/draw.py`: each series"
        " planned with the series still to come, knowing the ones before), at tables of 4,"
        " against a draw by lot alone (as on paper). **Most**: the most series any one pair sat"
        " at one table, what the draw keeps low first (over the seeds: the worst, and on how"
        " many seeds it was at its bound); **extra meetings**, kept low next: for each pair, the"
        " series they sat together less one, summed over the pairs that sat together more than"
        " once; **pairs**: the pairs that sat together more than once. The bounds: what counting"
        " seats and the pairs any two series share make unavoidable (extra meetings: with no"
        " pair above the bound of the most). A draw's time is the service call"
        " (`series_draw`), PostgreSQL included.",
        "",
        "| players x series | seeds | bound: most, extra | our draw: most (worst) | at bound"
        " | extra, mean | max | pairs, mean | by lot: most, mean (worst) | extra, mean | max"
        " | one draw: median ms | max ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for players, series, seeds, q in quality:
        lines.append(
            f"| {players} x {series} | {seeds:,} | {q['most_bound']}, {q['bound']} |"
            f" {q['ours_most']} | {q['ours_most_at_bound']:,} | {q['ours_mean']:.2f} |"
            f" {q['ours_max']} | {q['ours_pairs']:.2f} | {q['lot_most_mean']:.2f}"
            f" ({q['lot_most']}) | {q['lot_mean']:.2f} | {q['lot_max']} |"
            f" {q['draw_ms_median']:.1f} | {q['draw_ms_max']:.1f} |"
        )
    lines += [
        "",
        "13 players (tables 5+4+4) must meet again: four series seat 88 pairs for 78, and any"
        " two series share at least 4 pairs (13 players over the 9 cells of their tables), 24"
        " over the six pairs of series; so some pair meets twice and, with none more than"
        " twice, 24 meetings are extra, as the draw finds. Judged by extra meetings alone the"
        " draw found 14 there (10 by counting seats) with three pairs together in all four"
        " series. 16 players over 5 series can meet each other exactly once. The draw stops"
        " searching at its bounds; where it cannot reach them it spends its whole budget of"
        " swap evaluations.",
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        from bench.report import write_section

        write_section(args.write, "tournament", body)
    if args.draw_only:
        return

    cost = standings_cost(args.runs)
    body = "\n".join(
        [
            f"Standings: {measured('bench-tournament')}. A 100-player, 6-series tournament"
            f" ({cost['rows']:.0f} players, {cost['results']:.0f} table results; played through"
            f" the services in {cost['build_s']:.0f} s, rolled back afterwards), PostgreSQL,"
            f" `tournament_standings` called directly, {args.runs} calls after 3 warm-up ones;"
            " the query count is the same for 12 and 100 players"
            " (`tests/toernooi/test_tournament_services.py`):",
            "",
            "| what | median ms | p95 ms | queries |",
            "|---|---|---|---|",
            f"| standings, 100 players, 6 series | {cost['median_ms']:.1f} |"
            f" {cost['p95_ms']:.1f} | {cost['queries']:.0f} |",
        ]
    )
    print(body)
    if args.write:
        from bench.report import write_section

        write_section(args.write, "tournament-standings", body)


if __name__ == "__main__":
    main()
