"""Template tags for the pictures of the lei: ``{% load lei %}``.

The pictures are built in ``scoring/svg.py`` with escaping, so the tags output them as they are.
Each tag has a translated default for its accessible label; pass ``label=`` to say more.

Example::

    {% load lei %}
    <td>{% turfjes seat.total jack_dots=seat.jack_dots %}</td>  {# label: "7 strafpunten" #}
    <td>{% turfjes seat.total label=seat.total_label %}</td>
    <div class="round-panel__stake">{% die round.stake %}</div>
    {% score_chart series session.rules.max_points %}
"""

import html
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from django import template
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring import svg

register = template.Library()


def _escape(value: Any) -> str:
    """Django's ``conditional_escape`` without the lazy-text wrapper around it, which checks
    every argument again: the same safe text, for the tags below, which escape a few hundred
    values in every answer to a tap. Safe text is kept as it is; anything else is escaped as
    ``django.utils.html.escape`` does it."""
    if isinstance(value, Promise):
        value = str(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    return SafeString(html.escape(str(value)))


@register.simple_tag(name="turfjes")
def turfjes_tag(total: int, label: str = "", jack_dots: Sequence[int] = ()) -> SafeString:
    """``{% turfjes total label="Anne: 7" jack_dots=dots %}``: a total as tally marks."""
    total = int(total)
    if not label:
        label = ngettext("%(total)s strafpunt", "%(total)s strafpunten", abs(total)) % {
            "total": total
        }
    return mark_safe(svg.turfjes(total, jack_dots=jack_dots or (), label=label))  # noqa: S308


@register.simple_tag(name="die")
def die_tag(stake: int, label: str = "") -> SafeString:
    """``{% die stake %}``: the stake as a die face (a number beyond 6)."""
    stake = int(stake)
    label = label or gettext("Inzet: %(stake)s") % {"stake": stake}
    return mark_safe(svg.die(stake, label=label))  # noqa: S308


@register.simple_tag(name="score_chart")
def score_chart_tag(
    series: Mapping[str, Sequence[int]],
    max_points: int | None = None,
    title: str = "",
) -> SafeString:
    """``{% score_chart series max_points %}``: each player's total per round, as lines.

    ``series`` maps a player's name to their totals from round 0 on (see ``svg.score_chart``).
    """
    labels = {
        "title": title or gettext("Stand per ronde"),
        "round": gettext("ronde"),
        # Translators: the line in the score chart where a player is out; keep {max}.
        "max": gettext("dood bij {max}"),
    }
    max_points = None if max_points in (None, "") else int(max_points)
    return mark_safe(svg.score_chart(series, max_points=max_points, labels=labels))  # noqa: S308


# The badges a player shows in the sheet's head and in the round panel, in this order.
_PLAYER_BADGES = ("dealer", "leader", "armoede", "for_death")


@cache
def _column_texts(language: str) -> dict[str, str]:
    """The player badges the round panel shows, in ``language`` (the active one), escaped,
    made once per process (the sheet draws its own: ``templates/scoring/_sheet.html``). Each
    text a literal gettext, so that makemessages finds it."""

    def badge(kind: str, text: str) -> str:
        css = f" badge--{kind}" if kind else ""
        return format_html('<span class="badge{}">{}</span>', css, text)

    return {
        "round": _escape(gettext("Ronde")),
        "toepkoning": badge("toepkoning", gettext("toepkoning")),
        "dealer": badge("deler", gettext("deelt")),
        "leader": badge("uitkomst", gettext("komt uit")),
        "armoede": badge("armoede", gettext("armoede")),
        "for_death": badge("voor-dood", gettext("speelt voor zijn dood")),
        "out": badge("dood", gettext("dood")),
        "toilet": badge("", gettext("toilet")),
        "drinks": badge("", gettext("haalt drinken")),
        "balance": _escape(gettext("Saldo")),
        "total": _escape(gettext("Totaal")),
    }
