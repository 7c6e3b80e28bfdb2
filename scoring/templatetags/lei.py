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

from collections.abc import Mapping, Sequence

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring import figures, labels, svg
from scoring.lei import outbox

register = template.Library()


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
    return svg.worded_score_chart(series, max_points, title)


@register.simple_tag(takes_context=True)
def outbox_person(context: Mapping) -> str:
    """``{% outbox_person %}``: whose taps the tablet's outbox keeps (scoring/lei/outbox.py)."""
    return outbox.person_id(context["request"].user)


@register.filter(name="ordinal")
def ordinal_filter(number: int) -> str:
    """``{{ place|ordinal }}``: "3e" in Dutch, "3rd" in English, "3." in German."""
    try:
        return figures.ordinal(int(number))
    except (TypeError, ValueError):
        return str(number)


@register.filter(name="day")
def day_filter(value, style: str = "long") -> str:
    """``{{ date|day }}``, ``|day:"short"``, ``|day:"weekday"``, ``|day:"day_month"``: a date
    as the reader's language writes it (``scoring/figures.py``, ``DATES``)."""
    return figures.day(value, style)


@register.filter(name="table_label")
def table_label_filter(label: str) -> str:
    """``{{ session.table_label|table_label }}``: a label the app made, in the reader's language
    (``scoring/labels.py``); one someone typed, as typed."""
    return labels.shown(label or "")
