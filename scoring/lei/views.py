"""The tablet: the scorer link, the lei with its round panel, a tap, undo, presence, finishing,
"Nieuw spel, zelfde spelers", correcting a round, and the service worker that keeps the page.

Every write is one POST that goes through ``scoring.lei.services`` (which asks the engine); the
buttons come from the engine's ``TableView``, never from rules known here. An HTMX POST gets the
``#live`` partial of the tablet page back (the round panel and the sheet), or only the round
section when the sheet is as the tablet shows it; a plain POST is redirected back to the page
(POST/redirect/GET), so everything works without JavaScript.

Who may score is for ``access.scorer`` to say (``scoring/access.py``, the one place of every
such rule): each page of a session asks it through ``access.requires``; the scorer link itself
and the service worker are public."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
)
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_POST, require_safe

from scoring import access, figures, writes
from scoring.engine import Refusal
from scoring.http import HtmxHttpRequest, no_compression, not_allowed
from scoring.lei import funnel, jinja, outbox, seals, services
from scoring.lei.forms import (
    EventForm,
    PresenceForm,
    VersionForm,
    refusal_text,
    translated_error,
)
from scoring.lei.tablet import Lei, build_lei, load_lei, shown_until
from scoring.lei.taplimit import tap_limited
from scoring.lei.words import service_error_text, undone_text
from scoring.models import Session, TournamentTable
from scoring.models.lei import SETTLED
from scoring.ratings.selectors import win_chances
from scoring.svg import qr_svg


def new_key() -> str:
    """A fresh idempotency key for one rendered form (the template calls it per form)."""
    return secrets.token_urlsafe(16)


# The fields of a write that are no part of what it asks: sent again after a refusal, the same
# tap expects a newer version and names the sheet the tablet shows then; the key and the CSRF
# token travel beside it.
NOT_THE_TAP = frozenset({"key", "version", "sheet", "csrfmiddlewaretoken"})


def sent_by(request: HttpRequest) -> list[Any]:
    """What the tablet sent for a write, fingerprinted with its key (``funnel.sent_digest``):
    the URL and the form's fields, so that the same key with another tap is refused."""
    fields = sorted(
        [name, value]
        for name, values in request.POST.lists()
        if name not in NOT_THE_TAP
        for value in values
    )
    return [request.path_info, fields]


# --- answers after a write -------------------------------------------------------------------


def tablet_url(session: Session) -> str:
    return reverse("tablet", args=[session.pk])


def _live_context(request: HttpRequest, scorer: access.ScorerAccess, lei: Lei) -> dict[str, Any]:
    pk = scorer.session.pk
    # What every form of a tap carries: the CSRF token, the version and the round the tablet
    # shows and the sheet it shows, made once here, and a fresh key of its own each time
    # ``hidden`` is drawn (the template calls it per form).
    tap_fields = format_html(
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="version" value="{}">'
        '<input type="hidden" name="round" value="{}">'
        '<input type="hidden" name="sheet" value="{}">',
        get_token(request),
        scorer.session.version,
        lei.view.round_number,
        lei.sheet_key,
    )
    closed = scorer.session.result_closed and not scorer.actor.may_change_closed
    can_score = not lei.locked and not closed
    page = tablet_url(scorer.session)
    return {
        # The key is URL-safe base64 (``new_key``): nothing in it to escape.
        "hidden": lambda: SafeString(
            f'{tap_fields}<input type="hidden" name="key" value="{new_key()}">'
        ),
        "lei": lei,
        "session": scorer.session,
        "scorer": scorer,
        "can_score": can_score,
        # Offered only where it can be taken: after akkoord an undo at the table is refused
        # (funnel.AgreementSettled), so it is not shown; a club admin may still correct.
        "can_undo": can_score
        and not lei.table_closed
        and (scorer.session.agreement not in SETTLED or scorer.actor.may_change_closed),
        "closed": closed,
        # The pages of a long sheet's folded rounds (``Lei.folded_before``).
        "sheet_url": page,
        "sheet_tot": f"{page}?tot=",
        # Asked only after a game, and once the table answered "klopt de eindstand?" (a pub
        # table taps the big button on top first): a toernooi table's next game comes from
        # the draw.
        "again": lei.finished
        and can_score
        and not _tournament_game(scorer.session)
        and scorer.session.agreement != Session.Agreement.OPEN,
        # Each once here: the panel names them in a dozen forms.
        "urls": {
            "event": reverse("session_event", args=[pk]),
            "undo": reverse("session_undo", args=[pk]),
            "presence": reverse("session_presence", args=[pk]),
            "finish": reverse("session_finish", args=[pk]),
        },
    }


