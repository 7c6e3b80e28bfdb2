"""The best-N rule shown: each player's sessions of the season with the league points each
gave, those that count and those the rule drops (``Ranking.best_n``), for the standings page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from scoring.clubs.ranking import Ranking
from scoring.league.standings import (
    BEST_WINDOW,
    PLACEMENT,
    results_in_scope,
    results_over,
    with_points,
)
from scoring.models import Season

# The standings' own ``best`` window: what is listed as counted is exactly what was summed.
_GAMES_SQL = f"SELECT pid, pts, {BEST_WINDOW} AS best FROM ({{inner}}) r"  # noqa: S608 (constants)


@dataclass
class CountedGames:
    counted: list[int] = field(default_factory=list)  # points, best first
    dropped: list[int] = field(default_factory=list)


def counted_and_dropped(season: Season, ranking: Ranking) -> dict[int, CountedGames]:
    """Per player, the points of the sessions that count and of those dropped: one query, and
    none when the season counts every session."""
    if not ranking.best_n or ranking.scoring != PLACEMENT:
        return {}
    inner = with_points(results_in_scope(club_id=season.club_id, season_id=season.pk), ranking)
    games: dict[int, CountedGames] = defaultdict(CountedGames)
    for row in sorted(results_over(inner, _GAMES_SQL), key=lambda r: (r["pid"], r["best"])):
        part = games[row["pid"]]
        (part.counted if row["best"] <= ranking.best_n else part.dropped).append(int(row["pts"]))
    return dict(games)
