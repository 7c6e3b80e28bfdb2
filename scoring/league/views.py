"""The league pages: the home page's public clubs, a club's page, season standings and a
player's page.

Read-only pages over the stored projection (see ``scoring.league.standings``), so a recorded
or corrected round shows on the next request. The one thing kept is the standings' rows, a
copy served only while the data it was made from is unchanged
(``scoring.league.standings_cache``). A club that does not publish its standings shows nothing
to the public: every page is a 404 for anyone who is not a member (``access.league_viewer``,
asked by every page of the league through ``access.requires``: ``scoring/access.py`` is the one
place of such rules).
On a public page a player who asked for it is shown by initials (``Player.public_name``)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
)
from django.shortcuts import get_object_or_404, render
from django.template.loader import get_template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from scoring import access, figures, svg
from scoring.access import Viewer
from scoring.clubs.ranking import PER_ROUND, PLACEMENT, RATING, TIE_BREAKER_TEXT, Ranking
from scoring.days import evening_day
from scoring.http import id_from, private_response
from scoring.league import best_n, player_stats, standings, standings_cache
from scoring.models import (
    Club,
    Player,
    Season,
    Session,
    SessionResult,
)
from scoring.ratings import selectors as rating_selectors
from scoring.ratings.services import ratings_fresh

HOME_CLUBS = 100  # the public clubs listed on the home page, by name
# The season standings' body rows, compiled once: a season has hundreds of rows.
STANDINGS_ROWS = get_template("scoring/league/season.html#rows")


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Queries: 1. the clubs that publish their standings; for a signed-in user (after the
    session and the user) 2. their clubs, 3. the clubs they organise for, 4. running and
    5. finished sessions."""
    context: dict[str, Any] = {
        # Everyone, signed in or not, finds the public standings from here.
        "public_clubs": list(
            Club.objects.filter(standings_public=True).order_by("name")[:HOME_CLUBS]
        ),
    }
    if request.user.is_authenticated:
        clubs = access.clubs_of(request.user)
        sessions = Session.objects.filter(club__in=clubs).select_related("club")
        context |= {
            "clubs": clubs,
            # Club evenings and tournaments are a club admin's: a scorer would tap into a 403.
            "organises": bool(clubs) and bool(access.clubs_administered_by(request.user)),
            "running": list(sessions.running().order_by("-updated_at")[:20]),
            "finished": list(sessions.finished().by_end()[:10]),
        }
        context["admin_link"] = access.may_use_admin(request.user, administers=context["organises"])
    return render(request, "scoring/home.html", context)


def viewer_link(session: Session) -> str | None:
    """The tablet's live read-only sheet of a session (the signed viewer link), when it has
    one (a scorer may have turned it off)."""
    return access.session_viewer_path(session)


