"""The league pages: a club's seasons and standings, players, the archive and the evening view.

Read-only pages over the stored projection (see ``scoring.standings``), so a recorded or
corrected round shows on the next request. The one thing kept is the standings' rows, a copy
served only while the data it was made from is unchanged (``scoring.standings_cache``). A club
that does not publish its standings shows nothing to the public: every page is a 404 for anyone
who is not a member.
On a public page a player who asked for it is shown by initials (``Player.public_name``).
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.paginator import Paginator
from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_GET

from scoring import standings, standings_cache, svg
from scoring.models import (
    Club,
    ClubMembership,
    Player,
    RoundScore,
    Season,
    Seat,
    Session,
    SessionResult,
)
from scoring.sessionfile import public_file
from scoring.templatetags.lei import score_chart_tag

if TYPE_CHECKING:
    from scoring.views import HtmxHttpRequest

ARCHIVE_PAGE_SIZE = 25
EVENING_POLL_SECONDS = 5
# The evenings a club can have played: other dates are a 404, and the page's previous/next
# links never step outside Python's dates (0001-01-01 minus a day is an OverflowError).
FIRST_EVENING = datetime.date(1900, 1, 1)
LAST_EVENING = datetime.date(2999, 12, 31)
ONE_DAY = datetime.timedelta(days=1)


# --- access ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Viewer:
    """Who looks at a club's league pages: a member sees every name in full."""

    club: Club
    member: bool

    def name(self, name: str, public_initials: bool) -> str:
        return standings.display_name(name, public_initials, full=self.member)


def _club_for(request: HttpRequest, slug: str) -> Viewer:
    """The club and whether the one asking is a member, in one query; a 404 for the public
    when the club does not publish its standings."""
    user = request.user
    clubs = Club.objects.filter(slug=slug)
    if user.is_authenticated:
        clubs = clubs.annotate(
            is_member=Exists(ClubMembership.objects.filter(club=OuterRef("pk"), user=user))
            | Exists(Player.objects.filter(club=OuterRef("pk"), user=user))
        )
    club = clubs.first()
    if club is None:
        raise Http404("no such club")
    member = bool(getattr(club, "is_member", False)) or user.is_superuser
    if not member and not club.standings_public:
        raise Http404("no such club")
    return Viewer(club=club, member=member)


def _viewer_link(session: Session) -> str | None:
    """The tablet's live read-only sheet of a session (the signed viewer link), when that page
    exists. Only for members: the viewer shows every name in full."""
    try:
        from scoring import access  # the tablet engineer's module

        return reverse("viewer", args=[access.viewer_token(session.pk)])
    except (ImportError, AttributeError, NoReverseMatch):
        return None


def _private(response: HttpResponse) -> HttpResponse:
    # Members see full names: a shared cache must never hand their page to the public.
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ["Cookie"])
    return response


# --- the club -----------------------------------------------------------------------------------


@require_GET
def club_home(request: HttpRequest, slug: str) -> HttpResponse:
    """Queries: 1. the club (and membership); 2. its seasons with their session counts;
    3. the latest evenings."""
    viewer = _club_for(request, slug)
    seasons = list(
        viewer.club.seasons.annotate(
            session_count=Count("sessions", filter=Q(sessions__status__in=standings.FINISHED))
        ).order_by("-starts_on")
    )
    evenings = list(
        Session.objects.filter(club=viewer.club)
        .values("played_on")
        .annotate(tables=Count("id"))
        .order_by("-played_on")[:10]
    )
    return _private(
        render(
            request,
            "scoring/league/club.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "seasons": seasons,
                "evenings": evenings,
                "today": timezone.localdate(),
            },
        )
    )


# --- season standings ---------------------------------------------------------------------------


def _season(viewer: Viewer, season_id: int) -> Season:
    return get_object_or_404(Season, pk=season_id, club=viewer.club)


