"""Long sessions: what a tap's answer and a viewer's fragment weigh and cost at 10, 300 and
1,200 rounds.

Run with ``.venv/bin/python bench/longsess.py [--database-url URL] [--rounds 10 300 1200]``
(default ``DATABASE_URL``, else SQLite in a temporary file; the database is migrated and a club
of its own is added). Each session is imported whole (``services.session_import``), running,
with six players; then, in process through Django's whole middleware stack (the test client, no
network), a tablet alternates a round-ending tap ("laatste slag", the whole ``#live`` answer:
panel, totals and sheet) with an undo (the whole ``#live`` again), and after each a viewer draws
the new version's fragment (HTMX, gzip accepted: the first draw of a version, not the kept
copy). Printed per size: the median and largest answer, raw and gzip, the median wall and CPU
time of the request in this process, and the queries of a tap.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VERSION = re.compile(rb'data-version="(\d+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')
PLAYERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur"]


def _setup(url: str | None) -> None:
    if url is None:
        url = "sqlite:///" + str(Path(tempfile.mkdtemp()) / "longsess.sqlite3")
    from bench import django_env

    django_env.start(url)


def _session(club, rounds: int):
    from scoring.engine.simulate import random_session
    from scoring.lei import services

    # Few knocks and max_points at its bound: 1,200 rounds before anybody is out.
    data = random_session(
        random.Random(rounds),
        PLAYERS,
        rounds=rounds,
        rules={"max_points": 1000, "knock_cap": "none"},
        knock_chance=0.05,
        extras=False,
    )
    assert len(data["rounds"]) == rounds, "the session finished early"
    return services.session_import(club=club, data=data)


def _body(response) -> bytes:
    body = response.content
    return gzip.decompress(body) if response.get("Content-Encoding") == "gzip" else body


def measure(client, session, viewer_url: str, repeat: int) -> dict[str, list[float]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.engine import replay
    from scoring.lei.tablet import load_lei

    page = client.get(f"/sessies/{session.pk}/")
    assert page.status_code == 200, page.status_code
    html = _body(page)
    version = int(VERSION.search(html).group(1))
    sheet = SHEET.search(html).group(1).decode()
    figures: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    for step in range(repeat):
        lei = load_lei(session)
        if step % 2 == 0:
            winner = next(n for n, why in ((p.name, p.win) for p in lei.players) if why is None)
            url = f"/sessies/{session.pk}/gebeurtenis/"
            form = {"type": "win", "player": winner}
        else:
            url = f"/sessies/{session.pk}/ongedaan/"
            form = {}
        form.update(version=str(version), key=f"longsess-{step}-{random.random()}", sheet=sheet)
        wall, cpu = time.perf_counter(), time.process_time()
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                url,
                urlencode(form),
                content_type="application/x-www-form-urlencoded",
                HTTP_HX_REQUEST="true",
                HTTP_ACCEPT_ENCODING="gzip",
            )
        add("tap wall ms", (time.perf_counter() - wall) * 1000)
        add("tap cpu ms", (time.process_time() - cpu) * 1000)
        add("tap queries", len(queries))
        body = _body(response)
        assert response["X-Lei-Outcome"] == "recorded", body[:300]
        add("tap KB", len(body) / 1000)
        add("tap gzip KB", len(gzip.compress(body)) / 1000)
        version = int(response["X-Lei-Version"])
        found = SHEET.search(body)
        sheet = found.group(1).decode() if found else sheet

        wall, cpu = time.perf_counter(), time.process_time()
        poll = client.get(viewer_url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip")
        add("viewer wall ms", (time.perf_counter() - wall) * 1000)
        add("viewer cpu ms", (time.process_time() - cpu) * 1000)
        assert poll.status_code == 200, poll.status_code
        raw = _body(poll)
        add("viewer KB", len(raw) / 1000)
        add("viewer gzip KB", len(gzip.compress(raw)) / 1000)

    data = load_lei(session).data
    start = time.perf_counter()
    for _ in range(5):
        replay(data, open_round=True)
    figures["replay ms"] = [(time.perf_counter() - start) * 1000 / 5]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--rounds", type=int, nargs="+", default=[10, 300, 1200])
    parser.add_argument("--repeat", type=int, default=10, help="taps per size (even)")
    parser.add_argument("--label", default="", help="printed before each line")
    args = parser.parse_args()
    _setup(args.database_url)

    from django.contrib.auth import get_user_model
    from django.test import Client

    from scoring import access
    from scoring.models import Club

    stamp = f"{time.time():.0f}"
    club = Club.objects.create(name=f"Lange lei {stamp}", slug=f"lange-lei-{stamp}")
    user = get_user_model().objects.create_superuser(f"longsess-{stamp}")
    client = Client()
    client.force_login(user)
    print(
        f"{'':10} {'rounds':>6} | tap: KB gzip-KB wall-ms cpu-ms queries"
        " | viewer: KB gzip-KB wall-ms cpu-ms | replay ms"
    )
    for rounds in args.rounds:
        session = _session(club, rounds)
        viewer_url = f"/kijk/{access.viewer_token(session.pk)}/"
        f = measure(client, session, viewer_url, args.repeat)
        med = {k: statistics.median(v) for k, v in f.items()}
        print(
            f"{args.label:10} {rounds:>6} | "
            f"{max(f['tap KB']):7.1f} {max(f['tap gzip KB']):6.1f} {med['tap wall ms']:7.1f}"
            f" {med['tap cpu ms']:7.1f} {max(f['tap queries']):3.0f}-{min(f['tap queries']):.0f} | "
            f"{max(f['viewer KB']):7.1f} {max(f['viewer gzip KB']):6.1f}"
            f" {med['viewer wall ms']:7.1f} {med['viewer cpu ms']:7.1f} | {med['replay ms']:6.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
