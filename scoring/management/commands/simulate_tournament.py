"""manage.py simulate_tournament --players N --series K [--seed S] [--json] [--draw-only]

Plays a whole toernooi through the services (``scoring.toernooi.services``): check-in, the draw of
every series, each table's game as random but legal rounds from the engine's simulator
(entered as a paper lei, so the engine checks every one), the standings, the final table and
the prize list. For an organiser to preview the draw, for tests, and for bench/tournament.py.

``--json`` prints one object: each series' tables and how long its draw took (``draw_ms``: the
service call, database included), the pairs that met more than once (``repeat_pairs``), the
most series any one pair sat together (``most_meetings``) and the fewest that any draw could
have had (``most_bound``), the evening's extra meetings (``extra_meetings``, as
``scoring.toernooi.draw.extra_meetings`` counts them) and the fewest any draw with no pair above
``most_bound`` could have had (``lower_bound``), the standings and the final table.
``--draw-only`` draws every series without playing its games (each table is ended unplayed; the
draw does not look at results): the draw's figures at a fraction of the cost, without standings
or final table.

Where it writes: in a throwaway club, inside one database transaction that is rolled back at
the end, so the database is exactly as before (the club's own data is never touched; only
PostgreSQL's id sequences move on). The same ``--seed`` gives the same tournament.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scoring.engine.simulate import random_session
from scoring.models import Club, Series, Tournament, TournamentTable
from scoring.toernooi import checkin, draw
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments

NAMES = [
    "Anne",
    "Bas",
    "Cees",
    "Door",
    "Evert",
    "Fenna",
    "Gijs",
    "Hanneke",
    "Ids",
    "Joke",
    "Kees",
    "Lies",
    "Maarten",
    "Nel",
    "Otto",
    "Pien",
    "Rik",
    "Sanne",
    "Teun",
    "Ursula",
    "Vera",
    "Wim",
    "Xander",
    "Yvonne",
    "Zeger",
    "Aaltje",
    "Bram",
    "Coby",
    "Dirk",
    "Els",
    "Frits",
    "Greet",
    "Henk",
    "Ineke",
    "Jaap",
    "Klaas",
]

MAX_PLAYERS = tournaments.MAX_PLAYERS
MAX_SERIES = 20


def player_names(count: int) -> list[str]:
    """``count`` distinct names: the list above, then the same names numbered."""
    return [
        NAMES[i % len(NAMES)] + (f" {i // len(NAMES) + 1}" if i >= len(NAMES) else "")
        for i in range(count)
    ]


def play_table(table: TournamentTable, rng: random.Random) -> None:
    """Play a table's game at random by the rules and enter it as a paper lei."""
    tournament = table.series.tournament
    session = table.session
    names = [s.player.name for s in table.seats.select_related("player").order_by("position")]
    if tournament.end_mode == Tournament.EndMode.ROUNDS:
        rounds = tournament.end_rounds or 1
    elif tournament.end_mode == Tournament.EndMode.TIME:
        rounds = rng.randint(8, 20)
    else:
        rounds = 500  # to the toepkoning: a random game is over long before
    data = random_session(
        rng,
        names,
        rounds=rounds,
        preset=session.preset,
        rules=session.rules,
        dealer=session.first_dealer or None,
    )
    tournament_results.table_enter_rounds(table=table, rounds=data["rounds"])


def play_series(series: Series, rng: random.Random, *, play: bool = True) -> None:
    tournaments.series_start(series=series)
    for table in series.tables.select_related("series__tournament", "session"):
        if play:
            play_table(table, rng)
        else:
            tournament_results.table_finish(table=table)
    tournament_results.series_finish(series=series)


def play_tournament(
    tournament: Tournament, rng: random.Random, *, play: bool = True
) -> list[float]:
    """Draw, play and finish every series, then the final table (if the tournament has one).
    Without ``play`` the tables are ended unplayed and there is no final table: the draws are
    the same (their seeds come from a generator of their own). Returns each series' draw time
    in seconds."""
    seeds = random.Random(rng.randrange(2**31))
    seconds: list[float] = []
    for number in range(1, tournament.series_count + 1):
        seed = seeds.randrange(2**31)
        start = time.perf_counter()
        series = tournaments.series_draw(tournament=tournament, expected_number=number, seed=seed)
        seconds.append(time.perf_counter() - start)
        play_series(series, rng, play=play)
    if tournament.final_table and play:
        final = tournament_results.final_table_create(
            tournament=tournament, seed=seeds.randrange(2**31)
        )
        for table in final.tables.select_related("series__tournament", "session"):
            play_table(table, rng)
        tournament_results.series_finish(series=final)
    return seconds