@require_GET
def season_standings(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    """The rows are rendered once per state of their data, language and audience and kept in
    the cache (``scoring.standings_cache``) under the key of that data, so a correction shows
    on the next request.

    Queries: 1. club; 2. season, with its finished sessions' aggregates; 3. the players shown by
    initials; 4. the cache. A miss then reads in one snapshot: 5-6. the key again, 7-9. the
    standings (see ``standings.season_standings``; 10. only when a tie reaches the
    head-to-head breaker); and keeps the rows (the cache's writes)."""
    viewer = _club_for(request, slug)
    variant = standings_cache.variant(member=viewer.member)
    season = standings_cache.season_with_key(viewer.club, season_id)
    if season is None:
        raise Http404("no such season")
    key = standings_cache.key(season, club=viewer.club, variant=variant)
    rows = standings_cache.kept(key)
    if rows is not None:
        rows = mark_safe(rows)  # noqa: S308  (rendered, escaped, by render_standings_rows)
    else:
        with standings_cache.snapshot():
            season = standings_cache.season_with_key(viewer.club, season_id)
            if season is None:
                raise Http404("no such season")
            key = standings_cache.key(season, club=viewer.club, variant=variant)
            rows = _standings_rows(viewer, season)
        standings_cache.keep(key, rows)
    ranking = standings.Ranking.from_json(season.ranking)
    return _private(
        render(
            request,
            "scoring/league/season.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "season": season,
                "ranking": ranking,
                "rows": rows,
                "per_round": ranking.scoring == standings.PER_ROUND,
            },
        )
    )


def _players_url(viewer: Viewer) -> str:
    """The player links without a {% url %} per row: the rows add the id."""
    return reverse("league_player", args=[viewer.club.slug, 0]).removesuffix("0/")


def _standings_rows(viewer: Viewer, season: Season) -> SafeString:
    """The season's standings computed and rendered as the body rows of the table."""
    table = standings.season_standings(season)
    # Each row's cells as text here, not with filters and tags per cell in the template: a
    # season has hundreds of rows and the template engine is most of the page's time.
    per_round = table.ranking.scoring == standings.PER_ROUND
    show_all = bool(table.ranking.best_n) and not per_round
    lines = [
        StandingLine(
            player_id=row.player_id,
            rank=f"{row.rank}=" if row.tied else str(row.rank),
            name=viewer.name(row.name, row.public_initials),
            toepkoning_title=row.toepkoningen >= 3,
            decided=standings.TIE_BREAKER_TEXT.get(row.decided_by or ""),
            sessions=row.sessions,
            toepkoningen=row.toepkoningen,
            average_place=number_format(row.average_place, 2),
            points=("-" if row.per_round is None else number_format(row.per_round, 2))
            if per_round
            else (
                f"{row.points} ({row.all_points})"
                if show_all and row.all_points != row.points
                else str(row.points)
            ),
            rounds_played=row.rounds_played,
            won=_percent(row.won_share),
            form=" ".join(f"{f.place}/{f.table_size}" for f in row.form),
        )
        for row in table.rows
    ]
    return render_standings_rows(lines, _players_url(viewer), season.pk, gettext("Toepkoning"))


@dataclass
class StandingLine:
    """A row of the standings as the page shows it."""

    player_id: int
    rank: str
    name: str
    toepkoning_title: bool
    decided: str | None
    sessions: int
    toepkoningen: int
    average_place: str
    points: str
    rounds_played: int
    won: str
    form: str


def render_standings_rows(
    rows: Iterable, players_url: str, season_id: int, toepkoning_title: str
) -> SafeString:
    """The body rows of the season standings (``StandingLine``), built here rather than with a
    template variable per cell: a season has hundreds of rows of nine cells, and the template
    engine was most of the page's time. Every value is escaped."""
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


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV
# injection"): a player named "=HYPERLINK(…)" must open as the text it is.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` as a CSV cell that no spreadsheet runs: text that could start a formula gets a
    leading single quote; numbers (ints and Decimals, a negative total too) stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


class _SafeCsvWriter:
    """``csv.writer`` whose every text cell goes through ``csv_cell``."""

    def __init__(self, response: HttpResponse) -> None:
        self._writer = csv.writer(response)

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([csv_cell(value) for value in row])


def _csv_response(filename: str) -> tuple[HttpResponse, _SafeCsvWriter]:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response), _SafeCsvWriter(response)


