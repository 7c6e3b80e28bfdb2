"""Nothing is lost when the app servers die: all state is in the database.

gunicorn (two workers) serves the app from a subprocess on a free loopback port, against a
database of its own (a fresh PostgreSQL database when ``DATABASE_URL`` points at PostgreSQL, else
a SQLite file). A tablet opens the scorer link and records part of a round over HTTP; the server
is killed with SIGKILL mid-round and started again; the same tablet (same cookies: its scorer
link grant lives in the database-backed Django session) resends its last tap with the same key,
which is recorded once, and plays on to the end of the round and the next one. The stored log is
exactly the taps the tablet saw accepted and the stored scores equal a fresh replay.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from tests.network import free_port
from tests.safety import note

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"

SETUP = """
from django.contrib.auth import get_user_model
from scoring.lei import services
from scoring.models import Club
club = Club.objects.create(name="Herstart", slug="herstart")
session = services.session_start(club=club, players=["Anne", "Bas", "Cees", "Dirk"])
print(session.pk, session.scorer_token)
"""

CHECK = """
import json
from scoring.models import Session, AuditEntry
from tests.safety import events_of, projection_problems
session = Session.objects.get(pk={pk})
print(json.dumps({{
    "events": events_of(session),
    "problems": projection_problems(session),
    "version": session.version,
    "writes": AuditEntry.objects.filter(session=session, action="event").count(),
}}))
"""


@pytest.fixture
def database_env(tmp_path) -> Iterator[dict[str, str]]:
    """The environment of a server on a database of its own, migrated."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(DEBUG="true", SECRET_KEY="restart-test-" + "k" * 40, PYTHONPATH=str(ROOT))
    url = os.environ.get("DATABASE_URL", "")
    dropped = None
    if url.startswith("postgres"):
        import psycopg

        name = f"toepen_restart_{os.getpid()}_{int(time.time())}"
        admin_url = urlparse(url)._replace(path="/postgres").geturl()
        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        dropped = (admin_url, name)
        env["DATABASE_URL"] = urlparse(url)._replace(path=f"/{name}").geturl()
    else:
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    try:
        manage(env, "migrate", "--noinput", "-v0")
        yield env
    finally:
        if dropped:
            import psycopg

            with psycopg.connect(dropped[0], autocommit=True) as connection:
                connection.execute(f"DROP DATABASE IF EXISTS {dropped[1]} WITH (FORCE)")


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def stored_session(env: dict[str, str], session_id: str) -> dict:
    """What the database holds of the session: its events, projection problems, version and
    number of writes (``CHECK``), read by a process of its own."""
    output = manage(env, "shell", "-c", CHECK.format(pk=session_id))
    return json.loads(output.splitlines()[-1])


class Server:
    """gunicorn in its own process group, so that SIGKILL takes the master and its workers."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [str(GUNICORN), "toepen_site.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "2"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("gunicorn did not come up")

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.kill()


class Tablet:
    def __init__(self, session_id: int) -> None:
        self.session_id = session_id
        self.cookies = httpx.Cookies()
        self.version = 0
        self.accepted: list[dict[str, str]] = []
        self.keys: set[str] = set()  # keys of the taps the tablet saw recorded

    def client(self, server: Server) -> httpx.Client:
        return httpx.Client(base_url=server.url, cookies=self.cookies, timeout=10)

    def open_link(self, server: Server, token: str) -> None:
        with self.client(server) as http:
            page = http.get(f"/tafel/{token}/", follow_redirects=True)
            assert page.status_code == 200
            self.cookies = http.cookies
            self.version = int(re.search(r'data-version="(\d+)"', page.text).group(1))

    def tap(self, server: Server, kind: str, player: str, key: str) -> int:
        with self.client(server) as http:
            token = self.cookies.get("csrftoken")
            response = http.post(
                f"/sessies/{self.session_id}/gebeurtenis/",
                data={
                    "type": kind,
                    "player": player,
                    "version": self.version,
                    "key": key,
                    **({"points": "1"} if kind == "penalty" else {}),
                },
                headers={"HX-Request": "true", "X-CSRFToken": token or ""},
            )
            assert response.status_code == 200, response.text[:300]
            self.cookies = http.cookies
            version = int(re.search(r'data-version="(\d+)"', response.text).group(1))
            if version == self.version + 1 and key not in self.keys:
                event = {"type": kind, "player": player}
                if kind == "penalty":
                    event.update(points=1, reason="")
                self.accepted.append(event)
                self.keys.add(key)
            self.version = version
            return version


@pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed (requirements.txt)")
def test_a_killed_server_loses_nothing(database_env):
    session_id, token = manage(database_env, "shell", "-c", SETUP).splitlines()[-1].split()
    tablet = Tablet(int(session_id))
    server = Server(database_env)
    try:
        server.start()
        tablet.open_link(server, token)
        # Round 1 half played: Anne knocks, Bas gets a penalty point, Bas folds.
        tablet.tap(server, "knock", "Anne", "t1")
        tablet.tap(server, "penalty", "Bas", "t2")
        last = tablet.tap(server, "fold", "Bas", "t3")
        server.kill()  # mid-round, no goodbye

        server.start()
        # A tablet that never saw the answer to the penalty sends it again with the same key
        # (even at the version it has now, where a second penalty would be allowed): once only.
        assert tablet.tap(server, "penalty", "Bas", "t2") == last
        # And the fold again exactly as it was sent, at the version it was sent at.
        tablet.version -= 1
        assert tablet.tap(server, "fold", "Bas", "t3") == last
        tablet.tap(server, "stay", "Cees", "t4")
        tablet.tap(server, "fold", "Dirk", "t5")
        tablet.tap(server, "win", "Anne", "t6")  # round 1 is scored
        server.kill()

        server.start()
        tablet.tap(server, "win", "Cees", "t7")  # round 2
    finally:
        server.stop()

    stored = stored_session(database_env, session_id)
    assert stored["events"] == tablet.accepted
    assert len(tablet.accepted) == 7
    assert stored["writes"] == 7  # seven taps, one write each: the resent ones were not doubled
    assert stored["problems"] == []
    assert stored["version"] == tablet.version
    note("restart", restarts=2, kills=3, taps=9, accepted=7, lost=0, doubled=0)


@pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed (requirements.txt)")
@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="PostgreSQL ends them"
)
def test_taps_right_after_postgresql_ended_the_apps_connections_are_answered(database_env):
    """A restart or failover of PostgreSQL ends every connection the workers keep: the next
    request of each worker gets a new one before its first query (Django's
    CONN_HEALTH_CHECKS), not an error."""
    import psycopg

    session_id, token = manage(database_env, "shell", "-c", SETUP).splitlines()[-1].split()
    tablet = Tablet(int(session_id))
    server = Server(database_env)
    name = urlparse(database_env["DATABASE_URL"]).path.lstrip("/")
    try:
        server.start()
        tablet.open_link(server, token)
        for i, (kind, player) in enumerate([("knock", "Anne"), ("stay", "Bas")]):
            tablet.tap(server, kind, player, f"before-{i}")
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            ).fetchone()[0]
        assert ended >= 1  # the workers' kept connections
        # Both workers, each on its first request since: every tap is answered and recorded.
        for i, (kind, player) in enumerate([("stay", "Cees"), ("fold", "Dirk"), ("win", "Bas")]):
            tablet.tap(server, kind, player, f"after-{i}")
    finally:
        server.stop()

    stored = stored_session(database_env, session_id)
    assert stored["events"] == tablet.accepted
    assert len(tablet.accepted) == 5
    assert stored["problems"] == []
