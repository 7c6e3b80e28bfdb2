"""What a club takes home: the standings and the rounds of a season as CSV (cells that a
spreadsheet would run as formulas are defused), and one session as its ``toepen/1`` file with
public names."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe

from scoring import access, figures
from scoring.access import Viewer
from scoring.http import csv_response, private_response
from scoring.league import standings
from scoring.league.views import season_of
from scoring.models import (
    RoundScore,
    Session,
)
from scoring.names import public_names
from scoring.sessionfile import public_file


@require_safe
@access.requires(access.league_viewer)
def season_standings_csv(request: HttpRequest, viewer: Viewer, season_id: int) -> HttpResponse:
    season = season_of(viewer, season_id)
    table = standings.season_standings(season)
    response, writer = csv_response(f"{viewer.club.slug}-{season.pk}-stand.csv")
    writer.writerow(
        [
            "rank",
            "player",
            "sessions",
            "toepkoningen",
            "average_place",
            "points",
            "rounds_played",
            "rounds_won",
            "rounds_won_pct",
            "strafpunten",
            "strafpunten_per_round",
            "form",
            "part",
        ]
    )
    for row in table.rows:
        writer.writerow(
            [
                # Only the ranked part has ranks: the others are listed apart (standings.py).
                row.rank if row.section == standings.RANKED else "",
                viewer.name(row.name, row.public_initials),
                row.sessions,
                row.toepkoningen,
                # Decimals, not formatted text: a number, even a negative one, is no formula.
                figures.rounded(row.average_place, 2),
                row.points,
                row.rounds_played,
                row.rounds_won,
                "" if row.won_share is None else figures.rounded(100 * row.won_share, 1),
                row.strafpunten,
                "" if row.per_round is None else figures.rounded(row.per_round, 3),
                " ".join(str(f.place) for f in row.form),
                row.section,
            ]
        )
    return response


@require_safe
@access.requires(access.league_viewer)
def season_rounds_csv(request: HttpRequest, viewer: Viewer, season_id: int) -> HttpResponse:
    """Every player's result in every round of the season's finished sessions (one query,
    streamed from the database in chunks)."""
    season = season_of(viewer, season_id)
    response, writer = csv_response(f"{viewer.club.slug}-{season.pk}-rondes.csv")
    writer.writerow(
        [
            "date",
            "session",
            "table",
            "round",
            "player",
            "points",
            "stake",
            "won",
            "folded",
            "knocks",
            "jack_win",
            "armoede",
            "absent",
            "penalty",
            "total",
            "out",
        ]
    )
    scores = (
        RoundScore.objects.filter(
            player__isnull=False,
            round__session__season=season,
            round__session__status__in=standings.FINISHED,
        )
        .order_by("round__session__played_on", "round__session_id", "round__number", "id")
        .values_list(
            "round__session__played_on",
            "round__session_id",
            "round__session__table_label",
            "round__number",
            "player__name",
            "player__public_initials",
            "points",
            "stake",
            "won",
            "folded",
            "knocks",
            "jack_win",
            "armoede",
            "absent",
            "penalty",
            "total",
            "eliminated",
        )
    )
    for day, session_id, table, number, name, initials, *rest in scores.iterator(2000):
        flags = [int(v) if isinstance(v, bool) else v for v in rest]
        writer.writerow(
            [day.isoformat(), session_id, table, number, viewer.name(name, initials), *flags]
        )
    return response


@require_safe
@access.requires(access.league_viewer)
def session_export(request: HttpRequest, viewer: Viewer, session_id: int) -> HttpResponse:
    """The session as a ``toepen/1`` file (``Session.to_file``), for download."""
    session = get_object_or_404(Session, pk=session_id, club=viewer.club)
    data = session.to_file()
    if not viewer.member:
        seats = session.seats.select_related("player").order_by("position")
        renames = public_names((s.player.name, s.player.public_initials) for s in seats)
        if renames:
            data = public_file(data, renames)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2) + "\n",
        content_type="application/json; charset=utf-8",
    )
    filename = f"{viewer.club.slug}-{session.played_on.isoformat()}-{session.pk}.toepen.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return private_response(response)
