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


@register.simple_tag(name="player_forms", takes_context=True)
def player_forms_tag(context) -> SafeString:
    """``{% player_forms %}``: the round panel's form of each player (the name with its badges;
    toep, mee and weg, or why not), from the context of ``views._live_context``. Built here,
    like the sheet's rows: every tap is answered with this panel, and these forms were half
    of its drawing time in the template engine (issue 6). Each form gets a fresh key
    (``hidden``)."""
    lei, hidden = context["lei"], context["hidden"]
    url = _escape(context["urls"]["event"])
    text, folded = _player_form_texts(get_language())
    badges = _column_texts(get_language())
    parts: list[str] = []
    for p in lei.players:
        name = _escape(p.name)
        marks = [badges[attr] for attr in _PLAYER_BADGES if getattr(p, attr)]
        if p.folded:
            marks.append(f'<span class="badge">{folded % {"cost": _escape(p.fold_cost)}}</span>')
        if p.absent == "toilet":
            marks.append(badges["toilet"])
        actions = []
        if p.knock is None:
            actions.append(
                '<button class="btn btn--big btn--primary" name="type" value="knock"'
                f' aria-label="{_escape(p.labels["knock"])}">{text["knock"]}</button>'
            )
        elif not p.folded:
            actions.append(_disabled(_escape(p.labels["knock_no"]), text["knock"], p.knock))
        if p.answering:
            if p.stay is None:
                actions.append(
                    '<button class="btn btn--big" name="type" value="stay"'
                    f' aria-label="{_escape(p.labels["stay"])}">{text["stay"]}</button>'
                )
            if p.fold is None:
                actions.append(
                    '<button class="btn btn--big btn--danger" name="type" value="fold"'
                    f' aria-label="{_escape(p.labels["fold"])}">{text["fold"]}</button>'
                )
            else:
                actions.append(f'<span class="btn__reason">{_escape(p.fold)}</span>')
        parts.append(
            f'<form class="round-panel__player" method="post" action="{url}" hx-post="{url}">'
            f"{hidden()}"
            f'<input type="hidden" name="player" value="{name}">\n'
            f'<div class="round-panel__player-name">{name} {" ".join(marks)}</div>\n'
            f'<div class="round-panel__actions">{"".join(actions)}</div>\n</form>\n'
        )
    return mark_safe("".join(parts))  # noqa: S308  (every piece escaped above)


@cache
def _player_form_texts(language: str) -> tuple[dict[str, str], str]:
    """The texts of ``player_forms`` in ``language`` (the active one), escaped, made once per
    process (each ``gettext`` looks the language and its catalogues up again): the buttons and
    the folded badge's text; its other badges are the sheet's (``_column_texts``). Each text a
    literal gettext, so that makemessages finds it."""
    text = {
        "knock": _escape(gettext("Toep")),
        "stay": _escape(gettext("Mee")),
        "fold": _escape(gettext("Weg")),
    }
    return text, _escape(gettext("weg (%(cost)s)"))


@register.simple_tag(name="win_buttons", takes_context=True)
def win_buttons_tag(context) -> SafeString:
    """``{% win_buttons %}``: a button per player still in the round for the last trick, or
    why not (built here for the same reason as ``player_forms``)."""
    parts = []
    for p in context["lei"].players:
        if p.folded:
            continue
        name = _escape(p.name)
        if p.win is None:
            label = _escape(p.labels["win"])
            parts.append(
                f'<button class="btn btn--big" name="player" value="{name}"'
                f' aria-label="{label}">{name}</button>'
            )
        else:
            parts.append(_disabled(_escape(p.labels["win_no"]), name, p.win))
    return mark_safe("\n".join(parts))  # noqa: S308  (every piece escaped above)


def _disabled(label: str, text: str, why: str) -> str:
    """A button that cannot be pressed now, with why (``label`` and ``text`` escaped)."""
    return (
        f'<details class="btn-with-reason"><summary class="btn btn--big" aria-disabled="true"'
        f' aria-label="{label}">{text}</summary>'
        f'<span class="btn__reason">{_escape(why)}</span></details>'
    )


