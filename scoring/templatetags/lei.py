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
from django.utils.translation import get_language, gettext, ngettext

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
    """The texts of the sheet's head and totals, and the player badges the round panel shows
    too, in ``language`` (the active one), escaped, made once per process. Each text a
    literal gettext, so that makemessages finds it."""

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


@register.simple_tag(name="sheet_columns")
def sheet_columns_tag(lei) -> SafeString:
    """``{% sheet_columns lei %}``: the sheet's head, a column per player with their badges.
    Built here, like the rows: a round's end draws the whole sheet, and these loops were a
    tenth of that answer's time in the template engine (issue 6)."""
    texts = _column_texts(get_language())
    parts = [
        "<thead>\n<tr>\n"
        f'<th scope="col"><span class="sheet__word">{texts["round"]}</span>'
        '<span class="sheet__short" aria-hidden="true">#</span></th>\n'
    ]
    for c in lei.columns:
        crown = '<span class="crown" aria-hidden="true"></span>' if c.toepkoning else ""
        marks = [f"<span>{crown}{_escape(c.name)}</span>"]
        if c.side:
            marks.append(f'<span class="muted">{_escape(c.side)}</span>')
        marks += [
            texts[attr] for attr in ("toepkoning", *_PLAYER_BADGES, "out") if getattr(c, attr)
        ]
        if c.absent in ("toilet", "drinks"):
            marks.append(texts[c.absent])
        dood = ' class="is-dood"' if c.out else ""
        parts.append(
            f'<th scope="col"{dood}>\n<span class="sheet__player">\n'
            + "\n".join(marks)
            + "\n</span>\n</th>\n"
        )
    parts.append("</tr>\n</thead>\n")
    return mark_safe("".join(parts))  # noqa: S308  (every piece escaped above)


@register.simple_tag(name="sheet_totals")
def sheet_totals_tag(lei) -> SafeString:
    """``{% sheet_totals lei %}``: the sheet's row of totals, as turfjes with the number (the
    balance in euros in the pot game); built here for the reason of ``sheet_columns``."""
    texts = _column_texts(get_language())
    is_pot = lei.is_pot
    parts = [
        '<tr class="sheet__round-current">\n'
        f'<th scope="row">{texts["balance" if is_pot else "total"]}</th>\n'
    ]
    for c in lei.columns:
        name, total = _escape(c.name), int(c.total)
        dood = ' class="is-dood"' if c.out else ""
        if is_pot:
            inner = f'<span class="sheet__total num">{_escape(c.money)}</span>'
        else:
            # Translators: the accessible name of a player's tally marks on the sheet.
            label = mark_safe(  # noqa: S308  (the name is escaped)
                gettext("%(name)s: %(total)s strafpunten") % {"name": name, "total": total}
            )
            inner = (
                '<span class="sheet__player">\n'
                f"{svg.turfjes(total, jack_dots=c.jack_dots or (), label=label)}\n"
                f'<span class="sheet__total">{total}</span>\n'
            )
            if c.lives is not None:
                lives = ngettext("nog %(lives)s leven", "nog %(lives)s levens", c.lives) % {
                    "lives": int(c.lives)
                }
                inner += f'<span class="muted">{_escape(lives)}</span>\n'
            inner += "</span>"
        parts.append(f'<td{dood} data-player="{name}" data-total="{total}">\n{inner}\n</td>\n')
    parts.append("</tr>\n")
    return mark_safe("".join(parts))  # noqa: S308  (every piece escaped above)


@cache
def _row_texts(language: str) -> dict[str, str]:
    """The texts of the sheet's rows in ``language`` (the active one), escaped, made once per
    process: a row adds only its numbers (ints) to them. The round word and the "dood" badge
    are the sheet head's (``_column_texts``)."""
    column = _column_texts(language)
    return {
        "round": column["round"],
        "fix": _escape(gettext("Ronde %(number)s verbeteren")),
        "stake": _escape(gettext("inzet %(stake)s")),
        "absent": format_html('<span class="muted">{}</span>', gettext("afwezig")),
        "none": format_html('<span class="muted">{}</span>', "\u2013"),  # not in this round
        "folded": format_html(' <span class="muted">{}</span>', gettext("weg")),
        "toilet": format_html(' <span class="muted">{}</span>', gettext("toilet")),
        "out": " " + column["out"],
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


@register.simple_tag(name="sheet_rows")
def sheet_rows_tag(lei, edit_url: str = "") -> SafeString:
    """``{% sheet_rows lei edit_url %}``: the played rounds of the lei, newest first, as table
    rows. Built here rather than with tags per cell in the template: a sheet has a cell per
    player per round, and the template engine was most of an event's answer time (issue 6).
    ``edit_url`` is the round editor's URL without the number (empty: no correction links)."""
    texts = _row_texts(get_language())
    word, fix, stake = texts["round"], texts["fix"], texts["stake"]
    is_pot = lei.is_pot
    base = _escape(edit_url)
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
            value = _escape(cell.money) if is_pot else cell.points
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
