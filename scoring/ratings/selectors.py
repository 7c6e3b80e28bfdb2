"""What the pages read of the ratings: the club's list, a player's history, a season's
ranking by rating and the chance at a table. Reads only; a page first makes the snapshots
current with ``scoring.ratings.services.ratings_fresh``."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.models import RatingSnapshot, Season
from scoring.ratings.history import model


def ordinal(mu: float, sigma: float) -> float:
    """The one number shown: mu - 3 sigma (OpenSkill's ``ordinal``)."""
    return mu - 3 * sigma


@dataclass
class RatingRow:
    player_id: int
    name: str
    public_initials: bool
    is_guest: bool
    confirmed: bool
    rating: float
    mu: float
    sigma: float
    games: int
    rank: int = 0


def club_ratings(club_id: int) -> tuple[list[RatingRow], list[RatingRow]]:
    """The members' and the guests' current ratings, each best first (ties by name): one
    query, each player's latest snapshot with its player."""
    rows = [
        RatingRow(
            player_id=s.player_id,
            name=s.player.name,
            public_initials=s.player.public_initials,
            is_guest=s.player.is_guest,
            confirmed=s.player.confirmed,
            rating=ordinal(s.mu, s.sigma),
            mu=s.mu,
            sigma=s.sigma,
            games=s.games,
        )
        for s in RatingSnapshot.objects.filter(club_id=club_id, latest=True).select_related(
            "player"
        )
    ]
    rows.sort(key=lambda r: (-round(r.rating, 9), r.name.casefold()))
    members = [r for r in rows if not r.is_guest]
    guests = [r for r in rows if r.is_guest]
    for group in (members, guests):
        for position, row in enumerate(group, start=1):
            row.rank = position
    return members, guests


def player_history(player_id: int) -> list[float]:
    """The player's rating after each of their games, oldest first: one query."""
    return [
        ordinal(mu, sigma)
        for mu, sigma in RatingSnapshot.objects.filter(player_id=player_id)
        .order_by("seq")
        .values_list("mu", "sigma")
    ]


def season_ratings(season: Season) -> dict[int, tuple[float, int]]:
    """Each player's rating after their last game of the season, with the games rated then:
    one query."""
    last: dict[int, tuple[int, float, int]] = {}
    for player_id, seq, mu, sigma, games in RatingSnapshot.objects.filter(
        session__season=season
    ).values_list("player_id", "seq", "mu", "sigma", "games"):
        if player_id not in last or seq > last[player_id][0]:
            last[player_id] = (seq, ordinal(mu, sigma), games)
    return {pid: (rating, games) for pid, (_, rating, games) in last.items()}


def win_chances(club_id: int, player_ids: list[int]) -> dict[int, float]:
    """Each player's chance to become toepkoning at this table, from their ratings
    (OpenSkill's ``predict_win``; a player not rated yet has the starting rating): one query."""
    if len(player_ids) < 2:
        return {}
    pl = model()
    latest = {
        pid: pl.rating(mu=mu, sigma=sigma)
        for pid, mu, sigma in RatingSnapshot.objects.filter(
            club_id=club_id, latest=True, player_id__in=player_ids
        ).values_list("player_id", "mu", "sigma")
    }
    chances = pl.predict_win([[latest.get(pid) or pl.rating()] for pid in player_ids])
    return dict(zip(player_ids, chances, strict=True))
