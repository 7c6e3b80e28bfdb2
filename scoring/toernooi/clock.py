"""The round timer of a toernooi played "at a time": the organiser starts it on the series page,
every TV in the room counts down to the same end.

The end is stored on the series (``Series.clock_ends_at``), never in a browser: every TV and
the organiser's page draw the seconds left from it, and a reload or a second TV shows the same
time. A page counts down between its polls from the seconds it was sent
(``static/js/clock.js``), so a TV whose own clock is wrong still agrees with the server.

Decisions of our own:

- **Only for a tournament played "at a time"** (``Tournament.EndMode.TIME``), and only while
  the series plays: a game to the toepkoning or to N rounds ends by itself.
- **Starting it again sets a new end**, that many minutes from now; stopping it takes it off
  the TVs. At zero the clock stays at 0:00 with "time is up" until the series is closed: the
  organiser ends the tables, as before (``table_finish``, ``series_finish``).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import Series, Tournament
from scoring.toernooi.services import TournamentError, lock_tournament, must_be_open

CLOCK_MAX_MINUTES = 240  # an evening: a bound on what a typed number may ask
CLOCK_DEFAULT_MINUTES = 45  # a game of four to the end of its time, as a start for the form


@dataclass(frozen=True)
class Clock:
    """The round timer as a page draws it: the end, and the seconds left when it was drawn."""

    ends_at: datetime.datetime
    seconds_left: int

    @property
    def text(self) -> str:
        """The time left as a clock shows it: ``12:05``, or ``1:02:05`` from an hour on."""
        return clock_text(self.seconds_left)

    @property
    def up(self) -> bool:
        return self.seconds_left == 0


def clock_text(seconds: int) -> str:
    """``m:ss`` under an hour, ``h:mm:ss`` from an hour on (``static/js/clock.js`` agrees).

    >>> clock_text(754), clock_text(3725), clock_text(0)
    ('12:34', '1:02:05', '0:00')
    """
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02}:{seconds:02}"
    return f"{minutes}:{seconds:02}"


def series_clock(series: Series, now: datetime.datetime | None = None) -> Clock | None:
    """The clock of ``series`` while it plays and its timer runs; None otherwise."""
    if series.state != Series.State.RUNNING or series.clock_ends_at is None:
        return None
    left = (series.clock_ends_at - (now or timezone.now())).total_seconds()
    return Clock(ends_at=series.clock_ends_at, seconds_left=max(0, math.ceil(left)))


def series_clock_start(*, series: Series, minutes: int, actor: Any = None) -> Series:
    """Run the round timer of a playing series for ``minutes`` from now (again: a new end)."""
    if not 1 <= minutes <= CLOCK_MAX_MINUTES:
        raise TournamentError(
            _("De klok loopt 1 tot %(max)s minuten.") % {"max": CLOCK_MAX_MINUTES}
        )
    with transaction.atomic():
        series = _playing(series)
        series.clock_ends_at = timezone.now() + datetime.timedelta(minutes=minutes)
        series.save(update_fields=["clock_ends_at"])
        return series


def series_clock_stop(*, series: Series, actor: Any = None) -> Series:
    """Take the round timer of a series off the TVs."""
    with transaction.atomic():
        series = _playing(series)
        if series.clock_ends_at is None:
            raise TournamentError(_("De klok loopt niet."))
        series.clock_ends_at = None
        series.save(update_fields=["clock_ends_at"])
        return series


def _playing(series: Series) -> Series:
    """The series, locked, when its tournament is open, played "at a time" and it plays."""
    tournament = lock_tournament(series.tournament)
    must_be_open(tournament)
    if tournament.end_mode != Tournament.EndMode.TIME:
        raise TournamentError(_("De klok is er alleen voor een toernooi dat op een tijd speelt."))
    series = Series.objects.select_for_update().get(pk=series.pk)
    if series.state != Series.State.RUNNING:
        raise TournamentError(
            _("De klok loopt alleen terwijl de serie speelt: serie %(number)s speelt niet.")
            % {"number": series.number}
        )
    return series