@require_safe
@access.requires(access.league_viewer)
def club_home(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Queries: 1. the club (and membership); 2. its seasons with their session counts;
    3. the latest evenings."""
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
    return private_response(
        render(
            request,
            "scoring/league/club.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "seasons": seasons,
                "evenings": evenings,
                "today": evening_day(),
                "webcal": _webcal(request, viewer.club),
            },
        )
    )


def _webcal(request: HttpRequest, club: Club) -> str | None:
    """The calendar feed (``scoring.league.calendar``) as a phone subscribes to it: webcal://
    opens the calendar app, which then fetches it over https. Only where the club publishes."""
    if not club.standings_public:
        return None
    url = request.build_absolute_uri(reverse("club_calendar", args=[club.slug]))
    return "webcal://" + url.split("://", 1)[1]


# --- season standings ---------------------------------------------------------------------------


def season_of(viewer: Viewer, season_id: int) -> Season:
    return get_object_or_404(Season, pk=season_id, club=viewer.club)


@require_safe
@access.requires(access.league_viewer)
def season_standings(request: HttpRequest, viewer: Viewer, season_id: int) -> HttpResponse:
    """The rows are rendered once per state of their data, language and audience and kept in
    the cache (``scoring.league.standings_cache``) under the key of that data, so a correction shows
    on the next request.

    Queries: 1. club; 2. season, with its finished sessions' aggregates; 3. the players shown by
    initials; 4. the cache. A miss then reads in one snapshot: 5-6. the key again, 7-9. the
    standings (see ``standings.season_standings``; 10. only when a tie reaches the
    head-to-head breaker); and keeps the rows (the cache's writes)."""
    variant = standings_cache.variant(member=viewer.member)
    season = standings_cache.season_with_key(viewer.club, season_id)
    if season is None:
        raise Http404("no such season")
    if Ranking.from_json(season.ranking).scoring == RATING:
        ratings_fresh(club_id=viewer.club.pk)  # 2 queries, and a recompute when stale
    key = standings_cache.key(season, club=viewer.club, variant=variant)
    rows = standings_cache.kept(key)
    if rows is not None:
        rows = mark_safe(rows)  # noqa: S308  (rendered, autoescaped, by STANDINGS_ROWS)
    else:
        with standings_cache.snapshot():
            season = standings_cache.season_with_key(viewer.club, season_id)
            if season is None:
                raise Http404("no such season")
            key = standings_cache.key(season, club=viewer.club, variant=variant)
            rows = _standings_rows(viewer, season)
        standings_cache.keep(key, rows)
    ranking = Ranking.from_json(season.ranking)
    return private_response(
        render(
            request,
            "scoring/league/season.html",
            {
                "viewer": viewer,
                "club": viewer.club,
                "season": season,
                "ranking": ranking,
                "rows": rows,
                "per_round": ranking.scoring == PER_ROUND,
                "by_rating": ranking.scoring == RATING,
            },
        )
    )


def _players_url(viewer: Viewer) -> str:
    """The player links without a {% url %} per row: the rows add the id."""
    return reverse("league_player", args=[viewer.club.slug, 0]).removesuffix("0/")


def _standings_rows(viewer: Viewer, season: Season) -> SafeString:
    """The season's standings computed and rendered as the body rows of the table."""
    table = standings.season_standings(season)
    per_round = table.ranking.scoring == PER_ROUND
    by_rating = table.ranking.scoring == RATING
    show_all = bool(table.ranking.best_n) and table.ranking.scoring == PLACEMENT
    games = best_n.counted_and_dropped(season, table.ranking)
    lines = [
        {
            "row": row,
            # The first row of a part under the ranked players opens it with a line.
            "opens": row.section
            if row.section != standings.RANKED
            and (i == 0 or table.rows[i - 1].section != row.section)
            else "",
            "games": games.get(row.player_id),
            "name": viewer.name(row.name, row.public_initials),
            "decided": TIE_BREAKER_TEXT.get(row.decided_by or ""),
            "average_place": figures.shown(row.average_place, 2),
            "points": (
                "-"
                if row.per_round is None
                else figures.shown(figures.rounded(row.per_round, 3), 2)
            )
            if per_round
            else ("-" if row.rating is None else figures.shown_rating(row.rating))
            if by_rating
            else (
                f"{row.points} ({row.all_points})"
                if show_all and row.all_points != row.points
                else str(row.points)
            ),
            "won": _percent(row.won_share),
            "form": " ".join(f"{f.place}/{f.table_size}" for f in row.form),
            "linked": row.confirmed or viewer.member,  # an unconfirmed guest has no public page
        }
        for i, row in enumerate(table.rows)
    ]
    return STANDINGS_ROWS.render(
        {
            "lines": lines,
            "players_url": _players_url(viewer),
            "season_id": season.pk,
            "min_sessions": season.min_sessions,
            "best_n": table.ranking.best_n if show_all else None,
        }
    )


def _percent(value: float | None) -> str:
    # The CSV's figure (one decimal) rounded once more: the page never contradicts the export.
    return "-" if value is None else f"{figures.shown(figures.rounded(100 * value, 1), 0)}%"


@require_safe
@access.requires(access.league_viewer)
def player_page(request: HttpRequest, viewer: Viewer, player_id: int) -> HttpResponse:
    """Queries: 1. club; 2. player; 3. the club's seasons; 4-6. statistics (session results,
    round scores, longest run); 7. league points through the season; 8-9. the ratings' key
    and the one they were computed from (``ratings_fresh``: a recompute when they differ);
    10. the player's rating history; 11. head-to-head; 12. the player's latest sessions;
    13-14. the chosen session's chart (seats, round scores)."""
    player = get_object_or_404(Player, pk=player_id, club=viewer.club)
    if not (player.confirmed or viewer.member):
        # A guest a scorer link added has no public page until the club confirms them.
        raise Http404("no such player")
    seasons = list(viewer.club.seasons.order_by("-starts_on"))
    season = _chosen(seasons, request.GET.get("seizoen"))
    season_id = season.pk if season and "seizoen" in request.GET else None
    stats = player_stats.player_stats(
        club_id=viewer.club.pk, player_id=player.pk, season_id=season_id
    )
    chart = None
    if season is not None:
        points = player_stats.league_points(season=season, player_id=player.pk)
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
    ratings_fresh(club_id=viewer.club.pk)
    history = rating_selectors.player_history(player.pk)
    rating_chart = None
    if history:
        rating_chart = svg.score_chart(
            {
                viewer.name(player.name, player.public_initials): [
                    0,
                    *(figures.rating(r) for r in history),
                ]
            },
            max_points=None,
            labels={"title": gettext("Rating na elke sessie"), "round": gettext("sessie")},
        )
    rivals = [
        (o, viewer.name(o.name, o.public_initials))
        for o in player_stats.opponents(
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
        series = player_stats.session_series(chosen, full_names=viewer.member)
        session_chart = svg.worded_score_chart(series, chosen.rules.get("max_points"))
    return private_response(
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
                "rating": figures.shown_rating(history[-1]) if history else None,
                "rating_games": len(history),
                "rating_chart": rating_chart,
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
    session_id = id_from(wanted)
    if session_id is not None:
        for result in recent:
            if result.session_id == session_id:
                return result.session
        return Session.objects.filter(
            pk=session_id, club_id=player.club_id, seats__player=player
        ).first()
    return recent[0].session if recent else None
