"""Starting a game: the new-session form and the player search it asks as names are typed.
Both are for anyone logged in, in the clubs ``access.scorer_clubs`` gives them."""

from __future__ import annotations

from typing import Any

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
)
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from scoring import access, writes
from scoring.engine import Refusal
from scoring.lei import services
from scoring.lei.forms import (
    SessionStartForm,
    refusal_text,
)
from scoring.lei.views import service_error_text, tablet_url
from scoring.models import Club, Player


@access.requires(access.scorer_clubs)
@require_http_methods(["GET", "HEAD", "POST"])
def session_new(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    if not clubs:
        raise Http404("not a member of any club")
    if request.method == "POST":
        form = SessionStartForm(request.POST, clubs=clubs)
        if form.is_valid():
            data = form.cleaned_data
            try:
                session = services.session_start(
                    club=data["club"],
                    players=data["players"],
                    dealer=data["dealer_name"],
                    preset=data["preset"],
                    overrides=data["overrides"],
                    teams=data["team_sides"],
                    game=data["game"],
                    table_label=data.get("table_label") or "",
                    season=data.get("season"),
                    actor=request.user,
                )
            except Refusal as refusal:
                form.add_error(None, refusal_text(refusal))
            except writes.ServiceError as error:
                form.add_error(None, service_error_text(error))
            else:
                return redirect(tablet_url(session))
    else:
        chosen = next((c for c in clubs if str(c.pk) == request.GET.get("club")), clubs[0])
        initial: dict[str, Any] = {"club": chosen.pk, "preset": chosen.preset}
        season = services.running_season(chosen)  # most games are league games
        if season is not None:
            initial["season"] = season.pk
        for key, value in (chosen.rules or {}).items():
            initial[f"rule_{key}"] = (
                ("ja" if value else "nee") if isinstance(value, bool) else value
            )
        form = SessionStartForm(initial=initial, clubs=clubs)
    wanted = str(form["club"].value() or "")
    club_id = next((c.pk for c in clubs if str(c.pk) == wanted), clubs[0].pk)
    players = list(Player.objects.filter(club_id=club_id).order_by("name"))
    return render(
        request,
        "scoring/lei/session_new.html",
        {
            "form": form,
            "clubs": clubs,
            "players": [p.name for p in players],
            "found": [p for p in players if not p.is_guest][:24],
        },
    )


@access.requires(access.scorer_clubs)
@require_safe
def player_search(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    """Club players whose name contains ``q``: chips to tap into the next free seat."""
    club = next((c for c in clubs if str(c.pk) == request.GET.get("club")), None)
    if club is None:
        club = clubs[0] if len(clubs) == 1 else None
    players = Player.objects.none()
    if club is not None:
        players = Player.objects.filter(club=club, is_guest=False)
        query = request.GET.get("q", "").strip()
        if query:
            players = Player.objects.filter(club=club, name__icontains=query)
    return render(
        request,
        "scoring/lei/session_new.html#player-results",
        {"found": list(players.order_by("name")[:24])},
    )
