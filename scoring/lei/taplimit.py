"""How fast one scorer may tap at one session: a scorer link (every tablet that holds it
together) or a signed-in member, each counted apart, per session.

A burst of ``TAP_LIMIT_BURST`` taps at once, then ``TAP_LIMIT_PER_MINUTE`` a minute
(settings.py; docs/decisions.md, "The tablet's taps"): far more than a fast scorer
needs (ten taps in two seconds, a round of a dozen taps a minute, an outbox sending what it
kept offline) and a tenth of what a script managed without it. A tap beyond it gets a 429 with
``Retry-After`` before anything is read or written; the tablet's outbox (static/js/lei.js)
waits that long and sends the same tap again.

The count is the generic cell rate algorithm: one number per scorer and session, the moment its
burst is whole again, moved on by one tap's interval for each tap let through and left as it
is for a tap refused (so a script that keeps trying gets no less than the steady rate, and no
more). It is one statement in the database (``hotsql.tap_allowance``), counted alike by every
app server and atomic, so parallel taps are each counted. Django's database cache would take a
read and a write for the same (about six statements, one of them a count of the whole cache
table), and parallel taps would be let through on one count.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import ngettext

from scoring import access
from scoring.models import TapAllowance, hotsql
from scoring.writes import Actor


def who(actor: Actor) -> str:
    """Whose taps are counted together: the scorer link's, or the member's own."""
    if actor.scorer_token or actor.user is None:
        return "link"
    return f"user:{actor.user.pk}"


def tap_wait(session_id: int, actor: Actor, *, now: float | None = None) -> int:
    """0 when this tap may go; else the whole seconds (at least 1) before the next one may."""
    per_minute = settings.TAP_LIMIT_PER_MINUTE
    if per_minute <= 0:
        return 0
    interval = max(60_000 // per_minute, 1)
    tolerance = (max(settings.TAP_LIMIT_BURST, 1) - 1) * interval
    now_ms = int((time.time() if now is None else now) * 1000)
    wait = hotsql.tap_allowance(session_id, who(actor), now_ms, interval, tolerance)
    return max(math.ceil(wait / 1000), 1) if wait > 0 else 0


def too_many_taps(seconds: int) -> HttpResponse:
    """The 429: plain words, no page drawn (a script that keeps trying costs nothing more)."""
    text = ngettext(
        "Te veel tikken achter elkaar: deze is niet opgeslagen. Wacht %(seconds)s seconde en "
        "probeer het dan opnieuw.",
        "Te veel tikken achter elkaar: deze is niet opgeslagen. Wacht %(seconds)s seconden en "
        "probeer het dan opnieuw.",
        seconds,
    ) % {"seconds": seconds}
    response = HttpResponse(text, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(seconds)
    return response


def tap_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Count every POST of ``view(request, scorer, ...)`` (under ``access.requires(access.scorer)``)
    against the scorer's tap limit; one beyond it is answered ``too_many_taps``."""

    @functools.wraps(view)
    def wrapped(
        request: HttpRequest, scorer: access.ScorerAccess, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        if request.method == "POST":
            seconds = tap_wait(scorer.session.pk, scorer.actor)
            if seconds:
                return too_many_taps(seconds)
        return view(request, scorer, *args, **kwargs)

    return wrapped


def prune_tap_allowances(*, now: float | None = None) -> int:
    """Forget the counts whose burst is whole again: they are what no count at all is."""
    now_ms = int((time.time() if now is None else now) * 1000)
    removed, _ = TapAllowance.objects.filter(full_at__lte=now_ms).delete()
    return removed
