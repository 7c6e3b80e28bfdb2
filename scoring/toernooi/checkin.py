"""The toernooi's players: check-in of members and walk-ins, a pasted list, and withdrawal.

Who plays which series follows from the entries (``TournamentEntry.from_series`` and
``withdrawn_after``); the draw (``scoring.toernooi.services``) seats those present. The rules
for a check-in or withdrawal while a series is drawn or running are in that module's docstring.

Choices of our own:

- **A walk-in's name is never silently a player of the club.** Names are compared as everywhere
  (``scoring.names.name_key``: "anne" and " Anne " are Anne); the organiser's page asks "Is dit
  Anne?" first (``club_player_named``), and a new guest (``new_guests``) whose name the club
  has is refused rather than taken for that player.
- **A player in another tournament of the club the same evening** is checked in with a warning
  (``also_tonight``), not refused: two halls of one club may share a player on purpose. The
  check-in is then in the audit log, naming the other tournament.
- **A pasted list** (``paste_plan``, ``tournament_paste``) is shown before anything is saved:
  the new guests, the players of the club it names, who plays already, and each line it cannot
  take with the reason. It is saved whole or not at all, and only as it was shown.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.clubs import services as club_services
from scoring.models import AuditEntry, Player, Tournament, TournamentEntry
from scoring.names import alike, name_key, tidy
from scoring.toernooi.audit import tournament_audit
from scoring.toernooi.services import (
    MAX_PLAYERS,
    TournamentError,
    joining_series,
    lock_tournament,
    must_be_open,
)

MAX_PASTE_LINES = 200  # a list of a night's players, with room; a bound on one request


class JoiningChanged(TournamentError):
    """A check-in or withdrawal from a page that showed another series to join than there is
    now: a series started (or was drawn) meanwhile, so it would mean something else."""

    def __init__(self, shown: int, now: int) -> None:
        self.shown, self.now = shown, now
        super().__init__(
            _(
                "Intussen is er een serie begonnen of geloot: wie je nu aan- of afmeldt, telt"
                " vanaf serie %(now)s, niet vanaf serie %(shown)s zoals de pagina zei. Er is"
                " niets veranderd: kijk het na en tik opnieuw."
            )
            % {"now": now, "shown": shown}
        )


def must_join_as_shown(tournament: Tournament, shown: int | None) -> int:
    """``joining_series`` of the locked ``tournament``, refused (``JoiningChanged``) when the
    organiser's page showed another (``shown``; None: a page that sent none acts on now)."""
    first = joining_series(tournament)
    if shown is not None and shown != first:
        raise JoiningChanged(shown, first)
    return first


class NameTaken(TournamentError):
    """A new guest's name is the name of a player of the club (as names are compared)."""

    def __init__(self, name: str, player: Player) -> None:
        self.player = player
        super().__init__(
            _(
                "De club heeft al een speler %(player)s: geef de nieuwe gast een naam die"
                " anders is (bijvoorbeeld met de achternaam erbij)."
            )
            % {"player": player.name}
        )


def tournament_check_in(
    *,
    tournament: Tournament,
    players: Iterable[Player] = (),
    guests: Iterable[str] = (),
    new_guests: Iterable[str] = (),
    audit: dict[str, Any] | None = None,
    joining: int | None = None,
    actor: Any = None,
) -> list[TournamentEntry]:
    """Check in club members (``players``) and walk-ins: ``guests`` by name (a known name is
    that player, a new one becomes a guest of the club), ``new_guests`` by a name the club
    must not have (``NameTaken``). Before the first series starts they play from series 1;
    later, from the next series (see the module docstring). Checking in a player who is
    already in changes nothing; one who withdrew comes back only if they have not missed a
    series. With ``audit`` (what the log keeps of it), or when a player is in another
    tournament of the club that evening (``also_tonight``), the check-in is in the audit log.
    ``joining``: the series the organiser's page said a check-in joins (``JoiningChanged``)."""
    players = list(players)
    names = _guest_names(guests)
    fresh = _guest_names(new_guests)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        for player in players:
            if player.club_id != locked.club_id:
                raise TournamentError(
                    _("%(player)s is geen speler van deze club.") % {"player": player.name}
                )
        for name in fresh:
            taken = club_player_named(locked.club_id, name)
            if taken is not None:
                raise NameTaken(name, taken)
        names += fresh
        if names:
            try:
                found = club_services.club_players(locked.club, names)
            except club_services.PlayerNameClash as clash:
                raise TournamentError(str(clash)) from clash
            players += [found[n] for n in names]
        first = must_join_as_shown(locked, joining)
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
                if missed_a_series(entry, first):
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
        others = also_tonight(locked, [e.player_id for e in entries])
        if audit is not None or others:
            names_of = {p.pk: p.name for p in players}
            tournament_audit(
                locked,
                actor=actor,
                action=AuditEntry.Action.CHECK_IN,
                after={
                    **(audit or {"players": sorted(names_of.values(), key=str.casefold)}),
                    "also_in": {names_of[pid]: found for pid, found in others.items()},
                },
            )
        return entries


