"""The servers for push, side by side on loopback (README, "Production"; BENCHMARKS.md, "Push").

For each server, on one PostgreSQL database and with two workers: a viewer's whole page and a
tablet's tap (an event, then its undo), one after another from a few clients; then, under the
ASGI servers, ``--streams`` open streams of one table's viewer part, a number of taps, and for
each tap the delay from its answer to its version at every stream (and any version a stream did
not get). CPU is the server's processes' own (utime + stime), per request.

    .venv/bin/python bench/streams.py --database-url postgres://postgres@127.0.0.1:5432/toepen_bench

Not part of ``make test``; a few minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import _env, collect_static
from bench.servers import children, cpu_seconds, wait_for
from bench.stream_viewers import sse_events

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
VERSION = re.compile(rb'data-version="(\d+)"')
CSRF = re.compile(rb'"X-CSRFToken": "([^"]+)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')

SETUP = """
from scoring import access
from scoring.lei import services
from scoring.models import Club
club, _ = Club.objects.get_or_create(slug="stroom", defaults={"name": "Stroom"})
s = services.session_start(club=club, players=["Anne", "Bas", "Cees", "Dirk"])
print(s.pk, s.scorer_token, access.viewer_token(s.pk, s.viewer_key or ""))
"""

SERVERS = {
    "gunicorn sync (WSGI)": lambda port: [
        BIN / "gunicorn", "toepen_site.wsgi:application", f"--bind=127.0.0.1:{port}",
        "--workers=2", "--worker-class=sync", "--log-level=warning"],
    "gunicorn + uvicorn-worker (ASGI)": lambda port: [
        BIN / "gunicorn", "toepen_site.asgi:application", f"--bind=127.0.0.1:{port}",
        "--workers=2", "--worker-class=uvicorn_worker.UvicornWorker", "--log-level=warning"],
    "granian (ASGI)": lambda port: [
        BIN / "granian", "--interface=asgi", "--host=127.0.0.1", f"--port={port}",
        "--workers=2", "--log-level=warning", "toepen_site.asgi:application"],
}  # fmt: skip


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def app_cpu(pid: int) -> float:
    return sum(cpu_seconds(p) for p in [pid, *children(pid)])


async def tablet(base: str, pk: int, token: str) -> tuple[httpx.AsyncClient, dict[str, str]]:
    client = httpx.AsyncClient(base_url=base, timeout=30)
    await client.get(f"/tafel/{token}/")
    page = await client.get(f"/sessies/{pk}/")
    state = {
        "csrf": CSRF.search(page.content).group(1).decode(),
        "version": VERSION.search(page.content).group(1).decode(),
        "sheet": (SHEET.search(page.content) or [b"", b""])[1].decode(),
    }
    return client, state


async def tap(client: httpx.AsyncClient, pk: int, state: dict[str, str], n: int) -> float:
    """One tap: Bas knocks on even ``n``, undone on odd; the time of its answer (ms)."""
    path, form = (
        (f"/sessies/{pk}/gebeurtenis/", {"type": "knock", "player": "Bas"})
        if n % 2 == 0
        else (f"/sessies/{pk}/ongedaan/", {})
    )
    form = {**form, "version": state["version"], "key": f"s-{pk}-{n}", "sheet": state["sheet"]}
    start = time.perf_counter()
    response = await client.post(
        path, data=form, headers={"HX-Request": "true", "X-CSRFToken": state["csrf"]}
    )
    ms = (time.perf_counter() - start) * 1000
    found = VERSION.search(response.content)
    assert response.status_code == 200, (response.status_code, response.text[:300])
    assert found, response.text[:300]
    state["version"] = found.group(1).decode()
    sheet = SHEET.search(response.content)
    if sheet:
        state["sheet"] = sheet.group(1).decode()
    return ms


async def pages(base: str, path: str, count: int, clients: int) -> list[float]:
    times: list[float] = []

    async def one(client: httpx.AsyncClient, n: int) -> None:
        for _ in range(n):
            start = time.perf_counter()
            response = await client.get(path)
            assert response.status_code == 200, response.status_code
            times.append((time.perf_counter() - start) * 1000)

    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        await asyncio.gather(*(one(client, count // clients) for _ in range(clients)))
    return times


async def streams(base: str, viewer: str, pk: int, token: str, count: int, taps: int) -> dict:
    """``count`` streams of the viewer part; ``taps`` taps; each version's delay at each stream."""
    got: list[dict[str, float]] = [{} for _ in range(count)]
    ready = asyncio.Event()
    opened = 0

    async def hold(i: int, client: httpx.AsyncClient) -> None:
        nonlocal opened
        url = f"/stroom/?deel=/kijk/{viewer}/"
        async with client.stream("GET", url, headers={"Last-Event-ID": "0"}) as response:
            assert response.status_code == 200, response.status_code
            async for event in sse_events(response.aiter_lines()):
                if event["event"] == "hello":
                    opened += 1
                    if opened == count:
                        ready.set()
                elif event["id"]:
                    got[i][event["id"]] = time.perf_counter()

    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    timeout = httpx.Timeout(60, read=None)  # a stream is quiet between changes
    async with httpx.AsyncClient(base_url=base, timeout=timeout, limits=limits) as client:
        holders = [asyncio.create_task(hold(i, client)) for i in range(count)]
        await asyncio.wait_for(ready.wait(), 60)
        await asyncio.sleep(0.5)
        for g in got:
            g.clear()  # the version they opened on
        tclient, state = await tablet(base, pk, token)
        answered: dict[str, float] = {}
        tap_ms = []
        for n in range(taps):
            tap_ms.append(await tap(tclient, pk, state, 1000 + n))
            answered[state["version"]] = time.perf_counter()
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)
        for h in holders:
            h.cancel()
        await asyncio.gather(*holders, return_exceptions=True)
        await tclient.aclose()
    delays = [(g[v] - t) * 1000 for g in got for v, t in answered.items() if v in g]
    lost = sum(1 for g in got for v in answered if v not in g)
    return {"delay_p50": pct(delays, 50), "delay_p95": pct(delays, 95), "lost": lost,
            "tap_p50": pct(tap_ms, 50)}  # fmt: skip


