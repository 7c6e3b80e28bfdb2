"""A club evening's writes: opening it, its check-in QR (closed, rotated), who checks in on a
phone or with the organiser, a new guest confirmed, and for an evening without a toernooi the
draw of a round of tables (``scoring.toernooi.draw``), each table an ordinary game. The
organiser's mistakes are put right: a player signed out again, the last round's draw thrown
away while none of its tables has played, and an evening started on the wrong day.

The QR's token is checked inside the evening's row lock, so a phone racing a rotation is
refused, never let in on the old code. One phone (its cookie) checks in at most
``PHONE_LIMIT`` people an evening: a friend without a phone is helped; the organiser sees which
phone checked in whom. A stranger with the QR and a fresh cookie for every post cannot fill the
evening either: new guests wait for the organiser outside the evening's cap, and an address
adding them faster than people type is refused and shown as a flood (``flood.py``).
"""

from __future__ import annotations

import datetime
import hashlib
import random
import secrets
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import labels, names
from scoring.clubs import services as club_services
from scoring.clubs.selectors import players_like
from scoring.days import evening_day
from scoring.evening import flood
from scoring.http import id_from
from scoring.lei import services as lei_services
from scoring.models import (
    CheckinAllowance,
    Club,
    Evening,
    EveningPlayer,
    EveningTable,
    Player,
    Round,
    Seat,
    Session,
    Tournament,
    new_checkin_token,
)
from scoring.ratings.services import ratings_refresh
from scoring.toernooi import checkin, draw
from scoring.writes import ServiceError

PHONE_LIMIT = 3
MAX_PLAYERS = 200  # a bound on one draw's work and one evening's page


class CheckinError(ServiceError):
    pass


class NameLooksLike(CheckinError):
    """A new guest's name is close to a player's of the club ("Kees Baker", "Kees Bakker"):
    asked about before a second player is made for one person (``names.alike``)."""

    def __init__(self, typed: str, players: list[Player]) -> None:
        self.typed, self.players = typed, players
        super().__init__(_("Bedoel je %(name)s?") % {"name": players[0].public_name()})


class CheckinClosed(CheckinError):
    def __init__(self) -> None:
        super().__init__(
            _(
                "Deze aanmeld-QR werkt niet meer: hij is gesloten of vervangen."
                " Vraag de organisator."
            )
        )


def evening_create(*, club: Club, date: datetime.date | None = None) -> Evening:
    """The club's evening of ``date``, its check-in open at once. One a day: a second tap, or a
    second organiser, gets the same evening and QR, never a second one that splits who checks
    in. A new evening closes the QR of the club's earlier ones, so last week's poster, still
    hanging, checks nobody in on last week's evening."""
    day = date or evening_day()
    with transaction.atomic():
        # The club's row locked: two organisers starting the same evening make one.
        Club.objects.select_for_update().filter(pk=club.pk).first()
        evenings = Evening.objects.filter(club=club, tournament__isnull=True)
        found = evenings.filter(date=day).order_by("pk").first()
        if found is not None:
            return found
        evenings.filter(date__lt=day, checkin_token__isnull=False).update(checkin_token=None)
        return Evening.objects.create(
            club=club,
            date=day,
            season=lei_services.running_season(club, day),
            checkin_token=new_checkin_token(),
        )


def evening_redate(*, evening: Evening, date: datetime.date) -> int:
    """The date of an evening started on the wrong day put right. Its games move with it, into
    the season of that day, and the club's ratings follow (games are rated in the order they
    were played). One evening a day stays: a day the club has an evening on is refused, as is
    an evening with a game the club locked. The number of games moved."""
    with transaction.atomic():
        # The club's row first, as ``evening_create`` takes it: one evening a day.
        Club.objects.select_for_update().filter(pk=evening.club_id).first()
        locked = _lock(evening)
        if locked.tournament is not None:
            raise CheckinError(_("Een toernooi heeft de datum van het toernooi."))
        taken = Evening.objects.filter(club=locked.club, tournament__isnull=True, date=date)
        if taken.exclude(pk=locked.pk).exists():
            raise CheckinError(
                _("Op %(date)s heeft de club al een clubavond.") % {"date": date_format(date)}
            )
        games = Session.objects.filter(evening_table__evening=locked)
        # A game the club locked is closed: its day and season stay as they were locked.
        if games.filter(status=Session.Status.LOCKED).exists():
            raise CheckinError(_("Een lei van deze avond is op slot: de datum blijft staan."))
        locked.date = date
        locked.season = lei_services.running_season(locked.club, date)
        locked.save(update_fields=["date", "season"])
        # ``updated_at``: the kept standings read it (scoring/league/standings_cache.py).
        moved = games.update(played_on=date, season=locked.season, updated_at=timezone.now())
        if moved:
            ratings_refresh(club_id=locked.club_id)
    evening.date, evening.season = locked.date, locked.season
    return moved


