"""Ratings benchmark: does the club rating find who plays well, and what does a recompute cost?

Run with `make bench-ratings` (or `python bench/ratings.py [--database-url URL] [--seed N]
[--write FILE]`). Without a URL it uses a fresh SQLite file.

1. Skill. A club of 40 players, each with a hidden skill s ~ N(0, 1) and an attendance
   (the chance to come to an evening, uniform 0.4-1.0, drawn apart from the skill). Each
   evening the players who come are seated at random tables of four or five; each table plays
   one of the engine's random but legal games (``random_session``) in which whoever wins a
   round's last trick is drawn among those who may with weight e^s (all else, knocks and
   folds, at random as always). Every game is stored through ``services.session_import`` in
   one season. After the evening on which every player has played at least 30 games, it
   reports Spearman's rho between the hidden skill and (a) the rating (mu - 3 sigma,
   ``scoring.ratings``) and (b) the season's placement-point standings
   (``standings.season_standings``, the default ranking) on the very same games.
2. Recompute. A club of 5,000 finished games of four to six players from 60 (sessions and
   results inserted directly: the ratings read nothing else), and the time of
   ``ratings_refresh`` from nothing (median of three); then a club evening's game that
   finishes after a table started later than it, rated in its place on top of those games.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAYERS = 40
GAMES_EACH = 30
BIG_CLUB_GAMES = 5000
TARGET_RHO = 0.8
TARGET_SECONDS = 5.0


def _setup(url: str | None) -> None:
    if url is None:
        url = "sqlite:///" + os.path.join(tempfile.mkdtemp(prefix="bench-ratings-"), "db.sqlite3")
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    if url.startswith("postgres"):
        from bench.league import _create_database

        _create_database(url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rho: Pearson's r of the ranks (ties get their average rank)."""

    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def skill_season(seed: int) -> dict:
    from scoring.engine.simulate import random_session
    from scoring.league import standings
    from scoring.lei import services
    from scoring.models import Club, Player, Season
    from scoring.ratings import selectors
    from scoring.ratings.services import ratings_refresh

    rng = random.Random(seed)
    club = Club.objects.create(name=f"Skill {seed}", slug=f"skill-{seed}")
    season = Season.objects.create(club=club, name="Seizoen", starts_on=datetime.date(2026, 1, 1))
    names = [f"Speler {i:02d}" for i in range(PLAYERS)]
    players = {n: Player.objects.create(club=club, name=n) for n in names}
    skill = {n: rng.gauss(0, 1) for n in names}
    attendance = {n: rng.uniform(0.4, 1.0) for n in names}
    weight = {n: math.exp(s) for n, s in skill.items()}
    games = dict.fromkeys(names, 0)
    day = datetime.date(2026, 1, 1)
    evenings = sessions = 0
    while min(games.values()) < GAMES_EACH:
        present = [n for n in names if rng.random() < attendance[n]]
        rng.shuffle(present)
        tables = max(1, len(present) // 4)
        for t in range(tables):
            table = present[t::tables]
            if len(table) < 2:
                continue
            data = random_session(rng, table, rounds=2000, skill=weight)
            services.session_import(club=club, data=data, season=season, played_on=day)
            sessions += 1
            for n in table:
                games[n] += 1
        day += datetime.timedelta(days=1)
        evenings += 1
    ratings_refresh(club_id=club.pk)
    members, _ = selectors.club_ratings(club.pk)
    rating = {r.name: r.rating for r in members}
    table = standings.season_standings(season)
    points = {r.name: r.points for r in table.rows}
    hidden = [skill[n] for n in names]
    return {
        "evenings": evenings,
        "sessions": sessions,
        "games_min": min(games.values()),
        "games_max": max(games.values()),
        "rho_rating": spearman(hidden, [rating[n] for n in names]),
        "rho_points": spearman(hidden, [points[n] for n in names]),
        "rho_attendance_points": spearman(
            [attendance[n] for n in names], [points[n] for n in names]
        ),
        "players": len(players),
    }


def recompute_time(seed: int) -> dict:
    from django.db import transaction

    from scoring.models import Club, Player, RatingSnapshot, RatingState, Session, SessionResult
    from scoring.ratings.services import ratings_refresh

    rng = random.Random(seed)
    club = Club.objects.create(name="Groot", slug=f"groot-{seed}")
    players = [Player(club=club, name=f"Lid {i:02d}") for i in range(60)]
    for p in players:
        p.save()
    day = datetime.date(2020, 1, 1)
    with transaction.atomic():
        sessions = Session.objects.bulk_create(
            Session(
                club=club,
                status=Session.Status.FINISHED,
                played_on=day + datetime.timedelta(days=i // 10),
                scorer_token=None,
            )
            for i in range(BIG_CLUB_GAMES)
        )
        results = []
        for session in sessions:
            table = rng.sample(players, rng.randint(4, 6))
            for place, p in enumerate(table, start=1):
                results.append(SessionResult(session=session, player=p, place=place))
        SessionResult.objects.bulk_create(results, batch_size=2000)
    times = []
    for _ in range(3):
        RatingState.objects.filter(club=club).update(key="")
        start = time.perf_counter()
        ratings_refresh(club_id=club.pk)
        times.append(time.perf_counter() - start)
    rows = RatingSnapshot.objects.filter(club=club).count()
    # A club evening on top of it: two tables started one after the other, the second to start
    # finishes first, then the first (what a recompute did before the game was rated in its
    # place: the time of the tap's ratings step).
    evening = day + datetime.timedelta(days=BIG_CLUB_GAMES // 10 + 1)
    in_place = []
    for _ in range(3):
        first, second = (
            Session.objects.create(
                club=club, status=Session.Status.RUNNING, played_on=evening, scorer_token=None
            )
            for _ in range(2)
        )
        for session in (second, first):
            table = rng.sample(players, rng.randint(4, 6))
            SessionResult.objects.bulk_create(
                SessionResult(session=session, player=p, place=place)
                for place, p in enumerate(table, start=1)
            )
            Session.objects.filter(pk=session.pk).update(status=Session.Status.FINISHED)
            start = time.perf_counter()
            ratings_refresh(club_id=club.pk, game=session.pk)
            if session is first:
                in_place.append(time.perf_counter() - start)
    return {
        "games": BIG_CLUB_GAMES,
        "rows": rows,
        "median_s": statistics.median(times),
        "max_s": max(times),
        "in_place_ms": statistics.median(in_place) * 1000,
        "in_place_max_ms": max(in_place) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--write", default=None)
    args = parser.parse_args()
    _setup(args.database_url)
    from django.db import connection

    from bench.report import measured, write_section

    seasons = []
    for seed in range(1, args.seeds + 1):
        found = skill_season(seed)
        seasons.append(found)
        print(f"seed {seed}: {found}", flush=True)
    recompute = recompute_time(1)
    print(f"recompute: {recompute}", flush=True)
    lines = [
        "## Ratings (`bench/ratings.py`)",
        "",
        f"{measured('bench-ratings')}, on {connection.vendor}.",
        "",
        f"How skill enters: {PLAYERS} players, each with a hidden skill s ~ N(0, 1) and an "
        "attendance (chance to come to an evening, 0.4-1.0, drawn apart from the skill). Each "
        "evening whoever comes sits at random tables of four or five and plays one of the "
        "engine's random legal games (`random_session`), in which the winner of each round's "
        "last trick is drawn among those who may win it with weight e^s; knocks and folds stay "
        "random. The season ends on the evening after which everybody has played at least "
        f"{GAMES_EACH} games. Spearman's rho of the hidden skill against the rating "
        "(mu - 3 sigma) and against the season's placement-point standings (the default "
        f"ranking) on the same games; target: rating rho >= {TARGET_RHO} and above the "
        "standings'.",
        "",
        "| seed | evenings | games | games per player | rho rating | rho standings "
        "| rho standings vs attendance |",
        "|---|---|---|---|---|---|---|",
    ]
    for seed, s in enumerate(seasons, start=1):
        lines.append(
            f"| {seed} | {s['evenings']} | {s['sessions']} | {s['games_min']}-{s['games_max']} "
            f"| {s['rho_rating']:.3f} | {s['rho_points']:.3f} | {s['rho_attendance_points']:.3f} |"
        )
    ok = all(s["rho_rating"] >= TARGET_RHO and s["rho_rating"] > s["rho_points"] for s in seasons)
    lines += [
        "",
        f"Target met on every seed: {'yes' if ok else 'NO'}.",
        "",
        f"Recomputing a club of {recompute['games']:,} games ({recompute['rows']:,} snapshots, "
        f"4-6 of 60 players a game) from nothing: median {recompute['median_s']:.2f} s, "
        f"slowest {recompute['max_s']:.2f} s of three (target <= {TARGET_SECONDS:.0f} s).",
        "",
        "A club evening's game that finishes after a table started later than it (the usual "
        "case: tables finish in any order), on top of those games: its finishing tap rates it "
        "in its place, the snapshots before it kept (`_rate_in_place`), in a median of "
        f"{recompute['in_place_ms']:.0f} ms, slowest {recompute['in_place_max_ms']:.0f} ms of "
        "three; before, that tap recomputed the club's whole history (the median above).",
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section(args.write, "ratings", body)


if __name__ == "__main__":
    main()