def report(tournament: Tournament, *, played: bool = True) -> dict[str, Any]:
    """The tournament as the ``--json`` object (see the module docstring)."""
    regular: list[dict[str, Any]] = []
    final_table: list[str] | None = None
    seatings: list[list[list[str]]] = []
    for series in tournament.series.prefetch_related("tables__seats__player").order_by("number"):
        tables = [
            [s.player.name for s in sorted(t.seats.all(), key=lambda s: s.position)]
            for t in sorted(series.tables.all(), key=lambda t: t.number)
        ]
        if series.final:
            final_table = tables[0] if tables else None
            continue
        seatings.append(tables)
        regular.append({"number": series.number, "tables": tables})
    players = tournament.entries.count()
    rows = tournament_selectors.tournament_standings(tournament).rows if played else []
    # Everyone plays every series here: the bounds of the evening as it was planned.
    sizes = draw.table_sizes(players, tournament.table_size)
    most_bound = draw.most_meetings_bound(range(players), sizes, len(seatings))
    return {
        "series": regular,
        "repeat_pairs": [list(p) for p in draw.repeat_pairs(seatings)],
        "most_meetings": draw.most_meetings(seatings),
        "most_bound": most_bound,
        "extra_meetings": draw.extra_meetings(seatings),
        # The fewest extra meetings with no pair above ``most_bound``.
        "lower_bound": max(
            draw.lower_bound(range(players), sizes, len(seatings)),
            draw.overlap_bound(range(players), sizes, len(seatings), most_bound),
        ),
        "standings": [
            {
                "player": row.player.name,
                "place": row.place,
                "table_points": row.table_points,
                "strafpunten": row.strafpunten,
                "series_played": row.series_played,
            }
            for row in rows
        ],
        "final_table": final_table,
    }


class _RollBack(Exception):
    pass


class Command(BaseCommand):
    help = (
        "Play a whole tournament with random but legal games and print the draw, the "
        "standings and the final table. Nothing is kept: it runs in a transaction that is "
        "rolled back."
    )

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, required=True, help="players checked in")
        parser.add_argument("--series", type=int, required=True, help="number of series")
        parser.add_argument("--seed", type=int, default=None, help="reproduce a tournament")
        parser.add_argument("--table-size", type=int, choices=[4, 5], default=4)
        parser.add_argument("--no-final", action="store_true", help="without a final table")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--draw-only",
            action="store_true",
            help="draw every series without playing it (no standings, no final table)",
        )

    def handle(
        self, *args, players, series, seed, table_size, no_final, json, draw_only, **options
    ):
        if not tournaments.MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise CommandError(
                f"--players must be {tournaments.MIN_PLAYERS} to {MAX_PLAYERS}, not {players}"
            )
        if not 1 <= series <= MAX_SERIES:
            raise CommandError(f"--series must be 1 to {MAX_SERIES}, not {series}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        elif seed < 0:
            raise CommandError("--seed must be 0 or more")
        rng = random.Random(seed)
        outcome: dict[str, Any] = {}
        try:
            with transaction.atomic():
                club = Club.objects.create(
                    name="Simulatie", slug=f"simulatie-{random.SystemRandom().randrange(10**9)}"
                )
                tournament = tournaments.tournament_create(
                    club=club,
                    name=f"Simulatie {seed}",
                    series_count=series,
                    table_size=table_size,
                    final_table=not (no_final or draw_only),
                )
                checkin.tournament_check_in(tournament=tournament, guests=player_names(players))
                seconds = play_tournament(tournament, rng, play=not draw_only)
                outcome = report(tournament, played=not draw_only)
                for drawn, took in zip(outcome["series"], seconds, strict=True):
                    drawn["draw_ms"] = round(1000 * took, 1)
                outcome["seed"] = seed
                raise _RollBack
        except _RollBack:
            pass
        if json:
            del outcome["seed"]
            self.stdout.write(_json(outcome))
        else:
            self._print(outcome)

    def _print(self, outcome: dict[str, Any]) -> None:
        write = self.stdout.write
        write(f"Seed {outcome['seed']}")
        for series in outcome["series"]:
            write(f"\nSerie {series['number']}")
            for number, table in enumerate(series["tables"], start=1):
                write(f"  tafel {number}: {', '.join(table)}")
        pairs = outcome["repeat_pairs"]
        write(f"\nHerhaalde paren: {len(pairs)}")
        for a, b in pairs:
            write(f"  {a} - {b}")
        write(
            f"Meeste keren samen aan tafel: {outcome['most_meetings']}"
            f" (minstens {outcome['most_bound']} onvermijdelijk)"
        )
        write(
            f"Extra ontmoetingen: {outcome['extra_meetings']}"
            f" (minstens {outcome['lower_bound']} onvermijdelijk bij hoogstens"
            f" {outcome['most_bound']} keer samen)"
        )
        if not outcome["standings"]:
            return
        write("\nStand")
        for row in outcome["standings"]:
            write(
                f"  {row['place']:>3}. {row['player']:<16} {row['table_points']:>4} tafelpunten"
                f" {row['strafpunten']:>4} strafpunten, {row['series_played']} series"
            )
        if outcome["final_table"]:
            write(f"\nFinaletafel: {', '.join(outcome['final_table'])}")


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)
