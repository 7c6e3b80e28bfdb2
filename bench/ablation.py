"""The ablation: what each speed-up saves, in CPU per request, in process.

Run with ``.venv/bin/python bench/ablation.py [--root TREE] [--runs 3] [--cycles N] [CONFIG ...]``
after ``make bench-league`` (the ``toepen_bench`` database of ``bench/league.py``, or
``BENCH_DATABASE_URL``). Each CONFIG is measured in a process of its own on the code of
``--root`` (a git worktree: this one by default, or one of an earlier commit), the configs
interleaved, ``--runs`` times each: ``base`` is the code as it is, every other config switches
one mechanism off the plain Django way (``OFF`` below says how).

Each process makes a few running sessions and goes round them through Django's whole middleware
stack (the test client, no network, no gunicorn): a tap, the poll that draws the new sheet, a
second viewer's poll of it, a poll that is answered 304; every fourth turn an undo; every fifth
the tablet page, the viewer page and the season's standings. Recorded per request type: the
median CPU of this process (``time.process_time``) and the mean CPU of PostgreSQL's backend
for its connection (from ``/proc``, so PostgreSQL must run on this machine). Django's
``close_old_connections`` runs before each request, as a server's request does (the test client
leaves it out), so that a connection's health check is counted.

The mixed scenario's CPU per request weighs these as ``bench/load.py``'s Friday night does
(``WEIGHTS``): 300 tablets recording a round of three taps every 20 s, 3,000 viewers polling
every 3 s.
"""

from __future__ import annotations

import argparse
import gc
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
VERSION = re.compile(rb'data-version="(\d+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')
LABEL = "Ablatie"  # table labels of this benchmark's running sessions (not the load's)

# Requests a second in the Friday-night scenario: 45 taps (300 tablets, 3 taps each 20 s) and
# 1,000 polls (3,000 viewers every 3 s). Of the polls, one per tap and table finds a new version
# and draws it; each table's other 9 viewers find it too, each within 3 s of the tap, about
# half of them before the next tap: a kept sheet. The rest are 304s.
WEIGHTS = {"tap": 45, "poll 200 (draws)": 45, "poll 200 (kept)": 200, "poll 304": 755}

OFF = {
    "base": "every mechanism on (the code as it is)",
    "sessions": "Django's database session engine for toepen_site/sessions.py",
    "templates": "Django's template backend for toepen_site/templates.py",
    "pgrun": "Django's PostgreSQL backend, no health check",
    "pghealth": "Django's PostgreSQL backend with CONN_HEALTH_CHECKS (SELECT 1 per request)",
    "gcfreeze": "no gc.freeze() after start-up",
    "replays": "a full replay of the log (no checkpoints of scoring/replays.py)",
    "escape": "conditional_escape for lei.py's _escape",
    "sharedfields": "a plain dict for EventForm's base_fields (no _SharedFields)",
    "standings": "the standings computed per request (no kept copy)",
    "ormreads": "the ORM's reads of a tap (bench/orm_reads.py) for hotsql.py's",
}