async def measure(name: str, base: str, pid: int, ids: tuple[int, str, str], args) -> dict:
    pk, token, viewer = ids
    await pages(base, f"/kijk/{viewer}/", 40, 4)  # warm: connections, templates
    before = app_cpu(pid)
    page_ms = await pages(base, f"/kijk/{viewer}/", args.requests, 4)
    page_cpu = (app_cpu(pid) - before) / len(page_ms) * 1000
    client, state = await tablet(base, pk, token)
    for n in range(10):
        await tap(client, pk, state, n)
    before = app_cpu(pid)
    tap_ms = [await tap(client, pk, state, 10 + n) for n in range(args.taps)]
    tap_cpu = (app_cpu(pid) - before) / len(tap_ms) * 1000
    await client.aclose()
    row = {"server": name, "page_p50": pct(page_ms, 50), "page_p95": pct(page_ms, 95),
           "page_cpu_ms": page_cpu, "tap_p50": pct(tap_ms, 50), "tap_p95": pct(tap_ms, 95),
           "tap_cpu_ms": tap_cpu}  # fmt: skip
    if "ASGI" in name and args.streams:
        row.update(await streams(base, viewer, pk, token, args.streams, 20))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--taps", type=int, default=100)
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--port", type=int, default=8761)
    args = parser.parse_args()
    env = {**_env(args.database_url), "DJANGO_SETTINGS_MODULE": "toepen_site.settings",
           "TAP_LIMIT_PER_MINUTE": "0", "CONN_MAX_AGE": "900"}  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    collect_static(env)
    rows = []
    for name, command in SERVERS.items():
        out = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SETUP],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        pk, token, viewer = out.stdout.split()[-3:]
        log = open(ROOT / f".streams-{args.port}.log", "w")  # noqa: SIM115
        process = subprocess.Popen(
            command(args.port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            wait_for(f"http://127.0.0.1:{args.port}/", process)
            base = f"http://127.0.0.1:{args.port}"
            rows.append(
                asyncio.run(measure(name, base, process.pid, (int(pk), token, viewer), args))
            )
            print(rows[-1], flush=True)
        finally:
            process.terminate()
            process.wait(timeout=20)
            log.close()
    keys = ["page_p50", "page_p95", "page_cpu_ms", "tap_p50", "tap_p95", "tap_cpu_ms",
            "delay_p50", "delay_p95", "lost"]  # fmt: skip
    print("| server | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for row in rows:
        cells = [f"{row[k]:.1f}" if isinstance(row.get(k), float) else str(row.get(k, "-"))
                 for k in keys]  # fmt: skip
        print(f"| {row['server']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
