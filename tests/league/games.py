"""A finished game of the season in one call, its outcome known by construction (tests/builders.py,
``finish_order``), stored through ``services.session_import`` as the import command stores it."""

from __future__ import annotations

import datetime

from scoring.lei import services
from scoring.models import Session
from tests.builders import DAY, finish_order


def play(club, season, order, *, day=DAY, table="", days_later=0) -> Session:
    return services.session_import(
        club=club,
        data=finish_order(order),
        season=season,
        played_on=day + datetime.timedelta(days=days_later),
        table_label=table,
    )
