"""The director's corrections: a check-in taken back, and a closed series reopened.

A paper lei is corrected, replaced or taken back in ``scoring.toernooi.results``; a table's
game is corrected on its lei (the round editor, by the organiser as the club's admin), before
and after its series is closed. Every correction is in the audit log (``audit.py``) and on
the tournament's page.

Decisions of our own, where the rules say nothing:

- **Tapping a player "out" who has not played yet takes their check-in back**, as if it was
  never made: no "vertrokken" line, no row in the standings, on the TV or in the prize list.
  One who played a series withdraws (``checkin.tournament_withdraw``) and keeps it.
- **A closed series is closed for its tables' scorer links** (``Session.result_closed``): no
  tap, round correction or new game; the organiser still corrects a result, as long as the
  game stays over. A game that must play on needs the series reopened first.
- **Only the last series is reopened** (a later series drawn or played stands on its
  standings); a final table whose game has not started is taken back with it, and is seated
  again from the standings when the organiser starts it anew. Reopening makes the series and
  the standings provisional again, and the tournament open when it had ended.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.lei import services
from scoring.models import (
    AuditEntry,
    Player,
    Round,
    Series,
    Session,
    TableSeat,
    Tournament,
)
from scoring.toernooi.audit import tournament_audit
from scoring.toernooi.checkin import must_join_as_shown, tournament_withdraw
from scoring.toernooi.services import (
    TournamentError,
    lock_tournament,
    must_be_open,
)

UNDONE = "undone"
WITHDRAWN = "withdrawn"


def tournament_check_out(
    *, tournament: Tournament, player: Player, joining: int | None = None, actor: Any = None
) -> str:
    """``player`` is not here (any more): a check-in that has not played a series is taken
    back whole (``UNDONE``); one who played withdraws (``WITHDRAWN``). A seat in a series that
    is drawn but not started does not count as played: that series is drawn again.
    ``joining``: as for ``checkin.tournament_check_in``."""
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        must_join_as_shown(locked, joining)
        entry = locked.entries.select_for_update().filter(player=player).first()
        if entry is None or entry.withdrawn_after is not None:
            return _withdraw(locked, player, actor)  # says why it cannot
        played = (
            TableSeat.objects.filter(series__tournament=locked, player=player)
            .exclude(series__state=Series.State.DRAWN)
            .exists()
        )
        if played:
            return _withdraw(locked, player, actor)
        tournament_audit(
            locked,
            actor=actor,
            action=AuditEntry.Action.CHECK_IN_UNDO,
            before={"player": player.name, "id": player.pk, "from_series": entry.from_series},
        )
        entry.delete()
        return UNDONE


def _withdraw(tournament: Tournament, player: Player, actor: Any) -> str:
    tournament_withdraw(tournament=tournament, player=player, actor=actor)
    return WITHDRAWN


def series_reopen(*, series: Series, actor: Any = None) -> Series:
    """Reopen the closed ``series``: provisional again, its tables' games open to their scorer
    links (a game ended by hand stays ended until a club admin reopens it on its lei). A final
    table not yet started is taken back; a later series, or a final table that has started,
    refuses it."""
    with transaction.atomic():
        tournament = lock_tournament(series.tournament)
        series = Series.objects.select_for_update().get(pk=series.pk)
        if series.state != Series.State.FINISHED:
            raise TournamentError(
                _("Serie %(number)s is niet afgesloten.") % {"number": series.number}
            )
        taken_back = False
        for later in tournament.series.filter(number__gt=series.number).order_by("number"):
            if not later.final:
                raise TournamentError(
                    _(
                        "Serie %(number)s kan niet meer heropend worden: serie %(later)s is al"
                        " geloot. Verbeter een uitslag op de lei van de tafel."
                    )
                    % {"number": series.number, "later": later.number}
                )
            if Round.objects.filter(session__tournament_table__series=later).exists():
                raise TournamentError(
                    _(
                        "Serie %(number)s kan niet meer heropend worden: de finaletafel speelt"
                        " al. Verbeter een uitslag op de lei van de tafel."
                    )
                    % {"number": series.number}
                )
            _take_back_final(later, actor=actor)
            taken_back = True
        series.state = Series.State.RUNNING
        series.save(update_fields=["state"])
        Session.objects.filter(tournament_table__series=series).update(result_closed=False)
        if tournament.status == Tournament.Status.FINISHED:
            tournament.status = Tournament.Status.OPEN
            tournament.save(update_fields=["status"])
        tournament_audit(
            tournament,
            actor=actor,
            action=AuditEntry.Action.SERIES_REOPEN,
            after={"series": series.number, "final": series.final, "final_taken_back": taken_back},
        )
        return series


def _take_back_final(final: Series, *, actor: Any) -> None:
    """Remove a final table whose game has no round: its seats, and its game (thrown away as
    an unplayed game is, with its trace in the audit log)."""
    sessions = list(Session.objects.filter(tournament_table__series=final))
    final.delete()  # its table and seats; the game is kept while its table exists
    for session in sessions:
        services.session_discard(session=session, actor=actor)