def evening_of_tournament(*, tournament: Tournament) -> Evening:
    """The QR check-in of a toernooi: made when its organiser first asks for it."""
    evening, _made = Evening.objects.get_or_create(
        tournament=tournament,
        defaults={
            "club": tournament.club,
            "date": tournament.date,
            "season": tournament.season,
            "table_size": tournament.table_size,
            "checkin_token": new_checkin_token(),
        },
    )
    return evening


def _lock(evening: Evening) -> Evening:
    # The evening's row alone: PostgreSQL locks no row of an outer join's nullable side (an
    # evening without a tournament), and the club and the tournament need no lock here.
    return (
        Evening.objects.select_for_update(of=("self",))
        .select_related("club", "tournament")
        .get(pk=evening.pk)
    )


class QrChanged(CheckinError):
    """The organiser's page showed another QR than there is now (another organiser closed,
    opened or replaced it): acting on it would undo what they did without a word."""

    def __init__(self, evening: Evening, shown: str) -> None:
        if evening.checkin_token is None:
            text = _(
                "Intussen is de aanmeld-QR gesloten (door een andere organisator?). Er is niets"
                " veranderd: open hem opnieuw als dat moet."
            )
        elif not shown:
            text = _(
                "Intussen is de aanmeld-QR al geopend, met een nieuwe code. Er is niets"
                " veranderd: dit scherm toont nu die code."
            )
        else:
            text = _(
                "Intussen is de aanmeld-QR al vervangen door een nieuwe code (door een andere"
                " organisator?). Er is niets veranderd: dit scherm toont nu die code."
            )
        super().__init__(text)


def qr_seen(evening: Evening) -> str:
    """The QR as a page shows it, for its forms: "" while closed, else a short fingerprint of
    the code (the form need not carry the secret itself)."""
    token = evening.checkin_token
    return "" if not token else hashlib.sha256(token.encode()).hexdigest()[:12]


def _as_shown(locked: Evening, shown: str | None) -> None:
    if shown is not None and shown != qr_seen(locked):
        raise QrChanged(locked, shown)


def checkin_close(*, evening: Evening, shown: str | None = None) -> Evening:
    """Close the QR; ``shown``: the QR as the organiser's page showed it (``qr_seen``)."""
    with transaction.atomic():
        locked = _lock(evening)
        _as_shown(locked, shown)
        locked.checkin_token = None
        locked.save(update_fields=["checkin_token"])
    return locked


def checkin_rotate(*, evening: Evening, shown: str | None = None) -> Evening:
    """A new QR (the old one answers that it no longer works); also opens a closed one.
    ``shown``: as for ``checkin_close``, so that two organisers do not replace each other's."""
    with transaction.atomic():
        locked = _lock(evening)
        _as_shown(locked, shown)
        locked.checkin_token = new_checkin_token()
        locked.save(update_fields=["checkin_token"])
    return locked


def _open(evening: Evening, token: str) -> Evening:
    locked = _lock(evening)
    if not locked.checkin_token or not secrets.compare_digest(locked.checkin_token, token):
        raise CheckinClosed()
    return locked


def _phone_room(evening: Evening, phone: str) -> None:
    if EveningPlayer.objects.filter(evening=evening, phone=phone).count() >= PHONE_LIMIT:
        raise CheckinError(
            _(
                "Met deze telefoon zijn al %(limit)s mensen aangemeld. Wie nog mist, meldt zich"
                " bij de organisator."
            )
            % {"limit": PHONE_LIMIT}
        )


def _room(evening: Evening) -> None:
    # Guests waiting for the organiser take no place (scoring/evening/flood.py): a flood of
    # them never fills the evening for the organiser or the club's members.
    if evening.players.filter(pending=False).count() >= MAX_PLAYERS:
        raise CheckinError(_("Deze avond is vol."))