@register.simple_tag(name="more_forms", takes_context=True)
def more_forms_tag(context) -> SafeString:
    """``{% more_forms %}``: the event forms under the round panel's "Meer" (blind toepen,
    vuile was, vier gelijke, strafpunt, boer geslagen), those the round allows now. Built here
    for the reason of ``player_forms``: in the template engine they were a third of the
    panel's drawing time, and every tap is answered with the panel (issue 6)."""
    lei, hidden = context["lei"], context["hidden"]
    view = lei.view
    url = _escape(context["urls"]["event"])
    options = lei.player_options
    text = _more_texts(get_language())

    def form(kind: str, css: str, title: str, body: str) -> str:
        head = f'{hidden()}<input type="hidden" name="type" value="{kind}">'
        return _form(url, css, head, title, body)

    def choose_player(kind: str, title: str, label: str, players) -> str:
        """A form of a button per player the engine allows ``kind`` for now."""
        buttons = "".join(
            f'<button class="btn" name="player" value="{_escape(p.name)}"'
            f' aria-label="{_escape(p.labels[label])}">'
            f"{_escape(p.name)}</button>"
            for p in players
        )
        return form(kind, "stack", title, f'<div class="cluster">{buttons}</div>\n')

    parts: list[str] = []
    if view.blind_knock_possible:
        allowed = [p for p in lei.players if p.blind is None]
        parts.append(choose_player("blind_knock", text["blind_knock"], "blind", allowed))
    if view.laundry_possible:
        parts.append(
            form(
                "laundry",
                "form",
                text["laundry"],
                _field(
                    "laundry-player",
                    text["laundry_player"],
                    f'<select id="laundry-player" name="player">{options}</select>',
                )
                + _field(
                    "laundry-challenger",
                    text["laundry_challenger"],
                    f'<select id="laundry-challenger" name="challenger">'
                    f'<option value="">{text["nobody"]}</option>{options}</select>',
                )
                + f'<label class="check"><input type="checkbox" name="genuine" value="on">'
                f" {text['genuine']}</label>\n" + text["laundry_button"],
            )
        )
    if view.four_of_a_kind_possible:
        ranks = "".join(
            f'<option value="{value}">{_escape(label)}</option>' for value, label in lei.ranks
        )
        parts.append(
            form(
                "four_of_a_kind",
                "form",
                text["four"],
                _field(
                    "four-player",
                    text["who"],
                    f'<select id="four-player" name="player">{options}</select>',
                )
                + _field(
                    "four-rank",
                    text["what"],
                    f'<select id="four-rank" name="rank">{ranks}</select>',
                )
                + text["four_button"],
            )
        )
    parts.append(
        form(
            "penalty",
            "form",
            text["penalty"],
            _field(
                "penalty-player",
                text["who"],
                f'<select id="penalty-player" name="player">{options}</select>',
            )
            + text["penalty_fields"],
        )
    )
    if view.jack_beaten_possible:
        allowed = [p for p in lei.players if p.jack_beaten is None]
        parts.append(choose_player("jack_beaten", text["jack_beaten"], "jack_beaten", allowed))
    return mark_safe("".join(parts))  # noqa: S308  (every piece escaped above)


