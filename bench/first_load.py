"""The bytes a tablet fetches the first time it opens a game, over the wire.

The app runs as deployed (``DEBUG`` off, ``collectstatic`` with the manifest storage, gunicorn)
on a throwaway SQLite database, with a game of eight players some rounds in and a knock open.
Two counts of the first visit by the scorer link, as a pub tablet opens a game:

- Chromium (``/usr/bin/chromium``, or ``$CHROMIUM``) at 768 x 1024 opens the link and waits
  until the network is quiet; every answer it received is counted as Chromium counts it
  (headers and body as sent, compressed where they were);
- the page and every static file it names are fetched with gzip and Brotli accepted, as
  Chromium asks for them (``gzip, deflate, br, zstd``, over HTTPS and to the loopback address
  alike), the home-screen icons and the manifest too, which a browser does not fetch on
  opening a page.

The static files are ``collectstatic``'s: the app's own scripts and styles minified
(``toepen_site/staticfiles.py``), every text file also as ``.br`` (whitenoise, with the
``Brotli`` package) and ``.gz``; the app's own answers are gzip (``toepen_site/middleware.py``).

The service worker's script and the share links ("Deel" fetches them when it is opened) are
counted apart: the page draws without them.

    .venv/bin/python bench/first_load.py [--rounds 20] [--write BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ASSET = re.compile(rb'(?:href|src)="(/static/[^"]+)"')
SHARE = re.compile(rb'hx-get="(/sessies/\d+/deel/)"')
PLAYERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Femke", "Gijs", "Maximiliaan van Oldenbarnevelt"]
GOAL_KB = 40


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wire_size(response) -> int:
    """Bytes on the wire for one answer: the status line, the headers and the body as sent."""
    head = 17 + sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
    return head + response.num_bytes_downloaded


def make_game(rounds: int) -> str:
    """A game of eight ``rounds`` rounds in (knocks, folds, a boer now and then) with a knock
    being answered, as a tablet sees it mid-evening; its scorer link's token."""
    import django

    django.setup()
    from django.core.management import call_command

    from scoring.lei import services
    from scoring.models import Club

    call_command("migrate", verbosity=0, interactive=False)
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    session = services.session_start(
        club=club, players=PLAYERS, table_label="Tafel 3", overrides={"max_points": 99}
    )

    def tap(kind: str, player: str, **fields) -> None:
        session.refresh_from_db()
        services.session_record_event(
            session=session,
            event={"type": kind, "player": player, **fields},
            version=session.version,
            key=os.urandom(8).hex(),
        )

    for number in range(rounds):
        if number % 2:  # a knock, one answers "mee", the rest fold
            knocker, stayer = PLAYERS[number % 8], PLAYERS[(number + 3) % 8]
            tap("knock", knocker)
            for name in PLAYERS:
                if name not in (knocker, stayer):
                    tap("fold", name)
            tap("stay", stayer)
            tap("win", stayer if number % 4 == 1 else knocker)
        else:
            tap("win", PLAYERS[(number * 3 + 1) % 8], jack=number % 5 == 0)
    tap("knock", PLAYERS[0])
    session.refresh_from_db()
    return session.scorer_token


def in_chromium(base: str, token: str) -> dict[str, int]:
    """What Chromium receives when it opens the scorer link, until the network is quiet:
    each answer's name -> bytes (its headers and body as they came)."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    urls: dict[str, str] = {}
    received: dict[str, int] = {}

    def sent(event: dict) -> None:  # a redirect is an answer of its own, with its size
        redirect = event.get("redirectResponse")
        if redirect:
            received[redirect["url"]] = int(redirect["encodedDataLength"])
        urls[event["requestId"]] = event["request"]["url"]

    def finished(event: dict) -> None:
        url = urls.get(event["requestId"], "?")
        received[url] = received.get(url, 0) + int(event["encodedDataLength"])

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        context = browser.new_context(viewport={"width": 768, "height": 1024}, locale="nl-NL")
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", sent)
        cdp.on("Network.loadingFinished", finished)
        page.goto(f"{base}/tafel/{token}/", wait_until="networkidle")
        browser.close()
    return {name(url.removeprefix(base)): size for url, size in received.items()}


def name(path: str) -> str:
    if path.startswith("/tafel/"):
        return "scorer link (302)"
    if path.startswith("/sessies/"):
        return "page"
    return path.rsplit("/", 1)[-1]


def by_name(base: str, token: str) -> dict[str, tuple[int, str]]:
    """The page, every file it names, the worker and the share links, fetched with gzip and
    Brotli accepted: name -> (bytes on the wire, how the body came)."""
    import httpx

    headers = {"Accept-Encoding": "gzip, deflate, br", "Accept-Language": "nl"}
    files: dict[str, tuple[int, str]] = {}
    with httpx.Client(base_url=base, headers=headers) as client:

        def get(url: str, label: str = ""):
            response = client.get(url)
            how = response.headers.get("content-encoding", "")
            if response.status_code not in (200, 302):
                how = f"status {response.status_code}"
            files[label or name(url)] = (wire_size(response), how)
            return response

        page = get(get(f"/tafel/{token}/").headers["location"])
        for url in sorted({m.decode() for m in ASSET.findall(page.content)}):
            get(url)
        get("/lei-sw.js", "service worker")
        share = SHARE.search(page.content)
        if share:
            client.headers["HX-Request"] = "true"
            get(share.group(1).decode(), 'share links ("Deel")')
    return files


APART = {"service worker", 'share links ("Deel")'}


def report(chromium: dict[str, int], files: dict[str, tuple[int, str]], rounds: int) -> str:
    from bench.report import measured

    seen = sum(chromium.values())
    named = sum(v[0] for k, v in files.items() if k not in APART)
    rows = "\n".join(
        f"| {k} | {f'{chromium[k] / 1024:.1f}' if k in chromium else '—'} | {v[0] / 1024:.1f}"
        f" | {v[1] or 'none'} |"
        for k, v in files.items()
    )
    verdict = "within" if seen <= GOAL_KB * 1024 else "over"
    return (
        f"{measured()}: a game of 8 players, {rounds} rounds in, a knock open, opened by its"
        f" scorer link on the app as deployed (DEBUG off, `collectstatic`, gunicorn, SQLite)."
        f" Chromium received **{seen / 1024:.1f} KB** ({verdict} the goal of {GOAL_KB} KB);"
        f" the page and every file it names, gzip and Brotli accepted: {named / 1024:.1f} KB. The"
        f' service worker and the share links ("Deel") come apart, in KB on the wire:\n\n'
        f"| answer | Chromium | fetched by name | encoding |\n|---|---:|---:|---|\n{rows}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--write", metavar="BENCHMARKS.md")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="first-load-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "toepen_site.settings",
        "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "SECURE_HSTS_SECONDS": "0",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "--clear", "-v", "0"]
    subprocess.run(collect, cwd=ROOT, env=env, check=True)
    token = make_game(args.rounds)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    gunicorn = [sys.executable, "-m", "gunicorn", "-w", "1", "-b", base.removeprefix("http://")]
    server = subprocess.Popen([*gunicorn, "toepen_site.wsgi"], cwd=ROOT, env=env)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        chromium = in_chromium(base, token)
        files = by_name(base, token)
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = report(chromium, files, args.rounds)
    print(text)
    if args.write:
        from bench.report import write_section

        head = "## Tablet (`bench/first_load.py`)\n\n### The first load over the wire\n\n"
        write_section(args.write, "first-load", head + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
