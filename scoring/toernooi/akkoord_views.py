"""The organiser's side of a table's akkoord (scoring/lei/akkoord.py): a toernooi table's result
counts for the series once the table agreed, or once the organiser accepts it here (the series
page shows "wacht op akkoord" and "niet akkoord" with an "Accepteren" button)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from scoring import access
from scoring.lei import akkoord
from scoring.models import Series, Session, Tournament
from scoring.toernooi.views import series_write, table_of


@require_POST
@access.requires(access.organiser)
def table_accept(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """Accept table ``table``'s result, waiting for the table's akkoord or disputed."""

    def write(series: Series) -> str:
        found = table_of(series, table)
        if found.session is None:
            raise akkoord.AgreementRefused(gettext("Deze tafel speelt nog niet."))
        try:
            akkoord.session_accept(
                session=found.session, version=_shown_version(request), actor=request.user
            )
        except akkoord.ResultChanged as changed:
            raise akkoord.AgreementRefused(_changed_words(table, changed.session)) from changed
        return gettext("De uitslag van tafel %(table)s is geaccepteerd.") % {"table": table}

    return series_write(request, tournament, number, write)


def _shown_version(request: HttpRequest) -> int | None:
    """The game's version the page showed (its form sends it); none: the result as it is."""
    text = request.POST.get("version", "").strip()
    if not text:
        return None
    return int(text) if text.isdigit() and len(text) < 10 else -1  # -1: no version of a game


def _changed_words(table: int, session: Session) -> str:
    """What the organiser did not see: the table's totals now, by name."""
    totals = ", ".join(
        f"{name} {total}"
        for name, total in session.results.filter(player__isnull=False)
        .order_by("place", "player__name")
        .values_list("player__name", "total")
    )
    return gettext(
        "De uitslag van tafel %(table)s is intussen veranderd (nu: %(totals)s). Er is niets"
        " geaccepteerd: kijk hem na en accepteer hem dan opnieuw."
    ) % {"table": table, "totals": totals}
