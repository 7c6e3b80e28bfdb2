"""What a club evening's pages read: the phone's name search, and the organiser's board (who
checked in, by which phone, the guests waiting, the rounds of tables)."""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.translation import gettext as _

from scoring import names
from scoring.models import (
    CheckinAllowance,
    Evening,
    EveningPlayer,
    EveningTable,
    Player,
    Seat,
    SessionResult,
)

SEARCH_MIN = 3  # characters before anything is looked up: no list of the club's names
SEARCH_MAX = 5  # more matches than this show none: type more


@dataclass
class Found:
    player_id: int
    name: str  # as a public page shows it: initials for who asked for them
    here: bool


def search(evening: Evening, typed: str) -> tuple[list[Found], str]:
    """The club's players whose name has a word starting with ``typed`` (names compared as
    everywhere), at most ``SEARCH_MAX``, with a line for the phone when there are none to show.
    Two queries."""
    key = names.name_key(typed) if isinstance(typed, str) else ""
    if len(key) < SEARCH_MIN:
        return [], _("Typ minstens %(n)s letters van je naam.") % {"n": SEARCH_MIN}
    found = list(
        Player.objects.filter(club_id=evening.club_id, confirmed=True)
        .filter(Q(name_key__startswith=key) | Q(name_key__contains=f" {key}"))
        .order_by("name_key", "pk")
        .values("pk", "name", "public_initials")[: SEARCH_MAX + 1]
    )
    if len(found) > SEARCH_MAX:
        return [], _("Te veel namen gevonden: typ meer letters.")
    if not found:
        return [], _("Geen naam gevonden. Nieuw hier? Meld je hieronder aan als gast.")
    here = set(
        EveningPlayer.objects.filter(
            evening=evening, player_id__in=[f["pk"] for f in found]
        ).values_list("player_id", flat=True)
    )
    return [
        Found(
            player_id=f["pk"],
            name=names.initials(f["name"]) if f["public_initials"] else f["name"],
            here=f["pk"] in here,
        )
        for f in found
    ], ""


def by_phone(evening: Evening, phone: str) -> list[EveningPlayer]:
    """Who this phone checked in this evening."""
    if not phone:
        return []
    return list(EveningPlayer.objects.filter(evening=evening, phone=phone).select_related("player"))


@dataclass
class TableRow:
    table: EveningTable
    players: list[tuple[str, int | None]]  # name, place once the game has them
    over: bool


@dataclass
class Flood:
    """An address refused new guests for adding them too fast (scoring/evening/flood.py)."""

    source: str
    refused: int
    since: datetime.datetime
    waiting: int  # its guests still waiting for the organiser


@dataclass
class Board:
    entries: list[EveningPlayer]
    waiting: list[EveningPlayer]  # new guests for the organiser to confirm
    phone_label: dict[str, str]  # a phone that checked in more than one: "telefoon A"
    phone_count: dict[str, int]
    rounds: list[tuple[int, list[TableRow]]] = field(default_factory=list)
    floods: list[Flood] = field(default_factory=list)

    @property
    def present(self) -> int:
        return len(self.entries)

    @property
    def last_draw(self) -> int | None:
        """The last round's draw, named by its first table's id: a round drawn again has other
        tables, so a page that still shows the old draw throws nothing away."""
        return min(row.table.pk for row in self.rounds[-1][1]) if self.rounds else None


def board(evening: Evening) -> Board:
    """The organiser's check-in screen, polled: three queries (four with tables, one more
    with new guests from the QR waiting)."""
    rows = list(evening.players.select_related("player").order_by("at", "pk"))
    counts = Counter(e.phone for e in rows if e.phone)
    labels: dict[str, str] = {}
    for e in rows:
        if counts.get(e.phone, 0) > 1 and e.phone not in labels:
            labels[e.phone] = _("telefoon %(letter)s") % {"letter": _letters(len(labels))}
    for e in rows:
        e.phone_label = labels.get(e.phone, "")  # for the template: no lookups by key there
        e.phone_count = counts.get(e.phone, 0)
    result = Board(
        entries=[e for e in rows if not e.pending],
        waiting=[e for e in rows if e.pending],
        phone_label=labels,
        phone_count=dict(counts),
    )
    # Only an address with guests still waiting is a flood to clear: no query without them.
    waiting = Counter(e.source for e in result.waiting if e.source)
    result.floods = (
        [
            Flood(source=a.source, refused=a.refused, since=a.refused_at, waiting=waiting[a.source])
            for a in CheckinAllowance.objects.filter(
                evening=evening, refused__gt=0, source__in=list(waiting)
            ).order_by("refused_at", "pk")
        ]
        if waiting
        else []
    )
    tables = list(evening.tables.select_related("session").order_by("round", "number"))
    if tables:
        result.rounds = _rounds(tables)
    return result


def _letters(n: int) -> str:
    """A, B, ... Z, AA, AB, ...: a label of its own for each phone (200 players, three a phone,
    are more than 26 phones; "% 26" gave two phones the same letter)."""
    label = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


def _rounds(tables: list[EveningTable]) -> list[tuple[int, list[TableRow]]]:
    sessions = [t.session_id for t in tables]
    seated: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for s in Seat.objects.filter(session__in=sessions).select_related("player"):
        seated[s.session_id].append((s.position, s.player))
    places = {
        (r.session_id, r.player_id): r.place
        for r in SessionResult.objects.filter(session__in=sessions, player__isnull=False)
    }
    by_round: dict[int, list[TableRow]] = defaultdict(list)
    for t in tables:
        over = t.session.status != "running"
        players = [
            (p.name, places.get((t.session_id, p.pk)) if over else None)
            for _pos, p in sorted(seated[t.session_id], key=lambda x: x[0])
        ]
        by_round[t.round].append(TableRow(table=t, players=players, over=over))
    return sorted(by_round.items())
