"""The organiser's pasted list of players: "Plak een lijst met namen, één per regel".

Three steps on one page, every one of them a plain form (no JavaScript needed): the list typed
or pasted; what it will do (``checkin.paste_plan``: new guests, the club's players it names,
who plays already, and each line it cannot take with the reason), nothing saved yet; then
"Aanmelden", which saves it whole as shown (``checkin.tournament_paste``) or nothing at all.
The club is the tournament's: nobody chooses it per name.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods

from scoring import access
from scoring.models import Tournament
from scoring.toernooi import checkin
from scoring.toernooi.forms import PasteForm
from scoring.writes import ServiceError


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.organiser)
def tournament_paste(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = PasteForm(request.POST or None)
    plan = None
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["names"]
        if request.POST.get("action") == "save":
            try:
                done = checkin.tournament_paste(
                    tournament=tournament,
                    text=text,
                    expected=form.cleaned_data["plan"],
                    actor=request.user,
                )
            except checkin.PasteChanged as changed:
                messages.error(request, str(changed))
                plan = changed.plan
            except ServiceError as error:
                messages.error(request, str(error))
                plan = checkin.paste_plan(tournament, text)
            else:
                _saved(request, done)
                return redirect("tournament_checkin", tournament.pk)
        else:
            plan = checkin.paste_plan(tournament, text)
    return render(
        request,
        "scoring/toernooi/paste.html",
        {
            "tournament": tournament,
            "form": form,
            "plan": plan,
            "step": "checkin",
            "series_list": list(tournament.series.order_by("number")),
            "max_lines": checkin.MAX_PASTE_LINES,
        },
    )


def _saved(request: HttpRequest, plan: checkin.PastePlan) -> None:
    new, playing = len(plan.of_kind("new")), len(plan.of_kind("playing"))
    known = len(plan.lines) - new - playing
    messages.success(
        request,
        ngettext(
            "%(count)s naam van de lijst verwerkt:",
            "%(count)s namen van de lijst verwerkt:",
            len(plan.lines),
        )
        % {"count": len(plan.lines)}
        + " "
        + gettext("nieuwe gast: %(new)s, van de club: %(known)s, was al aangemeld: %(playing)s.")
        % {"new": new, "known": known, "playing": playing},
    )
    also = {line.name: list(line.also_in) for line in plan.lines if line.also_in}
    if also:
        messages.warning(request, checkin.also_tonight_text(also))
