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
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring import svg

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


@register.simple_tag(name="sheet_rows")
def sheet_rows_tag(lei, edit_url: str = "") -> SafeString:
    """``{% sheet_rows lei edit_url %}``: the played rounds of the lei, newest first, as table
    rows. Built here rather than with tags per cell in the template: a sheet has a cell per
    player per round, and the template engine was most of an event's answer time (issue 6).
    ``edit_url`` is the round editor's URL without the number (empty: no correction links)."""
    word = conditional_escape(gettext("Ronde"))
    texts = {
        "absent": format_html('<span class="muted">{}</span>', gettext("afwezig")),
        "none": format_html('<span class="muted">{}</span>', "\u2013"),  # not in this round
        "folded": format_html(' <span class="muted">{}</span>', gettext("weg")),
        "toilet": format_html(' <span class="muted">{}</span>', gettext("toilet")),
        "out": format_html(' <span class="badge badge--dood">{}</span>', gettext("dood")),
        "won": format_html(
            ' <span class="badge" title="{}">{}</span>',
            gettext("won de laatste slag"),
            gettext("slag"),
        ),
        "jack": format_html(
            ' <span class="badge" title="{}">{} ●</span>',
            gettext("won de laatste slag"),
            gettext("boer"),
        ),
    }
    is_pot = lei.is_pot
    # The texts of a row, escaped once here: a row adds only its numbers (ints) to them.
    base = conditional_escape(edit_url)
    fix = conditional_escape(gettext("Ronde %(number)s verbeteren"))
    stake = conditional_escape(gettext("inzet %(stake)s"))
    parts: list[str] = []
    for row in lei.history:
        number = int(row.number)
        if edit_url:
            url = f"{base}{number}/"
            label = fix % {"number": number}
            head = (
                f'<a href="{url}" hx-get="{url}" hx-target="#editor" hx-swap="outerHTML"'
                f' aria-label="{label}"><span class="sheet__word">{word} </span>{number}</a>'
            )
        else:
            head = f'<span class="sheet__word">{word} </span>{number}'
        if not is_pot:
            head += f' <span class="muted">{stake % {"stake": int(row.stake)}}</span>'
        parts.append(f'<tr><th scope="row">{head}</th>')
        for cell in row.cells:
            if cell.points is None:
                parts.append(f"<td>{texts['absent'] if cell.absent else texts['none']}</td>")
                continue
            value = conditional_escape(cell.money) if is_pot else cell.points
            minus = ' class="sheet__points--minus"' if cell.points < 0 else ""
            marks = texts["jack" if cell.jack else "won"] if cell.won else ""
            if cell.folded:
                marks += texts["folded"]
            if cell.absent == "toilet":
                marks += texts["toilet"]
            if cell.out:
                marks += texts["out"]
            parts.append(f"<td{minus}>{value}{marks}</td>")
        parts.append("</tr>\n")
    return mark_safe("".join(parts))  # noqa: S308  (every piece escaped above)
