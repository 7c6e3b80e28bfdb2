"""The load generator of ``bench/load.py``: an asyncio client (httpx) in a process of its own.

It knows nothing of Django. ``bench/load.py`` writes a spec (JSON: the base URL, the tablets
with their scorer links and event logs, the viewer links, the pages) and runs
``python bench/loadgen.py SPEC OUT PHASE``; the figures go to OUT as JSON. The viewers' polls and
the tablets' taps of the mixed scenario go through ``bench/rawhttp.py`` (see there why); the
per-request phase keeps httpx for every request type, its floor included. Every event a
tablet posts is chosen by the engine (``scoring.engine``, pure Python) from the log it has
recorded so far, so every event is valid and a refusal or a stale answer is an error.

It runs on uvloop's event loop: it shares the machine's two cores with the server it measures,
and asyncio's own loop cost it more CPU a request (commit 4ce8c47 gives the figures).

Phases:
- ``endpoints``: each request type in turn, ``requests`` times at ``concurrency`` clients;
- ``sizes``: the bytes a first load of the tablet page transfers (gzip, all assets) and of
  event answers;
- ``mixed``: ``tablets`` tablets each record a round (knock, fold, win) every
  ``tablet_period`` s while ``viewers`` viewers poll every ``viewer_period`` s, for
  ``duration`` s; the tablets stop, the viewers poll once more, then everyone stops.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import html
import itertools
import json
import random
import re
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import rawhttp
from bench import stream_viewers as streams
from bench.servers import CpuSample
from scoring.engine import replay  # pure Python, no Django

VERSION = re.compile(rb'data-version="(\d+)"')
CSRF = re.compile(rb'"X-CSRFToken": "([^"]+)"')
REFUSED = re.compile(rb'id="(refusal|stale)"')
SHEET = re.compile(rb'name="sheet" value="([0-9a-f]*)"')  # the sheet the tablet shows
ASSET = re.compile(rb'(?:href|src)="(/static/[^"]+)"')
ETAG_VERSION = re.compile(r'"lei-(\d+)-(\d+)-')
LIVE_ETAG = re.compile(rb'data-etag="([^"]+)"')  # the ETag the viewer page's poll starts from
HX = {"HX-Request": "true"}
TIMEOUT = httpx.Timeout(30.0)
RETRIES = 3  # a tap without an answer is sent again (static/js/lei.js), up to this many times
BLOCKS = 5  # each request type of ``endpoints`` in this many blocks, each after one of the floor
FLOOR_NEXT_TO = "floor, next to "  # the label of those floor blocks, then the request type
_keys = itertools.count(1)


def wire_size(response: httpx.Response) -> int:
    """Bytes on the wire for one answer: the status line, the headers and the body as sent."""
    head = 17 + sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
    return head + response.num_bytes_downloaded


def _sheet(html: bytes, before: str) -> str:
    found = SHEET.search(html)
    return found.group(1).decode() if found else before


class Recorder:
    """Latencies (ms) and errors per request type."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.error_samples: list[str] = []
        self.sizes: dict[str, list[int]] = defaultdict(list)

    def ok(self, kind: str, ms: float, size: int | None = None) -> None:
        self.ms[kind].append(ms)
        if size is not None:
            self.sizes[kind].append(size)

    def error(self, kind: str, why: str) -> None:
        self.errors[kind] += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"{kind}: {why}")

    def as_json(self) -> dict[str, Any]:
        return {"ms": self.ms, "errors": self.errors, "samples": self.error_samples,
                "sizes": self.sizes}  # fmt: skip


def _choose(data: dict[str, Any], step: int) -> tuple[dict[str, Any], bool]:
    """The next tap on the log ``data`` (the engine's view of it) and whether it starts a new
    round: a knock while nobody knocked, a fold while someone must answer, else a win."""
    view = replay(data, open_round=True).what_now()
    rounds = data["rounds"]
    new_round = not (rounds and len(rounds) == view.round_number and not view.finished)
    if not view.started:
        knockers = [p for p, why in view.may_knock.items() if why is None]
        if knockers:
            return {"type": "knock", "player": knockers[step % len(knockers)]}, new_round
    if view.must_answer and not view.folded:
        player = view.must_answer[0]
        if view.may_fold.get(player) is None:
            return {"type": "fold", "player": player}, new_round
    winners = [p for p, why in view.may_win.items() if why is None]
    return {"type": "win", "player": winners[step % len(winners)]}, new_round