def live_html(request: HttpRequest, context: dict[str, Any]) -> str:
    """The tablet's ``#live`` (templates/jinja2/scoring/lei/live.html): the page draws it in
    its place, a tap's answer and the page's poll send it alone."""
    return jinja.render("scoring/lei/live.html", context, request)


def round_html(request: HttpRequest, context: dict[str, Any]) -> str:
    """The round section alone (round.html): the answer to a tap that leaves the sheet as the
    tablet shows it."""
    return jinja.render("scoring/lei/round.html", context, request)


def _tournament_game(session: Session) -> bool:
    return TournamentTable.objects.filter(session_id=session.pk).exists()


def answer_write(
    request: HtmxHttpRequest,
    scorer: access.ScorerAccess,
    *,
    error: str = "",
    stale: bool = False,
    outcome: funnel.RecordOutcome | None = None,
    undone: str = "",
    status: int = 200,
    moved: bool = False,
) -> HttpResponse:
    """After a write: the fresh panel and sheet (HTMX) or a redirect back (plain POST).

    The sheet is drawn from the write's own log and replay (``outcome``) when it has them:
    no second read of the log and no second replay. When the tablet says it shows the sheet
    this lei draws (the ``sheet`` field of every tap, ``Lei.sheet_key``), only the round
    section is sent.

    The tablet's outbox (static/js/lei.js) reads two headers: ``X-Lei-Outcome`` (``recorded``,
    ``refused``, ``stale``, or ``moved``: the tap's round is over, ``funnel.RoundOver``) and
    ``X-Lei-Version``, the version the next tap must expect. A refusal is a 200 like a recorded
    tap: its answer is the fresh lei with the reason. A key that came before with another
    write is a ``status`` 409 (``conflict``), with the reason: a plain POST gets the tablet
    page with it rather than a redirect."""
    session = scorer.session
    if error:
        error = gettext("Niet opgeslagen: %(reason)s") % {"reason": error}
    if status == 409 and not request.htmx:
        session.refresh_from_db(fields=["version", "status", "scorer_token", "ended"])
        return _tablet_page(request, scorer, error=error, status=status)
    notice = (
        gettext(
            "Niet opgeslagen: de lei was al verder dan deze tik verwachtte. Kijk op de lei of "
            "de tik nog nodig is."
        )
        if stale
        else ""
    )
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif notice:
            messages.warning(request, notice)
        elif undone:
            messages.success(request, undone)
        return redirect(tablet_url(session))
    if stale or error:
        try:
            session.refresh_from_db(
                fields=["version", "status", "scorer_token", "ended", "result_closed"]
            )
        except Session.DoesNotExist:  # thrown away since the write was refused
            return answer_gone(request)
    if outcome is not None and outcome.data is not None and not (stale or error):
        lei = outcome.leis.get(get_language()) or build_lei(session, outcome.data, outcome.result)
    else:
        lei = load_lei(session)
    context = _live_context(request, scorer, lei)
    context.update(error=error, notice=notice, undone=undone, flash=_flash(outcome))
    shown = request.POST.get("sheet", "")
    if shown and shown == lei.sheet_key:
        # The tablet shows this very sheet (a knock, a fold, a refusal...): only the round
        # section is drawn and sent, in place of the whole ``#live``.
        response = HttpResponse(round_html(request, context))
        response["HX-Retarget"] = "#round"
        response["HX-Reswap"] = "outerHTML"
    else:
        response = HttpResponse(live_html(request, context))
    outcome_word = "stale" if stale else "moved" if moved else "refused" if error else "recorded"
    response["X-Lei-Outcome"] = "conflict" if status == 409 else outcome_word
    response["X-Lei-Version"] = str(session.version)
    response.status_code = status
    return response


