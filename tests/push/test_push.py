"""Push on PostgreSQL, against two real app servers (uvicorn, ASGI) on one database of their own:
each committed change reaches a stream once and in order, a rolled-back one never; a stream
opened again with the last version it saw gets the current part when it missed one; a change
made through one server reaches a stream on the other (NOTIFY); and every stream shows what its
page shows, names by initials included. Skipped without PostgreSQL (CI runs it: .ci/run); the
SQLite fallback is checked in tests/push/test_fallback.py."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from tests.network import free_port
from tests.push.loop import run_apart

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
URL = os.environ.get("DATABASE_URL", "")

pytestmark = pytest.mark.skipif(
    not URL.startswith("postgres"), reason="push needs PostgreSQL's NOTIFY"
)

SETUP = """
import asyncio
import json
from django.contrib.auth import get_user_model
from scoring import access
from scoring.lei import services
from scoring.models import Club, ClubMembership, Player
club = Club.objects.create(name="Stroom", slug="stroom", standings_public=True)
s = services.session_start(club=club, players=["Anne Geheimnaam", "Bas", "Cees", "Dirk"])
Player.objects.filter(club=club, name="Anne Geheimnaam").update(public_initials=True)
user = get_user_model().objects.create_user("lid", password="een-lang-wachtwoord-7")
ClubMembership.objects.create(club=club, user=user)
print(json.dumps({"pk": s.pk, "scorer": s.scorer_token, "day": s.played_on.isoformat(),
                  "viewer": access.viewer_token(s.pk, s.viewer_key or "")}))
"""

# A knock and its undo that commit, a knock that is rolled back, then a knock that commits.
WRITES = """
from django.db import transaction
from scoring.lei import services
from scoring.models import Session
def write(n):
    s = Session.objects.get(pk={pk})
    if n % 2:
        return services.session_undo(session=s, version=s.version, key=f"w-{{n}}")
    knock = {{"type": "knock", "player": "Bas"}}
    return services.session_record_event(
        session=s, event=knock, version=s.version, key=f"w-{{n}}"
    )
write(0)
write(1)
try:
    with transaction.atomic():
        write(2)
        raise RuntimeError("rolled back")
except RuntimeError:
    pass
