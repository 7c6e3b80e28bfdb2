"""The words of the tablet's answers: what a tap of each kind is called, what an undo takes
back, and why a write was refused (a ``ServiceError``, in words a scorer acts on). Shared by
``views``, ``correction_views`` and ``start_views``."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from scoring import writes
from scoring.clubs import services as club_services
from scoring.lei import funnel, services


def tap_words() -> dict[str, str]:
    """What a tap of each event type is called, for "Weg van Eva ongedaan gemaakt"."""
    return {
        "knock": gettext("Toep"),
        "blind_knock": gettext("Blind toepen"),
        "stay": gettext("Mee"),
        "fold": gettext("Weg"),
        "win": gettext("Laatste slag"),
        "four_of_a_kind": gettext("Vier gelijke"),
        "laundry": gettext("Vuile was"),
        "penalty": gettext("Strafpunt"),
        "jack_beaten": gettext("Boer geslagen"),
        "bid": gettext("Bod"),
        "bid_fold": gettext("Pas"),
        "disqualify": gettext("Eruit"),
    }


def undone_text(before: Any) -> str:
    """What an undo took back, in words, from what the write itself took back
    (``RecordOutcome.before`` of ``services.session_undo``): the pot's sharing, the last event
    of the last round, or that round's presence."""
    if not isinstance(before, dict):
        return ""
    if before.get("ended"):
        return gettext("Het verdelen van de pot is ongedaan gemaakt.")
    event = before.get("event")
    if not isinstance(event, dict):
        return gettext("Aanwezigheid ongedaan gemaakt.")
    what = tap_words().get(event.get("type"), event.get("type", ""))
    if event.get("type") == "win" and event.get("jack"):
        what = gettext("%(what)s met boer") % {"what": what}
    if event.get("player"):
        return gettext("%(what)s van %(player)s ongedaan gemaakt.") % {
            "what": what,
            "player": event["player"],
        }
    return gettext("%(what)s ongedaan gemaakt.") % {"what": what}


def service_error_text(error: writes.ServiceError) -> str:
    if isinstance(error, funnel.SessionLocked):
        return gettext("Deze lei is op slot: de club moet hem eerst openen.")
    if isinstance(error, funnel.AgreementSettled):
        return gettext(
            "De tafel was akkoord met de eindstand: alleen een clubbeheerder kan de uitslag nog"
            " verbeteren."
        )
    if isinstance(error, funnel.RoundOver):
        return gettext(
            "deze tik hoorde bij ronde %(tapped)s; de lei staat op ronde %(now)s en is zonder"
            " deze tik verder gegaan."
        ) % {"tapped": error.tapped, "now": error.now}
    if isinstance(error, funnel.SessionClosed):
        return gettext(
            "Dit spel is beëindigd. Alleen een clubbeheerder kan het heropenen (in het beheer)."
        )
    if isinstance(error, funnel.ResultClosed):
        if error.reopen:
            return gettext(
                "De serie van deze tafel is afgesloten: na deze verbetering zou het spel"
                " verder moeten. Heropen eerst de serie (op de pagina van de serie)."
            )
        return gettext(
            "De serie van deze tafel is afgesloten: alleen de organisator kan de uitslag nog"
            " verbeteren."
        )
    if isinstance(error, services.TournamentTableGame):
        return gettext(
            "Dit is een toernooitafel: het volgende spel komt uit de loting van de organisator."
        )
    if isinstance(error, funnel.NothingToUndo):
        return gettext("Er is niets om ongedaan te maken.")
    if isinstance(error, funnel.RoundStarted):
        return gettext(
            "De ronde is al begonnen: wie weg is of erbij komt, zet je vóór de eerste gebeurtenis."
        )
    if isinstance(error, funnel.CorrectionEndsGame):
        return gettext(
            "Niet opgeslagen: met deze verbetering is het spel al uit na ronde %(ended)s, maar"
            " er zijn %(last)s rondes gespeeld. Klopt de verbetering, maak dan eerst de rondes"
            " na ronde %(ended)s ongedaan en verbeter ronde %(number)s daarna opnieuw; anders"
            " kijk je de regels van ronde %(number)s nog eens na."
        ) % {"ended": error.ended, "last": error.last, "number": error.number}
    if isinstance(error, funnel.UnknownRound):
        return gettext("Die ronde bestaat niet.")
    if isinstance(error, club_services.TooManyGuests):
        return gettext(
            "Met de schrijverslink komen er hoogstens %(count)s gasten bij in een spel. "
            "Een lid van de club kan er meer toevoegen."
        ) % {"count": club_services.MAX_LINK_GUESTS}
    if isinstance(error, club_services.PlayerNameClash):
        return gettext("Die naam is al bezet of niet geldig.")
    if isinstance(error, funnel.KeyReused):
        return gettext(
            "Deze tik kwam met het kenmerk van een andere tik, die al is opgeslagen. Kijk op de "
            "lei of hij nog nodig is en tik hem dan opnieuw."
        )
    return gettext("Dat ging niet.")
