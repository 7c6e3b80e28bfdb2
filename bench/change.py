"""The cost of one change, in one run: today's tree beside its floor and beside a baseline tree.

``make bench-change`` (``python bench/change.py --database-url URL [--base-commit 71a9134]``).
A change is a tap and the drawing it causes: the tap, an HTMX event POST through Django's whole
middleware (the test client, no network), and the viewers' part drawn once for its audience as
a push stream has it drawn (``scoring/push/fragments.py``). The floor of the same work: the
tap's statements sent raw on psycopg (captured from a tap, run in a transaction that is rolled
back), the engine's replay of the game, and a bare view under the same middleware
(``bench/urls.py``). Each side runs in a worker process of its own, on a database of its own
(made and dropped here), with 8 games of 6 players 20 rounds in; the baseline is the commit's
tree (``git archive``, this file copied into it). The batches go A, B, B, A, … so that the
shared machine's noise falls on both; printed: the median per batch of app CPU ms per change
(PostgreSQL's backend's mean beside it) and the mean per batch (``MEANS``), and today's over the
baseline's per batch, with its spread.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))

VERSION = re.compile(rb'data-version="(\d+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')
MEASURES = ("change", "tap", "draw", "pg", "raw", "replay", "bare")
# A batch's changes are knocks, folds and round-ending taps (about a third each), whose costs lie
# apart: its median is a knock's or a fold's; its mean is what the batch cost a change.
MEANS = ("change", "tap", "draw")


# --- the worker: one tree, one database -------------------------------------------------------


def _tables(count: int) -> list[dict]:
    from scoring import access
    from scoring.engine.simulate import random_session
    from scoring.lei.services import session_import
    from scoring.models import Club, Player

    club = Club.objects.create(name="Change", slug=f"change-{time.time():.0f}")
    names = [f"Speler {i}" for i in range(12)]
    for name in names:
        Player.objects.create(club=club, name=name)
    rng = random.Random(46)
    tables = []
    for _ in range(count):
        rules = {"max_points": 1000, "knock_cap": "none"}
        data = random_session(rng, rng.sample(names, 6), rounds=20, rules=rules, extras=False)
        session = session_import(club=club, data=data)
        tables.append(
            {
                "pk": session.pk,
                "token": session.scorer_token,
                "file": session.to_file(),
                "version": session.version,
                "viewer": f"/kijk/{access.viewer_token(session.pk)}/",
            }
        )
    return tables


def _drawing(table: dict, listening):
    """What a push stream server spends on the change for the table's public viewers, on
    either tree: where the tap drew their part (``scoring/lei/drawn.py``), hearing it on the
    ``LISTEN`` connection (``listening``) and handing it on; else drawing it here, as a stream
    server does (``scoring/push/fragments.py``)."""
    from scoring.push import fragments

    if hasattr(fragments.drawings, "delivered"):
        from scoring.push import listener
        from scoring.push.audiences import PUBLIC

        hub = listener.Hub()
        asked = fragments.Ask(table["viewer"], "nl", PUBLIC, (("HTTP_HOST", "testserver"),))

        def forward():
            version = str(table["version"])
            announced = f"lei {table['pk']} {version} "
            for heard in listening.notifies(timeout=2.0):
                hub.dispatch(heard.payload)
                if heard.payload.startswith(announced):
                    break
            part = fragments.drawings.delivered(asked, version)
            if part is None:  # not drawn by the tap: drawn here, as a stream server would
                part = fragments.draw(asked, version)
            return part

        return forward
    if hasattr(fragments, "Ask"):
        from scoring.push.audiences import PUBLIC

        asked = fragments.Ask(table["viewer"], "nl", PUBLIC, (("HTTP_HOST", "testserver"),))
        return lambda: fragments.draw(asked, str(table["version"]))
    meta = {"HTTP_HOST": "testserver"}
    return lambda: fragments.draw(meta, table["viewer"], "nl", "", str(table["version"]))


def _watch(tables: list[dict]) -> None:
    """Each table's viewer part noted as a stream server notes it (where the tree has notes)."""
    try:
        from scoring.lei import watch
    except ImportError:
        return
    for table in tables:
        watch.note(table["pk"], watch.Watched(table["viewer"], "nl", "public"))


