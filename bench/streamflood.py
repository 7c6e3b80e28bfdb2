"""Streams that cost the same whoever asks (issue 45 item 2), today beside a baseline tree in
one run: one client floods a table's viewer with streams that differ only in a made-up query
(``?n=1`` …) or ``sessionid`` cookie, and a viewer of another table waits for its change.

``python bench/streamflood.py --database-url URL [--streams 300] [--changes 5]``: each tree
(today's, and ``--base-commit``'s ``git archive``) is served by one uvicorn on a database of its
own (made and dropped here, ``DEBUG`` on as in tests/push/test_push.py, so no collectstatic).
Per change: table A is tapped (the flood's table), then table B at once; printed per tree, the
median over the changes of the delay from B's tap answered to B's viewer holding its event,
of the time until every flood stream held A's event, and of the server's CPU seconds per change
(both taps and every drawing they caused), and how many of the flood's streams were refused
(the bound per client: all come from one address). The trees take turns, change by change.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.servers import (  # noqa: E402
    base_tree,
    cpu_seconds,
    free_port,
    scratch_database,
    wait_for,
)
from bench.stream_viewers import raw_stream  # noqa: E402

SETUP = """
import json
from scoring import access
from scoring.lei import services
from scoring.models import Club
club = Club.objects.create(name="Vloed", slug="vloed")
tables = [services.session_start(club=club, players=["Anne", "Bas", "Cees", "Dirk"])
          for _ in range(2)]
print(json.dumps([{"pk": s.pk, "scorer": s.scorer_token,
                   "viewer": access.viewer_token(s.pk, getattr(s, "viewer_key", "") or "")}
                  for s in tables]))
"""
FLOODER, VIEWER = "203.0.113.66", "198.51.100.7"  # one client floods, another watches
VERSION = re.compile(rb'data-version="(\d+)"')
CSRF = re.compile(rb'"X-CSRFToken": "([^"]+)"')


class Recorder:
    """What ``raw_stream`` reports: a refusal's status is kept, not printed."""

    def __init__(self) -> None:
        self.refused = ""

    def error(self, kind: str, what: str) -> None:
        self.refused = what

    def ok(self, kind: str, ms: float) -> None:
        pass


class Tree:
    def __init__(self, label: str, tree: Path, url: str, port: int) -> None:
        self.label, self.tree, self.port = label, tree, port
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
            "DEBUG": "true",
            "SECRET_KEY": "flood-" + "k" * 40,
            "PYTHONPATH": str(tree),
            "DATABASE_URL": url,
            "TAP_LIMIT_PER_MINUTE": "0",
            "DJANGO_SETTINGS_MODULE": "toepen_site.settings",
            "LOG_LEVEL": "WARNING",
            "TRUSTED_PROXY_COUNT": "1",  # the clients by X-Forwarded-For, as nginx writes it
        }
        self.manage("migrate", "--noinput", "-v0")
        self.tables = json.loads(self.manage("shell", "-c", SETUP).strip().splitlines()[-1])
        uvicorn = Path(sys.executable).parent / "uvicorn"
        self.process = subprocess.Popen(
            [uvicorn, "toepen_site.asgi:application", "--port", str(port), "--log-level", "error",
             "--limit-concurrency", "5000"],
            cwd=tree, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.base = f"http://127.0.0.1:{port}"
        wait_for(self.base + "/", self.process)
        self.clients = []
        for table in self.tables:
            client = httpx.Client(base_url=self.base, timeout=60)
            assert client.get(f"/tafel/{table['scorer']}/").status_code == 302
            page = client.get(f"/sessies/{table['pk']}/")
            table["csrf"] = CSRF.search(page.content).group(1).decode()
            table["version"] = int(VERSION.search(page.content).group(1))
            self.clients.append(client)

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.tree, env=self.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"{self.label}: manage.py {args[0]}: {done.stderr[-2000:]}")
        return done.stdout

    def tap(self, n: int) -> int:
        """Bas knocks at table ``n``, or his knock is undone: the new version."""
        table, client = self.tables[n], self.clients[n]
        pk = table["pk"]
        for path, form in (
            (f"/sessies/{pk}/gebeurtenis/", {"type": "knock", "player": "Bas"}),
            (f"/sessies/{pk}/ongedaan/", {}),
        ):
            form = {**form, "version": str(table["version"]), "key": f"f-{time.time()}"}
            answer = client.post(
                path,
                content=urlencode(form),
                headers={
                    "HX-Request": "true",
                    "X-CSRFToken": table["csrf"],
                    "Content-Type": "application/x-www-form-urlencoded",
                },
            )
            found = VERSION.search(answer.content)
            if answer.status_code == 200 and found and int(found.group(1)) == table["version"] + 1:
                table["version"] += 1
                return table["version"]
        raise SystemExit(f"{self.label}: no tap was taken at table {n}")

    def stop(self) -> None:
        for client in self.clients:
            client.close()
        self.process.kill()
        self.process.wait()