def _own_module(name: str):
    """``bench/<name>.py`` of this script's tree, whatever tree ``--root`` measures."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, HERE / f"bench/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _switch_off(config: str) -> None:
    """Before Django is set up (no connection or template made yet): the settings of
    ``config``."""
    from django.conf import settings

    if config == "sessions":
        settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    elif config == "templates":
        settings.TEMPLATES = [
            {**t, "BACKEND": "django.template.backends.django.DjangoTemplates"}
            for t in settings.TEMPLATES
        ]
    elif config in ("pgrun", "pghealth"):
        db = settings.DATABASES["default"]
        db["ENGINE"] = "django.db.backends.postgresql"
        db["CONN_HEALTH_CHECKS"] = config == "pghealth"


def _patch(config: str) -> None:
    """After Django is set up: the code of ``config``."""
    if config == "replays":
        from scoring import replays
        from scoring.engine import replay

        replays.replay_session = lambda pk, data: replay(data, open_round=True)
    elif config == "escape":
        from django.utils.html import conditional_escape

        from scoring.templatetags import lei

        lei._escape = conditional_escape
    elif config == "sharedfields":
        from scoring.lei.forms import EventForm

        EventForm.base_fields = dict(EventForm.base_fields)
    elif config == "ormreads":
        from scoring.lei import hotsql

        orm = _own_module("orm_reads")
        for name in ("scorer_session", "seats_and_rounds", "lock_and_read"):
            setattr(hotsql, name, getattr(orm, name))
    elif config == "standings":
        from scoring.league import standings_cache

        kept_key = standings_cache.key  # a key no copy has: every request computes the rows
        standings_cache.key = lambda *args, **kwargs: kept_key(*args, **kwargs) + "-not-kept"
        standings_cache.keep = lambda *args, **kwargs: None


def measure(config: str, cycles: int, tables_count: int) -> dict[str, Any]:
    from bench import league

    url = os.environ.get("BENCH_DATABASE_URL", league.DEFAULT_URL)
    # This tree's django_env.py, by its path: the measured --root may be from before it.
    _own_module("django_env").environ(url, CONN_MAX_AGE="900")
    from django.conf import settings

    settings.DATABASES  # noqa: B018 (the settings are read here, before any connection)
    _switch_off(config)
    league._setup(url)
    _patch(config)
    from bench import load

    load.LOAD_LABEL = LABEL
    league.build(rebuild=False, log=lambda m: None)

    from django.db import close_old_connections, connection
    from django.test import Client

    from bench.loadgen import Tablet

    standings_url, _player_url, _n = load.pages()
    tables = load.make_tables(tables_count, lambda m: None)
    for table in tables:
        table["client"] = Client(HTTP_ACCEPT_ENCODING="gzip")
        table["viewers"] = [Client(HTTP_ACCEPT_ENCODING="gzip") for _ in range(2)]
        assert table["client"].get(f"/tafel/{table['token']}/").status_code == 302
        body = table["client"].get(f"/sessies/{table['pk']}/").content
        table["version"] = int(VERSION.search(body).group(1))
        table["sheet"] = SHEET.search(body).group(1).decode()
        table["tablet"] = Tablet(table, "http://testserver", recorder=None)
        first = table["viewers"][0].get(table["viewer"], HTTP_HX_REQUEST="true")
        table["etag"] = first["ETag"]
    if config != "gcfreeze":
        gc.freeze()  # as toepen_site/wsgi.py does once the app is loaded

    def backend_cpu() -> float:
        fields = Path(f"/proc/{connection.connection.info.backend_pid}/stat").read_text()
        fields = fields.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    cpu: dict[str, list[float]] = {}
    pg: dict[str, float] = {}
    warm = 2 * len(tables)

    def timed(kind: str, step: int, call, *args, **kwargs):
        close_old_connections()
        connection.ensure_connection()
        pg_before = backend_cpu()
        start = time.process_time()
        response = call(*args, **kwargs)
        spent = time.process_time() - start
        if step >= warm:
            cpu.setdefault(kind, []).append(spent * 1000)
            pg[kind] = pg.get(kind, 0.0) + (backend_cpu() - pg_before) * 1000
        return response

    def body_of(response) -> bytes:
        if response.get("Content-Encoding") == "gzip":
            return gzip.decompress(response.content)
        return response.content

    def post(table, path: str, form: dict[str, str], kind: str, step: int) -> bytes:
        form = {**form, "version": str(table["version"]), "sheet": table["sheet"],
                "key": f"ablation-{step}-{random.random()}"}  # fmt: skip
        response = timed(kind, step, table["client"].post, path, urlencode(form),
                         content_type="application/x-www-form-urlencoded",
                         HTTP_HX_REQUEST="true")  # fmt: skip
        body = body_of(response)
        if response.status_code != 200 or b'id="refusal"' in body or b'id="stale"' in body:
            raise SystemExit(f"{kind} {step} was not recorded: {body[:300]!r}")
        table["version"] = int(VERSION.search(body).group(1))
        if found := SHEET.search(body):
            table["sheet"] = found.group(1).decode()
        return body

    for step in range(cycles + warm):
        table = tables[step % len(tables)]
        tablet = table["tablet"]
        turn = step // len(tables)
        if turn % 4 == 3:
            post(table, f"/sessies/{table['pk']}/ongedaan/", {}, "undo", step)
            tablet._unapply()
            tablet.planned.clear()
        else:
            event = tablet.next_event(step)
            form = {"type": event["type"], "player": event["player"]}
            if event.get("jack"):
                form["jack"] = "on"
            post(table, f"/sessies/{table['pk']}/gebeurtenis/", form, "tap", step)
            tablet._apply(event)
        stale = table["etag"]
        kinds = ("poll 200 (draws)", "poll 200 (kept)")
        for kind, viewer in zip(kinds, table["viewers"], strict=True):
            response = timed(kind, step, viewer.get, table["viewer"], HTTP_HX_REQUEST="true",
                             HTTP_IF_NONE_MATCH=stale)  # fmt: skip
            assert response.status_code == 200, (kind, response.status_code)
            table["etag"] = response["ETag"]
        response = timed("poll 304", step, table["viewers"][1].get, table["viewer"],
                         HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=table["etag"])  # fmt: skip
        assert response.status_code == 304, response.status_code
        if turn % 5 == 4:
            timed("tablet page", step, table["client"].get, f"/sessies/{table['pk']}/")
            timed("viewer page", step, table["viewers"][0].get, table["viewer"])
            timed("standings page", step, table["client"].get, standings_url)
    load.remove_tables(lambda m: None)
    figures = {
        kind: {"cpu_ms": statistics.median(ms), "pg_ms": pg[kind] / len(ms), "n": len(ms)}
        for kind, ms in cpu.items()
    }
    return figures


def mixed(figures: dict[str, Any]) -> float:
    """CPU per request (app + PostgreSQL) of the scenario's mix."""
    total = sum(WEIGHTS.values())
    return sum(w * (figures[k]["cpu_ms"] + figures[k]["pg_ms"]) for k, w in WEIGHTS.items()) / total


