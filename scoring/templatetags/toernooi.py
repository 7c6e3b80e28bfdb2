"""Template tags of the toernooi's pages: ``{% load toernooi %}``.

Example::

    {% load toernooi %}
    {% series_clock series as clock %}{% if clock %}{{ clock.text }}{% endif %}
"""

from __future__ import annotations

from django import template

from scoring.models import Series
from scoring.toernooi.clock import (
    CLOCK_DEFAULT_MINUTES,
    CLOCK_MAX_MINUTES,
    Clock,
    series_clock,
)

register = template.Library()


@register.simple_tag(name="series_clock")
def series_clock_tag(series: Series | None) -> Clock | None:
    """The round timer of ``series`` as of now (``scoring/toernooi/clock.py``); None when
    there is no series or no timer runs."""
    return series_clock(series) if series is not None else None


@register.simple_tag(name="clock_minutes")
def clock_minutes_tag() -> dict[str, int]:
    """The clock form's minutes: ``{% clock_minutes as minutes %}``, ``minutes.default`` and
    ``minutes.max`` (the clock refuses more)."""
    return {"default": CLOCK_DEFAULT_MINUTES, "max": CLOCK_MAX_MINUTES}