def answer_gone(request: HtmxHttpRequest) -> HttpResponse:
    """The game was thrown away while this request waited for it: another tablet ended it
    before any round was finished (``services.session_discard``). Nothing was stored; the
    tablet goes home, as the one that ended it did. htmx follows ``HX-Redirect`` whatever the
    status; the outbox (static/js/lei.js) stops on the 410 and shows its text."""
    text = gettext(
        "Niet opgeslagen: dit spel is weggegooid, want het is beëindigd voordat er een ronde "
        "was uitgespeeld."
    )
    messages.info(request, text)
    if not request.htmx:
        return redirect("home")
    response = HttpResponse(text, status=410, content_type="text/plain; charset=utf-8")
    response["HX-Redirect"] = reverse("home")
    return response


def _flash(outcome: funnel.RecordOutcome | None) -> str:
    """The result of the round this write ended ("Ronde 7: Eva wint — inzet 2"), or "": the
    round a write touched is among the replay's scored rounds only when the write ended it."""
    if outcome is None or outcome.result is None or not outcome.round_number:
        return ""
    rounds = outcome.result.rounds
    if not rounds or rounds[-1].number != outcome.round_number:
        return ""
    done = rounds[-1]
    words = {"number": done.number, "winner": done.winner or "", "stake": done.stake}
    if done.ended_by == "four_of_a_kind":
        return gettext("Ronde %(number)s: vier gelijke van %(winner)s") % words
    if done.ended_by == "all_fold" and done.winner:
        text = gettext("Ronde %(number)s: de rest is weg, %(winner)s wint — inzet %(stake)s")
        return text % words
    if done.winner and done.jack:
        return gettext("Ronde %(number)s: %(winner)s wint met boer — inzet %(stake)s") % words
    if done.winner:
        return gettext("Ronde %(number)s: %(winner)s wint — inzet %(stake)s") % words
    return gettext("Ronde %(number)s is gespeeld — inzet %(stake)s") % words


def _write(
    request: HtmxHttpRequest,
    scorer: access.ScorerAccess,
    write: Callable[[], Any],
    undone: Callable[[funnel.RecordOutcome], str] | None = None,
) -> HttpResponse:
    """Run ``write`` and answer; ``undone`` says in words what this very write took back (an
    undo's answer; a replayed key took back nothing this time)."""
    try:
        outcome = write()
    except funnel.SessionGone:
        return answer_gone(request)
    except funnel.StaleVersion:
        return answer_write(request, scorer, stale=True)
    except Refusal as refusal:
        return answer_write(request, scorer, error=refusal_text(refusal))
    except funnel.KeyReused as error:
        return answer_write(request, scorer, error=service_error_text(error), status=409)
    except funnel.RoundOver as error:
        return answer_write(request, scorer, error=service_error_text(error), moved=True)
    except writes.ServiceError as error:
        return answer_write(request, scorer, error=service_error_text(error))
    said = undone(outcome) if undone is not None and not outcome.replayed else ""
    return answer_write(request, scorer, outcome=outcome, undone=said)


@require_safe
def scorer_link(request: HttpRequest, token: str) -> HttpResponse:
    """A tablet without an account opens the secret link once; the Django session keeps it."""
    try:
        session = access.session_by_scorer_token(request, token)
    except access.LinkRevoked:
        return access.scorer_link_revoked(request)
    access.grant_scorer_link(request, session)
    return redirect(tablet_url(session))