write(4)
print(Session.objects.get(pk={pk}).version)
"""

VERSION = re.compile(rb'data-version="(\d+)"')
CSRF = re.compile(rb'"X-CSRFToken": "([^"]+)"')
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@dataclass
class World:
    env: dict[str, str]
    bases: list[str]
    ids: dict[str, object]


@pytest.fixture(scope="module")
def app_servers() -> Iterator[World]:
    import psycopg

    name = f"toepen_push_{os.getpid()}_{int(time.time())}"
    admin_url = urlparse(URL)._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        DEBUG="true",
        SECRET_KEY="push-test-" + "k" * 40,
        PYTHONPATH=str(ROOT),
        DATABASE_URL=urlparse(URL)._replace(path=f"/{name}").geturl(),
        TAP_LIMIT_PER_MINUTE="0",
        TRUSTED_PROXY_COUNT="1",  # the flood's clients by X-Forwarded-For, as nginx writes it
        DJANGO_SETTINGS_MODULE="toepen_site.settings",
    )
    processes = []
    try:
        manage(env, "migrate", "--noinput", "-v0")
        ids = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        bases = []
        for _ in range(2):
            port = free_port()
            command = [BIN / "uvicorn", "toepen_site.asgi:application", "--port", str(port)]
            processes.append(
                subprocess.Popen(
                    [*command, "--log-level", "warning"],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            )
            bases.append(f"http://127.0.0.1:{port}")
        for base, process in zip(bases, processes, strict=True):
            deadline = time.monotonic() + 30
            while True:
                assert process.poll() is None, process.stderr.read().decode()[-2000:]
                try:
                    if httpx.get(base + "/", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)
        yield World(env, bases, ids)
    finally:
        for process in processes:
            process.kill()  # not terminate: it would wait for the open streams to end
            process.wait(timeout=10)
        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Stream:
    """One stream read on a thread of its own: its events as (event, id, data), in order."""

    def __init__(self, client: httpx.Client, part: str, last: str | None = None) -> None:
        self.events: queue.Queue[tuple[str, str, str]] = queue.Queue()
        headers = {"Last-Event-ID": last} if last is not None else {}
        self._context = client.stream(
            "GET", "/stroom/", params={"deel": part}, headers=headers, timeout=30
        )
        self.response = self._context.__enter__()
        if self.response.status_code == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event, id_, data = "message", "", []
        try:
            for line in self.response.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("id: "):
                    id_ = line[4:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif line == "":
                    self.events.put((event, id_, "\n".join(data)))
                    event, id_, data = "message", "", []
        except httpx.HTTPError:
            pass

    def parts(self, count: int, timeout: float = 15) -> list[tuple[str, str]]:
        """The next ``count`` parts (id, html), pings and the hello skipped."""
        found = []
        deadline = time.monotonic() + timeout
        while len(found) < count and time.monotonic() < deadline:
            try:
                event, id_, data = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            if event == "part":
                found.append((id_, data))
        return found

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def version_now(world: World) -> int:
    with httpx.Client(base_url=world.bases[0]) as client:
        page = client.get(f"/kijk/{world.ids['viewer']}/")
    return int(re.search(r"lei-\d+-(\d+)-", page.text).group(1))


def tablet(base: str, world: World) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=base, timeout=30)
    assert client.get(f"/tafel/{world.ids['scorer']}/").status_code == 302
    page = client.get(f"/sessies/{world.ids['pk']}/")
    return client, CSRF.search(page.content).group(1).decode()


def tap(client: httpx.Client, csrf: str, world: World) -> int:
    """A change through ``client``'s server: Bas knocks, or, if he has knocked already, that
    knock is undone. The version its answer says."""
    pk = world.ids["pk"]
    headers = {"HX-Request": "true", "X-CSRFToken": csrf}
    version = version_now(world)
    for path, form in (
        (f"/sessies/{pk}/gebeurtenis/", {"type": "knock", "player": "Bas"}),
        (f"/sessies/{pk}/ongedaan/", {}),
    ):
        form = {**form, "version": str(version), "key": f"t-{time.time()}"}
        answer = client.post(path, data=form, headers=headers)
        assert answer.status_code == 200, answer.text[:500]
        now = int(VERSION.search(answer.content).group(1))
        if now == version + 1:
            return now
    raise AssertionError("neither a knock nor an undo was taken")


def test_each_committed_change_once_in_order_and_nothing_for_a_rollback(app_servers):
    viewer = f"/kijk/{app_servers.ids['viewer']}/"
    before = version_now(app_servers)
    with httpx.Client(base_url=app_servers.bases[0]) as client:
        stream = Stream(client, viewer, last=str(before))
        assert stream.response.status_code == 200
        after = int(
            manage(app_servers.env, "shell", "-c", WRITES.format(pk=app_servers.ids["pk"])).split()[
                -1
            ]
        )
        assert after == before + 3
        got = stream.parts(3)
        assert [v for v, _ in got] == [str(before + 1), str(before + 2), str(before + 3)]
        assert stream.parts(1, timeout=1.5) == []  # nothing more: not the rolled-back write
        stream.close()


def test_opened_again_after_a_missed_version_the_stream_sends_the_current_part(app_servers):
    viewer = f"/kijk/{app_servers.ids['viewer']}/"
    seen = version_now(app_servers)
    tab, csrf = tablet(app_servers.bases[0], app_servers)
    now = tap(tab, csrf, app_servers)  # while no stream is open
    assert now == seen + 1
    with httpx.Client(base_url=app_servers.bases[0]) as client:
        stream = Stream(client, viewer, last=str(seen))
        [(version, html)] = stream.parts(1)
        assert version == str(now)
        assert f"lei-{app_servers.ids['pk']}-{now}-" in html  # the part as it is now
        stream.close()
        current = Stream(client, viewer, last=str(now))  # nothing missed: nothing sent
        assert current.parts(1, timeout=1.5) == []
        current.close()
    tab.close()


def test_a_change_through_one_server_reaches_a_stream_on_the_other(app_servers):
    viewer = f"/kijk/{app_servers.ids['viewer']}/"
    with httpx.Client(base_url=app_servers.bases[1]) as client:
        stream = Stream(client, viewer, last=str(version_now(app_servers)))
        tab, csrf = tablet(app_servers.bases[0], app_servers)
        versions = [tap(tab, csrf, app_servers) for _ in range(2)]
        assert [v for v, _ in stream.parts(2)] == [str(v) for v in versions]
        stream.close()
        tab.close()


def test_a_change_is_drawn_once_by_its_write_and_each_server_forwards_it(app_servers):
    """DESIGN decision 14: the tap draws the viewers' parts its streams show, one per audience,
    and sends them with its announcement; the streams of both servers show that drawing, which
    is what the page's poll shows."""
    import psycopg

    from scoring.notify import parse_part

    viewer = f"/kijk/{app_servers.ids['viewer']}/"
    anonymous = [httpx.Client(base_url=base, timeout=30) for base in app_servers.bases]
    members = member(app_servers.bases[1])
    seen = str(version_now(app_servers))
    streams = [Stream(client, viewer, last=seen) for client in [*anonymous, members]]
    assert all(stream.response.status_code == 200 for stream in streams)
    tab, csrf = tablet(app_servers.bases[0], app_servers)
    with psycopg.connect(app_servers.env["DATABASE_URL"], autocommit=True) as listening:
        listening.execute("LISTEN toepen_push")
        version = str(tap(tab, csrf, app_servers))
        heard = {}
        for n in listening.notifies(timeout=5):
            drawn = parse_part(n.payload)
            if drawn is not None:
                heard[drawn[3]] = drawn[5]
            elif n.payload.startswith(f"lei {app_servers.ids['pk']} {version} "):
                break
    assert sorted(heard) == ["full", "public"]  # one drawing per audience, for both servers
    for stream, audience in zip(streams, ["public", "public", "full"], strict=True):
        [(got, html)] = stream.parts(1)
        stream.close()
        assert got == version
        assert html == heard[audience].rstrip("\n")
    for client, audience in ((anonymous[0], "public"), (members, "full")):
        poll = client.get(viewer, headers={"HX-Request": "true"})
        assert poll.text.strip() == heard[audience].strip()
        assert ("Geheimnaam" in poll.text) == (audience == "full")
    for client in (*anonymous, members, tab):
        client.close()


