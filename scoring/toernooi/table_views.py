"""The organiser's pages of tables: ending a table, the table cards with their scorer link's
QR code, a paper lei, the final table and the prize list."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from scoring import access
from scoring.http import no_compression, private_response
from scoring.models import Series, Session, Tournament
from scoring.svg import qr_svg
from scoring.toernooi import finish
from scoring.toernooi import results as tournament_results
from scoring.toernooi import selectors as tournament_selectors
from scoring.toernooi import services as tournaments
from scoring.toernooi.forms import (
    PaperRoundsForm,
    PaperTotalsForm,
)
from scoring.toernooi.views import (
    refused,
    series_of,
    series_url,
    series_write,
    table_of,
)
from scoring.writes import ServiceError

# The cards of a series printed at once: a QR code each takes time to draw and room on the page,
# so a series of a hundred tables is printed in a few runs.
CARDS_PER_PAGE = 24


@require_POST
@access.requires(access.organiser)
def table_finish(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """End one table's game now (its time is up, or it played its rounds)."""

    def write(series: Series) -> str:
        found = table_of(series, table)
        status = next(
            s for s in tournament_selectors.series_overview(series) if s.table.pk == found.pk
        )
        # Only a table whose rounds or time are up: a game to the toepkoning ends by itself.
        if status.state != "done":
            raise tournaments.TournamentError(
                gettext("Tafel %(table)s speelt nog: die stopt niet eerder.") % {"table": table}
            )
        tournament_results.table_finish(table=found, actor=request.user)
        return gettext("Tafel %(table)s is klaar.") % {"table": table}

    return series_write(request, tournament, number, write)


# --- table cards and a paper lei -------------------------------------------------------------


@require_safe
@access.requires(access.organiser)
def table_cards(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The printable table cards of a started series, ``CARDS_PER_PAGE`` a page (``?pagina=``),
    or one with ``?tafel=n``: A6, or A5 with ``?formaat=a5``. Each carries the QR code of its
    table's secret scorer link."""
    series = series_of(tournament, number)
    overview = tournament_selectors.series_overview(series)
    wanted = request.GET.get("tafel", "")
    if wanted:
        overview = [s for s in overview if str(s.table.number) == wanted]
        if not overview:
            raise Http404("no such table")
    page = Paginator(overview, CARDS_PER_PAGE).get_page(request.GET.get("pagina"))
    pages = [
        (n, (n - 1) * CARDS_PER_PAGE + 1, min(n * CARDS_PER_PAGE, len(overview)))
        for n in page.paginator.page_range
    ]
    cards = []
    for status in page.object_list:
        session = status.session
        url = qr = ""
        if session is not None and session.scorer_token:
            url = request.build_absolute_uri(reverse("scorer_link", args=[session.scorer_token]))
            qr = qr_svg(
                url,
                gettext("Scoren aan tafel %(table)s") % {"table": status.table.number},
            )
        cards.append({"status": status, "url": url, "qr": qr})
    response = render(
        request,
        "scoring/toernooi/cards.html",
        {
            "tournament": tournament,
            "series": series,
            "cards": cards,
            "page": page,
            "pages": pages,
            "a5": request.GET.get("formaat") == "a5",
            "one": bool(wanted),
        },
    )
    # The secret scorer links are on this page: not compressed (toepen_site/middleware.py).
    return no_compression(private_response(response))


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.organiser)
def table_paper(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """A table's game from a paper lei: its final totals, or its rounds written out, with
    the engine judging; a refused lei is shown with the reason and changes nothing."""
    series = series_of(tournament, number)
    found = table_of(series, table)
    seated = [s.player for s in found.seats.select_related("player").order_by("position")]
    posted = request.POST if request.method == "POST" else None
    action = request.POST.get("action", "totals")
    totals_form = PaperTotalsForm(
        posted if action == "totals" else None, seats=[(p.pk, p.name) for p in seated]
    )
    rounds_form = PaperRoundsForm(
        posted if action == "rounds" else None, players=[p.name for p in seated]
    )
    error = ""
    if posted is not None:
        form = rounds_form if action == "rounds" else totals_form
        if form.is_valid():
            try:
                if action == "rounds":
                    session = tournament_results.table_enter_rounds(
                        table=found,
                        rounds=form.cleaned_data["rounds"],
                        seen=_seen(request),
                        actor=request.user,
                    )
                else:
                    by_id = {p.pk: p for p in seated}
                    totals = {by_id[pid]: total for pid, total in form.totals().items()}
                    session = tournament_results.table_enter_totals(
                        table=found, totals=totals, seen=_seen(request), actor=request.user
                    )
            except ServiceError as refused:
                error = str(refused)
                found = table_of(series, table)  # the form shows the game as it is now
            else:
                if session.status == Session.Status.RUNNING:
                    messages.warning(
                        request,
                        gettext(
                            "De papieren lei van tafel %(table)s is ingevoerd als niet"
                            " uitgespeeld: de tafel speelt verder op de lei, vanaf deze stand."
                        )
                        % {"table": table},
                    )
                else:
                    messages.success(
                        request,
                        gettext("De papieren lei van tafel %(table)s is ingevoerd.")
                        % {"table": table},
                    )
                return redirect(series_url(series))
    return render(
        request,
        "scoring/toernooi/paper.html",
        {
            "tournament": tournament,
            "series": series,
            "table": found,
            "totals_form": totals_form,
            "rounds_form": rounds_form,
            "error": error,
            "paper": found.session is not None and tournament_results.is_paper(found.session),
            "seen": tournament_results.paper_seen(found.session),
        },
        status=422 if error else 200,
    )


def _seen(request: HttpRequest) -> str | None:
    """The table's game as the paper form showed it (``results.paper_seen``); a form without
    it acts on the game as it is now."""
    return request.POST.get("seen", "").strip()[:40] or None


@require_POST
@access.requires(access.organiser)
def table_paper_undo(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """Take back the paper lei of a table (entered for the wrong table): it plays again."""

    def write(series: Series) -> str:
        tournament_results.table_paper_undo(
            table=table_of(series, table), seen=_seen(request), actor=request.user
        )
        return gettext(
            "De papieren lei van tafel %(table)s is teruggenomen: de tafel speelt weer."
        ) % {"table": table}

    return series_write(request, tournament, number, write)


# --- the final table and the prizes ----------------------------------------------------------


@require_POST
@access.requires(access.organiser)
def final_table(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        series = tournament_results.final_table_create(tournament=tournament, actor=request.user)
    except ServiceError as error:
        refused(request, error)
        return redirect("tournament_page", tournament.pk)
    messages.success(request, gettext("De finaletafel speelt: print de tafelkaart."))
    return redirect(series_url(series))


@require_safe
@access.requires(access.organiser)
def prize_list(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The organiser's prize list to print (full names, a column for the prize), the switch
    that shows it on the public pages, and its CSV (``scoring/toernooi/finish.py``)."""
    rows = finish.prize_list(tournament)
    final = tournament.series.filter(final=True).first()
    return render(
        request,
        "scoring/toernooi/prizes.html",
        {
            "tournament": tournament,
            "lines": finish.lines(rows, lambda p: p.name),
            "shared": any(row.shared for row in rows),
            "final": final,
            "final_done": final is not None and final.state == Series.State.FINISHED,
            "step": "prizes",
            "series_list": list(tournament.series.order_by("number")),
        },
    )