def worker(url: str, tables_count: int) -> None:
    from bench import django_env

    django_env.start(url)
    import gzip

    import psycopg
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench.loadgen import Tablet
    from scoring.engine import replay
    from scoring.models import Session

    tables = _tables(tables_count)
    _watch(tables)
    listening = psycopg.connect(url, autocommit=True)
    listening.execute("LISTEN toepen_push")
    clients = []
    for table in tables:
        client = Client(HTTP_ACCEPT_ENCODING="gzip")
        assert client.get(f"/tafel/{table['token']}/").status_code == 302
        clients.append(client)
        table["sheet"] = ""
        table["tablet"] = Tablet(table, "http://testserver", recorder=None)
    raw = psycopg.connect(url)

    def body(response) -> bytes:
        if response.get("Content-Encoding") == "gzip":
            return gzip.decompress(response.content)
        return response.content

    def backend_cpu() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def tap(i: int, step: int, *, taken: bool = True):
        table = tables[i]
        event = table["tablet"].next_event(step)
        form = {
            "type": event["type"],
            "player": event["player"],
            "version": str(table["version"]),
            "key": f"change-{step}-{random.random()}",
            "sheet": table["sheet"],
        }
        response = clients[i].post(
            f"/sessies/{table['pk']}/gebeurtenis/",
            urlencode(form),
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
        )
        answer = body(response)
        if response.status_code != 200 or b'id="refusal"' in answer or b'id="stale"' in answer:
            raise SystemExit(f"tap {step} ({event}) was not recorded: {answer[:300]!r}")
        if not taken:
            return
        table["tablet"]._apply(event)
        table["version"] = int(VERSION.search(answer).group(1))
        found = SHEET.search(answer)
        if found:
            table["sheet"] = found.group(1).decode()

    def cpu(call) -> float:
        start = time.process_time()
        call()
        return (time.process_time() - start) * 1000

    step = 0
    for _ in range(2 * len(tables)):  # warm: every table tapped and drawn twice
        tap(step % len(tables), step)
        _drawing(tables[step % len(tables)], listening)()
        step += 1

    def statements(i: int, step: int) -> list[str]:
        """The statements of the tap about to be made, captured from it made and rolled back."""
        with transaction.atomic():
            with CaptureQueriesContext(connection) as captured:
                tap(i, step, taken=False)
            transaction.set_rollback(True)
        return [q["sql"] for q in captured.captured_queries]

    for line in sys.stdin:
        changes = int(line)
        figures: dict[str, list[float]] = {m: [] for m in MEASURES}
        for _ in range(changes):
            i = step % len(tables)
            sent = statements(i, step)

            def statements_raw(sent: list[str] = sent) -> None:
                with raw.cursor() as cursor:
                    for sql in sent:
                        cursor.execute(sql)
                raw.rollback()

            figures["raw"].append(cpu(statements_raw))
            # Chosen before the clock runs: choosing replays the log (``loadgen._choose``),
            # which the tablet does not do, and counted in the tap it was a second replay.
            tables[i]["tablet"].plan([step])
            pg_before = backend_cpu()
            spent_tap = cpu(lambda i=i, s=step: tap(i, s))
            spent_draw = cpu(_drawing(tables[i], listening))
            figures["pg"].append((backend_cpu() - pg_before) * 1000)
            figures["tap"].append(spent_tap)
            figures["draw"].append(spent_draw)
            figures["change"].append(spent_tap + spent_draw)
            data = Session.objects.get(pk=tables[i]["pk"]).to_file()
            figures["replay"].append(cpu(lambda d=data: replay(d, open_round=True)))
            figures["bare"].append(cpu(lambda c=clients[i]: c.get("/bench/floor/")))
            step += 1
        # PostgreSQL's CPU is read in clock ticks (10 ms): its mean, the others' medians.
        found = {m: statistics.median(v) for m, v in figures.items()}
        found["pg"] = statistics.mean(figures["pg"])
        found.update({f"{m} (mean)": statistics.mean(figures[m]) for m in MEANS})
        print(json.dumps(found), flush=True)


# --- the parent: both trees, interleaved ------------------------------------------------------


def _base_tree(commit: str, into: Path) -> Path:
    from bench.servers import base_tree  # the parent's tree only: the worker may run in the base

    tree = base_tree(commit, into)
    (tree / "bench" / "change.py").write_text(Path(__file__).read_text())
    return tree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--base-commit", default="71a9134")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--changes", type=int, default=40, help="changes per batch")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.database_url, args.tables)
        return 0
    from bench.servers import scratch_database  # the parent's tree only, as _base_tree's

    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-change-") as scratch:
        trees = {
            f"today ({head})": ROOT,
            args.base_commit: _base_tree(args.base_commit, Path(scratch)),
        }
        workers, names = {}, {}
        try:
            for n, (label, tree) in enumerate(trees.items()):
                names[label] = f"bench_change_{os.getpid()}_{n}"
                workers[label] = subprocess.Popen(
                    [sys.executable, "bench/change.py", "--worker", "--tables", str(args.tables),
                     "--database-url", scratch_database(args.database_url, names[label])],
                    cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                    # PUSH=on: streams are served beside the app (bench/load.py's stream runs).
                    env={**os.environ, "PYTHONPATH": str(tree), "PUSH": "on"},
                )  # fmt: skip
            results: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
            labels = list(trees)
            for batch in range(args.batches):
                for label in labels if batch % 2 == 0 else labels[::-1]:
                    process = workers[label]
                    process.stdin.write(f"{args.changes}\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                    if not line:
                        raise SystemExit(f"{label}: the worker stopped")
                    results[label].append(json.loads(line))
                print(f"batch {batch + 1}/{args.batches} done", file=sys.stderr)
        finally:
            for label, process in workers.items():
                process.kill()
                process.wait()
                scratch_database(args.database_url, names[label], drop=True)
    today, base = labels
    load = os.getloadavg()[0]
    print(
        f"\nPer change, app CPU ms (median of {args.batches} batches of {args.changes} changes, "
        f"8 games of 6 players 20 rounds in; load {load:.1f}):"
    )
    print(f"  {'':22} {today:>16} {base:>16}")
    for measure in [*MEASURES, *(f"{m} (mean)" for m in MEANS)]:
        row = [statistics.median(b[measure] for b in results[label]) for label in labels]
        print(f"  {measure:22} {row[0]:16.2f} {row[1]:16.2f}")
    floor = statistics.median(b["raw"] + b["replay"] + b["bare"] for b in results[today])
    for measure in ("change", "change (mean)"):
        ratios = [a[measure] / b[measure] for a, b in zip(*results.values(), strict=True)]
        print(
            f"  today / {base}, {measure}: {statistics.median(ratios):.2f} "
            f"(batches {min(ratios):.2f} to {max(ratios):.2f})"
        )
    print(f"  today's floor {floor:.2f} ms (raw statements + replay + bare view)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
