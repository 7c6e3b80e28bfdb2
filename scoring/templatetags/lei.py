"""Template tags for the pictures of the lei: ``{% load lei %}``.

The pictures are built in ``scoring/svg.py`` with escaping, so the tags output them as they are.
Each tag has a translated default for its accessible label; pass ``label=`` to say more.

Example::

    {% load lei %}
    <td>{% turfjes seat.total jack_dots=seat.jack_dots %}</td>  {# label: "7 strafpunten" #}
    <td>{% turfjes seat.total label=seat.total_label %}</td>
    <div class="round-panel__stake">{% die round.stake %}</div>
    {% score_chart series session.rules.max_points %}

And ``{% keep %}``, which draws a part of a page once per process (the sheet's played rounds).
"""

import threading
from collections.abc import Mapping, Sequence

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

from scoring import svg
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
    labels = {
        "title": title or gettext("Stand per ronde"),
        "round": gettext("ronde"),
        # Translators: the line in the score chart where a player is out; keep {max}.
        "max": gettext("dood bij {max}"),
    }
    max_points = None if max_points in (None, "") else int(max_points)
    return mark_safe(svg.score_chart(series, max_points=max_points, labels=labels))  # noqa: S308


@register.simple_tag(takes_context=True)
def outbox_person(context: Mapping) -> str:
    """``{% outbox_person %}``: whose taps the tablet's outbox keeps (scoring/lei/outbox.py)."""
    return outbox.person_id(context["request"].user)


# Drawn parts kept by ``{% keep %}`` in this process, oldest first. A row of the sheet is 0.2 to
# 0.5 KB, its head and totals 2 to 3 KB (a table of four), with their keys about 1.2 KB an entry
# on average (tracemalloc): the bound holds what a process draws for a Friday night's 300
# tables of 30 shown rounds (the viewers' in the stream worker, the tablets' in a page worker,
# about 10,000 parts) in about 15 MB.
KEPT_LIMIT = 12_000
_kept: dict[tuple, SafeString] = {}
_kept_lock = threading.Lock()


class KeepNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str, vary_on: list) -> None:
        self.nodelist = nodelist
        self.name = name
        self.vary_on = vary_on

    def render(self, context: template.Context) -> SafeString:
        key = (self.name, get_language(), *(v.resolve(context) for v in self.vary_on))
        found = _kept.get(key)
        if found is None:
            found = mark_safe(self.nodelist.render(context))  # noqa: S308 (drawn by the template)
            with _kept_lock:
                _kept[key] = found
                while len(_kept) > KEPT_LIMIT:
                    del _kept[next(iter(_kept))]
        return found


@register.tag("keep")
def keep_tag(parser: template.base.Parser, token: template.base.Token) -> KeepNode:
    """``{% keep "name" value ... %}…{% endkeep %}``: what is inside is drawn once per process
    for each set of values (and the language), and kept: a played round's row of the sheet
    never changes, and every tap's answer and every viewer's part drew them all again.

    The values must name everything the inside is drawn from (a round's row: ``row.key``, all
    of its fields). Unlike ``{% cache %}`` nothing is turned into text, hashed or pickled: the
    values are the key (hashable), so a lookup costs less than the few tags it saves, and no
    process asks another whether something changed, because a change is another key. Kept
    parts go oldest first past ``KEPT_LIMIT``."""
    bits = token.split_contents()
    if len(bits) < 3:
        raise template.TemplateSyntaxError("{% keep %} takes a name and what it is drawn from")
    nodelist = parser.parse(("endkeep",))
    parser.delete_first_token()
    return KeepNode(nodelist, bits[1].strip("\"'"), [parser.compile_filter(b) for b in bits[2:]])
