"""Toernooi benchmark: the quality of the table draw, and the cost of the standings.

Run with `make bench-tournament` (or `python bench/tournament.py [--database-url URL]
[--seeds N] [--write FILE]`).

1. Draw quality (pure Python, no database): for 36 players over 4 series at tables of 4, per
   seed, the pairs that meet more than once with our draw
   (``scoring.toernooi.draw.draw_tables``, each
   series drawn knowing the ones before) against a draw by lot alone (``random_draw``, as on
   paper); the mean and the maximum over ``--seeds`` seeds, and the time a draw takes. Also
   for 13 players (tables 5+4+4: repeats cannot all be avoided; a twentieth of the seeds, as
   each of its draws spends the search's whole budget) and 100 players over 6 series (a tenth).
2. The standings of a 100-player, 6-series tournament in PostgreSQL: the tournament is played
   through the services (``simulate_tournament``'s games, entered as paper leis) inside a
   transaction that is rolled back at the end, so the database keeps nothing; then
   ``tournament_standings`` is timed (median, p95) and its queries counted.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/toepen_bench"


def draw_quality(players: int, series: int, seeds: int) -> dict[str, float]:
    from scoring.toernooi.draw import draw_tables, meetings, random_draw, repeat_pairs

    ours: list[int] = []
    by_lot: list[int] = []
    seconds: list[float] = []
    for seed in range(seeds):
        rng = random.Random(seed)
        history: list[list[list[int]]] = []
        for _ in range(series):
            start = time.perf_counter()
            drawn = draw_tables(list(range(players)), met=meetings(history), rng=rng)
            seconds.append(time.perf_counter() - start)
            history.append(drawn.tables)
        ours.append(len(repeat_pairs(history)))
        rng = random.Random(seed)
        by_lot.append(
            len(repeat_pairs(random_draw(list(range(players)), rng=rng) for _ in range(series)))
        )
    seconds.sort()
    return {
        "ours_mean": statistics.fmean(ours),
        "ours_max": max(ours),
        "ours_zero": sum(1 for n in ours if n == 0),
        "lot_mean": statistics.fmean(by_lot),
        "lot_max": max(by_lot),
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
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from scoring.management.commands.simulate_tournament import play_tournament, player_names
    from scoring.models import Club
    from scoring.toernooi import selectors as tournament_selectors
    from scoring.toernooi import services as tournaments

    call_command("migrate", verbosity=0)
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
            tournaments.tournament_check_in(tournament=tournament, guests=player_names(100))
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
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--write", metavar="FILE", help="write the section into this file")
    args = parser.parse_args()

    from bench.report import measured

    started = time.perf_counter()
    draws = [
        ("36 players, 4 series, tables of 4", 36, 4, args.seeds),
        ("13 players, 4 series (tables 5+4+4)", 13, 4, max(1, args.seeds // 20)),
        ("100 players, 6 series, tables of 4", 100, 6, max(1, args.seeds // 10)),
    ]
    quality = []
    for label, players, series, seeds in draws:
        quality.append((label, seeds, draw_quality(players, series, seeds)))
        print(f"draw: {label} done", file=sys.stderr)
    _setup(args.database_url)
    cost = standings_cost(args.runs)
    elapsed = time.perf_counter() - started

    lines = [
        "## Toernooi (`make bench-tournament`)",
        "",
        f"{measured('bench-tournament')}; {elapsed:.0f} s in all.",
        "",
        "Draw quality: pairs of players that meet more than once over the whole tournament, per"
        " seed, with our draw (`scoring/toernooi/draw.py`: each series drawn knowing the ones"
        " before) and"
        " with a draw by lot alone (as on paper).",
        "",
        "| tournament | seeds | our draw: mean | max | seeds with 0 | by lot: mean | max |"
        " one draw: median ms | max ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, seeds, q in quality:
        lines.append(
            f"| {label} | {seeds:,} | {q['ours_mean']:.2f} | {q['ours_max']} |"
            f" {q['ours_zero']:,} | {q['lot_mean']:.2f} | {q['lot_max']} |"
            f" {q['draw_ms_median']:.1f} | {q['draw_ms_max']:.1f} |"
        )
    lines += [
        "",
        "With 13 players some pairs must meet again (over 4 series a player sits with 12 to 16"
        " others, and there are 12): the draw keeps them to the fewest it finds within its"
        " budget of swap evaluations, which is also why one of its draws takes longest.",
        "",
        f"Standings of a 100-player, 6-series tournament ({cost['rows']:.0f} players,"
        f" {cost['results']:.0f} table results; played through the services in"
        f" {cost['build_s']:.0f} s, rolled back afterwards), PostgreSQL, `tournament_standings`"
        f" called directly, {args.runs} calls after 3 warm-up ones:",
        "",
        "| what | median ms | p95 ms | queries |",
        "|---|---|---|---|",
        f"| standings, 100 players, 6 series | {cost['median_ms']:.1f} | {cost['p95_ms']:.1f} |"
        f" {cost['queries']:.0f} |",
        "",
        "The query count is the same for 12 and 100 players"
        " (`tests/toernooi/test_tournament_services.py`).",
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        from bench.report import write_section

        write_section(args.write, "tournament", body)


if __name__ == "__main__":
    main()