def missed_a_series(entry: TournamentEntry, first: int) -> bool:
    """Whether ``entry`` withdrew and missed a series before ``first`` (``joining_series``):
    such a player does not come back (the check-in and the pasted list ask this alike)."""
    return entry.withdrawn_after is not None and entry.withdrawn_after < first - 1


def club_player_named(club_id: int, name: str) -> Player | None:
    """The club's player whose name is ``name`` as names are compared (``anne``, `` Anne ``:
    Anne), the oldest should two have been stored before names were compared so."""
    return Player.objects.filter(club_id=club_id, name_key=name_key(name)).order_by("pk").first()


def also_tonight(tournament: Tournament, player_ids: Sequence[int]) -> dict[int, list[str]]:
    """Of ``player_ids``, those also playing (not withdrawn) in another tournament of the club
    on the same date: player id → the other tournaments' names (one query)."""
    found: dict[int, list[str]] = defaultdict(list)
    if not player_ids:
        return found
    rows = (
        TournamentEntry.objects.filter(
            player_id__in=set(player_ids),
            withdrawn_after__isnull=True,
            tournament__club_id=tournament.club_id,
            tournament__date=tournament.date,
        )
        .exclude(tournament_id=tournament.pk)
        .order_by("tournament__name", "tournament_id")
        .values_list("player_id", "tournament__name")
    )
    for player_id, name in rows:
        found[player_id].append(name)
    return dict(found)


def also_tonight_text(names: dict[str, list[str]]) -> str:
    """The warning for players also in another tournament tonight, by name; "" for none."""
    return "; ".join(
        _("Let op: %(player)s speelt vanavond ook in %(others)s.")
        % {"player": player, "others": ", ".join(others)}
        for player, others in names.items()
    )


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


# --- a pasted list -------------------------------------------------------------------------


@dataclass(frozen=True)
class PasteLine:
    """One line of a pasted list: the name as it will be stored, the club's player of that
    name (or ``None``: a new guest), and what keeps it out (``problem``; "" when it can go)."""

    number: int
    name: str
    player: Player | None = None
    playing: bool = False  # in this tournament already: nothing changes for them
    problem: str = ""
    also_in: tuple[str, ...] = ()
    like: str = ""  # a new guest's name that the club knows spelled a little differently

    @property
    def kind(self) -> str:
        if self.problem:
            return "problem"
        if self.player is None:
            return "new"
        return "playing" if self.playing else ("guest" if self.player.is_guest else "member")


@dataclass
class PastePlan:
    """What a pasted list will do (``paste_plan``); ``digest`` names it, so that a list is
    saved only as the organiser saw it."""

    lines: list[PasteLine] = field(default_factory=list)
    problem: str = ""  # about the whole list: too long, no names, more players than allowed

    @property
    def problems(self) -> list[PasteLine]:
        return [line for line in self.lines if line.problem]

    @property
    def ok(self) -> bool:
        return not self.problem and not self.problems and bool(self.lines)

    def of_kind(self, kind: str) -> list[PasteLine]:
        return [line for line in self.lines if line.kind == kind]

    @property
    def digest(self) -> str:
        decided = [(line.name, line.player.pk if line.player else None) for line in self.lines]
        return hashlib.sha256(json.dumps(decided).encode()).hexdigest()[:20]


def _unusable(name: str, longest: int) -> str:
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        return _("er staat een stuurteken in (geen gewone letter)")
    if len(name) > longest:
        return _("langer dan %(max)s tekens") % {"max": longest}
    return ""


