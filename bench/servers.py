"""Processes for the load benchmark: gunicorn instances, nginx in front, and their CPU time.

Everything listens on 127.0.0.1 only and is stopped by the ``with`` block that started it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def workers_for_this_machine() -> int:
    return 2 * (os.cpu_count() or 1) + 1


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process, from /proc/<pid>/stat (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def postgres_pids() -> list[int]:
    pids = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "postgres":
                pids.append(int(comm.parent.name))
        except OSError:
            continue
    return pids


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all cores), from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


@dataclass
class CpuSample:
    app: dict[int, float]  # gunicorn workers and masters
    db: dict[int, float]  # every postgres process
    busy: float  # the whole machine
    at: float

    @classmethod
    def take(cls, app_pids: list[int]) -> CpuSample:
        return cls(
            app={p: cpu_seconds(p) for p in app_pids},
            db={p: cpu_seconds(p) for p in postgres_pids()},
            busy=machine_busy_seconds(),
            at=time.perf_counter(),
        )

    def since(self, before: CpuSample) -> dict[str, float]:
        app = sum(v - before.app.get(p, 0.0) for p, v in self.app.items())
        db = sum(v - before.db.get(p, 0.0) for p, v in self.db.items())
        return {
            "app_cpu_s": app,
            "db_cpu_s": db,
            "machine_cpu_s": self.busy - before.busy,
            "wall_s": self.at - before.at,
        }


def stream_workers() -> int:
    """The ASGI servers' workers for the streams (README, "Production": one an app server)."""
    return int(os.environ.get("BENCH_STREAM_WORKERS", "1"))


class Gunicorn:
    """One gunicorn: the sync WSGI app (pages, taps), or with ``asgi`` the streams' server,
    uvicorn's worker on ``toepen_site.asgi`` (the same settings and environment)."""

    def __init__(
        self, port: int, env: dict[str, str], *, workers: int, log_dir: Path, asgi: bool = False
    ) -> None:
        self.port = port
        self.workers = workers
        self.asgi = asgi
        self.log = open(log_dir / f"gunicorn-{port}.log", "w")  # noqa: SIM115
        app, worker = (
            ("toepen_site.asgi:application", "uvicorn_worker.UvicornWorker")
            if asgi
            else ("toepen_site.wsgi:application", "sync")
        )
        self.process = subprocess.Popen(
            [
                # .venv/bin/gunicorn: the quiet run's wrapper pins it (shared/tools/quiet-load).
                str(ROOT / ".venv/bin/gunicorn"),
                app,
                f"--bind=127.0.0.1:{port}",
                f"--workers={workers}",
                f"--worker-class={worker}",
                "--backlog=4096",
                "--timeout=60",
                "--graceful-timeout=5",
                "--log-level=warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_for(f"http://127.0.0.1:{port}/bench/floor/", self.process)
        deadline = time.monotonic() + 20
        while len(children(self.process.pid)) < workers and time.monotonic() < deadline:
            time.sleep(0.1)

    @property
    def pids(self) -> list[int]:
        return [self.process.pid, *children(self.process.pid)]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def wait_for(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} stopped with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (loopback)
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {timeout} s")


@contextlib.contextmanager
def gunicorns(
    ports: list[int], env: dict[str, str], *, workers: int, asgi_ports: list[int] = ()
) -> Iterator[list[Gunicorn]]:
    """The sync gunicorns on ``ports``, and the streams' ASGI gunicorns on ``asgi_ports``
    (``stream_workers()`` workers each)."""
    log_dir = Path(tempfile.mkdtemp(prefix="toepen-gunicorn-"))
    started: list[Gunicorn] = []
    try:
        for port in ports:
            started.append(Gunicorn(port, env, workers=workers, log_dir=log_dir))
        for port in asgi_ports:
            started.append(
                Gunicorn(port, env, workers=stream_workers(), log_dir=log_dir, asgi=True)
            )
        yield started
    finally:
        for server in started:
            server.stop()
        for log in log_dir.glob("*.log"):
            text = log.read_text().strip()
            if text:
                print(f"--- {log.name}\n{text[-3000:]}", file=sys.stderr)


@contextlib.contextmanager
def nginx(
    port: int, upstreams: list[int], stream_upstreams: list[int] = ()
) -> Iterator[subprocess.Popen]:
    """nginx on ``port``, round-robin over the gunicorns on ``upstreams`` (and ``/stroom/``
    over the ASGI servers on ``stream_upstreams``, unbuffered, as README "Production" routes
    it), in a temp dir with its own pid and log files; stopped (and the dir's logs shown on
    failure) on exit."""
    prefix = Path(tempfile.mkdtemp(prefix="toepen-nginx-"))
    template = (ROOT / "bench/nginx.conf").read_text()

    def servers(ports) -> str:
        return "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in ports)

    # Without stream servers, /stroom/ goes where every other URL goes (and is refused there).
    conf = prefix / "nginx.conf"
    conf.write_text(
        template.replace("@PREFIX@", str(prefix))
        .replace("@PORT@", str(port))
        .replace("@UPSTREAMS@", servers(upstreams))
        .replace("@STREAM_UPSTREAMS@", servers(stream_upstreams or upstreams))
    )
    binary = os.environ.get("NGINX", "/usr/sbin/nginx")
    process = subprocess.Popen(
        [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/bench/floor/", process)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # graceful: the master stops its workers
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        errors = (prefix / "error.log").read_text() if (prefix / "error.log").exists() else ""
        if "[emerg]" in errors or "[alert]" in errors or "[crit]" in errors:
            print(errors[-3000:], file=sys.stderr)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def scratch_database(url: str, name: str, *, drop: bool = False) -> str:
    """A fresh database ``name`` on the server of ``url`` (dropped first), its URL; with
    ``drop`` only dropped."""
    import psycopg

    admin = urlparse(url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if not drop:
            connection.execute(f"CREATE DATABASE {name}")
    return urlparse(url)._replace(path=f"/{name}").geturl()


def base_tree(commit: str, into: Path) -> Path:
    """The files of ``commit`` (``git archive``) in ``into/commit``: a tree to measure beside
    today's in one run."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    tree = into / commit
    tree.mkdir()
    archive_path = into / "base.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(tree, filter="data")
    return tree
