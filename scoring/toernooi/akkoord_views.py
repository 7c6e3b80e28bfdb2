"""The organiser's side of a table's akkoord (scoring/lei/akkoord.py): a toernooi table's result
counts for the series once the table agreed, or once the organiser accepts it here (the series
page shows "wacht op akkoord" and "niet akkoord" with an "Accepteren" button)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from scoring import access
from scoring.lei import akkoord
from scoring.models import Series, Tournament
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
        akkoord.session_accept(session=found.session, actor=request.user)
        return gettext("De uitslag van tafel %(table)s is geaccepteerd.") % {"table": table}

    return series_write(request, tournament, number, write)
