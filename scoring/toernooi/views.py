"""The toernooi's pages: the organiser's (create, check-in, the draw, the series, table cards, a
paper lei, the final table, the prize list) and the room's (public standings and the TV).

Every write goes through ``scoring.toernooi.services``, which refuses bad input with a
``TournamentError`` before anything changes; the pages show its message. Each table's game is an
ordinary session: its table card carries the QR code of the session's secret scorer link
(``/tafel/<token>/``), and the tablet, viewers and corrections are the session's own pages.

Who may do what (``scoring/access.py``, the one place of such rules, asked through
``access.requires``): the organiser is a club admin of the tournament's club, or a superuser
(``access.organiser``); anyone else gets a 404 for a tournament, as for a session of another
club. The standings and the TV are league pages (``access.league_viewer``): members of the club
and, for a club that publishes its standings, the public (initials where a player asked for
them).

Choices of our own:

- **Table cards come with the start.** A table's session, and so its scorer link, is made when
  the series starts (the organiser may still swap after the draw); before that the series page
  and the TV show who sits where.
- **Only a table whose rounds or time are up is ended by the organiser.** A game to the
  toepkoning ends by itself; "serie afsluiten" ends the tables that may stop.
- **The polls pause on a hidden page** and poll at once when it is shown again, through
  ``static/js/poll.js`` as the viewer's do: htmx's trigger filter
  ``[document.visibilityState === 'visible']`` is evaluated as code, which the CSP (no
  ``unsafe-eval``) forbids.
- **The TV** shows 40 rows to a screen (two columns of 20, beside the tables of the series
  drawn or playing); longer standings are split into pages and every poll shows the next one.
  More than four tables are listed a row each, paged as the standings are
  (``scoring/toernooi/room_views.py``).
- **A paper lei** is entered by its final totals (places by total) or by its rounds written
  out one line each in the lei's words ("Bas toept, Cees weg, Anne wint"); the words are read
  here, the engine judges the totals or the rounds. One not played out says so: the table
  plays on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from scoring import access
from scoring.clubs.selectors import players_like
from scoring.http import HtmxHttpRequest, not_allowed
from scoring.models import Club, Player, Series, Tournament, TournamentTable
from scoring.names import tidy
from scoring.svg import qr_svg
from scoring.toernooi import checkin, closing, corrections
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments
from scoring.toernooi.forms import (
    GuestForm,
    SwapForm,
    TournamentForm,
)
from scoring.writes import ServiceError

SERIES_POLL_SECONDS = 3


def series_of(tournament: Tournament, number: int) -> Series:
    return get_object_or_404(Series, tournament=tournament, number=number)


def table_of(series: Series, number: int) -> TournamentTable:
    return get_object_or_404(
        TournamentTable.objects.select_related("session", "dealer"), series=series, number=number
    )


def refused(request: HttpRequest, error: ServiceError) -> None:
    messages.error(request, str(error))


def _player(tournament: Tournament, value: Any) -> Player | None:
    try:
        pk = int(value)
    except (TypeError, ValueError):
        return None
    return Player.objects.filter(club_id=tournament.club_id, pk=pk).first()


def series_url(series: Series) -> str:
    return reverse("tournament_series", args=[series.tournament_id, series.number])


# --- the organiser: tournaments and a new one ------------------------------------------------


@access.requires(access.organiser_clubs)
@require_safe
def tournament_list(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    """The tournaments of the clubs the user organises, newest first."""
    found = (
        Tournament.objects.filter(club__in=clubs).select_related("club").order_by("-date", "-id")
    )
    return render(
        request,
        "scoring/toernooi/list.html",
        {"clubs": clubs, "tournaments": list(found[:50])},
    )


@access.requires(access.organiser_clubs)
@require_http_methods(["GET", "HEAD", "POST"])
def tournament_new(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    if not clubs:
        return not_allowed(
            request, gettext("Alleen een beheerder van een club kan een toernooi beginnen.")
        )
    form = TournamentForm(request.POST or None, clubs=clubs)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = tournaments.tournament_create(
                club=data["club"],
                name=data["name"],
                date=data["date"],
                season=data.get("season"),
                preset=data.get("preset") or "",
                rules=data["overrides"],
                series_count=data["series"],
                end_mode=data["end"],
                end_rounds=data.get("end_rounds"),
                end_time=data.get("end_time"),
                table_points=data["table_points"],
                table_size=data["table_size"],
                final_table=data["final_table"],
                rated=data["rated"],
                actor=request.user,
            )
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request,
                gettext("Toernooi %(name)s is aangemaakt: meld nu de spelers aan.")
                % {"name": tournament.name},
            )
            return redirect("tournament_checkin", tournament.pk)
    return render(request, "scoring/toernooi/new.html", {"form": form})


# --- the organiser: the tournament's page ----------------------------------------------------


@require_safe
@access.requires(access.organiser)
def tournament_page(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """What to do next, the series so far, and the links to the standings and the TV."""
    all_series = list(tournament.series.order_by("number"))
    regular = [s for s in all_series if not s.final]
    final = next((s for s in all_series if s.final), None)
    latest = regular[-1] if regular else None
    entries = list(tournament.entries.select_related("player"))
    present = [e for e in entries if e.withdrawn_after is None]
    can_draw = (
        tournament.status == Tournament.Status.OPEN
        and final is None
        and len(regular) < tournament.series_count
        and (latest is None or latest.state != Series.State.DRAWN)
    )
    can_final = (
        tournament.status == Tournament.Status.OPEN
        and tournament.final_table
        and final is None
        and len(regular) >= tournament.series_count
        and latest is not None
        and latest.state != Series.State.DRAWN
    )
    share_url = request.build_absolute_uri(
        reverse("tournament_standings", args=[tournament.club.slug, tournament.pk])
    )
    return render(
        request,
        "scoring/toernooi/tournament.html",
        {
            "tournament": tournament,
            "series_list": all_series,
            "regular": regular,
            "final": final,
            "latest": latest,
            "present_count": len(present),
            "next_number": tournaments.next_series_number(tournament),
            "can_draw": can_draw,
            "can_final": can_final,
            "step": "overview",
            "share_url": share_url,
            "share_qr": qr_svg(share_url, gettext("De stand van het toernooi")),
            "corrections": tournament_selectors.corrections(tournament),
        },
    )


# --- check-in --------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.organiser)
def tournament_checkin(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    """One screen: every club member as a big toggle (tap: present, tap again: not), walk-ins
    by name, and the list of who plays. A tap is one POST; HTMX swaps the whole check-in back
    (the count and the list change with it), a plain form is redirected back."""
    guest_form = GuestForm()
    question: dict[str, Any] | None = None  # "Is dit Anne (lid)?" before a walk-in is checked in
    if request.method == "POST":
        # A toggle is a button named "in" or "out" whose value is the player, all in one form
        # (one CSRF token for a list of 400); a lone form may still send action and player.
        action = request.POST.get("action", "")
        tapped = next((a for a in ("in", "out") if a in request.POST), None)
        if not action and tapped:
            action = tapped
        try:
            if action in ("guest", "guest-new"):
                # A name the club knows is asked about first ("guest"); "Nee, een nieuwe gast"
                # ("guest-new") is a guest whose name the club must not have.
                guest_form = GuestForm(request.POST)
                if guest_form.is_valid():
                    name = guest_form.cleaned_data["name"]
                    known = checkin.club_player_named(tournament.club_id, name)
                    like = (
                        [] if known or action != "guest" else players_like(tournament.club_id, name)
                    )
                    if known is not None and action == "guest":
                        question = _walk_in_question(tournament, name, known)
                    elif like:  # "Kees Baker" beside "Kees Bakker": "Bedoel je Kees Bakker?"
                        question = _walk_in_question(tournament, name, like[0]) | {"alike": True}
                    else:
                        try:
                            entries = checkin.tournament_check_in(
                                tournament=tournament,
                                new_guests=[name],
                                audit={"new_guests": [name]} if action == "guest-new" else None,
                                actor=request.user,
                            )
                        except checkin.NameTaken as taken:
                            refused(request, taken)
                            question = _walk_in_question(tournament, name, taken.player)
                        else:
                            guest_form = GuestForm()
                            _warn_tonight(request, tournament, {e.player_id: name for e in entries})
            elif action == "guest-is":  # "Ja, dat is Anne"
                player = _player(tournament, request.POST.get("player"))
                typed = tidy(request.POST.get("typed", ""))[:40]
                if player is None:
                    messages.error(request, gettext("Die speler is niet van deze club."))
                else:
                    checkin.tournament_check_in(
                        tournament=tournament,
                        players=[player],
                        audit={"matched": [[typed or player.name, player.name]]},
                        actor=request.user,
                    )
                    _warn_tonight(request, tournament, {player.pk: player.name})
            elif action in ("in", "out"):
                player = _player(tournament, request.POST.get("player", request.POST.get(action)))
                if player is None:
                    messages.error(request, gettext("Die speler is niet van deze club."))
                elif action == "in":
                    checkin.tournament_check_in(
                        tournament=tournament,
                        players=[player],
                        joining=_shown_joining(request),
                        actor=request.user,
                    )
                    _warn_tonight(request, tournament, {player.pk: player.name})
                else:
                    done = corrections.tournament_check_out(
                        tournament=tournament,
                        player=player,
                        joining=_shown_joining(request),
                        actor=request.user,
                    )
                    if done == corrections.UNDONE:
                        messages.success(
                            request,
                            gettext("De aanmelding van %(player)s is ongedaan gemaakt.")
                            % {"player": player.name},
                        )
            else:
                messages.error(request, gettext("Onbekende actie."))
        except ServiceError as error:
            refused(request, error)
        if not request.htmx and not guest_form.is_bound and question is None:
            return redirect("tournament_checkin", tournament.pk)  # a refused name is shown again
    context = _checkin_context(tournament)
    context.update(
        tournament=tournament,
        guest_form=guest_form,
        question=question,
        step="checkin",
        series_list=list(tournament.series.order_by("number")),
    )
    if request.htmx:
        return render(request, "scoring/toernooi/checkin.html#checkin", context)
    return render(request, "scoring/toernooi/checkin.html", context)


def _shown_joining(request: HttpRequest) -> int | None:
    """The series the check-in page said a check-in joins (its toggles send it); a form
    without it acts on the tournament as it is now."""
    text = request.POST.get("joining", "").strip()
    if not text:
        return None
    return int(text) if text.isdigit() and len(text) < 4 else 0  # 0: no series'


def _walk_in_question(tournament: Tournament, typed: str, player: Player) -> dict[str, Any]:
    playing = tournament.entries.filter(player=player, withdrawn_after__isnull=True).exists()
    return {"typed": typed, "player": player, "playing": playing}


def _warn_tonight(request: HttpRequest, tournament: Tournament, names: dict[int, str]) -> None:
    """A warning, not a refusal, for a player also in another tournament of the club tonight."""
    others = checkin.also_tonight(tournament, list(names))
    if others:
        text = checkin.also_tonight_text({names[pid]: found for pid, found in others.items()})
        messages.warning(request, text)


def _checkin_context(tournament: Tournament) -> dict[str, Any]:
    """Queries: the entries with their players, the club's members, the latest series."""
    entries = list(tournament.entries.select_related("player"))
    by_player = {e.player_id: e for e in entries}
    members = list(Player.objects.filter(club_id=tournament.club_id, is_guest=False))
    latest = tournament.series.filter(final=False).order_by("-number").first()
    toggles = [
        (p, p.pk in by_player and by_player[p.pk].withdrawn_after is None)
        for p in sorted(members, key=lambda p: p.name.casefold())
    ]
    playing = sorted(
        (e for e in entries if e.withdrawn_after is None),
        key=lambda e: e.player.name.casefold(),
    )
    left = sorted(
        (e for e in entries if e.withdrawn_after is not None and e.withdrawn_after > 0),
        key=lambda e: e.player.name.casefold(),
    )
    return {
        "toggles": toggles,
        "playing": playing,
        "left": left,
        "joining": tournaments.joining_after(latest),
        "started": latest is not None and latest.state != Series.State.DRAWN,
        "drawn": latest if latest is not None and latest.state == Series.State.DRAWN else None,
        "min_players": tournaments.MIN_PLAYERS,
    }


