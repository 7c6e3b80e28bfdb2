"""The organiser's pages of a club evening: starting one, the check-in screen with its QR (shown,
printed, closed, rotated), the guests to confirm, someone checked in by hand or signed out again,
and the draw of a round of tables (the last one thrown away while unplayed). A toernooi's QR
check-in opens the same screen (without the draw)."""

from __future__ import annotations

import datetime

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from scoring import access
from scoring.days import evening_day
from scoring.evening import selectors, services
from scoring.http import id_from, not_allowed, private_response
from scoring.models import Club, Evening, Tournament
from scoring.svg import qr_svg
from scoring.writes import ServiceError

POLL_SECONDS = 3  # the check-in screen, as the toernooi's series page


def evening_url(evening: Evening) -> str:
    return reverse("evening_page", args=[evening.pk])


def _posted_day(request: HttpRequest) -> datetime.date | None:
    """The date the form sent (``YYYY-MM-DD``, as a date input sends it), within the years a
    club plays in; None for anything else."""
    try:
        day = datetime.date.fromisoformat(request.POST.get("date") or "")
    except ValueError:
        return None
    return day if datetime.date(2000, 1, 1) <= day <= datetime.date(2999, 12, 31) else None


@require_http_methods(["GET", "HEAD", "POST"])
@access.requires(access.organiser_clubs)
def evening_new(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    """A club evening: today's, for one of the clubs the organiser runs; the latest ones."""
    if not clubs:
        return not_allowed(
            request, gettext("Alleen een beheerder van een club kan een clubavond beginnen.")
        )
    if request.method == "POST":
        club = next((c for c in clubs if str(c.pk) == request.POST.get("club")), None)
        day = _posted_day(request)
        if club is None or day is None:
            messages.error(request, gettext("Kies een club en een datum."))
        else:
            evening = services.evening_create(club=club, date=day)
            return redirect(evening_url(evening))
    recent = Evening.objects.filter(club__in=clubs, tournament__isnull=True).select_related("club")[
        :20
    ]
    return render(
        request,
        "scoring/evening/new.html",
        {"clubs": clubs, "recent": recent, "today": evening_day()},
    )


@require_safe
@access.requires(access.evening_organiser)
def evening_page(request: HttpRequest, evening: Evening) -> HttpResponse:
    """The check-in screen: the QR, who is here (live), the guests waiting, the rounds."""
    context = {
        "evening": evening,
        "board": selectors.board(evening),
        "poll_seconds": POLL_SECONDS,
        "phone_limit": services.PHONE_LIMIT,
    }
    if request.htmx:
        return private_response(render(request, "scoring/evening/evening.html#board", context))
    # The draw's form is outside the polled board: its query is the full page's only.
    context["next_round"] = services.next_round(evening)
    context["qr_seen"] = services.qr_seen(evening)
    if evening.checkin_token:
        url = request.build_absolute_uri(reverse("checkin_phone", args=[evening.checkin_token]))
        context.update(checkin_url=url, qr=qr_svg(url, gettext("Aanmelden")))
    return private_response(render(request, "scoring/evening/evening.html", context))


@require_safe
@access.requires(access.evening_organiser)
def evening_poster(request: HttpRequest, evening: Evening) -> HttpResponse:
    """The QR to hang up: one A4 page."""
    context: dict = {"evening": evening}
    if evening.checkin_token:
        url = request.build_absolute_uri(reverse("checkin_phone", args=[evening.checkin_token]))
        context.update(checkin_url=url, qr=qr_svg(url, gettext("Aanmelden")))
    return private_response(render(request, "scoring/evening/poster.html", context))


def _posted_id(request: HttpRequest, field: str) -> int:
    """A row's id (or a round's number) the form sent; 0, which no row has, for anything else
    ("²" passes ``str.isdigit`` and fails ``int``)."""
    return id_from(request.POST.get(field)) or 0


def _write(request: HttpRequest, evening: Evening, write) -> HttpResponse:
    try:
        done = write()
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        if done:
            messages.success(request, done)
    return redirect(evening_url(evening))


@require_POST
@access.requires(access.evening_organiser)
def evening_qr(request: HttpRequest, evening: Evening) -> HttpResponse:
    """Close the QR (nobody checks in on a phone any more) or rotate it (a new code; the old
    one, photographed and shared, stops working); rotating opens a closed one."""
    action = request.POST.get("action")
    shown = request.POST.get("qr")  # the QR as the page showed it (services.qr_seen)
    shown = shown.strip()[:20] if isinstance(shown, str) else None

    def write() -> str:
        if action == "close":
            services.checkin_close(evening=evening, shown=shown)
            # What the close leaves behind: guests who checked in before it still wait.
            waiting = evening.players.filter(pending=True).select_related("player")
            if waiting:
                messages.warning(
                    request,
                    gettext("Nog te bevestigen: %(names)s (aangemeld vóór het sluiten).")
                    % {"names": ", ".join(e.player.name for e in waiting)},
                )
            return gettext("De aanmeld-QR is gesloten.")
        if action == "rotate":
            services.checkin_rotate(evening=evening, shown=shown)
            return gettext("Er is een nieuwe aanmeld-QR; de oude werkt niet meer.")
        raise ServiceError(gettext("Kies: de QR sluiten of vervangen."))

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_date(request: HttpRequest, evening: Evening) -> HttpResponse:
    """The evening started on the wrong day: its date put right, its games with it."""
    day = _posted_day(request)

    def write() -> str:
        if day is None:
            raise ServiceError(gettext("Kies een datum."))
        moved = services.evening_redate(evening=evening, date=day)
        shown = date_format(day)
        if moved:
            return ngettext(
                "De clubavond en zijn %(count)s lei staan nu op %(date)s.",
                "De clubavond en zijn %(count)s leien staan nu op %(date)s.",
                moved,
            ) % {"count": moved, "date": shown}
        return gettext("De clubavond staat nu op %(date)s.") % {"date": shown}

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_add(request: HttpRequest, evening: Evening) -> HttpResponse:
    """Check someone in by hand (no phone): a known name, or a new guest."""

    def write() -> str:
        try:
            entry = services.checkin_by_organiser(
                evening=evening,
                name=request.POST.get("name", ""),
                sure=request.POST.get("zeker") == "1",
            )
        except services.NameLooksLike as like:
            raise ServiceError(
                gettext(
                    "Bedoel je %(name)s? Meld dan “%(name)s” aan; is “%(typed)s” iemand anders,"
                    " vink dan “nieuwe gast” aan."
                )
                % {"name": like.players[0].name, "typed": like.typed}
            ) from like
        return gettext("%(name)s is aangemeld.") % {"name": entry.player.name}

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_guest(request: HttpRequest, evening: Evening) -> HttpResponse:
    """A guest who added themselves on a phone: confirmed (plays), or refused (gone)."""
    player_id = _posted_id(request, "player")
    action = request.POST.get("action")

    def write() -> str:
        if action == "confirm":
            entry = services.guest_confirm(evening=evening, player_id=player_id, actor=request.user)
            return gettext("%(name)s speelt mee.") % {"name": entry.player.name}
        if action == "refuse":
            services.guest_refuse(evening=evening, player_id=player_id)
            return gettext("De aanmelding is verwijderd.")
        raise ServiceError(gettext("Kies: bevestigen of weigeren."))

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_flood(request: HttpRequest, evening: Evening) -> HttpResponse:
    """A flood of new guests from one address (scoring/evening/flood.py): every guest of it
    still waiting refused in one go."""
    source = request.POST.get("source", "")[:16]

    def write() -> str:
        count = services.flood_clear(evening=evening, source=source)
        return ngettext(
            "%(count)s wachtende gast van dat adres is geweigerd.",
            "%(count)s wachtende gasten van dat adres zijn geweigerd.",
            count,
        ) % {"count": count}

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_sign_out(request: HttpRequest, evening: Evening) -> HttpResponse:
    """A player checked in by mistake, or gone home: out of the next draws."""
    player_id = _posted_id(request, "player")
    # The check-in the page showed (none: the one there is now).
    entry_id = _posted_id(request, "entry") if "entry" in request.POST else None

    def write() -> str:
        player, dropped = services.checkin_sign_out(
            evening=evening, player_id=player_id, entry_id=entry_id
        )
        if dropped:
            return gettext(
                "%(name)s is afgemeld. Deze gast was vanavond nieuw en had nog niet gespeeld,"
                " dus staat %(name)s ook niet meer bij de club."
            ) % {"name": player.name}
        return gettext(
            "%(name)s is afgemeld en wordt niet meer geloot; aan een tafel waar %(name)s al"
            " zit, speelt die lei gewoon verder."
        ) % {"name": player.name}

    return _write(request, evening, write)


@require_POST
@access.requires(access.evening_organiser)
def evening_draw(request: HttpRequest, evening: Evening) -> HttpResponse:
    """Draw the next round of tables from who is here; each table's game starts at once."""
    expected = _posted_id(request, "round")

    def write() -> str:
        tables = services.evening_draw(evening=evening, expected_round=expected, actor=request.user)
        return ngettext(
            "Ronde %(round)s is geloot: %(count)s tafel.",
            "Ronde %(round)s is geloot: %(count)s tafels.",
            len(tables),
        ) % {"round": expected, "count": len(tables)}

    return _write(request, evening, write)


@require_POST
@access.requires(access.organiser)
def tournament_checkin_qr(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The toernooi's QR check-in: its screen, made the first time."""
    evening = services.evening_of_tournament(tournament=tournament)
    return redirect(evening_url(evening))


@require_POST
@access.requires(access.evening_organiser)
def evening_draw_discard(request: HttpRequest, evening: Evening) -> HttpResponse:
    """Throw away the last round's draw while none of its tables has played; it can be drawn
    again."""
    expected = _posted_id(request, "round")
    drawn = _posted_id(request, "draw")

    def write() -> str:
        count = services.evening_draw_discard(
            evening=evening, expected_round=expected, expected_draw=drawn, actor=request.user
        )
        return ngettext(
            "De loting van ronde %(round)s is weggegooid (%(count)s tafel): loot hem opnieuw.",
            "De loting van ronde %(round)s is weggegooid (%(count)s tafels): loot hem opnieuw.",
            count,
        ) % {"round": expected, "count": count}

    return _write(request, evening, write)
