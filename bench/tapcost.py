"""What one tap costs in CPU, in process: the app's side and PostgreSQL's, per kind of tap.

Run with ``.venv/bin/python bench/tapcost.py [--taps N] [--tables N] [--profile]`` after
``make bench-league`` (it uses the same ``toepen_bench`` database and the running sessions of
``bench/load.py``, made again here). Each tap is an HTMX event POST through Django's whole
middleware stack (the test client, no network, no gunicorn), chosen by the engine as the load
generator chooses it: a knock, a fold, the last trick. Printed: the median CPU time of the
request in this process per kind of tap, and the CPU that PostgreSQL's backend for this
process's connection spent per tap (read from ``/proc``, so PostgreSQL must run on this
machine). ``--profile win`` adds cProfile's view of the round-ending taps (or ``knock``, ``fold``).

It is the microscope next to ``bench/load.py``: that one measures what clients see under
load, this one where a tap's time goes (BENCHMARKS.md, "A tap's cost in process").
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--taps", type=int, default=600)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument(
        "--profile", metavar="KIND", help="profile the taps of this kind: knock, fold or win"
    )
    args = parser.parse_args()

    from bench import django_env, league
    from bench.percost import SHEET, VERSION, content, post_tap, tap_taken

    url = args.database_url or os.environ.get("BENCH_DATABASE_URL", league.DEFAULT_URL)
    django_env.environ(url)
    from bench import load

    league._setup(url)
    league.build(rebuild=False, log=print)

    from django.db import connection
    from django.test import Client

    from bench.loadgen import Tablet

    tables = load.make_tables(args.tables, print)
    clients = []
    for table in tables:
        client = Client(HTTP_ACCEPT_ENCODING="gzip")
        assert client.get(f"/tafel/{table['token']}/").status_code == 302
        body = content(client.get(f"/sessies/{table['pk']}/"))  # gzip-compressed
        table["version"] = int(VERSION.search(body).group(1))
        found = SHEET.search(body)
        table["sheet"] = found.group(1).decode() if found else ""
        # The load generator's tablet, for its choice of the next event (engine) and its log.
        table["tablet"] = Tablet(table, "http://testserver", recorder=None)
        clients.append(client)

    def backend_cpu() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    profile = cProfile.Profile(time.process_time) if args.profile else None
    cpu: dict[str, list[float]] = {}
    warm = 2 * len(tables)  # every table's first taps: connections and prepared statements
    pg_start = 0.0
    for step in range(args.taps + warm):
        if step == warm:
            pg_start = backend_cpu()
        table, client = tables[step % len(tables)], clients[step % len(tables)]
        event = table["tablet"].next_event(step)
        key = f"tapcost-{step}-{random.random()}"
        profiling = profile is not None and step >= warm and event["type"] == args.profile
        if profiling:
            profile.enable()
        start = time.process_time()
        response = post_tap(client, table, event, key)
        spent = time.process_time() - start
        if profiling:
            profile.disable()
        tap_taken(table, event, response, step)
        if step >= warm:
            cpu.setdefault(event["type"], []).append(spent * 1000)
    pg = (backend_cpu() - pg_start) * 1000 / args.taps

    every = [ms for kind in cpu.values() for ms in kind]
    print(f"\n{args.taps} taps on {len(tables)} tables, CPU in this process (ms):")
    print(f"  all    median {statistics.median(every):5.2f}  mean {statistics.mean(every):5.2f}")
    for kind, figures in sorted(cpu.items()):
        print(f"  {kind:6} median {statistics.median(figures):5.2f}  n={len(figures)}")
    print(f"PostgreSQL's backend, CPU per tap: {pg:.2f} ms")
    if profile is not None:
        stats = pstats.Stats(profile).sort_stats(os.environ.get("SORT", "cumulative"))
        stats.print_stats(40)
        if os.environ.get("CALLEES"):  # a regular expression of the functions to break down
            stats.print_callees(os.environ["CALLEES"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