def _enter(
    evening: Evening, player: Player, *, phone: str, pending: bool, source: str = ""
) -> EveningPlayer:
    if not pending:
        _room(evening)
    if evening.tournament is not None and not pending:
        checkin.tournament_check_in(tournament=evening.tournament, players=[player])
    return EveningPlayer.objects.create(
        evening=evening, player=player, phone=phone, pending=pending, source=source
    )


def checkin_by_phone(*, evening: Evening, token: str, player_id: Any, phone: str) -> EveningPlayer:
    """A player found by name checks in on a phone. Checking in twice changes nothing."""
    with transaction.atomic():
        locked = _open(evening, token)
        pk = id_from(player_id) if isinstance(player_id, str) else None
        player = Player.objects.filter(club=locked.club, pk=pk).first() if pk else None
        if player is None or not player.confirmed:
            raise CheckinError(_("Die naam staat niet op de lijst van de club."))
        done = EveningPlayer.objects.filter(evening=locked, player=player).first()
        if done is not None:
            return done
        _phone_room(locked, phone)
        return _enter(locked, player, phone=phone, pending=False)


def checkin_guest(
    *,
    evening: Evening,
    token: str,
    name: Any,
    phone: str,
    source: str = "",
    sure: bool = False,
) -> EveningPlayer:
    """Someone new adds themselves: a guest of the club, shown by initials, who plays once
    the organiser confirms them. A name close to a confirmed player's is asked about first
    (``NameLooksLike``) unless they are ``sure`` they are someone else. ``source``: the address
    it came from, keyed (``flood.address_key``), counted against the flood limit; a refusal of
    that limit is kept (the organiser's screen shows it), so it is raised after the
    transaction."""
    with transaction.atomic():
        locked = _open(evening, token)
        typed = names.tidy(name) if isinstance(name, str) else ""
        if not typed:
            raise CheckinError(_("Vul je naam in."))
        if len(typed) > Player._meta.get_field("name").max_length:
            raise CheckinError(_("Die naam is te lang."))
        if checkin.club_player_named(locked.club_id, typed) is not None:
            raise CheckinError(
                _("Die naam kent de club al: zoek hem hierboven, of vraag de organisator.")
            )
        if not sure and (like := players_like(locked.club_id, typed, confirmed_only=True)):
            raise NameLooksLike(typed, like)
        _phone_room(locked, phone)
        if locked.players.filter(pending=True).count() >= settings.CHECKIN_PENDING_LIMIT:
            raise flood.TooManyWaiting()
        wait = flood.new_guest_wait(locked, source) if source else 0
        if not wait:
            player = Player.objects.create(
                club=locked.club, name=typed, is_guest=True, confirmed=False, public_initials=True
            )
            return _enter(locked, player, phone=phone, pending=True, source=source)
    raise flood.GuestFlood(wait)


def checkin_by_organiser(*, evening: Evening, name: Any, sure: bool = False) -> EveningPlayer:
    """The organiser checks in someone without a phone: a known name is that player, a new one
    a guest of the club; a new name close to a player's is asked about first
    (``NameLooksLike``) unless the organiser is ``sure`` it is someone else."""
    with transaction.atomic():
        locked = _lock(evening)
        typed = names.tidy(name) if isinstance(name, str) else ""
        if (
            not sure
            and typed
            and checkin.club_player_named(locked.club_id, typed) is None
            and (like := players_like(locked.club_id, typed))
        ):
            raise NameLooksLike(typed, like)
        try:
            player = club_services.club_players(locked.club, [name])[name]
        except club_services.PlayerNameClash as clash:
            raise CheckinError(_("Vul een naam in van hoogstens 40 tekens.")) from clash
        done = EveningPlayer.objects.filter(evening=locked, player=player).first()
        if done is not None:
            return done
        return _enter(locked, player, phone="", pending=False)


def guest_confirm(*, evening: Evening, player_id: int, actor: Any = None) -> EveningPlayer:
    with transaction.atomic():
        locked = _lock(evening)
        entry = _entry(locked, player_id, pending=True)
        _room(locked)
        club_services.guests_confirm(players=Player.objects.filter(pk=entry.player_id), actor=actor)
        if locked.tournament is not None:
            checkin.tournament_check_in(tournament=locked.tournament, players=[entry.player])
        entry.pending = False
        entry.save(update_fields=["pending"])
        return entry


def guest_refuse(*, evening: Evening, player_id: int) -> None:
    """Not somebody here (a joke, a name typed twice): the check-in goes, and the guest with
    it unless they played somewhere."""
    with transaction.atomic():
        locked = _lock(evening)
        entry = _entry(locked, player_id, pending=True)
        entry.delete()
        _drop_guest(entry.player)