# --- the draw and the series -----------------------------------------------------------------


@require_POST
@access.requires(access.organiser)
def tournament_draw(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Draw the next series. The form carries the number of the series the organiser saw as
    next: when two organisers draw at once, the second is told and shown the first's draw."""
    try:
        expected = int(request.POST.get("number", ""))
    except ValueError:
        messages.error(request, gettext("Welke serie? Laad de pagina opnieuw."))
        return redirect("tournament_page", tournament.pk)
    seed = _seed(request)
    if seed is False:
        messages.error(request, gettext("Een lotnummer is een heel getal van 0 of meer."))
        return redirect("tournament_page", tournament.pk)
    try:
        series = tournaments.series_draw(
            tournament=tournament, expected_number=expected, seed=seed, actor=request.user
        )
    except tournaments.DrawTaken as taken:
        refused(request, taken)
        return redirect("tournament_series", tournament.pk, taken.current)
    except ServiceError as error:
        refused(request, error)
        return redirect("tournament_page", tournament.pk)
    messages.success(request, gettext("Serie %(number)s is geloot.") % {"number": series.number})
    return redirect(series_url(series))


def _shown_draw(request: HttpRequest) -> int | None:
    """The ``draw_version`` of the series as the page showed it (its forms send it); a page
    without it acts on the draw as it is now, one with a wrong one is refused as stale."""
    text = request.POST.get("draw", "").strip()
    if not text:
        return None
    return int(text) if text.isdigit() and len(text) < 10 else 0  # 0: no draw's version


def _seed(request: HttpRequest) -> int | bool | None:
    """The seed typed in to repeat a draw, None for a new one, False when it is no number."""
    text = request.POST.get("seed", "").strip()
    if not text:
        return None
    try:
        seed = int(text)
    except ValueError:
        return False
    return seed if 0 <= seed < 2**63 else False


@require_safe
@access.requires(access.organiser)
def series_page(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A drawn series: its tables, the repeat pairs, swap, draw again, start. A running one:
    every table's state and totals, polled while the page is visible; "serie afsluiten"."""
    series = series_of(tournament, number)
    overview = tournament_selectors.series_overview(series)
    names = {p.pk: p.name for status in overview for p in status.players}
    repeat_pairs = [(names.get(a, "?"), names.get(b, "?")) for a, b in (series.repeat_pairs or [])]
    states = [s.state for s in overview]
    later = tournament.series.filter(number__gt=series.number)
    context = {
        "tournament": tournament,
        "series": series,
        "overview": [_table_view(status) for status in overview],
        "repeat_pairs": repeat_pairs,
        "paper": tournament_selectors.paper_games(overview),
        # corrections.series_reopen: the last series (an untouched final table is taken back).
        "can_reopen": series.state == Series.State.FINISHED
        and not later.filter(final=False).exists(),
        # How many extra meetings the evening has so far, and how many it cannot avoid.
        "draw_summary": (
            tournament_selectors.draw_summary(tournament, series)
            if series.state == Series.State.DRAWN and not series.final
            else None
        ),
        "all_over": bool(states) and all(s in ("finished", "done") for s in states),
        "playing": sum(1 for s in states if s == "running"),
        "poll_seconds": SERIES_POLL_SECONDS,
        "close_seen": closing.seen_token(overview),
        "players": sorted(names.items(), key=lambda item: item[1].casefold()),
        "step": f"series-{series.number}",
        "series_list": list(tournament.series.order_by("number")),
        "next_number": tournaments.next_series_number(tournament),
        "more_series": not series.final and series.number < tournament.series_count,
        "can_final": (
            tournament.final_table
            and not series.final
            and series.number >= tournament.series_count
            and tournament.status == Tournament.Status.OPEN
        ),
    }
    if request.htmx:
        return render(request, "scoring/toernooi/series.html#tables", context)
    return render(request, "scoring/toernooi/series.html", context)


@dataclass
class TableView:
    """A table of the series page: its status and its rows (player, total, place, deals)."""

    status: tournament_selectors.TableStatus
    rows: list[tuple[Player, int | None, int | None, bool]]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.status, name)


def _table_view(status: tournament_selectors.TableStatus) -> TableView:
    dealer = status.dealer.pk if status.dealer else None
    rows = [
        (p, status.totals.get(p.pk), status.places.get(p.pk), p.pk == dealer)
        for p in status.players
    ]
    return TableView(status=status, rows=rows)


def series_write(
    request: HttpRequest, tournament: Tournament, number: int, write: Callable[[Series], str]
) -> HttpResponse:
    """Run ``write(series)`` (it returns the message to show) and go back to the series: after
    ``DrawChanged`` that page shows the new draw."""
    series = series_of(tournament, number)
    try:
        done = write(series)
    except ServiceError as error:
        refused(request, error)
    else:
        if done:
            messages.success(request, done)
    return redirect(series_url(series))


@require_POST
@access.requires(access.organiser)
def series_redraw(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    seed = _seed(request)
    if seed is False:
        messages.error(request, gettext("Een lotnummer is een heel getal van 0 of meer."))
        return redirect("tournament_series", tournament.pk, number)

    def write(series: Series) -> str:
        series = tournaments.series_redraw(
            series=series, seed=seed, expected_draw=_shown_draw(request), actor=request.user
        )
        return gettext("Serie %(number)s is opnieuw geloot (lotnummer %(seed)s).") % {
            "number": series.number,
            "seed": series.seed,
        }

    return series_write(request, tournament, number, write)


@require_POST
@access.requires(access.organiser)
def series_swap(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    form = SwapForm(request.POST)
    if not form.is_valid():
        errors = [str(e) for field in form.errors.values() for e in field]
        messages.error(request, errors[0] if errors else gettext("Kies twee spelers."))
        return redirect("tournament_series", tournament.pk, number)
    a = _player(tournament, form.cleaned_data["a"])
    b = _player(tournament, form.cleaned_data["b"])
    if a is None or b is None:
        messages.error(request, gettext("Die speler is niet van deze club."))
        return redirect("tournament_series", tournament.pk, number)

    def write(series: Series) -> str:
        tournaments.series_swap(
            series=series, a=a, b=b, expected_draw=_shown_draw(request), actor=request.user
        )
        return gettext("%(a)s en %(b)s zijn gewisseld.") % {"a": a.name, "b": b.name}

    return series_write(request, tournament, number, write)


@require_POST
@access.requires(access.organiser)
def series_start(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    def write(series: Series) -> str:
        tournaments.series_start(
            series=series, expected_draw=_shown_draw(request), actor=request.user
        )
        return gettext("Serie %(number)s is begonnen: print de tafelkaarten.") % {
            "number": series.number
        }

    return series_write(request, tournament, number, write)


@require_POST
@access.requires(access.organiser)
def series_finish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Close the series as the page showed it (``seen``). Tables it would leave without a
    counted result are named on a page that asks once: accept each there, or close without
    (``confirm``), both from the tables as that page showed them."""
    series = series_of(tournament, number)
    accept = {int(v) for v in request.POST.getlist("accept") if v.isdigit() and len(v) < 6}
    try:
        tournament_results.series_finish(
            series=series,
            seen=request.POST.get("seen") or None,
            accept=accept,
            leave_waiting=request.POST.get("confirm") == "1",
            actor=request.user,
        )
    except closing.SeriesWaiting as waiting:
        overview = tournament_selectors.series_overview(series)
        context = {
            "tournament": tournament,
            "series": series,
            "error": str(waiting),
            "pending": waiting.pending,
            "seen": closing.seen_token(overview),
            "step": f"series-{series.number}",
            "series_list": list(tournament.series.order_by("number")),
        }
        # A question, not a failure: the page asks once, with the tables named.
        return render(request, "scoring/toernooi/close_check.html", context)
    except ServiceError as error:
        refused(request, error)
    else:
        messages.success(request, gettext("Serie %(number)s is afgesloten.") % {"number": number})
        for table in sorted(accept):
            messages.success(
                request,
                gettext("De uitslag van tafel %(table)s is geaccepteerd.") % {"table": table},
            )
    return redirect(series_url(series))


@require_POST
@access.requires(access.organiser)
def series_reopen(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    def write(series: Series) -> str:
        corrections.series_reopen(series=series, actor=request.user)
        return gettext(
            "Serie %(number)s is heropend: de stand is weer voorlopig en de tafels kunnen weer"
            " scoren."
        ) % {"number": series.number}

    return series_write(request, tournament, number, write)