def member(base: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=30)
    page = client.get("/inloggen/")
    token = TOKEN.search(page.text).group(1)
    done = client.post(
        "/inloggen/",
        data={"username": "lid", "password": "een-lang-wachtwoord-7", "csrfmiddlewaretoken": token},
    )
    assert done.status_code == 302, done.text[:300]
    return client


def _without_tokens(html: str) -> str:
    """The part without what differs on every drawing: CSRF tokens, the tablet's tap keys."""
    return re.sub(
        r'"X-CSRFToken": "[^"]+"|name="(csrfmiddlewaretoken|key)" value="[^"]+"', "", html
    )


@pytest.mark.parametrize("part", ["viewer", "viewer_tv", "evening", "tablet"])
def test_every_stream_shows_what_its_page_shows_names_by_initials_too(app_servers, part):
    pk, day = app_servers.ids["pk"], app_servers.ids["day"]
    path = {
        "viewer": f"/kijk/{app_servers.ids['viewer']}/",
        "viewer_tv": f"/kijk/{app_servers.ids['viewer']}/?tv=1",
        "evening": f"/club/stroom/avond/{day}/",
        "tablet": f"/sessies/{pk}/",
    }[part]
    anonymous = httpx.Client(base_url=app_servers.bases[1], timeout=30)
    scorer, _ = tablet(app_servers.bases[1], app_servers)
    members = member(app_servers.bases[1])
    for client in (anonymous, scorer, members):
        poll = client.get(path, headers={"HX-Request": "true"})
        stream = Stream(client, path)
        if poll.status_code != 200:  # who may not see the page gets nothing from its stream
            assert stream.response.status_code in (403, 404, poll.status_code)
            assert part == "tablet"
            assert client is anonymous
            stream.close()
            continue
        assert stream.response.status_code == 200
        [(_, html)] = stream.parts(1)
        stream.close()
        assert _without_tokens(html).strip() == _without_tokens(poll.text).strip()
        if client is anonymous or (client is scorer and part != "tablet"):
            assert "Geheimnaam" not in html
        if client is members:
            assert "Geheimnaam" in html
    for client in (anonymous, scorer, members):
        client.close()