class Held:
    """A stream read until cancelled: the versions it holds, each with when it came; ``refused``
    the status it was refused with (the bound per client: 429)."""

    def __init__(self) -> None:
        self.came: dict[int, float] = {}
        self.changed = asyncio.Event()
        self.ended = False
        self.refused = ""

    async def hold(self, port: int, path: str, headers: dict[str, str]) -> None:
        recorder = Recorder()
        try:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError, ValueError):
                async for event in raw_stream("127.0.0.1", port, path, headers, recorder):
                    if (event["id"] or "").isdigit():
                        self.came[int(event["id"])] = time.perf_counter()
                        self.changed.set()
        finally:
            self.refused = recorder.refused
            self.ended = True
            self.changed.set()

    async def until(self, version: int, timeout: float) -> float:
        """When ``version`` came; 0 for a stream that ended without it (refused)."""
        deadline = time.perf_counter() + timeout
        while version not in self.came:
            if self.ended:
                return 0.0
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                return float("inf")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return self.came[version]


def _stream_path(viewer: str, n: int | None = None) -> str:
    part = f"/kijk/{viewer}/" + (f"?n={n}" if n is not None else "")
    return "/stroom/?" + urlencode({"deel": part})


async def run(trees: list[Tree], streams: int, changes: int) -> dict[str, dict[str, list]]:
    tasks, floods, watchers = [], {}, {}
    for tree in trees:
        a, b = (t["viewer"] for t in tree.tables)
        floods[tree.label] = [Held() for _ in range(streams)]
        for n, held in enumerate(floods[tree.label]):
            path = _stream_path(a, n if n % 2 == 0 else None)
            headers = {"X-Forwarded-For": FLOODER}
            if n % 2:
                headers["Cookie"] = f"sessionid=nep-{n}"
            tasks.append(asyncio.create_task(held.hold(tree.port, path, headers)))
        watchers[tree.label] = Held()
        other = {"X-Forwarded-For": VIEWER}
        tasks.append(
            asyncio.create_task(watchers[tree.label].hold(tree.port, _stream_path(b), other))
        )
    for tree in trees:  # every stream open and holding the version it was opened at
        await watchers[tree.label].until(tree.tables[1]["version"], 300)
        for held in floods[tree.label]:
            await held.until(tree.tables[0]["version"], 300)
    refused = {t.label: sum(1 for h in floods[t.label] if h.refused) for t in trees}
    found: dict[str, dict[str, list]] = {
        t.label: {"other": [], "flood": [], "cpu": []} for t in trees
    }
    loop = asyncio.get_running_loop()
    for change in range(changes):
        for tree in trees if change % 2 == 0 else trees[::-1]:
            cpu = cpu_seconds(tree.process.pid)
            start = time.perf_counter()
            version_a = await loop.run_in_executor(None, tree.tap, 0)
            version_b = await loop.run_in_executor(None, tree.tap, 1)
            answered = time.perf_counter()
            other = await watchers[tree.label].until(version_b, 120)
            last = max([await h.until(version_a, 300) for h in floods[tree.label]])
            found[tree.label]["other"].append(other - answered)
            found[tree.label]["flood"].append(last - start)
            found[tree.label]["cpu"].append(cpu_seconds(tree.process.pid) - cpu)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for label, count in refused.items():
        found[label]["refused"] = [count]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--base-commit", default="71a9134")
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--changes", type=int, default=5)
    args = parser.parse_args()
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as scratch:
        base = base_tree(args.base_commit, Path(scratch))
        trees, names = [], []
        try:
            for n, (label, tree) in enumerate(
                [(f"today ({head})", ROOT), (args.base_commit, base)]
            ):
                names.append(f"bench_flood_{os.getpid()}_{n}")
                url = scratch_database(args.database_url, names[-1])
                trees.append(Tree(label, tree, url, free_port()))
            found = asyncio.run(run(trees, args.streams, args.changes))
        finally:
            for tree in trees:
                tree.stop()
            for name in names:
                scratch_database(args.database_url, name, drop=True)
    print(
        f"\n{args.streams} streams on table A (half ?n=…, half made-up cookies), one viewer of "
        f"table B; {args.changes} changes each; medians (load {os.getloadavg()[0]:.1f}):"
    )
    print(
        f"  {'':16} {'B viewer late s':>16} {'all of A s':>12} {'server CPU s/change':>20}"
        f" {'refused':>8}"
    )
    for label, figures in found.items():
        other, flood, cpu = (statistics.median(figures[k]) for k in ("other", "flood", "cpu"))
        print(f"  {label:16} {other:16.3f} {flood:12.3f} {cpu:20.3f} {figures['refused'][0]:8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
