"""The table's akkoord on the tablet (scoring/lei/akkoord.py): two taps after the game, sent
by the tablet's outbox like every tap (their forms carry ``data-outbox``) and answered as a
tap is, with the fresh round section (``views.answer_write``). A second tap of the same
changes nothing; a refusal comes back with its reason."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_POST

from scoring import access
from scoring.http import HtmxHttpRequest
from scoring.lei import akkoord, funnel, outbox
from scoring.lei.taplimit import tap_limited
from scoring.lei.views import answer_gone, answer_write


@require_POST
@access.requires(access.scorer)
@outbox.same_person
@tap_limited
def session_agree(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """ "Iedereen akkoord": the table agrees with the final lei."""
    try:
        akkoord.session_agree(session=scorer.session, actor=scorer.actor)
    except akkoord.AgreementRefused as refused:
        return answer_write(request, scorer, error=str(refused))
    except funnel.SessionGone:
        return answer_gone(request)
    return answer_write(request, scorer)


@require_POST
@access.requires(access.scorer)
@outbox.same_person
@tap_limited
def session_dispute(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """ "Niet akkoord", with a few words: the game is disputed, for the club admin."""
    try:
        akkoord.session_dispute(
            session=scorer.session, note=request.POST.get("note", ""), actor=scorer.actor
        )
    except akkoord.AgreementRefused as refused:
        return answer_write(request, scorer, error=str(refused))
    except funnel.SessionGone:
        return answer_gone(request)
    return answer_write(request, scorer)