@require_GET
def season_standings_csv(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    viewer = _club_for(request, slug)
    season = _season(viewer, season_id)
    table = standings.season_standings(season)
    response, writer = _csv_response(f"{viewer.club.slug}-{season.pk}-stand.csv")
    writer.writerow(
        [
            "rank",
            "player",
            "sessions",
            "toepkoningen",
            "average_place",
            "points",
            "rounds_played",
            "rounds_won",
            "rounds_won_pct",
            "strafpunten",
            "strafpunten_per_round",
            "form",
        ]
    )
    for row in table.rows:
        writer.writerow(
            [
                row.rank,
                viewer.name(row.name, row.public_initials),
                row.sessions,
                row.toepkoningen,
                # Decimals, not formatted text: a number, even a negative one, is no formula.
                Decimal(f"{row.average_place:.2f}"),
                row.points,
                row.rounds_played,
                row.rounds_won,
                "" if row.won_share is None else Decimal(f"{100 * row.won_share:.1f}"),
                row.strafpunten,
                "" if row.per_round is None else Decimal(f"{row.per_round:.3f}"),
                " ".join(str(f.place) for f in row.form),
            ]
        )
    return response


@require_GET
def season_rounds_csv(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    """Every player's result in every round of the season's finished sessions (one query,
    streamed from the database in chunks)."""
    viewer = _club_for(request, slug)
    season = _season(viewer, season_id)
    response, writer = _csv_response(f"{viewer.club.slug}-{season.pk}-rondes.csv")
    writer.writerow(
        [
            "date",
            "session",
            "table",
            "round",
            "player",
            "points",
            "stake",
            "won",
            "folded",
            "knocks",
            "jack_win",
            "armoede",
            "absent",
            "penalty",
            "total",
            "out",
        ]
    )
    scores = (
        RoundScore.objects.filter(
            player__isnull=False,
            round__session__season=season,
            round__session__status__in=standings.FINISHED,
        )
        .order_by("round__session__played_on", "round__session_id", "round__number", "id")
        .values_list(
            "round__session__played_on",
            "round__session_id",
            "round__session__table_label",
            "round__number",
            "player__name",
            "player__public_initials",
            "points",
            "stake",
            "won",
            "folded",
            "knocks",
            "jack_win",
            "armoede",
            "absent",
            "penalty",
            "total",
            "eliminated",
        )
    )
    for day, session_id, table, number, name, initials, *rest in scores.iterator(2000):
        flags = [int(v) if isinstance(v, bool) else v for v in rest]
        writer.writerow(
            [day.isoformat(), session_id, table, number, viewer.name(name, initials), *flags]
        )
    return response


# --- a player ------------------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{round(100 * value)}%"


@require_GET
def player_page(request: HttpRequest, slug: str, player_id: int) -> HttpResponse:
    """Queries: 1. club; 2. player; 3. the club's seasons; 4-6. statistics (session results,
    round scores, longest run); 7. league points through the season; 8. head-to-head;
    9. the player's latest sessions; 10-11. the chosen session's chart (seats, round scores)."""
    viewer = _club_for(request, slug)
    player = get_object_or_404(Player, pk=player_id, club=viewer.club)
    seasons = list(viewer.club.seasons.order_by("-starts_on"))
    season = _chosen(seasons, request.GET.get("seizoen"))
    season_id = season.pk if season and "seizoen" in request.GET else None
    stats = standings.player_stats(club_id=viewer.club.pk, player_id=player.pk, season_id=season_id)
    chart = None
    if season is not None:
        points = standings.league_points(season=season, player_id=player.pk)
        if points:
            running = [0]
            for point in points:
                running.append(running[-1] + point.points)
            chart = svg.score_chart(
                {viewer.name(player.name, player.public_initials): running},
                max_points=None,
                labels={
                    "title": gettext("Competitiepunten in %(season)s") % {"season": season.name},
                    "round": gettext("sessie"),
                },
            )
    rivals = [
        (o, viewer.name(o.name, o.public_initials))
        for o in standings.opponents(
            club_id=viewer.club.pk, player_id=player.pk, season_id=season_id
        )
    ]
    recent = list(
        SessionResult.objects.filter(player=player, session__status__in=standings.FINISHED)
        .select_related("session")
        .order_by("-session__played_on", "-session_id")[:20]
    )
    chosen = _player_session(request.GET.get("sessie"), player, recent)
    session_chart = None
    if chosen is not None:
        series = standings.session_series(chosen, full_names=viewer.member)
        session_chart = score_chart_tag(series, chosen.rules.get("max_points"))
    return _private(
        render(
            request,
            "scoring/league/player.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "player": player,
                "player_name": viewer.name(player.name, player.public_initials),
                "seasons": seasons,
                "season": season,
                "season_filtered": season_id is not None,
                "stats": stats,
                "percent": {
                    "won": _percent(stats.won_share),
                    "knocked_won": _percent(stats.knocked_won_share),
                    "fold": _percent(stats.fold_rate),
                },
                "chart": chart,
                "rivals": rivals,
                "recent": recent,
                "chosen": chosen,
                "session_chart": session_chart,
            },
        )
    )


def _chosen(seasons: list[Season], wanted: str | None) -> Season | None:
    """The season asked for, else the latest one."""
    for season in seasons:
        if wanted and str(season.pk) == wanted:
            return season
    return seasons[0] if seasons else None


def _player_session(
    wanted: str | None, player: Player, recent: list[SessionResult]
) -> Session | None:
    """The session asked for (one the player sat in), else the player's latest."""
    if wanted and wanted.isdigit():
        for result in recent:
            if result.session_id == int(wanted):
                return result.session
        return Session.objects.filter(
            pk=int(wanted), club_id=player.club_id, seats__player=player
        ).first()
    return recent[0].session if recent else None


# --- the archive ----------------------------------------------------------------------------------


def _day(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


@require_GET
def archive(request: HttpRequest, slug: str) -> HttpResponse:
    """Queries: 1. club; 2. the players to filter on; 3. the table labels; 4. the count;
    5. the page of sessions; 6. their results with the players."""
    viewer = _club_for(request, slug)
    sessions = Session.objects.filter(club=viewer.club).select_related("season")
    day = _day(request.GET.get("datum"))
    if day:
        sessions = sessions.filter(played_on=day)
    player_id = request.GET.get("speler", "")
    if player_id.isdigit():
        sessions = sessions.filter(
            Exists(Seat.objects.filter(session=OuterRef("pk"), player_id=int(player_id)))
        )
    table = request.GET.get("tafel", "").strip()
    if table:
        sessions = sessions.filter(table_label=table)
    season_id = request.GET.get("seizoen", "")
    if season_id.isdigit():
        sessions = sessions.filter(season_id=int(season_id))
    sessions = sessions.order_by("-played_on", "-id").prefetch_related(
        Prefetch(
            "results",
            queryset=SessionResult.objects.filter(player__isnull=False)
            .select_related("player")
            .order_by("place", "player__name"),
        )
    )
    players = [
        (pk, viewer.name(name, initials))
        for pk, name, initials in Player.objects.filter(club=viewer.club)
        .order_by("name")
        .values_list("id", "name", "public_initials")
    ]
    tables = list(
        Session.objects.filter(club=viewer.club)
        .exclude(table_label="")
        .order_by("table_label")
        .values_list("table_label", flat=True)
        .distinct()
    )
    page = Paginator(sessions, ARCHIVE_PAGE_SIZE).get_page(request.GET.get("pagina"))
    listed = [
        (s, [(r, viewer.name(r.player.name, r.player.public_initials)) for r in s.results.all()])
        for s in page.object_list
    ]
    query = request.GET.copy()
    query.pop("pagina", None)
    return _private(
        render(
            request,
            "scoring/league/archive.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "page": page,
                "listed": listed,
                "players": players,
                "tables": tables,
                "filters": {
                    "datum": day.isoformat() if day else "",
                    "speler": player_id,
                    "tafel": table,
                    "seizoen": season_id,
                },
                "query": query.urlencode(),
            },
        )
    )


@dataclass
class SheetRow:
    number: int
    cells: list[RoundScore | None]


@require_GET
def session_page(request: HttpRequest, slug: str, session_id: int) -> HttpResponse:
    """A session's lei, read-only. Queries: 1. club; 2. session; 3. its results with players;
    4. seats (with players) and 5. round scores, for the sheet and the chart."""
    viewer = _club_for(request, slug)
    session = get_object_or_404(
        Session.objects.select_related("season"), pk=session_id, club=viewer.club
    )
    results = [
        (r, viewer.name(r.player.name, r.player.public_initials))
        for r in session.results.filter(player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    ]
    seats = list(session.seats.select_related("player").order_by("position"))
    scores = list(
        RoundScore.objects.filter(round__session=session, player__isnull=False)
        .select_related("round")
        .order_by("round__number", "id")
    )
    column = {seat.player_id: i for i, seat in enumerate(seats)}
    sheet: dict[int, SheetRow] = {}
    for score in scores:
        row = sheet.setdefault(
            score.round.number, SheetRow(score.round.number, [None] * len(seats))
        )
        row.cells[column[score.player_id]] = score
    start = session.start or {}
    series: dict[str, list[int]] = {}
    names = []
    for seat in seats:
        label = viewer.name(seat.player.name, seat.player.public_initials)
        names.append(label)
        while label in series:
            label += "'"
        series[label] = [int(start.get(seat.player.name, 0))]
    labels = list(series)
    for score in scores:
        series[labels[column[score.player_id]]].append(score.total)
    chart = score_chart_tag(series, session.rules.get("max_points"))
    return _private(
        render(
            request,
            "scoring/league/session.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "session": session,
                "results": results,
                "names": names,
                "seats": seats,
                "sheet": [sheet[n] for n in sorted(sheet)],
                "chart": chart,
                "viewer_link": _viewer_link(session) if viewer.member else None,
            },
        )
    )


def _public_names(seats: Iterable[Seat]) -> dict[str, str]:
    """Initials for the players who asked for them, made unique within the session."""
    renames: dict[str, str] = {}
    taken = {s.player.name for s in seats if not s.player.public_initials}
    for seat in seats:
        if seat.player.public_initials:
            name = seat.player.initials or "?"
            while name in taken:
                name += "'"
            taken.add(name)
            renames[seat.player.name] = name
    return renames


@require_GET
def session_export(request: HttpRequest, slug: str, session_id: int) -> HttpResponse:
    """The session as a ``toepen/1`` file (``Session.to_file``), for download."""
    viewer = _club_for(request, slug)
    session = get_object_or_404(Session, pk=session_id, club=viewer.club)
    data = session.to_file()
    if not viewer.member:
        seats = list(session.seats.select_related("player"))
        renames = _public_names(seats)
        if renames:
            data = public_file(data, renames)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2) + "\n",
        content_type="application/json; charset=utf-8",
    )
    filename = f"{viewer.club.slug}-{session.played_on.isoformat()}-{session.pk}.toepen.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)