def flood_clear(*, evening: Evening, source: str) -> int:
    """Refuse, in one go, every guest still waiting who was added from the address ``source``
    (``flood.address_key``), as ``guest_refuse`` refuses one; its count of refusals starts
    again, while its allowance stays spent (a flood gets no fresh burst). The number refused."""
    with transaction.atomic():
        locked = _lock(evening)
        entries = list(
            EveningPlayer.objects.select_related("player").filter(
                evening=locked, pending=True, source=source
            )
        )
        EveningPlayer.objects.filter(pk__in=[e.pk for e in entries]).delete()
        for entry in entries:
            _drop_guest(entry.player)
        CheckinAllowance.objects.filter(evening=locked, source=source).update(
            refused=0, refused_at=None
        )
        return len(entries)


def checkin_sign_out(
    *, evening: Evening, player_id: int, entry_id: int | None = None
) -> tuple[Player, bool]:
    """A player checked in by mistake, or gone home: off the evening's list, so the next draw
    does not seat them. A table they sit at already keeps them (that game is theirs). A guest
    still waiting is refused instead (``guest_refuse``); a toernooi signs out on its own page.

    A guest the organiser typed in this evening ("Jna Jansen" for "Jan Jansen") who has not
    played goes from the club with it, as a refused guest does: kept, the mistake would be
    offered again at every check-in of the club. Also True in the answer when they went. A
    guest who checked in on their own phone stays: their name is as they typed it, and they
    asked to be shown by initials, which a new walk-in of that name would not be.

    ``entry_id``: the check-in the organiser's page showed; one made since (signed out and in
    again meanwhile, by another organiser or the player's phone) is not signed out unseen."""
    with transaction.atomic():
        locked = _lock(evening)
        if locked.tournament is not None:
            raise CheckinError(
                _("Bij een toernooi meld je iemand af op de pagina van het toernooi.")
            )
        entry = _entry(locked, player_id, pending=False)
        if entry_id is not None and entry.pk != entry_id:
            raise CheckinError(
                _(
                    "%(name)s heeft zich intussen opnieuw aangemeld. Er is niets veranderd:"
                    " meld %(name)s opnieuw af als dat moet."
                )
                % {"name": entry.player.name}
            )
        entry.delete()
        player = entry.player
        typed_tonight = (
            player.is_guest and not entry.phone and player.created_at >= locked.created_at
        )
        return player, typed_tonight and _drop_guest(player)


def _drop_guest(player: Player) -> bool:
    """The guest out of the club, unless they played or checked in anywhere (the rows that
    protect a player); True when they went."""
    try:
        with transaction.atomic():
            player.delete()
    except ProtectedError:
        return False
    return True


def _entry(evening: Evening, player_id: int, *, pending: bool) -> EveningPlayer:
    """The player's entry on the evening: a guest waiting to be confirmed (``pending``), or
    one checked in; a refusal that says so when there is none."""
    entry = (
        EveningPlayer.objects.select_related("player")
        .filter(evening=evening, player_id=player_id, pending=pending)
        .first()
    )
    if entry is None:
        if pending:
            raise CheckinError(_("Die gast wacht niet (meer) op bevestiging."))
        raise CheckinError(_("Die speler is niet (meer) aangemeld."))
    return entry


# --- the tables of a club evening ---------------------------------------------------------------


def next_round(evening: Evening) -> int:
    last = evening.tables.order_by("-round").values_list("round", flat=True).first()
    return (last or 0) + 1