async def _open_streams(base: str, part: str, clients: list[tuple[str, str]]) -> list:
    """Raw streams, opened at once: one a (address, cookie), each left open; its status and
    its connection's writer (closed by the caller)."""
    host, port = urlparse(base).hostname, urlparse(base).port
    query = httpx.QueryParams({"deel": part})

    async def one(address: str, cookie: str) -> tuple[int, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(
            f"GET /stroom/?{query} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"X-Forwarded-For: {address}\r\nCookie: sessionid={cookie}\r\n\r\n".encode()
        )
        line = await asyncio.wait_for(reader.readline(), 60)
        return int(line.split()[1]), writer

    return await asyncio.gather(*(one(a, c) for a, c in clients))


def test_one_client_holds_its_bound_of_streams_and_the_pub_behind_one_address_all_of_theirs(
    app_servers,
):
    """1,000 streams from one address: 500 (the bound) open, the rest refused with 429 (the
    page polls); 200 phones behind the pub's one address each keep their two streams; pages of
    earlier rounds (``?tot=``) are at most 8 spellings of the sheet drawn at once; and what the
    flood held is let go when it goes, so the same client streams again."""
    viewer = f"/kijk/{app_servers.ids['viewer']}/"
    base = app_servers.bases[1]

    async def scenario() -> tuple[list[int], list[int], list[int], int]:
        flood = await _open_streams(
            base, f"{viewer}?n=1", [("203.0.113.66", f"nep-{n}") for n in range(1000)]
        )
        pub = await _open_streams(
            base, viewer, [("198.51.100.7", f"telefoon-{n // 2}") for n in range(400)]
        )
        # Pages of earlier rounds, each its own spelling: 7 beside the sheet's own, then 429.
        earlier = [
            (await _open_streams(base, f"{viewer}?tot={n}", [("192.0.2.1", "")]))[0]
            for n in range(1, 21)
        ]
        for _, writer in flood + pub + earlier:
            writer.close()
        again = 429
        for _ in range(200):  # the server sees each go as its connection closes
            [(again, writer)] = await _open_streams(base, viewer, [("203.0.113.66", "")])
            writer.close()
            if again == 200:
                break
        return [s for s, _ in flood], [s for s, _ in pub], [s for s, _ in earlier], again

    flood, pub, earlier, again = run_apart(scenario())
    assert sorted(set(flood)) == [200, 429]
    assert flood.count(200) == 500
    assert pub == [200] * 400
    # 8 spellings of one part drawn at once at most: the sheet's own and 7 more (6, if the TV
    # spelling of a test before is still being let go), the rest refused.
    assert earlier == sorted(earlier)
    assert earlier.count(200) in (6, 7)
    assert again == 200
