"""Correcting a round: its events, one row each, replaced and the whole session replayed.

The editor is drawn into the tablet (an htmx GET; saving swaps the fresh lei in) or opened as a
page of its own (a plain form; saving goes back to the lei)."""

from __future__ import annotations

from django.contrib import messages
from django.http import (
    Http404,
    HttpResponse,
)
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from scoring import access, writes
from scoring.engine import Refusal
from scoring.http import HtmxHttpRequest
from scoring.lei import funnel, services
from scoring.lei.forms import (
    EventRowFormSet,
    VersionForm,
    event_row_initial,
    refusal_text,
    translated_error,
)
from scoring.lei.taplimit import tap_limited
from scoring.lei.views import answer_gone, answer_write, new_key, sent_by, service_error_text
from scoring.models import Game, Round


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.scorer)
@tap_limited
def round_edit(request: HtmxHttpRequest, scorer: access.ScorerAccess, number: int) -> HttpResponse:
    """The events of one round, one row each, to correct; the whole session is replayed.

    Drawn into the tablet's ``#editor`` (an htmx GET) it posts with htmx and the answer is the
    fresh ``#live``; opened as a page of its own (a new tab) it is a plain form, and saving
    goes back to the lei (POST/redirect/GET)."""
    session = scorer.session
    round_ = Round.objects.filter(session=session, number=number).first()
    if round_ is None:
        raise Http404("no such round")
    players = list(session.seats.select_related("player").values_list("player__name", flat=True))
    game = {"game": session.game}  # each row offers the game's event types and their fields
    closed = session.result_closed and not scorer.actor.may_change_closed
    error = service_error_text(funnel.ResultClosed()) if closed else ""
    status = 200
    if request.method == "POST":
        formset = EventRowFormSet(request.POST, prefix="events", form_kwargs=game)
        version_form = VersionForm(request.POST)
        if formset.is_valid() and version_form.is_valid():
            events = [f.event() for f in formset.forms if f.cleaned_data.get("type")]
            try:
                services.round_replace_events(
                    session=session,
                    number=number,
                    events=events,
                    version=version_form.cleaned_data["version"],
                    key=version_form.cleaned_data["key"],
                    actor=scorer.actor,
                    sent=sent_by(request),
                )
            except funnel.StaleVersion:
                # The lei went on since the editor was drawn (another tablet, a tap): the rows
                # stay as typed, under the version of now, to look over and save again.
                session.refresh_from_db()
                error = gettext(
                    "Niet opgeslagen: de lei is intussen veranderd. Je regels staan er nog: "
                    "kijk ze na tegen de lei van nu en sla dan opnieuw op."
                )
            except Refusal as refusal:
                error = refusal_text(refusal)
            except funnel.KeyReused as key_reused:
                error, status = service_error_text(key_reused), 409
            except funnel.SessionGone:
                return answer_gone(request)
            except writes.ServiceError as service_error:
                error = service_error_text(service_error)
            else:
                if not request.htmx:
                    messages.success(
                        request, gettext("Ronde %(number)s is verbeterd.") % {"number": number}
                    )
                return answer_write(request, scorer)
        else:
            error = translated_error(version_form) if not version_form.is_valid() else ""
            error = error or gettext("Controleer de regels hieronder.")
    else:
        formset = EventRowFormSet(
            prefix="events",
            initial=[event_row_initial(e) for e in round_.events],
            form_kwargs=game,
        )
    context = {
        "session": session,
        "round": round_,
        "formset": formset,
        "players": players,
        "is_pot": session.game == Game.POT,
        "error": error,
        "closed": closed,
        "in_tablet": bool(request.htmx),
        "new_key": new_key,
    }
    if request.htmx:
        response = render(request, "scoring/lei/round_edit.html#editor", context, status=status)
        if request.method == "POST":  # the refusal goes into the editor, not over the panel
            response["HX-Retarget"] = "#editor"
            response["HX-Reswap"] = "outerHTML"
        return response
    return render(request, "scoring/lei/round_edit.html", context, status=status)