def paste_plan(tournament: Tournament, text: str) -> PastePlan:
    """What checking in the names of ``text`` (one a line, empty lines skipped) would do,
    changing nothing: each name matched to the club's players as a walk-in's is."""
    if not isinstance(text, str) or len(text) > MAX_PASTE_LINES * 100:
        return PastePlan(
            problem=_("De lijst is te lang: hoogstens %(max)s namen.") % {"max": MAX_PASTE_LINES}
        )
    typed = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not typed:
        return PastePlan(problem=_("De lijst is leeg: zet één naam op elke regel."))
    if len(typed) > MAX_PASTE_LINES:
        return PastePlan(
            problem=_("De lijst heeft %(count)s regels: hoogstens %(max)s namen tegelijk.")
            % {"count": len(typed), "max": MAX_PASTE_LINES}
        )
    longest = Player._meta.get_field("name").max_length
    # A tab is a space in a name (scoring/names.py); any other control character is refused.
    named = [(n, line.replace("\t", " ").strip()) for n, line in typed]
    keys = {name_key(name): None for _n, name in named if not _unusable(name, longest)}
    players: dict[str, Player] = {}
    for player in Player.objects.filter(
        club_id=tournament.club_id, name_key__in=list(keys)
    ).order_by("-pk"):
        players[player.name_key] = player  # the oldest of a key, as club_player_named
    entries = {
        e.player_id: e
        for e in TournamentEntry.objects.filter(
            tournament=tournament, player_id__in=[p.pk for p in players.values()]
        )
    }
    others = also_tonight(tournament, [p.pk for p in players.values()])
    first = joining_series(tournament)
    seen: dict[str, int] = {}
    lines: list[PasteLine] = []
    for number, raw in named:
        name = tidy(raw)
        problem = _unusable(raw, longest) or _unusable(name, longest)
        if problem:
            lines.append(
                PasteLine(
                    number, name[:longest] + ("…" if len(name) > longest else ""), problem=problem
                )
            )
            continue
        key = name_key(name)
        player = players.get(key)
        entry = entries.get(player.pk) if player else None
        if key in seen:
            problem = _("staat al op regel %(line)s") % {"line": seen[key]}
        elif entry is not None and missed_a_series(entry, first):
            problem = _("trok zich terug na serie %(series)s en kan niet terugkomen") % {
                "series": entry.withdrawn_after
            }
        seen.setdefault(key, number)
        lines.append(
            PasteLine(
                number,
                player.name if player else name,
                player=player,
                playing=entry is not None and entry.withdrawn_after is None,
                problem=problem,
                also_in=tuple(others.get(player.pk, ())) if player else (),
            )
        )
    plan = PastePlan(lines=_with_likenesses(tournament, lines))
    if tournament.status != Tournament.Status.OPEN:
        plan.problem = _("Dit toernooi is afgelopen.")
    elif first > tournament.series_count:
        plan.problem = _("Alle series zijn begonnen: er kan niemand meer bij dit toernooi.")
    entered = TournamentEntry.objects.filter(tournament=tournament).count()
    # As the check-in counts: a player with an entry (playing, or withdrawn and coming back)
    # takes no new place.
    joining = sum(
        1
        for line in lines
        if not line.problem and (line.player is None or line.player.pk not in entries)
    )
    if not plan.problem and joining and entered + joining > MAX_PLAYERS:
        plan.problem = _("Een toernooi heeft hoogstens %(max)s spelers.") % {"max": MAX_PLAYERS}
    return plan


def _with_likenesses(tournament: Tournament, lines: list[PasteLine]) -> list[PasteLine]:
    """A new guest whose name the club knows spelled otherwise ("Jan Willem", member
    "Jan-Willem"; "Kees Baker", "K. Bakker" or "Bakker Kees" for "Kees Bakker": ``names.alike``)
    is pointed out: a second player for one person splits their history.
    One query, only when the list has new names."""
    if not any(line.kind == "new" for line in lines):
        return lines
    known = list(
        Player.objects.filter(club_id=tournament.club_id)
        .order_by("is_guest", "name", "pk")
        .values_list("name", flat=True)
    )

    def like(name: str) -> str:
        return next((k for k in known if alike(name, k)), "")

    return [replace(line, like=like(line.name)) if line.kind == "new" else line for line in lines]


class PasteChanged(TournamentError):
    """The list would now do something else than the organiser was shown."""

    def __init__(self, plan: PastePlan) -> None:
        self.plan = plan
        super().__init__(
            _(
                "Intussen is er iets veranderd (een speler aangemeld of toegevoegd): kijk de"
                " lijst opnieuw na. Er is nog niemand aangemeld."
            )
        )


def tournament_paste(
    *, tournament: Tournament, text: str, expected: str, actor: Any = None
) -> PastePlan:
    """Check in every name of a pasted list as ``paste_plan`` showed it (``expected``: its
    ``digest``), all or nothing: the new guests made, the club's players named checked in."""
    with transaction.atomic():
        locked = lock_tournament(tournament)
        must_be_open(locked)
        plan = paste_plan(locked, text)
        if not plan.ok:
            raise TournamentError(
                plan.problem
                or ngettext(
                    "Eén regel van de lijst kan niet: verbeter hem eerst.",
                    "%(count)s regels van de lijst kunnen niet: verbeter ze eerst.",
                    len(plan.problems),
                )
                % {"count": len(plan.problems)}
            )
        if plan.digest != expected:
            raise PasteChanged(plan)
        new = [line.name for line in plan.of_kind("new")]
        known = [line.player for line in plan.lines if line.player is not None]
        tournament_check_in(
            tournament=locked,
            players=known,
            new_guests=new,
            audit={
                "via": "paste",
                "count": len(plan.lines),
                "new_guests": new,
                "players": [p.name for p in known],
            },
            actor=actor,
        )
        return plan
