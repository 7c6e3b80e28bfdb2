"""The CPU of each request type of the Friday-night scenario, in process, for comparing two
versions of the code: a tap, a viewer's poll answered 304, or drawn for a new version.

Run from the root of the tree to measure, with a PostgreSQL database of its own (migrated
here; its schema must be that tree's): ``python bench/percost.py --database-url URL``. It works
on older commits too (it reads only what ``bench/loadgen.py``'s ``Tablet`` and the services
have had since then), so a commit extracted with ``git archive`` is measured by copying this
file and ``bench/django_env.py`` into its ``bench/``. Every request goes through Django's whole
middleware stack (the test client, no network, no gunicorn), as the scenario sends it: a tap
is an HTMX event POST with the sheet the tablet shows; a poll is an anonymous HTMX GET with
If-None-Match and gzip.
Printed: the median CPU of the request in this process and of PostgreSQL's backend, per type,
and the scenario's mix of them (``MIX``: the shares of the mixed run in BENCHMARKS.md).
``--profile KIND`` prints cProfile's view of one type.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import os
import pstats
import random
import re
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))

VERSION = re.compile(rb'data-version="(\d+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')
# The mixed run's requests (BENCHMARKS.md, "Mixed scenario"): 5,400 taps; 30,293 changed polls,
# of which one per version and table is the table's first viewer (5,400) and the rest the
# others (each draws the version again: no copy is kept between viewers); 96,851 unchanged polls.
MIX = {"tap": 5400, "poll drawn": 5400, "poll again": 24893, "poll 304": 96851}
# Measured besides, not in the mix: a push stream's drawing of the viewer's part for a new
# version (scoring/push/fragments.py: the part's own URL through the whole of Django), once per
# change and audience whatever the number of streams.
EXTRA = ("push draw",)


def post_tap(client, table: dict, event: dict, key: str):
    """A tap as htmx sends it: form-encoded (the test client's default, multipart, costs Django
    more to parse), with the version and the sheet the tablet shows."""
    form = {
        "type": event["type"],
        "player": event["player"],
        "version": str(table["version"]),
        "key": key,
        "sheet": table["sheet"],
    }
    return client.post(
        f"/sessies/{table['pk']}/gebeurtenis/",
        urlencode(form),
        content_type="application/x-www-form-urlencoded",
        HTTP_HX_REQUEST="true",
    )


def content(response) -> bytes:
    """The body as the page means it: the client asks for gzip, as a browser does."""
    if response.get("Content-Encoding") == "gzip":
        return gzip.decompress(response.content)
    return response.content


def tap_taken(table: dict, event: dict, response, step: int) -> None:
    """Stop unless the tap was recorded; else move the table's tablet, version and sheet on."""
    body = content(response)
    if response.status_code != 200 or b'id="refusal"' in body or b'id="stale"' in body:
        raise SystemExit(f"tap {step} ({event}) was not recorded: {body[:300]!r}")
    table["tablet"]._apply(event)
    table["version"] = int(VERSION.search(body).group(1))
    found = SHEET.search(body)
    if found:
        table["sheet"] = found.group(1).decode()


def _setup(url: str) -> None:
    from bench import django_env

    django_env.start(url)