# --- the evening ----------------------------------------------------------------------------------


@require_GET
def evening_today(request: HttpRequest, slug: str) -> HttpResponse:
    _club_for(request, slug)
    return redirect("league_evening", slug=slug, day=timezone.localdate().isoformat())


@require_GET
def evening(request: HtmxHttpRequest, slug: str, day: str) -> HttpResponse:
    """Every table of one evening, for the TV at the bar; HTMX polls it.

    Queries: 1. club; 2. the evening's sessions (their versions make the ETag: a poll while
    nothing changed ends here with a 304); 3. the results with the players."""
    viewer = _club_for(request, slug)
    date = _day(day)
    if date is None or not FIRST_EVENING <= date <= LAST_EVENING:
        raise Http404("not a date of an evening")
    sessions = list(
        Session.objects.filter(club=viewer.club, played_on=date).order_by("table_label", "id")
    )
    etag = _evening_etag(request, viewer, sessions)
    if etag in _if_none_match(request):
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return _evening_headers(response)
    results = (
        SessionResult.objects.filter(session__in=sessions, player__isnull=False)
        .select_related("player")
        .order_by("place", "player__name")
    )
    by_session: dict[int, list] = {s.pk: [] for s in sessions}
    for r in results:
        by_session[r.session_id].append((r, viewer.name(r.player.name, r.player.public_initials)))
    tables = [(s, by_session[s.pk]) for s in sessions]
    template = "scoring/league/evening.html"
    if request.htmx:
        template += "#tables"
    response = render(
        request,
        template,
        {
            "viewer": viewer,
            "club": viewer.club,
            "date": date,
            "tables": tables,
            "poll_seconds": EVENING_POLL_SECONDS,
            "previous": date - ONE_DAY if date > FIRST_EVENING else None,
            "next": date + ONE_DAY if date < LAST_EVENING else None,
        },
    )
    response["ETag"] = etag
    return _evening_headers(response)


def _evening_etag(request: HtmxHttpRequest, viewer: Viewer, sessions: list[Session]) -> str:
    """Changes with every write to any table of the evening (each bumps its session's version),
    a new table, the language, who looks, and page or fragment."""
    state = ",".join(f"{s.pk}:{s.version}:{s.status}" for s in sessions)
    parts = [state, get_language() or "", str(viewer.member), str(bool(request.htmx))]
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]
    return f'"{digest}"'


def _if_none_match(request: HttpRequest) -> set[str]:
    header = request.headers.get("If-None-Match", "")
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _evening_headers(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request", "Accept-Language"])
    return _private(response)