KINDS = ["tap", "undo", "poll 304", "poll 200 (draws)", "poll 200 (kept)", "tablet page",
         "viewer page", "standings page"]  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    """The ablation table of a file of runs: each config's figures next to its code's ``base``
    of the same pass (the ``base`` row that came before it), as the median of the passes."""
    passes: list[dict[tuple[str, str], dict[str, Any]]] = []
    for row in rows:
        if row["config"] == "base" and (not passes or (row["code"], "base") in passes[-1]):
            passes.append({})
        passes[-1][(row["code"], row["config"])] = row
    keys = list(dict.fromkeys(k for p in passes for k in p))

    def cell(key: tuple[str, str], kind: str) -> str:
        ms = [p[key]["figures"][kind]["cpu_ms"] + p[key]["figures"][kind]["pg_ms"]
              for p in passes if key in p and kind in p[key]["figures"]]  # fmt: skip
        return f"{statistics.median(ms):.2f}" if ms else ""

    out = ["| switched off | " + " | ".join(KINDS) + " | mix, ms (runs) | mix vs base |",
           "|---|" + "---|" * (len(KINDS) + 2)]  # fmt: skip
    for key in keys:
        mixes = [p[key]["mixed_ms"] for p in passes if key in p]
        change = [p[key]["mixed_ms"] / p[("base", "base")]["mixed_ms"] - 1
                  for p in passes if key in p and ("base", "base") in p]  # fmt: skip
        name = key[1] if key[0] == "base" else f"{key[0]} (the code after the removals)"
        out.append(
            f"| {name} | " + " | ".join(cell(key, k) for k in KINDS)
            + f" | {statistics.median(mixes):.3f} ({', '.join(f'{m:.2f}' for m in mixes)})"
            + f" | {statistics.median(change):+.0%} ({min(change):+.0%} to {max(change):+.0%}) |"
        )  # fmt: skip
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=["base"], help=", ".join(OFF))
    parser.add_argument("--root", default=str(HERE), help="the code measured (a worktree)")
    parser.add_argument("--label", help="name of this code in the output (default: the root)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cycles", type=int, default=240)
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
        sys.path.insert(0, args.root)
        os.chdir(args.root)
        print(json.dumps(measure(args.one, args.cycles, args.tables)))
        return 0
    out = Path(args.out)
    for run in range(args.runs):
        for config in args.configs:
            done = subprocess.run(
                [sys.executable, __file__, "--one", config, "--root", args.root,
                 "--cycles", str(args.cycles), "--tables", str(args.tables)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode:
                print(done.stderr[-2000:], file=sys.stderr)
                continue
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            row = {"code": args.label or args.root, "config": config, "run": run,
                   "figures": figures, "mixed_ms": mixed(figures)}  # fmt: skip
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{row['code']:10} {config:12} run {run}: mixed {row['mixed_ms']:.3f} ms  "
                  + "  ".join(f"{k} {v['cpu_ms']:.2f}+{v['pg_ms']:.2f}"
                              for k, v in figures.items()), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