def _tables(count: int) -> list[dict]:
    from scoring import access
    from scoring.engine.simulate import random_session
    from scoring.models import Club, Player

    try:
        from scoring.lei.services import session_import
    except ImportError:  # before the rooms
        from scoring.services import session_import
    stamp = f"{time.time():.0f}"
    club = Club.objects.create(name=f"Percost {stamp}", slug=f"percost-{stamp}")
    names = [f"Speler {i}" for i in range(12)]
    for name in names:
        Player.objects.create(club=club, name=name)
    rng = random.Random(1606)
    tables = []
    for _ in range(count):
        data = random_session(
            rng,
            rng.sample(names, 4),
            rounds=12,
            rules={"max_points": 1000, "knock_cap": "none"},
            extras=False,
        )
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--taps", type=int, default=400)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--label", default=Path.cwd().name)
    parser.add_argument("--profile", metavar="KIND", choices=sorted((*MIX, *EXTRA)))
    args = parser.parse_args()
    _setup(args.database_url)

    from django.db import connection
    from django.test import Client

    from bench.loadgen import Tablet

    tables = _tables(args.tables)
    tablets, viewers = [], []
    for table in tables:
        client = Client(HTTP_ACCEPT_ENCODING="gzip")
        assert client.get(f"/tafel/{table['token']}/").status_code == 302
        body = content(client.get(f"/sessies/{table['pk']}/"))
        table["version"] = int(VERSION.search(body).group(1))
        found = SHEET.search(body)
        table["sheet"] = found.group(1).decode() if found else ""
        table["tablet"] = Tablet(table, "http://testserver", recorder=None)
        tablets.append(client)
        # Two phones per table: the first and the second viewer of each version.
        viewers.append([Client(HTTP_ACCEPT_ENCODING="gzip"), Client(HTTP_ACCEPT_ENCODING="gzip")])
    etags: dict[tuple[int, int], str] = {}
    try:
        from scoring.push import fragments
    except ImportError:  # before push
        fragments = None

    def backend_cpu() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    profile = cProfile.Profile(time.process_time) if args.profile else None
    kinds = (*MIX, *EXTRA)
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    pg: dict[str, float] = dict.fromkeys(kinds, 0.0)
    warm = 2 * len(tables)

    profiled = args.profile

    def timed(kind: str, measured: bool, call, *args, **kwargs):
        profiling = profile is not None and measured and kind == profiled
        pg_before = backend_cpu() if measured else 0.0
        if profiling:
            profile.enable()
        start = time.process_time()
        response = call(*args, **kwargs)
        spent = time.process_time() - start
        if profiling:
            profile.disable()
        if measured:
            cpu[kind].append(spent * 1000)
            pg[kind] += backend_cpu() - pg_before
        return response

    for step in range(args.taps + warm):
        measured = step >= warm
        i = step % len(tables)
        table, client = tables[i], tablets[i]
        event = table["tablet"].next_event(step)
        key = f"percost-{step}-{random.random()}"
        response = timed("tap", measured, post_tap, client, table, event, key)
        tap_taken(table, event, response, step)
        # The table's phones: each polls with the ETag of the version it last saw.
        for kind, phone in zip(("poll drawn", "poll again"), viewers[i], strict=True):
            seen = etags.get((i, id(phone)), "")
            answer = timed(
                kind,
                measured,
                phone.get,
                table["viewer"],
                HTTP_HX_REQUEST="true",
                HTTP_IF_NONE_MATCH=seen,
            )
            assert answer.status_code == 200, (kind, answer.status_code)
            etags[(i, id(phone))] = answer["ETag"]
        for phone in viewers[i]:  # and once more, nothing changed since
            answer = timed(
                "poll 304",
                measured,
                phone.get,
                table["viewer"],
                HTTP_HX_REQUEST="true",
                HTTP_IF_NONE_MATCH=etags[(i, id(phone))],
            )
            assert answer.status_code == 304, answer.status_code
        if fragments is not None:  # a push stream's drawing of this version, for the anonymous
            # In English, a language no poll here asks in: drawn, never another's kept copy.
            if hasattr(fragments, "Ask"):  # since the audiences (scoring/push/audiences.py)
                from scoring.push.audiences import PUBLIC

                asked = fragments.Ask(table["viewer"], "en", PUBLIC, (("HTTP_HOST", "testserver"),))
                drawn_with = (asked, str(table["version"]))
            else:
                drawn_with = (
                    {"HTTP_HOST": "testserver"},
                    table["viewer"],
                    "en",
                    "",
                    str(table["version"]),
                )
            part = timed("push draw", measured, fragments.draw, *drawn_with)
            assert part.status == 200, part.status

    print(f"\n{args.label}: {args.taps} taps on {len(tables)} tables; CPU ms per request")
    print(f"  {'request':11} {'median':>7} {'mean':>7} {'PostgreSQL':>10}")
    weighted = weighted_pg = 0.0
    for kind, figures in cpu.items():
        if not figures:
            continue
        if kind not in MIX:
            mean, pg_mean = statistics.mean(figures), 1000 * pg[kind] / len(figures)
            print(f"  {kind:11} {statistics.median(figures):7.3f} {mean:7.3f} {pg_mean:10.3f}")
            continue
        mean, pg_mean = statistics.mean(figures), 1000 * pg[kind] / len(figures)
        weighted += mean * MIX[kind]
        weighted_pg += pg_mean * MIX[kind]
        print(f"  {kind:11} {statistics.median(figures):7.3f} {mean:7.3f} {pg_mean:10.3f}")
    total = sum(MIX.values())
    print(f"  the scenario's mix: {weighted / total:.3f} ms app, {weighted_pg / total:.3f} ms PG")
    if profile is not None:
        pstats.Stats(profile).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(45)
    return 0


if __name__ == "__main__":
    sys.exit(main())