def _append(data: dict[str, Any], event: dict[str, Any], new_round: bool) -> None:
    if new_round:
        data["rounds"].append({"events": [event]})
    else:
        data["rounds"][-1]["events"].append(event)


def cookie_header(jar: httpx.Cookies, host: str, path: str) -> str:
    """The ``Cookie`` header a browser sends to ``host`` for ``path`` from ``jar``: the cookies
    whose domain and path match, read from the jar itself (never by name alone, which httpx
    refuses once one name is there twice); for a name set under several paths, the longest."""
    chosen: dict[str, tuple[int, str]] = {}
    for cookie in jar.jar:
        domain = cookie.domain.lstrip(".")
        if domain not in (host, f"{host}.local") or not path.startswith(cookie.path):
            continue
        if len(cookie.path) >= chosen.get(cookie.name, (-1, ""))[0]:
            chosen[cookie.name] = (len(cookie.path), cookie.value or "")
    return "; ".join(f"{name}={value}" for name, (_, value) in chosen.items())


class Tablet:
    """One pub tablet: a scorer link, its cookies, the session's log as far as it recorded it."""

    def __init__(self, spec: dict[str, Any], base: str, *, recorder: Recorder) -> None:
        self.pk = spec["pk"]
        self.token = spec["token"]
        self.data = spec["file"]
        self.version = spec["version"]
        self.csrf = ""
        self.sheet = ""
        self.new_round = False  # whether the event of the last ``next_event`` starts a round
        self.planned: dict[int, tuple[dict[str, Any], bool]] = {}  # step: (event, new round)
        self._planned_log: dict[str, Any] = {}  # ``data`` as it is after the planned taps
        self.base = base
        self.recorder = recorder
        self.accepted: list[dict[str, Any]] = []  # events recorded in this phase, in order
        self.undone = 0
        self.raw: tuple[str, int] | None = None  # ``use_rawhttp``: host and port
        # (session, version): when the tap that made it was answered, for the stream viewers.
        self.answered: dict[tuple[int, int], float] | None = None
        self.client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, headers={
            "Accept-Encoding": "gzip"})  # fmt: skip

    async def open(self) -> None:
        """Open the scorer link once (the Django session keeps it), then the tablet page."""
        link = await self.client.get(f"/tafel/{self.token}/")
        assert link.status_code == 302, (link.status_code, link.text[:200])
        await self.page(kind=None)

    async def page(self, kind: str | None = "tablet page") -> None:
        start = time.perf_counter()
        try:
            response = await self.client.get(f"/sessies/{self.pk}/")
        except httpx.HTTPError as error:
            self.recorder.error(kind or "tablet page (to catch up)", type(error).__name__)
            return
        ms = (time.perf_counter() - start) * 1000
        if response.status_code != 200:
            self.recorder.error(kind or "setup", f"HTTP {response.status_code}")
            return
        self.csrf = CSRF.search(response.content).group(1).decode()
        self.version = int(VERSION.search(response.content).group(1))
        self.sheet = _sheet(response.content, self.sheet)
        if kind:
            self.recorder.ok(kind, ms, wire_size(response))

    def plan(self, steps: Iterable[int]) -> None:
        """Choose the taps of these steps now, before the time that is measured: the load
        generator shares the machine's cores with the app, and choosing a tap replays the log
        (the engine), which a tablet at the table does not do. The plan is followed while every
        tap is recorded; a tap that is not drops it (``next_event`` chooses live again)."""
        data = self._planned_log if self.planned else copy.deepcopy(self.data)
        for step in steps:
            event, new_round = _choose(data, step)
            _append(data, event, new_round)
            self.planned[step] = (event, new_round)
        self._planned_log = data

    def next_event(self, step: int) -> dict[str, Any]:
        """The next tap of a round: a knock, a fold, a win (planned, or chosen by the engine)."""
        if step in self.planned:
            event, self.new_round = self.planned.pop(step)
        else:
            self.planned.clear()
            event, self.new_round = _choose(self.data, step)
        return event

    def _apply(self, event: dict[str, Any]) -> None:
        # Where the event goes was worked out with it; an undo and the same tap again (the
        # endpoints phase) come back to the same log, so it still holds then.
        _append(self.data, event, self.new_round)

    def _unapply(self) -> None:
        rounds = self.data["rounds"]
        rounds[-1]["events"].pop()
        if not rounds[-1]["events"] and not rounds[-1].get("absent") and not rounds[-1].get("join"):
            rounds.pop()

    def use_rawhttp(self, host: str, port: int) -> None:
        """From now on, send taps through ``bench/rawhttp.py`` (the mixed scenario), with the
        cookies the scorer link and the tablet page set."""
        self.raw = (host, port)

    async def _send(self, path: str, form: dict[str, str], headers: dict[str, str]):
        """POST ``form`` as a browser sends it: (status, body, bytes on the wire)."""
        if self.raw is None:
            response = await self.client.post(path, data=form, headers=headers)
            return response.status_code, response.content, wire_size(response)
        host, port = self.raw
        headers = {
            **headers,
            "Accept-Encoding": "gzip",
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": cookie_header(self.client.cookies, host, path),
        }
        answer = await rawhttp.post(host, port, path, headers, urlencode(form).encode())
        for name, value in answer.cookies.items():
            # Into the one jar, as the server's own Set-Cookie went (the host's domain, path
            # "/"): a second cookie of the same name under another domain is what made httpx
            # raise CookieConflict at twice the scenario.
            self.client.cookies.set(name, value, domain=host, path="/")
        return answer.status, answer.content, answer.wire_bytes

    async def post(self, path: str, form: dict[str, Any], kind: str) -> bool:
        # As a browser sends a tap's form: the version, a fresh key and the sheet it shows.
        form = {**form, "version": str(self.version), "key": f"lg-{next(_keys)}-{random.random()}",
                "sheet": self.sheet}  # fmt: skip
        headers = {**HX, "X-CSRFToken": self.csrf}
        start = time.perf_counter()
        for attempt in range(RETRIES + 1):
            # As static/js/lei.js does: a tap that got no answer is sent again, the same form
            # with the same key, so the server records it once. Each attempt is an error.
            try:
                status, body, wire = await self._send(path, form, headers)
            except (httpx.HTTPError, *rawhttp.ERRORS) as error:
                self.recorder.error(kind, type(error).__name__)
                if attempt == RETRIES:
                    return False
                continue
            if status < 500 or attempt == RETRIES:
                break
            self.recorder.error(kind, f"HTTP {status}")
        ms = (time.perf_counter() - start) * 1000
        if status != 200:
            self.recorder.error(kind, f"HTTP {status}")
            return False
        found = VERSION.search(body)
        if REFUSED.search(body) or found is None:
            self.recorder.error(kind, "refused or stale: " + body[:120].decode(errors="replace"))
            if found:
                self.version = int(found.group(1))
            return False
        self.version = int(found.group(1))
        if self.answered is not None:
            self.answered[(self.pk, self.version)] = time.perf_counter()
        self.sheet = _sheet(body, self.sheet)
        self.recorder.ok(kind, ms, wire)
        return True

    async def event(self, event: dict[str, Any], kind: str = "event POST") -> bool:
        form = {"type": event["type"], "player": event["player"]}
        if event.get("jack"):
            form["jack"] = "on"
        if await self.post(f"/sessies/{self.pk}/gebeurtenis/", form, kind):
            self._apply(event)
            self.accepted.append(event)
            return True
        self.planned.clear()  # the log is not where the plan thought it would be
        return False

    async def undo(self, kind: str = "undo POST") -> bool:
        if await self.post(f"/sessies/{self.pk}/ongedaan/", {}, kind):
            self._unapply()
            self.accepted.pop()
            self.undone += 1
            return True
        return False


