"""The ablation: what each own speed mechanism saves, in CPU per request, in process.

Run with ``.venv/bin/python bench/ablation.py [--runs 3] [--cycles N] [CONFIG ...]`` after
``make bench-league`` (the ``toepen_bench`` database of ``bench/league.py``, or
``BENCH_DATABASE_URL``); ``--table`` prints the table of the runs kept in ``--out``. Each CONFIG
is measured in a process of its own, the configs interleaved, ``--runs`` times each: ``base``
is the code as it is, every other config switches one mechanism off the plain Django way
(``OFF`` says how).

Each process makes a few running sessions of the league's club and goes round them through
Django's whole middleware stack (the test client, no network, no gunicorn), as the Friday night
sends its requests: a tap (knock, fold, win, as ``bench/loadgen.py``'s tablets choose them); the
push stream's drawing of the new version (``scoring/push/fragments.py``, once per change); two
viewers' fallback polls that draw it and one answered 304; every fifth turn the season's
standings and the floor (``/bench/floor/``, ``bench/urls.py``). Django's
``close_old_connections`` runs first in each request, as a server's ``request_started`` does
(the test client leaves it out), so a connection's health check is counted. Recorded per request
type: the mean CPU of this process (``time.process_time``: a full collection counts where it
falls) and of PostgreSQL's backend for its connection (from ``/proc``, so PostgreSQL must run on
this machine).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
VERSION = re.compile(rb'data-version="(\d+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')
LABEL = "Ablatie"  # table labels of this benchmark's running sessions (not the load's)

# The Friday night's requests a second (BENCHMARKS.md, "Friday night with push" and "Mixed
# scenario"; bench/load.py with bench/loadgen.py's ``mixed``): 300 tablets each tap a round of
# three every 20 s, 45 taps a second. With push (production, README "Production") each tap is a
# change that the one stream worker draws once for all its streams, and nobody polls; no pages
# are opened while the clock runs. Polling (load.py's default, push's fallback), 3,000 viewers
# every 3 s: the mixed run's 5,400 taps, 30,293 polls that drew a new version and 96,851 304s.
WEIGHTS = {
    "push": {"tap": 45, "push draw": 45},
    "poll": {"tap": 5400, "poll 200": 30293, "poll 304": 96851},
}
KINDS = ["tap", "push draw", "poll 200", "poll 304", "standings page", "floor"]

OFF = {
    "base": "every mechanism on (the code as it is)",
    "ormreads": "the ORM's reads of a tap (bench/orm_reads.py) for scoring/models/hotsql.py's",
    "standings": "the standings computed per request (no copy in Django's cache)",
}


def _body(response) -> bytes:
    if response.get("Content-Encoding") == "gzip":
        return gzip.decompress(response.content)
    return response.content


def _patch(config: str) -> None:
    """After Django is set up: the code of ``config``."""
    if config == "ormreads":
        from bench import orm_reads
        from scoring.models import hotsql

        for name in ("scorer_session", "seats_and_rounds", "lock_and_read"):
            setattr(hotsql, name, getattr(orm_reads, name))
    elif config == "standings":
        from scoring.league import standings_cache

        standings_cache.kept = lambda key: None
        standings_cache.keep = lambda key, html: None


def measure(config: str, cycles: int, tables_count: int) -> dict[str, Any]:
    from bench import django_env, league

    url = os.environ.get("BENCH_DATABASE_URL", league.DEFAULT_URL)
    django_env.environ(url, CONN_MAX_AGE="900")
    from django.conf import settings

    settings.DATABASES  # noqa: B018 (the settings are read here, before any connection)
    league._setup(url)
    _patch(config)
    from bench import load

    load.LOAD_LABEL = LABEL
    league.build(rebuild=False, log=lambda m: None)

    from django.db import close_old_connections, connection
    from django.test import Client

    from bench.loadgen import Tablet
    from scoring.push import fragments

    standings_url = load.pages()[0]
    tables = load.make_tables(tables_count, lambda m: None)
    for table in tables:
        table["client"] = Client(HTTP_ACCEPT_ENCODING="gzip")
        assert table["client"].get(f"/tafel/{table['token']}/").status_code == 302
        body = _body(table["client"].get(f"/sessies/{table['pk']}/"))
        table["version"] = int(VERSION.search(body).group(1))
        found = SHEET.search(body)
        table["sheet"] = found.group(1).decode() if found else ""
        table["tablet"] = Tablet(table, "http://testserver", recorder=None)
        table["viewers"] = [Client(HTTP_ACCEPT_ENCODING="gzip") for _ in range(2)]
        first = table["viewers"][0].get(table["viewer"], HTTP_HX_REQUEST="true")
        table["etags"] = [first["ETag"]] * 2

    def backend_cpu() -> float:
        fields = Path(f"/proc/{connection.connection.info.backend_pid}/stat").read_text()
        fields = fields.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    cpu: dict[str, list[float]] = {}
    pg: dict[str, float] = {}
    warm = 2 * len(tables)

    def timed(kind: str, step: int, call, *args, **kwargs):
        connection.ensure_connection()  # for its backend's pid; no query
        pg_before = backend_cpu()
        start = time.process_time()
        close_old_connections()
        response = call(*args, **kwargs)
        spent = time.process_time() - start
        if step >= warm:
            cpu.setdefault(kind, []).append(spent * 1000)
            pg[kind] = pg.get(kind, 0.0) + (backend_cpu() - pg_before) * 1000
        return response

    def tap(table, step: int) -> None:
        event = table["tablet"].next_event(step)
        form = {
            **event,
            "key": f"ablation-{step}-{random.random()}",
            "version": str(table["version"]),
            "sheet": table["sheet"],
        }
        response = timed(
            "tap",
            step,
            table["client"].post,
            f"/sessies/{table['pk']}/gebeurtenis/",
            urlencode(form),
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
        )
        body = _body(response)
        if response.status_code != 200 or b'id="refusal"' in body or b'id="stale"' in body:
            raise SystemExit(f"tap {step} was not recorded: {body[:300]!r}")
        table["tablet"]._apply(event)
        table["version"] = int(VERSION.search(body).group(1))
        if found := SHEET.search(body):
            table["sheet"] = found.group(1).decode()

    for step in range(cycles + warm):
        table = tables[step % len(tables)]
        tap(table, step)
        if hasattr(fragments, "Ask"):  # since the audiences (scoring/push/audiences.py)
            from scoring.push.audiences import PUBLIC

            meta = (("HTTP_HOST", "testserver"),)
            draw = (fragments.Ask(table["viewer"], settings.LANGUAGE_CODE, PUBLIC, meta),)
        else:
            draw = ({"HTTP_HOST": "testserver"}, table["viewer"], settings.LANGUAGE_CODE, "")
        part = timed("push draw", step, fragments.draw, *draw, str(table["version"]))
        assert part.status == 200, part.status
        for i, viewer in enumerate(table["viewers"]):
            response = timed("poll 200", step, viewer.get, table["viewer"], HTTP_HX_REQUEST="true",
                             HTTP_IF_NONE_MATCH=table["etags"][i])  # fmt: skip
            assert response.status_code == 200, response.status_code
            table["etags"][i] = response["ETag"]
        response = timed("poll 304", step, viewer.get, table["viewer"], HTTP_HX_REQUEST="true",
                         HTTP_IF_NONE_MATCH=table["etags"][-1])  # fmt: skip
        assert response.status_code == 304, response.status_code
        if step % 5 == 4:
            page = timed("standings page", step, table["client"].get, standings_url)
            assert page.status_code == 200, page.status_code
            timed("floor", step, viewer.get, "/bench/floor/")
    load.remove_tables(lambda m: None)
    return {
        kind: {"cpu_ms": statistics.mean(ms), "pg_ms": pg[kind] / len(ms), "n": len(ms)}
        for kind, ms in cpu.items()
    }


def mixed(figures: dict[str, Any], weights: dict[str, int]) -> float:
    """CPU per request (app + PostgreSQL) of a scenario's mix."""
    total = sum(weights.values())
    return sum(w * (figures[k]["cpu_ms"] + figures[k]["pg_ms"]) for k, w in weights.items()) / total


