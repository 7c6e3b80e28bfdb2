"""League benchmark: the standings, player and archive pages of a big club, in PostgreSQL.

Run with `make bench-league` (or `python bench/league.py [--database-url URL] [--write FILE]`).
It builds, in a database of its own (default ``toepen_bench`` on the local server, created when
missing), a club with 300 players and 5,000 finished sessions of about 30 rounds each (some
150,000 rounds), five seasons of 1,000 sessions. Every session is a random but legal game from
the engine (``random_session``), stored through ``services.session_import``: the engine
replays it and its RoundScore and SessionResult rows go in with bulk inserts, exactly as for an
imported file. A dataset built before is reused (``--rebuild`` builds it again).

Then it times each page through Django's test client (the whole server side: URL routing,
queries, templates), after a warm-up, and reports the median and p95 of ``--runs`` requests.
Target: under 150 ms each.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/toepen_bench"
CLUB = "bench"
LOAD_LABEL = "Belasting"  # table labels of bench/load.py's running sessions: not the dataset
PLAYERS = 300
SESSIONS = 5000
# A smaller dataset for a quick try of the load benchmark (building 5,000 takes minutes).
SESSIONS = int(os.environ.get("BENCH_SESSIONS", SESSIONS))
SEASONS = 5
TABLES_PER_EVENING = 10
# A game to 37 strafpunten lasts about 30 rounds with four to six players.
RULES = {"max_points": 37}
TARGET_MS = 150


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    # Production-like: no debug bookkeeping of every query.
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    _create_database(url)
    import django
    from django.conf import settings

    django.setup()
    # DEBUG off would want collected static files with a manifest: not what is measured here.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def _create_database(url: str) -> None:
    """Create the benchmark's database when the server does not have it yet."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    config = dj_database_url.parse(url)
    name = config["NAME"]
    conninfo = {
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "dbname": "postgres",
    }
    with psycopg.connect(**{k: v for k, v in conninfo.items() if v}, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def build(*, rebuild: bool, log: Callable[[str], None]) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction

    from scoring.engine.simulate import random_session
    from scoring.lei import services
    from scoring.models import Club, Player, Season, Session

    call_command("migrate", verbosity=0)
    club = Club.objects.filter(slug=CLUB).first()
    if club is not None and not rebuild and Session.objects.filter(club=club).count() >= SESSIONS:
        log("dataset: reusing the one built before")
        return
    if club is not None:
        log("dataset: removing the old one")
        club.delete()
    started = time.perf_counter()
    club = Club.objects.create(name="Bench", slug=CLUB, standings_public=True, rules=RULES)
    names = [f"Speler {i:03d}" for i in range(1, PLAYERS + 1)]
    Player.objects.bulk_create(
        Player(club=club, name=name, public_initials=i % 10 == 0) for i, name in enumerate(names)
    )
    rng = random.Random(2026)
    per_season = SESSIONS // SEASONS
    evenings = per_season // TABLES_PER_EVENING
    for s in range(SEASONS):
        first_day = datetime.date(2021 + s, 1, 6)
        season = Season.objects.create(
            club=club,
            name=f"Seizoen {2021 + s}",
            starts_on=first_day,
            ends_on=datetime.date(2021 + s, 12, 31),
            ranking={"scoring": "placement", "best_n": 40, "tie_breakers": [
                "toepkoningen", "average_place", "head_to_head", "strafpunten_per_round"
            ]},
        )  # fmt: skip
        for e in range(evenings):
            day = first_day + datetime.timedelta(days=3 * e)
            with transaction.atomic():
                for t in range(TABLES_PER_EVENING):
                    players = rng.sample(names, rng.randint(4, 6))
                    data = random_session(rng, players, rounds=400, rules=RULES)
                    services.session_import(
                        club=club,
                        data=data,
                        season=season,
                        played_on=day,
                        table_label=f"Tafel {t + 1}",
                    )
        done = (s + 1) * per_season
        log(f"dataset: {done} sessions in {time.perf_counter() - started:.0f} s")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def counts() -> dict[str, int]:
    from scoring.models import Club, Player, Round, RoundScore, Session, SessionResult

    club = Club.objects.get(slug=CLUB)
    return {
        "players": Player.objects.filter(club=club).count(),
        "sessions": Session.objects.filter(club=club).count(),
        "rounds": Round.objects.filter(session__club=club).count(),
        "round scores": RoundScore.objects.filter(round__session__club=club).count(),
        "session results": SessionResult.objects.filter(session__club=club).count(),
    }


def timed(client, url: str, *, runs: int) -> list[float]:
    for _ in range(3):
        assert client.get(url).status_code == 200, url
    figures = []
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get(url)
        figures.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, url
    return figures


def p95(figures: list[float]) -> float:
    ordered = sorted(figures)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measured(club) -> tuple[Any, dict[str, int]]:
    """What the benchmarks ask for: the club's newest season and its busiest player (the
    player's id and ``n`` sessions); ``bench/load.py`` asks for the same pages."""
    from django.db.models import Count

    from scoring.models import Season, SessionResult

    season = Season.objects.filter(club=club).order_by("-starts_on").first()
    busiest = (
        SessionResult.objects.filter(session__club=club, player__isnull=False)
        .values("player_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    return season, busiest


def measure(*, runs: int) -> list[tuple[str, str, list[float]]]:
    from django.test import Client
    from django.urls import reverse

    from scoring.models import Club

    club = Club.objects.get(slug=CLUB)
    season, busiest = measured(club)
    player_id = busiest["player_id"]
    # The latest evening of the dataset: not one of the running tables that a
    # stopped ``make bench-load`` left behind.
    dataset = club.sessions.exclude(table_label__startswith=LOAD_LABEL)
    evening = dataset.order_by("-played_on").values_list("played_on", flat=True).first()
    client = Client()
    pages = [
        (
            "standings of a season of 1,000 sessions (best 40, all four tie-breakers)",
            reverse("league_season", args=[club.slug, season.pk]),
        ),
        (
            f"player page of the busiest player ({busiest['n']} sessions), all seasons",
            reverse("league_player", args=[club.slug, player_id]),
        ),
        (
            "player page, one season",
            reverse("league_player", args=[club.slug, player_id]) + f"?seizoen={season.pk}",
        ),
        ("archive, first page of 5,000 sessions", reverse("league_archive", args=[club.slug])),
        (
            "archive filtered by player",
            reverse("league_archive", args=[club.slug]) + f"?speler={player_id}",
        ),
        (
            "evening view (10 tables)",
            reverse("league_evening", args=[club.slug, evening.isoformat()]),
        ),
    ]
    return [(what, url, timed(client, url, runs=runs)) for what, url in pages]


def report(results: list[tuple[str, str, list[float]]], sizes: dict[str, int]) -> str:
    from bench.report import measured

    lines = [
        "## League pages (`make bench-league`)",
        "",
        f"{measured('bench-league')}. PostgreSQL, server time through Django's test client "
        f"(routing, queries, templates), DEBUG off. Dataset: "
        + ", ".join(f"{n:,} {what}" for what, n in sizes.items())
        + f"; {SEASONS} seasons.",
        "",
        "| page | median ms | p95 ms | target ms | met |",
        "|---|---|---|---|---|",
    ]
    for what, _url, figures in results:
        median, high = statistics.median(figures), p95(figures)
        met = "yes" if high < TARGET_MS else "no"
        lines.append(f"| {what} | {median:.1f} | {high:.1f} | < {TARGET_MS} | {met} |")
    runs = len(results[0][2]) if results else 0
    lines += [
        "",
        f"{runs} requests per page after 3 warm-up requests.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rebuild", action="store_true", help="build the dataset again")
    parser.add_argument("--write", metavar="FILE", help="write the section into this file")
    args = parser.parse_args()
    if not args.database_url.startswith(("postgres://", "postgresql://")):
        parser.error("the league benchmark needs a PostgreSQL database URL")
    _setup(args.database_url)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    build(rebuild=args.rebuild, log=log)
    sizes = counts()
    body = report(measure(runs=args.runs), sizes)
    print(body)
    if args.write:
        from bench.report import write_section

        write_section(args.write, "league", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
