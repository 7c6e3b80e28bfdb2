"""The day an evening at the pub belongs to: one rule for the whole app.

A Friday night runs past midnight. A game started at half past twelve is one of Friday's: on
the lei of that evening, on the TV's "Alle tafels van vanavond", in the season and the
standings' evenings of Friday, and a second organiser who taps "Clubavond beginnen" then gets
Friday's evening back, not a new one that closes its QR. So the evening's day turns at
``EVENING_ENDS`` (06:00 in the site's time zone, ``TIME_ZONE``), not at midnight. A date
someone chooses (a paper lei, an evening begun for another day) is kept as chosen.
"""

from __future__ import annotations

import datetime

from django.utils import timezone

EVENING_ENDS = datetime.time(6)


def evening_day(now: datetime.datetime | None = None) -> datetime.date:
    """The day of the evening under way at ``now`` (by default now), in the site's time zone.

    >>> from zoneinfo import ZoneInfo
    >>> late = datetime.datetime(2026, 11, 28, 0, 30, tzinfo=ZoneInfo("Europe/Amsterdam"))
    >>> evening_day(late)
    datetime.date(2026, 11, 27)
    """
    local = timezone.localtime(now)
    if local.time() < EVENING_ENDS:
        return local.date() - datetime.timedelta(days=1)
    return local.date()
