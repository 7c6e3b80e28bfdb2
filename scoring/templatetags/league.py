"""Template tags of the league pages: ``{% load league %}``."""

from collections.abc import Iterable

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag(name="standings_rows")
def standings_rows_tag(
    rows: Iterable | SafeString, players_url: str, season_id: int, toepkoning_title: str
) -> SafeString:
    """``{% standings_rows rows players_url season.pk toepkoning_title %}``: the body rows of
    the season standings. ``rows`` is the lines (``league_views.StandingLine``), or the rows
    rendered already by ``render_standings_rows`` (the view keeps them in RenderedStandings),
    which are returned as they are."""
    if isinstance(rows, SafeString):
        return rows
    return render_standings_rows(rows, players_url, season_id, toepkoning_title)


def render_standings_rows(
    rows: Iterable, players_url: str, season_id: int, toepkoning_title: str
) -> SafeString:
    """The body rows of the season standings, built here rather than with a template variable
    per cell: a season has hundreds of rows of nine cells, and the template engine was two
    thirds of the page's time (issue 6). Every value is escaped."""
    esc = conditional_escape
    badge = format_html(' <span class="badge badge--toepkoning">{}</span>', toepkoning_title)
    parts = []
    for row in rows:
        name = format_html(
            '<a href="{}{}/?seizoen={}">{}</a>', players_url, row.player_id, season_id, row.name
        )
        if row.toepkoning_title:
            name += badge
        if row.decided:
            name += format_html(
                ' <span class="muted" title="{}" aria-hidden="true">†</span>'
                '<span class="visually-hidden">{}</span>',
                row.decided,
                row.decided,
            )
        parts.append(
            f'<tr data-player="{int(row.player_id)}"><td class="num">{esc(row.rank)}</td>'
            f'<th scope="row">{name}</th>'
            f'<td class="num">{int(row.sessions)}</td>'
            f'<td class="num">{int(row.toepkoningen)}</td>'
            f'<td class="num">{esc(row.average_place)}</td>'
            f'<td class="num">{esc(row.points)}</td>'
            f'<td class="num">{int(row.rounds_played)}</td>'
            f'<td class="num">{esc(row.won)}</td>'
            f"<td>{esc(row.form)}</td></tr>\n"
        )
    return mark_safe("".join(parts))  # noqa: S308  (every value escaped above)
