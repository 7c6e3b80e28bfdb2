"""The finish of a toernooi for the room: the final order, which the TV, the public standings,
the prize list and its CSV show once the tournament is over ("Einduitslag").

The final table's result decides places 1 to 4 (a place shared there keeps the standings'
order between the two); everyone else follows in the order of the standings after the series,
sharing a place where the standings do. Before the end the room sees the standings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy

from scoring.models import Player, Series, SessionResult, Tournament
from scoring.toernooi.selectors import StandingRow, Standings, tournament_standings

# Why one of two players equal at the final table stands above the other.
BY_THE_SERIES = gettext_lazy("stand na de series")


@dataclass
class FinishRow:
    """A place in the order the room sees: the final order, or the standings before it."""

    place: int
    standing: StandingRow
    final_place: int | None = None  # the place at the final table, for its players
    shared: bool = False  # the place is shared with the row above or below
    decided_by: str = ""  # the tie-breaker that put this row below the one above ("" if none)

    @property
    def player(self) -> Player:
        return self.standing.player

    @property
    def table_points(self) -> int:
        return self.standing.table_points

    @property
    def strafpunten(self) -> int:
        return self.standing.strafpunten

    @property
    def withdrawn(self) -> bool:
        return self.standing.withdrawn


def is_over(tournament: Tournament) -> bool:
    """Whether the room sees the final order: the final table (or, without one, the last
    series) is closed. A series reopened makes the tournament open, and provisional, again."""
    return tournament.status == Tournament.Status.FINISHED


def final_order(tournament: Tournament, standings: Standings | None = None) -> list[FinishRow]:
    """Places 1 to N: the final table's order for its players, then the others by the
    standings. Without a final table, or before it is closed, the standings decide alone.
    One query besides the standings' own (``tournament_standings``)."""
    if standings is None:
        standings = tournament_standings(tournament)
    final_places = dict(
        SessionResult.objects.filter(
            session__tournament_table__series__tournament=tournament,
            session__tournament_table__series__final=True,
            session__tournament_table__series__state=Series.State.FINISHED,
            player__isnull=False,
        ).values_list("player_id", "place")
    )
    rows = standings.rows
    index = {row.player.pk: i for i, row in enumerate(rows)}
    finalists = sorted(
        (row for row in rows if row.player.pk in final_places),
        key=lambda row: (final_places[row.player.pk], index[row.player.pk]),
    )
    order: list[FinishRow] = []

    def add(row: StandingRow, final_place: int | None, same: bool, decided_by: str) -> None:
        if same:
            order[-1].shared = True
        order.append(
            FinishRow(
                place=order[-1].place if same else len(order) + 1,
                standing=row,
                final_place=final_place,
                shared=same,
                decided_by="" if same else decided_by,
            )
        )

    previous: StandingRow | None = None
    for row in finalists:
        # Equal at the final table and in the standings too: nothing tells them apart.
        same = (
            previous is not None
            and final_places[previous.player.pk] == final_places[row.player.pk]
            and previous.place == row.place
        )
        tied_at_final = (
            previous is not None and final_places[previous.player.pk] == final_places[row.player.pk]
        )
        add(row, None, same, str(BY_THE_SERIES) if tied_at_final else "")
        # The place at the final table as the series decided a tie there: two players tied
        # third at the table are 3rd and 4th, not both "3e" (shared only when nothing decides).
        order[-1].final_place = order[-1].place
        previous = row
    previous = None
    for row in rows:
        if row.player.pk in final_places:
            continue
        same = previous is not None and previous.place == row.place
        # The tie-breaker names the row above in the standings: said only when that row is
        # the one above here too.
        above = previous is not None and index[previous.player.pk] == index[row.player.pk] - 1
        add(row, None, same, row.decided_by if above else "")
        previous = row
    return order


def room_order(tournament: Tournament, standings: Standings) -> list[FinishRow]:
    """What the TV and the public standings list: the final order once the tournament is
    over (one query more), else the standings as they are."""
    if is_over(tournament):
        return final_order(tournament, standings)
    return [
        FinishRow(place=row.place, standing=row, shared=row.shared, decided_by=row.decided_by)
        for row in standings.rows
    ]


def prize_list(tournament: Tournament) -> list[FinishRow]:
    """The prize list: the final order, provisional until the tournament is over. Four
    queries, whatever the number of players."""
    return final_order(tournament)


def tournament_prizes_public_set(*, tournament: Tournament, public: bool) -> None:
    """Show the prize list (and the final standings as CSV) on the public pages, or keep it
    for the organiser until the prize-giving."""
    Tournament.objects.filter(pk=tournament.pk).update(prizes_public=public)
    tournament.prizes_public = public


def place_text(row: FinishRow) -> str:
    """``"3"``, or ``"3="`` for a place shared with another player."""
    return f"{row.place}=" if row.shared else str(row.place)


def lines(rows: Sequence[FinishRow], name: Callable[[Player], str]) -> list[dict[str, Any]]:
    """The rows as the pages draw them, each name as ``name`` shows it (initials where a
    player asked for them, on the public pages)."""
    return [
        {
            "place": place_text(row),
            "name": name(row.player),
            "row": row.standing,
            "final_place": row.final_place,
            "decided_by": row.decided_by,
        }
        for row in rows
    ]


CSV_HEADER = [
    "place",
    "shared",
    "player",
    "table_points",
    "strafpunten",
    "toepkoningen",
    "series_played",
    "final_table_place",
    "withdrawn",
    "final",
]


def csv_rows(
    tournament: Tournament, rows: Sequence[FinishRow], name: Callable[[Player], str]
) -> list[list[object]]:
    """The order as CSV rows after ``CSV_HEADER``; ``final`` says whether it is the final order
    (1) or the standings of a tournament still playing (0)."""
    over = int(is_over(tournament))
    return [
        [
            row.place,
            int(row.shared),
            name(row.player),
            row.standing.table_points,
            row.standing.strafpunten,
            row.standing.toepkoningen,
            row.standing.series_played,
            "" if row.final_place is None else row.final_place,
            int(row.withdrawn),
            over,
        ]
        for row in rows
    ]