@require_POST
@access.requires(access.scorer)
@tap_limited
def scorer_link_change(request: HttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """A club admin renews or revokes the scorer link (a plain form)."""
    if not scorer.is_admin:
        return not_allowed(request, gettext("Alleen een beheerder van de club kan dit."))
    try:
        if request.POST.get("action") == "revoke":
            seals.session_revoke_token(session=scorer.session, actor=request.user)
            messages.success(request, gettext("De schrijverslink werkt niet meer."))
        else:
            seals.session_rotate_token(session=scorer.session, actor=request.user)
            messages.success(
                request, gettext("Er is een nieuwe schrijverslink; de oude werkt niet meer.")
            )
    except funnel.SessionGone:
        return answer_gone(request)
    return redirect(tablet_url(scorer.session))


@require_POST
@access.requires(access.scorer)
@tap_limited
def viewer_link_change(request: HttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """Whoever scores the game renews the viewer link (a QR code shared too widely) or turns
    it off; the old link answers 410 at once (a plain form)."""
    action = request.POST.get("action")
    if action == "revoke":
        seals.session_revoke_viewer_link(session=scorer.session, actor=scorer.actor)
        messages.success(request, gettext("Meekijken staat uit: de kijklink werkt niet meer."))
    elif action == "renew":
        seals.session_renew_viewer_link(session=scorer.session, actor=scorer.actor)
        messages.success(request, gettext("Er is een nieuwe kijklink; de oude werkt niet meer."))
    else:
        messages.error(request, gettext("Er is niets aan de kijklink veranderd."))
    return redirect(tablet_url(scorer.session))


@require_safe
@access.requires(access.scorer)
def tablet(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    if request.htmx:  # the page's own poll (#follow, static/js/lei.js): the lei as it is now
        until = shown_until(request.GET.get("tot"))
        etag = live_etag(scorer)
        if until is None and etag in request.headers.get("If-None-Match", ""):
            return HttpResponseNotModified(headers={"ETag": etag})
        lei = load_lei(scorer.session)
        lei.until = until
        response = HttpResponse(live_html(request, _live_context(request, scorer, lei)))
        if until is None:  # a page of earlier rounds is not the lei "as it is now"
            response["ETag"] = etag
        return response
    return _tablet_page(request, scorer)


def live_etag(scorer: access.ScorerAccess) -> str:
    """What the tablet's ``#live`` is drawn from besides the log (which the version stands
    for): an unchanged lei costs a poll no replay and no drawing."""
    s = scorer.session
    state = f"{s.version}-{s.status}-{s.result_closed:d}-{scorer.actor.may_change_closed:d}"
    return f'W/"tablet-{s.pk}-{state}-{get_language()}"'


def _tablet_page(
    request: HttpRequest, scorer: access.ScorerAccess, *, error: str = "", status: int = 200
) -> HttpResponse:
    """The whole tablet page; ``error`` shown over the round panel. No secret on it (the
    scorer link comes with ``session_share``), so it is compressed. ``?tot=<round>``: the sheet
    shows the rounds up to that one (a long evening's earlier rounds)."""
    lei = load_lei(scorer.session)
    lei.until = shown_until(request.GET.get("tot"))
    context = _live_context(request, scorer, lei)
    context["error"] = error
    context["viewer_path"] = access.session_viewer_path(scorer.session)  # None: turned off
    context["live_etag"] = live_etag(scorer)  # the poll's (#follow) first If-None-Match
    context["chances"] = _win_chances(scorer.session)
    context["live"] = live_html(request, context)
    return render(request, "scoring/lei/tablet.html", context, status=status)


def _win_chances(session: Session) -> list[tuple[str, int]]:
    """Before the first round, each player's chance to become toepkoning, in seat order, when
    the club shows it (``Club.win_chance``, off by default): three queries then, none else."""
    if not session.club.win_chance or session.rounds.exists():
        return []
    seats = list(session.seats.order_by("position").values_list("player_id", "player__name"))
    chances = win_chances(session.club_id, [pid for pid, _ in seats])
    return [(name, figures.shown(100 * chances[pid], 0)) for pid, name in seats if pid in chances]


@require_safe
@access.requires(access.scorer)
def session_share(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """The links to share a game, with their QR codes: "Deel" on the tablet fetches them when
    it is opened (a page of their own without JavaScript). The secret scorer link is here
    and nowhere else on the tablet, so this answer is neither compressed (BREACH:
    toepen_site/middleware.py) nor kept by any cache; the tablet page, without it, is both."""
    session = scorer.session
    viewer_path = access.session_viewer_path(session)  # None: turned off
    share: dict[str, Any] = {"viewer_path": viewer_path}
    if viewer_path is not None:
        share["viewer_url"] = request.build_absolute_uri(viewer_path)
        share["viewer_qr"] = qr_svg(share["viewer_url"], gettext("Meekijken"))
    if session.scorer_token:
        scorer_path = reverse("scorer_link", args=[session.scorer_token])
        share["scorer_url"] = request.build_absolute_uri(scorer_path)
        share["scorer_qr"] = qr_svg(share["scorer_url"], gettext("Scoren op een andere tablet"))
    template = "scoring/lei/share.html" + ("#links" if request.htmx else "")
    response = render(request, template, {"session": session, "scorer": scorer, "share": share})
    patch_cache_control(response, no_store=True, private=True)
    return no_compression(response)


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The tablet's service worker (``templates/scoring/lei/service_worker.js``), from the site's
    root: a worker's scope is the folder it is served from, and it must see the tablet pages
    and signing out. Asked for again by the browser at every visit (``no-cache``)."""
    example = reverse("tablet", args=[987654321])
    pattern = "^" + re.escape(example).replace("987654321", "[0-9]+") + "$"
    response = render(
        request,
        "scoring/lei/service_worker.js",
        {
            "tablet_example": example.replace("987654321", "<n>"),
            "tablet_pattern": pattern,
            # The prefix, not a file: static("") asks the manifest for a file named "" and
            # fails with DEBUG off (tests/browser/test_deployed.py serves it that way).
            "static_prefix": settings.STATIC_URL,
            "signing": [reverse(n) for n in ("login", "logout", "admin:login", "admin:logout")],
            "taps_pattern": example.replace("987654321/", "*"),
        },
        content_type="text/javascript; charset=utf-8",
    )
    response["Cache-Control"] = "no-cache"
    return response


@require_POST
@access.requires(access.scorer)
@outbox.same_person
@tap_limited
def session_event(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """One tap: one event with the version the tablet showed and the tap's key."""
    form = EventForm(request.POST)
    if not form.is_valid():
        return answer_write(request, scorer, error=translated_error(form))
    data = form.cleaned_data
    return _write(
        request,
        scorer,
        lambda: services.session_record_event(
            session=scorer.session,
            event=form.event(),
            version=data["version"],
            key=data["key"],
            actor=scorer.actor,
            sent=sent_by(request),
            round_number=data["round"],
        ),
    )


@require_POST
@access.requires(access.scorer)
@outbox.same_person
@tap_limited
def session_undo(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """Take back the last tap, and say which ("Weg van Eva ongedaan gemaakt")."""
    return _write_at_version(request, scorer, services.session_undo, say_undone=True)


def _write_at_version(
    request: HtmxHttpRequest,
    scorer: access.ScorerAccess,
    service: Callable[..., object],
    say_undone: bool = False,
) -> HttpResponse:
    """A write that carries nothing but the version the tablet saw and its key."""
    form = VersionForm(request.POST)
    if not form.is_valid():
        return answer_write(request, scorer, error=translated_error(form))
    return _write(
        request,
        scorer,
        lambda: service(
            session=scorer.session,
            version=form.cleaned_data["version"],
            key=form.cleaned_data["key"],
            actor=scorer.actor,
            round_number=form.cleaned_data["round"],
        ),
        # In words from what the write took back itself: no read of the log before it.
        undone=(lambda outcome: undone_text(outcome.before)) if say_undone else None,
    )


@require_POST
@access.requires(access.scorer)
@outbox.same_person
@tap_limited
def session_presence(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """Who is away (toilet, drinks) and who sits down, before the round's first event."""
    lei = load_lei(scorer.session)
    form = PresenceForm(request.POST, players=lei.seated, seats=request.POST.getlist("seat"))
    if not form.is_valid():
        return answer_write(request, scorer, error=translated_error(form))
    join = list(lei.open_join)
    new = (form.cleaned_data.get("join") or "").strip()
    if new:
        join.append(new)
    return _write(
        request,
        scorer,
        lambda: services.session_set_presence(
            session=scorer.session,
            absent=form.absent(),
            join=join,
            version=form.cleaned_data["version"],
            key=form.cleaned_data["key"],
            actor=scorer.actor,
            sent=sent_by(request),
            round_number=form.cleaned_data["round"],
        ),
    )


# What the confirm step of "Spel beëindigen" sends (_round.html, finish): without it, a stray
# tap or a form from an old page ends nothing.
FINISH_CONFIRMED = "ja"


@require_POST
@access.requires(access.scorer)
@tap_limited
def session_finish(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """Closing time, or in the pot game: share the pot out, once the scorer confirmed it. A
    game without a finished round is thrown away (``services.session_discard``), and the
    tablet goes to the home page."""
    if request.POST.get("confirm") != FINISH_CONFIRMED:
        return answer_write(
            request,
            scorer,
            error=gettext("Het spel is niet beëindigd: bevestig het eerst."),
        )
    form = VersionForm(request.POST)
    if not form.is_valid():
        return answer_write(request, scorer, error=translated_error(form))

    def finish() -> funnel.RecordOutcome:
        outcome = services.session_finish(
            session=scorer.session,
            version=form.cleaned_data["version"],
            key=form.cleaned_data["key"],
            actor=scorer.actor,
        )
        if outcome.discarded:
            raise _Discarded
        return outcome

    try:
        return _write(request, scorer, finish)
    except _Discarded:
        messages.info(
            request, gettext("Het spel is weggegooid: er was nog geen ronde uitgespeeld.")
        )
        home = reverse("home")
        if request.htmx:
            return HttpResponse(status=204, headers={"HX-Redirect": home})
        return redirect(home)


class _Discarded(Exception):
    """The finished session was thrown away: there is no lei left to draw."""


@require_POST
@access.requires(access.scorer)
@tap_limited
def session_again(request: HtmxHttpRequest, scorer: access.ScorerAccess) -> HttpResponse:
    """The tap on "Nieuw spel, zelfde spelers" after a game starts the next one at this table
    (``services.session_again``) and opens it on this tablet. A tablet with the scorer link
    gets the new game's link as well: it scored this table, it scores the next game."""
    lei = load_lei(scorer.session)
    if not lei.finished or lei.locked:
        return answer_write(request, scorer, error=gettext("Dit spel is nog niet uitgespeeld."))
    try:
        new = services.session_again(
            session=scorer.session, dealer=lei.next_dealer, actor=scorer.actor
        )
    except Refusal as refusal:
        return answer_write(request, scorer, error=refusal_text(refusal))
    except services.TournamentTableGame as error:
        return answer_write(request, scorer, error=service_error_text(error))
    except funnel.SessionGone:
        return answer_gone(request)
    except writes.ServiceError:  # another tablet opened the game again meanwhile
        return answer_write(request, scorer, error=gettext("Dit spel is nog niet uitgespeeld."))
    if scorer.actor.scorer_token and new.scorer_token:
        access.grant_scorer_link(request, new)
    return redirect(tablet_url(new))