def table(rows: list[dict[str, Any]]) -> str:
    """Each config's figures, the median of the passes; its mixes against the ``base`` of the
    same pass, the median and the range of the passes."""
    passes: dict[int, dict[str, dict[str, Any]]] = {}
    for row in rows:
        passes.setdefault(row["run"], {})[row["config"]] = row
    configs = list(dict.fromkeys(row["config"] for row in rows))
    out = ["| switched off | " + " | ".join(KINDS) + " | mix with push vs base | polling |",
           "|---|" + "---|" * (len(KINDS) + 2)]  # fmt: skip
    for config in configs:
        mine = [p[config] for p in passes.values() if config in p and "base" in p]
        cells = []
        for kind in KINDS:
            ms = [r["figures"][kind]["cpu_ms"] + r["figures"][kind]["pg_ms"] for r in mine]
            cells.append(f"{statistics.median(ms):.2f}")
        for scenario in WEIGHTS:
            change = [r["mix"][scenario] / passes[r["run"]]["base"]["mix"][scenario] - 1
                      for r in mine]  # fmt: skip
            cells.append(f"{statistics.median(change):+.0%} ({min(change):+.0%} to "
                         f"{max(change):+.0%})")  # fmt: skip
        out.append(f"| {config} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=list(OFF), help=", ".join(OFF))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cycles", type=int, default=360)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--out", default="ablation.json", help="append every run's figures here")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a single measuring process
    parser.add_argument("--table", action="store_true", help="print the table of --out")
    args = parser.parse_args()
    if args.table:
        rows = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
        print(table(rows))
        return 0
    if args.one:
        print(json.dumps(measure(args.one, args.cycles, args.tables)))
        return 0
    for run in range(args.runs):
        for config in args.configs:
            done = subprocess.run(
                [sys.executable, __file__, "--one", config, "--cycles", str(args.cycles),
                 "--tables", str(args.tables)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode:
                print(done.stderr[-2000:], file=sys.stderr)
                return 1
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            mix = {name: mixed(figures, weights) for name, weights in WEIGHTS.items()}
            row = {"config": config, "run": run, "load": os.getloadavg()[0], "figures": figures,
                   "mix": mix}  # fmt: skip
            with Path(args.out).open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{config:10} run {run}: load {row['load']:.1f}, mix push {mix['push']:.2f}, "
                  f"poll {mix['poll']:.2f} ms  " + "  ".join(
                      f"{k} {v['cpu_ms']:.2f}+{v['pg_ms']:.2f}" for k, v in figures.items()),
                  flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