@cache
def _more_texts(language: str) -> dict[str, str]:
    """The texts of ``more_forms`` in ``language`` (the active one), escaped, made once per
    process, with the parts that hold nothing else (the buttons, the penalty's last fields): every
    tap's answer draws them, and each ``gettext`` looks the language and its catalogues up
    again. Each text a literal gettext, so that makemessages finds it."""
    return {
        "blind_knock": _escape(gettext("Blind toepen")),
        "laundry": _escape(gettext("Vuile was")),
        "laundry_player": _escape(gettext("Wie levert in")),
        "laundry_challenger": _escape(gettext("Wie controleert")),
        "nobody": _escape(gettext("niemand")),
        "genuine": _escape(gettext("Echt vuile was")),
        "laundry_button": _button(
            gettext("Vuile was opschrijven"), gettext("Vuile was opschrijven")
        ),
        "four": _escape(gettext("Vier gelijke")),
        "who": _escape(gettext("Wie")),
        "what": _escape(gettext("Wat")),
        "four_button": _button(gettext("Vier gelijke: Toep!"), gettext("Toep!")),
        "penalty": _escape(gettext("Strafpunt")),
        "penalty_fields": _field(
            "penalty-points",
            gettext("Punten"),
            '<input id="penalty-points" type="number" name="points" value="1" step="1">',
        )
        + _field(
            "penalty-reason",
            gettext("Reden"),
            '<input id="penalty-reason" type="text" name="reason" maxlength="100">',
        )
        + _button(gettext("Strafpunt opschrijven"), gettext("Strafpunt opschrijven")),
        "jack_beaten": _escape(gettext("Boer geslagen door vrouw")),
    }


@register.simple_tag(name="presence_form", takes_context=True)
def presence_form_tag(context) -> SafeString:
    """``{% presence_form %}``: who is away this round and who sits down, before its first
    event (built here with ``more_forms``: three texts and a list per player)."""
    lei, hidden = context["lei"], context["hidden"]
    url = _escape(context["urls"]["presence"])
    text = _presence_texts(get_language())
    fields = []
    for number, (name, away) in enumerate(lei.presence):
        choices = "".join(
            f'<option value="{value}"{" selected" if away == value else ""}>{reason}</option>\n'
            for value, reason in text["reasons"]
        )
        fields.append(
            _field(
                f"absent-{number}",
                name,
                f'<select id="absent-{number}" name="absent_{number}">\n'
                f'<option value="">{text["at_table"]}</option>\n{choices}</select>',
            )
        )
    body = f"{text['help']}{''.join(fields)}{text['rest']}"
    return mark_safe(  # noqa: S308  (every piece escaped above)
        _form(url, "form", hidden(), text["title"], body)
    )


@cache
def _presence_texts(language: str) -> dict[str, Any]:
    """The texts of ``presence_form`` in ``language`` (the active one), escaped, made once per
    process (see ``_more_texts``), with the parts that hold nothing else. Each text a literal
    gettext, so that makemessages finds it."""
    help_text = gettext(
        "Vóór de eerste gebeurtenis van de ronde. Toilet: gedeeld, weg bij de eerste toep. "
        "Drinken: deze ronde niet mee."
    )
    join = _field(
        "join-name",
        gettext("Speler erbij"),
        '<input id="join-name" type="text" name="join" maxlength="40" autocomplete="off">',
    )
    return {
        "title": _escape(gettext("Afwezig en speler erbij")),
        "help": f'<p class="helptext">{_escape(help_text)}</p>\n',
        "at_table": _escape(gettext("aan tafel")),
        "reasons": (
            ("toilet", _escape(gettext("toilet"))),
            ("drinks", _escape(gettext("drinken"))),
        ),
        "rest": join + _button(gettext("Aanwezigheid opslaan"), gettext("Opslaan")),
    }


def _form(url: str, css: str, head: str, title: str, body: str) -> str:
    """A form of the round panel that posts to ``url`` (escaped): ``head`` (its hidden
    fields), its title and ``body`` (escaped)."""
    return (
        f'<form method="post" action="{url}" hx-post="{url}" class="{css}">\n'
        f"{head}\n<h3>{_escape(title)}</h3>\n{body}</form>\n"
    )


def _field(id_: str, label: str, control: str) -> str:
    """A labelled field of a panel form (``control`` escaped)."""
    return f'<div class="field"><label for="{id_}">{_escape(label)}</label>\n{control}</div>\n'


def _button(label: str, text: str) -> str:
    return f'<button class="btn" aria-label="{_escape(label)}">{_escape(text)}</button>\n'