def evening_draw(
    *, evening: Evening, expected_round: int, seed: int | None = None, actor: Any = None
) -> list[EveningTable]:
    """Draw round ``expected_round`` of the evening's tables from who is checked in, meeting
    again as little as the rounds before allow (``scoring.toernooi.draw``), and start a game
    at each table. ``expected_round`` is the round the organiser saw as next, so a second tap
    (or a second organiser) does not draw twice."""
    with transaction.atomic():
        locked = _lock(evening)
        if locked.tournament is not None:
            raise CheckinError(
                _("De tafels van een toernooi komen uit de loting van het toernooi.")
            )
        number = next_round(locked)
        if expected_round != number:
            # A page from before another organiser's draw, or their throw-away of a round (the
            # answer reloads it, with the round whose turn it is), or no round at all.
            if expected_round < 1:
                raise CheckinError(_("Er is niets geloot: ververs de pagina."))
            if expected_round < number:
                said = _("Ronde %(round)s is al geloot: er is niets opnieuw geloot.")
            else:
                said = _("Ronde %(round)s is nog niet aan de beurt: er is niets geloot.")
            raise CheckinError(said % {"round": expected_round})
        players = [
            e.player
            for e in locked.players.select_related("player")
            .filter(pending=False)
            .order_by("player_id")
        ]
        if len(players) < draw.MIN_TABLE:
            raise CheckinError(
                ngettext(
                    "Er is %(count)s speler aangemeld: een tafel heeft er minstens %(min)s.",
                    "Er zijn %(count)s spelers aangemeld: een tafel heeft er minstens %(min)s.",
                    len(players),
                )
                % {"count": len(players), "min": draw.MIN_TABLE}
            )
        by_id = {p.pk: p for p in players}
        history = _history(locked)
        result = draw.draw_tables(
            list(by_id),
            met=draw.meetings(history),
            played=history,
            preferred=locked.table_size,
            rng=random.Random(secrets.randbelow(2**31) if seed is None else seed),
        )
        made = []
        for n, (members, dealer) in enumerate(zip(result.tables, result.dealers, strict=True), 1):
            session = lei_services.session_start(
                club=locked.club,
                players=[by_id[p] for p in members],
                dealer=by_id[dealer],
                table_label=labels.evening_table(round_number=number, table=n),
                season=locked.season,
                played_on=locked.date,
                actor=actor,
            )
            made.append(
                EveningTable.objects.create(evening=locked, round=number, number=n, session=session)
            )
        return made


def evening_draw_discard(
    *, evening: Evening, expected_round: int, expected_draw: int, actor: Any = None
) -> int:
    """Throw away the draw of the last round, ``expected_round`` as drawn the time the organiser
    saw it (``expected_draw``: ``Board.last_draw``), so a second tap or a second organiser
    throws nothing away twice, nor a draw made again since, while none of
    its tables has played: every game still at version 0, the version every write bumps.
    Its tables and their games go (``session_discard`` keeps an audit entry of each game), and
    the round can be drawn again. Returns the number of tables thrown away."""
    with transaction.atomic():
        locked = _lock(evening)
        last = next_round(locked) - 1
        if expected_round != last or last < 1:
            raise CheckinError(
                _("Ronde %(round)s is niet (meer) de laatste ronde: ververs de pagina.")
                % {"round": expected_round}
            )
        tables = list(locked.tables.filter(round=last).order_by("number"))
        if min(t.pk for t in tables) != expected_draw:
            raise CheckinError(
                _("Ronde %(round)s is intussen opnieuw geloot: ververs de pagina.")
                % {"round": last}
            )
        # The games' rows locked (as a tap locks them) before they are read: a tap that
        # comes in now waits, and then finds its game gone.
        sessions = {
            s.pk: s
            for s in Session.objects.select_for_update()
            .filter(pk__in=[t.session_id for t in tables])
            .order_by("pk")
        }
        with_rounds = set(
            Round.objects.filter(session__in=list(sessions)).values_list("session_id", flat=True)
        )
        played = [
            t.number
            for t in tables
            if sessions[t.session_id].version != 0 or t.session_id in with_rounds
        ]
        if played:
            raise CheckinError(
                ngettext(
                    "Tafel %(tables)s heeft al gespeeld: ronde %(round)s blijft staan.",
                    "Tafels %(tables)s hebben al gespeeld: ronde %(round)s blijft staan.",
                    len(played),
                )
                % {"tables": ", ".join(str(n) for n in played), "round": last}
            )
        # The tables first: each protects its game from being deleted.
        EveningTable.objects.filter(pk__in=[t.pk for t in tables]).delete()
        for table in tables:
            lei_services.session_discard(session=sessions[table.session_id], version=0, actor=actor)
        return len(tables)


def _history(evening: Evening) -> list[list[list[int]]]:
    """Who sat together in the evening's rounds so far: [round][table][player id]."""
    tables: dict[tuple[int, int], list[int]] = defaultdict(list)
    seats = Seat.objects.filter(session__evening_table__evening=evening).values_list(
        "session__evening_table__round", "session_id", "player_id"
    )
    for number, session, player in seats:
        tables[(number, session)].append(player)
    rounds: dict[int, list[list[int]]] = defaultdict(list)
    for (number, _session), players in sorted(tables.items()):
        rounds[number].append(players)
    return [rounds[n] for n in sorted(rounds)]