class Viewer:
    def __init__(self, pk: int, url: str) -> None:
        self.pk = pk
        self.url = url
        self.etag: str | None = None

    @property
    def version(self) -> int | None:
        found = ETAG_VERSION.search(self.etag or "")
        return int(found.group(2)) if found else None

    async def open(self, host: str, port: int, recorder: Recorder) -> None:
        """Open the sheet page as a phone does, and take the ETag its first poll will send
        (``data-etag``, static/js/lei.js): the poll after it is a 304 unless a tap came between."""
        try:
            response = await rawhttp.get(host, port, self.url, {"Accept-Encoding": "gzip"})
        except rawhttp.ERRORS as error:
            recorder.error("viewer page (opening)", type(error).__name__)
            return
        found = LIVE_ETAG.search(response.content) if response.status == 200 else None
        if found is None:
            recorder.error("viewer page (opening)", f"HTTP {response.status}")
            return
        self.etag = html.unescape(found.group(1).decode())

    async def poll(self, host: str, port: int, recorder: Recorder) -> None:
        """One poll as a phone sends it (bench/rawhttp.py: httpx costs too much CPU for 1,000
        polls a second on this machine)."""
        headers = {**HX, "Accept-Encoding": "gzip"}
        if self.etag:
            headers["If-None-Match"] = self.etag
        start = time.perf_counter()
        try:
            response = await rawhttp.get(host, port, self.url, headers)
        except rawhttp.ERRORS as error:
            recorder.error("viewer poll", type(error).__name__)
            return
        ms = (time.perf_counter() - start) * 1000
        if response.status == 304:
            recorder.ok("viewer poll, unchanged (304)", ms, response.wire_bytes)
        elif response.status == 200:
            recorder.ok("viewer poll, changed (200)", ms, response.wire_bytes)
            self.etag = response.headers["etag"]
        else:
            recorder.error("viewer poll", f"HTTP {response.status}")


