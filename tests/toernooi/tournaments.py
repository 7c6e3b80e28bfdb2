"""A tournament's players checked in, a series drawn, a table played out, in one call each, and what
the organiser's writes touch (``state``), to show that a refusal changed nothing."""

from __future__ import annotations

from scoring.models import (
    Player,
    Series,
    Session,
    TableSeat,
    Tournament,
    TournamentEntry,
)
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import play_out

NAMES = [
    "Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs",
    "Hans", "Ilse", "Joop", "Kees", "Lies", "Mien",
]  # fmt: skip


def check_in(tournament: Tournament, players: list[Player]) -> None:
    checkin.tournament_check_in(tournament=tournament, players=players)


def drawn(tournament: Tournament, players: list[Player], seed: int = 7) -> Series:
    check_in(tournament, players)
    return tournaments.series_draw(
        tournament=tournament, expected_number=tournaments.next_series_number(tournament), seed=seed
    )


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def state(tournament: Tournament) -> tuple:
    """Everything the organiser's writes touch, to show a refusal changed nothing."""
    return (
        list(TournamentEntry.objects.filter(tournament=tournament).values_list(
            "player_id", "from_series", "withdrawn_after"
        ).order_by("player_id")),
        list(Series.objects.filter(tournament=tournament).values_list(
            "number", "state", "seed"
        ).order_by("number")),
        list(TableSeat.objects.filter(series__tournament=tournament).values_list(
            "series__number", "table__number", "position", "player_id"
        ).order_by("series__number", "table__number", "position")),
        Session.objects.count(),
    )  # fmt: skip


def finished_series(tournament: Tournament, players: list[Player], seed: int = 7) -> Series:
    series = drawn(tournament, players, seed)
    tournaments.series_start(series=series)
    for table in series.tables.all():
        play_out(table.session)
    return series
