"""New guests on the check-in QR, counted per address: a flood is told from the crowd.

At an open toernooi 100 to 200 phones sit behind the pub's one address, most of them guests
checking in within minutes of the doors opening. A script with the QR looks the same to us
whatever cookie it shows; what it cannot hide is its pace. So each address may add a burst of
``CHECKIN_GUEST_BURST`` new guests at once (the crowd at the door), then
``CHECKIN_GUESTS_PER_MINUTE`` a minute, faster than people type their names at one door; a new
guest beyond it is refused and counted (``CheckinAllowance.refused``), and the organiser's screen
names that address as a flood, with one button that refuses every guest it still has waiting
(``services.flood_clear``). Only new guest names are counted: members known to the club, and
everything the organiser does, are never slowed down by it. The count is the generic cell rate
algorithm of the tap limit (``scoring/lei/taplimit.py``), kept in a row per evening and address
and changed under the evening's row lock, which every check-in takes first.

The address is kept keyed (an HMAC with the site's secret), never as it came in.
"""

from __future__ import annotations

import hashlib
import hmac
import math

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.models import CheckinAllowance, Evening
from scoring.writes import ServiceError


class GuestFlood(ServiceError):
    """Too many new guests from this address, too fast: try again in ``seconds``."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        super().__init__(
            ngettext(
                "Er melden zich vanaf dit netwerk nu heel veel nieuwe gasten tegelijk. Probeer"
                " het over %(seconds)s seconde opnieuw, of meld je bij de organisator.",
                "Er melden zich vanaf dit netwerk nu heel veel nieuwe gasten tegelijk. Probeer"
                " het over %(seconds)s seconden opnieuw, of meld je bij de organisator.",
                seconds,
            )
            % {"seconds": seconds}
        )


class TooManyWaiting(ServiceError):
    def __init__(self) -> None:
        super().__init__(
            _(
                "Er wachten al heel veel nieuwe gasten op de organisator. Meld je bij de"
                " organisator."
            )
        )


def address_key(request: HttpRequest) -> str:
    """The client's address (as the login limit takes it: ``TRUSTED_PROXY_COUNT``), keyed."""
    address = get_client_ip_address(request) or ""
    digest = hmac.new(settings.SECRET_KEY.encode(), address.encode(), hashlib.sha256)
    return digest.hexdigest()[:16]


def new_guest_wait(evening: Evening, source: str) -> int:
    """Count a new guest from ``source`` on ``evening`` (whose row the caller holds locked):
    0 when it may be added, else the whole seconds (at least 1) before one may. A refused one
    is counted as refused and moves nothing on, so a script that keeps trying gets the steady
    rate and no more."""
    interval = max(60_000 // settings.CHECKIN_GUESTS_PER_MINUTE, 1)
    tolerance = (settings.CHECKIN_GUEST_BURST - 1) * interval
    now = int(timezone.now().timestamp() * 1000)
    row, _made = CheckinAllowance.objects.get_or_create(evening=evening, source=source)
    full_at = max(row.full_at, now)
    if full_at - now > tolerance:
        row.refused += 1
        row.refused_at = row.refused_at or timezone.now()
        row.save(update_fields=["refused", "refused_at"])
        return max(math.ceil((full_at - now - tolerance) / 1000), 1)
    row.full_at = full_at + interval
    row.save(update_fields=["full_at"])
    return 0