# --- phases ----------------------------------------------------------------------------------


async def closed_loop(count: int, concurrency: int, call) -> None:
    """``count`` calls of ``call(worker)`` spread over ``concurrency`` workers."""
    remaining = iter(range(count))

    async def worker(number: int) -> None:
        for _ in remaining:
            await call(number)

    await asyncio.gather(*(worker(n) for n in range(concurrency)))


async def endpoints(spec: dict[str, Any], recorder: Recorder) -> dict[str, Any]:
    base, count, concurrency = spec["base"], spec["requests"], spec["concurrency"]
    limits = httpx.Limits(max_connections=concurrency * 2)
    client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits,
                               headers={"Accept-Encoding": "gzip"})  # fmt: skip
    warmup = Recorder()
    times: dict[str, float] = {}
    # The CPU of each request type's measured blocks, per process kind (CpuSample's, and this
    # load generator's own), and how many requests they answered; every floor block is "floor".
    cpu: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def cpu_from() -> tuple[CpuSample, float]:
        return CpuSample.take(spec["app_pids"]), _own_cpu()

    def cpu_to(kind: str, since: tuple[CpuSample, float], requests: int) -> None:
        sample, own = since
        spent = cpu["floor" if kind.startswith("floor") else kind]
        for name, value in CpuSample.take(spec["app_pids"]).since(sample).items():
            spent[name] += value
        spent["loadgen_cpu_s"] += _own_cpu() - own
        spent["requests"] += requests

    async def floor_next_to(kind: str) -> None:
        """A block of the floor, recorded as the floor of ``kind``: every request type is
        measured in blocks, each after a block of the floor, so that it is compared with the
        floor of the same seconds (the shared machine's speed drifts within a run)."""
        block = max(20, count // BLOCKS // 2)
        label = f"{FLOOR_NEXT_TO}{kind}"
        since = cpu_from()
        await closed_loop(block, concurrency, lambda w: get("/bench/floor/", label, recorder))
        cpu_to("floor", since, block)

    async def run(kind: str, call, n: int = count) -> None:
        await closed_loop(max(20, n // 20), concurrency, lambda w: call(w, warmup))
        busy = 0.0
        for _ in range(BLOCKS):
            await floor_next_to(kind)
            since = cpu_from()
            start = time.perf_counter()
            await closed_loop(n // BLOCKS, concurrency, lambda w: call(w, recorder))
            busy += time.perf_counter() - start
            cpu_to(kind, since, n // BLOCKS)
        times[kind] = busy

    async def get(url: str, kind: str, rec: Recorder, headers: dict[str, str] | None = None):
        start = time.perf_counter()
        response = await client.get(url, headers=headers or {})
        ms = (time.perf_counter() - start) * 1000
        if response.status_code not in (200, 304):
            rec.error(kind, f"HTTP {response.status_code}")
        else:
            rec.ok(kind, ms, wire_size(response))

    await run("floor", lambda w, rec: get("/bench/floor/", "floor", rec))

    viewers = [Viewer(v["pk"], v["url"]) for v in spec["bench_viewers"]]
    for v in viewers:
        response = await client.get(v.url, headers=HX)
        v.etag = response.headers["ETag"]
    cycle = itertools.cycle(viewers)

    def poll_304(w, rec):
        v = next(cycle)
        return get(v.url, "viewer poll, unchanged (304)", rec, {**HX, "If-None-Match": v.etag})

    def poll_200(w, rec):
        v = next(cycle)
        stale = f'"lei-{v.pk}-0-nl-live"'  # a version the viewer saw long ago
        return get(v.url, "viewer poll, changed (200)", rec, {**HX, "If-None-Match": stale})

    await run("viewer poll, unchanged (304)", poll_304)
    await run("viewer poll, changed (200)", poll_200)

    tablets = [Tablet(t, base, recorder=recorder) for t in spec["bench_tablets"]]
    await asyncio.gather(*(t.open() for t in tablets))
    own = [tablets[w::concurrency] for w in range(concurrency)]
    steps = defaultdict(int)

    async def tap(w: int, rec: Recorder) -> None:
        # Each worker writes only its own tablets' sessions: no one waits for a row lock.
        tablet = own[w][steps[w] % len(own[w])]
        steps[w] += 1
        tablet.recorder = rec
        event = tablet.next_event(steps[w])
        if not await tablet.event(event):
            await tablet.page(kind=None)  # back in step with the sheet
            return
        if steps[w] % 2 == 0:  # take every other tap back and tap it again
            if await tablet.undo():
                await tablet.event(event)
            else:
                await tablet.page(kind=None)

    start = time.perf_counter()
    await closed_loop(max(20, count // 20), concurrency, lambda w: tap(w, warmup))
    # The taps of the measured blocks are chosen now (Tablet.plan), not while they are timed:
    # a worker's k-th tap is its tablet k mod n's, with step k + 1 (``tap`` above).
    for w, mine in enumerate(own):
        for k in range(steps[w], steps[w] + 2 * count // concurrency):
            mine[k % len(mine)].plan([k + 1])
    recorder_count = len(recorder.ms["event POST"])
    elapsed = 0.0

    def posts() -> int:
        return len(recorder.ms["event POST"]) + len(recorder.ms["undo POST"])

    for block in range(1, BLOCKS + 1):
        await floor_next_to("event POST")
        since, posted = cpu_from(), posts()
        start = time.perf_counter()
        while len(recorder.ms["event POST"]) - recorder_count < count * block // BLOCKS:
            await closed_loop(concurrency * 10, concurrency, lambda w: tap(w, recorder))
        elapsed += time.perf_counter() - start
        cpu_to("event POST", since, posts() - posted)  # the undos' CPU with the events'
    times["event POST"] = times["undo POST"] = elapsed  # both in the same interval

    tablet_cycle = itertools.cycle(tablets)

    async def page(w, rec):
        tablet = next(tablet_cycle)
        tablet.recorder = rec
        await tablet.page(kind="tablet page (full sheet)")

    await run("tablet page (full sheet)", page, count // 2)
    await run("standings page", lambda w, rec: get(spec["standings"], "standings page", rec),
              count // 2)  # fmt: skip
    await run("player page", lambda w, rec: get(spec["player"], "player page", rec), count // 2)
    await run("floor (again, last)", lambda w, rec: get("/bench/floor/", "floor (again, last)",
                                                        rec))  # fmt: skip
    for t in tablets:
        await t.client.aclose()
    await client.aclose()
    return {"seconds": times, "warmup_errors": warmup.errors, "cpu": cpu}


async def sizes(spec: dict[str, Any], recorder: Recorder) -> dict[str, Any]:
    """A first load of the tablet page with every asset it names, gzip accepted; and events."""
    tablet = Tablet(spec["bench_tablets"][0], spec["base"], recorder=recorder)
    await tablet.open()
    page = await tablet.client.get(f"/sessies/{tablet.pk}/")
    assets = sorted({m.decode() for m in ASSET.findall(page.content)})
    files = {"page": (wire_size(page), len(page.content), page.headers.get("content-encoding"))}
    for url in assets:
        response = await tablet.client.get(url)
        files[url] = (
            wire_size(response),
            len(response.content),
            response.headers.get("content-encoding"),
            response.headers.get("cache-control"),
        )
    events = []
    for step in range(6):
        before = len(recorder.sizes["event POST"])
        await tablet.event(tablet.next_event(step))
        if len(recorder.sizes["event POST"]) > before:
            events.append(recorder.sizes["event POST"][-1])
    await tablet.client.aclose()
    return {"files": files, "total": sum(f[0] for f in files.values()), "events": events}


async def mixed(spec: dict[str, Any], recorder: Recorder) -> dict[str, Any]:
    base, duration = spec["base"], spec["duration"]
    tablets = [Tablet(t, base, recorder=recorder) for t in spec["tablets"]]
    streaming = spec.get("viewer_mode") == "stream"
    if streaming:
        # The viewer page's part is its own URL, "/kijk/<signed>/" (its #live element's
        # hx-get); static/js/poll.js streams it from "/stroom/?deel=<that URL>" (``--stream-url``).
        viewers: list[Any] = [
            streams.StreamViewer(v["pk"], spec["stream_url"].format(
                pk=v["pk"], part=quote(v["url"], safe=""),
                signed=v["url"].strip("/").rsplit("/", 1)[-1]))
            for v in spec["viewers"]
        ]  # fmt: skip
        answered: dict[tuple[int, int], float] = {}
        for t in tablets:
            t.answered = answered
    else:
        viewers = [Viewer(v["pk"], v["url"]) for v in spec["viewers"]]
    # Opening 300 scorer links at once is not the scenario: spread it (the viewers too, below),
    # then start together.
    sem = asyncio.Semaphore(8)

    async def opened(t: Tablet) -> None:
        async with sem:
            await t.open()
        # Every tap it will make, chosen before the clock starts (Tablet.plan).
        t.plan(range(1, 3 * (int(duration // spec["tablet_period"]) + 2) + 1))

    address = httpx.URL(base)
    host, port = address.host, address.port

    async def viewer_opened(v: Viewer) -> None:
        async with sem:
            await v.open(host, port, recorder)

    # Phones open the sheet page before they poll, as the tablets open theirs: before the clock
    # starts. 3,000 first polls without an ETag in its first three seconds would each be a
    # changed poll, a burst that is not the Friday night the scenario describes.
    if streaming:  # the streams open below, once every tablet knows its version
        await asyncio.gather(*(opened(t) for t in tablets))
    else:
        await asyncio.gather(*(opened(t) for t in tablets), *(viewer_opened(v) for v in viewers))
    for t in tablets:  # httpx costs about 3 ms of CPU a tap, on the cores it measures
        t.use_rawhttp(host, port)
    streams_closed: asyncio.Future = asyncio.get_running_loop().create_future()
    holding = None
    if streaming:
        version_of = {t.pk: t.version for t in tablets}
        for v in viewers:
            v.base = version_of[v.pk]
        # The streams go to their own server (the ASGI one), or through nginx with the rest.
        stream_address = httpx.URL(spec.get("stream_base") or base)
        holding = asyncio.create_task(streams.hold_all(
            viewers, (stream_address.host, stream_address.port), answered, recorder,
            streams_closed))  # fmt: skip
        # Every stream open (its first event in) before the clock starts.
        await asyncio.gather(*(v.opened.wait() for v in viewers))
    rng = random.Random(6)
    # The CPU of the timed run only: opening the tablets and the viewers' pages, and planning
    # the taps, come before.
    cpu_before, own_before = CpuSample.take(spec["app_pids"]), _own_cpu()
    start = time.perf_counter()
    tablets_end = start + duration
    tablets_done: list[float] = []  # when the last tablet's last tap was answered

    async def tablet_loop(t: Tablet) -> None:
        period = spec["tablet_period"]
        at = start + rng.uniform(0, period)
        step = 0
        while at < tablets_end:
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            for _ in range(3):  # a knock, a fold, a win; a second or so between taps
                step += 1
                if not await t.event(t.next_event(step), kind="event POST"):
                    await t.page(kind=None)
                    break
                await asyncio.sleep(rng.uniform(0.5, 1.5))
            at += period

    async def viewer_loop(v: Viewer) -> None:
        period = spec["viewer_period"]
        at = start + rng.uniform(0, period)
        # Until every tablet is done, then once more: the last poll starts after the last tap.
        # A viewer that fell behind its schedule does not catch up with a burst: it skips.
        while not tablets_done or at <= tablets_done[0] + period:
            now = time.perf_counter()
            if at < now - period:
                at += period * ((now - at) // period)
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            await v.poll(host, port, recorder)
            at += period

    async def all_tablets() -> None:
        await asyncio.gather(*(tablet_loop(t) for t in tablets))
        tablets_done.append(time.perf_counter())
        if streaming:  # the last changes' events still on their way
            await asyncio.sleep(spec.get("stream_grace", 5.0))
            streams_closed.set_result(None)

    await asyncio.gather(
        all_tablets(),
        *(viewer_loop(v) for v in viewers if not streaming),
    )
    if holding is not None:
        await holding
        for v in viewers:
            v.count_early(answered, recorder)
    elapsed = time.perf_counter() - start
    cpu_after = CpuSample.take(spec["app_pids"])
    window = {
        **cpu_after.since(cpu_before),
        # Of the app's CPU, the streams' ASGI server's part (the rest: the sync one's).
        "stream_cpu_s": sum(
            cpu_after.app.get(p, 0.0) - cpu_before.app.get(p, 0.0)
            for p in spec.get("stream_pids", [])
        ),
        "loadgen_cpu_s": _own_cpu() - own_before,
        "loadgen_wall_s": elapsed,
    }
    for t in tablets:
        await t.client.aclose()
    final = {t.pk: t.version for t in tablets}
    return {
        "seconds": elapsed,
        "tablets": [
            {"pk": t.pk, "accepted": t.accepted, "version": t.version, "undone": t.undone}
            for t in tablets
        ],
        "viewers": [{"pk": v.pk, "version": v.version} for v in viewers],
        "stream_missed": (sum(v.missed(final[v.pk]) for v in viewers) if streaming else None),
        "window": window,
    }


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    phases = {"endpoints": endpoints, "sizes": sizes, "mixed": mixed}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path, help="the JSON spec that bench/load.py writes")
    parser.add_argument("out", type=Path, help="where the figures go, as JSON")
    parser.add_argument("phase", choices=phases)
    args = parser.parse_args()
    spec = json.loads(args.spec.read_text())
    recorder = Recorder()
    before = _own_cpu()
    wall = time.perf_counter()
    run = phases[args.phase]
    extra = uvloop.run(run(spec, recorder))
    out = {
        **recorder.as_json(),
        **extra,
        "loadgen_cpu_s": _own_cpu() - before,
        "loadgen_wall_s": time.perf_counter() - wall,
    }
    args.out.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
