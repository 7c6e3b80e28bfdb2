"""The toernooi's players: check-in of members and walk-ins, and withdrawal.

Who plays which series follows from the entries (``TournamentEntry.from_series`` and
``withdrawn_after``); the draw (``scoring.toernooi.services``) seats those present. The rules
for a check-in or withdrawal while a series is drawn or running are in that module's docstring.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.clubs import services as club_services
from scoring.models import Player, Tournament, TournamentEntry
from scoring.names import name_key, tidy
from scoring.toernooi.services import (
    MAX_PLAYERS,
    TournamentError,
    joining_series,
    lock_tournament,
    must_be_open,
)


def tournament_check_in(
    *,
    tournament: Tournament,
    players: Iterable[Player] = (),
    guests: Iterable[str] = (),
    actor: Any = None,
) -> list[TournamentEntry]:
    """Check in club members (``players``) and walk-ins (``guests``, by name: a known name is
    that player, a new one becomes a guest of the club). Before the first series starts they
    play from series 1; later, from the next series (see the module docstring). Checking in a
    player who is already in changes nothing; one who withdrew comes back only if they have
    not missed a series."""
    players = list(players)
    names = _guest_names(guests)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        for player in players:
            if player.club_id != locked.club_id:
                raise TournamentError(
                    _("%(player)s is geen speler van deze club.") % {"player": player.name}
                )
        if names:
            try:
                found = club_services.club_players(locked.club, names)
            except club_services.PlayerNameClash as clash:
                raise TournamentError(str(clash)) from clash
            players += [found[n] for n in names]
        first = joining_series(locked)
        if first > locked.series_count:
            raise TournamentError(
                _("Alle series zijn begonnen: er kan niemand meer bij dit toernooi.")
            )
        existing = {e.player_id: e for e in locked.entries.select_for_update()}
        if len({p.pk for p in players} | set(existing)) > MAX_PLAYERS:
            raise TournamentError(
                _("Een toernooi heeft hoogstens %(max)s spelers.") % {"max": MAX_PLAYERS}
            )
        entries: list[TournamentEntry] = []
        for player in dict.fromkeys(players):
            entry = existing.get(player.pk)
            if entry is None:
                entry = TournamentEntry.objects.create(
                    tournament=locked, player=player, from_series=first
                )
            elif entry.withdrawn_after is not None:
                if entry.withdrawn_after < first - 1:
                    raise TournamentError(
                        _(
                            "%(player)s heeft zich na serie %(series)s teruggetrokken en kan"
                            " niet meer terugkomen."
                        )
                        % {"player": player.name, "series": entry.withdrawn_after}
                    )
                entry.withdrawn_after = None
                entry.save(update_fields=["withdrawn_after"])
            entries.append(entry)
        return entries


def _guest_names(guests: Iterable[str]) -> list[str]:
    """The walk-ins' names, checked as the club's player names are (scoring/names.py)."""
    names: list[str] = []
    longest = Player._meta.get_field("name").max_length
    for given in guests:
        name = tidy(given) if isinstance(given, str) else ""
        if not name:
            continue
        if len(name) > longest or "\x00" in name:
            raise TournamentError(
                _("%(name)s… is geen bruikbare naam (hoogstens %(max)s tekens).")
                % {"name": name[:20], "max": longest}
            )
        if name_key(name) in {name_key(n) for n in names}:
            raise TournamentError(_("%(name)s staat twee keer in de lijst.") % {"name": name})
        names.append(name)
    return names


def tournament_withdraw(
    *, tournament: Tournament, player: Player, actor: Any = None
) -> TournamentEntry:
    """``player`` leaves: a game they are playing goes on (it counts, as do the series they
    played), and they are out of the next draw."""
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        entry = locked.entries.select_for_update().filter(player=player).first()
        if entry is None:
            raise TournamentError(
                _("%(player)s is niet aangemeld voor dit toernooi.") % {"player": player.name}
            )
        if entry.withdrawn_after is not None:
            raise TournamentError(
                _("%(player)s heeft zich al teruggetrokken.") % {"player": player.name}
            )
        entry.withdrawn_after = max(0, joining_series(locked) - 1)
        entry.save(update_fields=["withdrawn_after"])
        return entry
