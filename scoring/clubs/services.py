"""The writes of a club's people: finding or adding players by name, merging two players into
one and renaming one, in every session and tournament they played, and a member joining by
invitation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from scoring import notify
from scoring.models import (
    AuditEntry,
    Club,
    ClubInvitation,
    ClubMembership,
    Player,
    Round,
    RoundScore,
    Seat,
    Session,
    SessionResult,
    TableSeat,
    Tournament,
    TournamentEntry,
    TournamentTable,
)
from scoring.names import name_key, tidy
from scoring.ratings.services import ratings_refresh
from scoring.sessionfile import (
    rename_players,
    rename_round,
)
from scoring.writes import ServiceError, actor_of

Action = AuditEntry.Action


class PlayerNameClash(ServiceError):
    """Two names of one session that are the same ignoring case, or a player of another club."""


class MergeRefused(ServiceError):
    pass


class InvitationClosed(ServiceError):
    """The invitation was used already (``used``), or it has expired."""

    def __init__(self, *, used: bool) -> None:
        self.used = used
        super().__init__("the invitation was used already" if used else "the invitation expired")


# A scorer link (a pub tablet without an account) adds at most this many guests to its game:
# enough for the table's latecomers, too few to fill the club with names.
MAX_LINK_GUESTS = 4


class TooManyGuests(ServiceError):
    def __init__(self) -> None:
        super().__init__(
            f"a scorer link adds at most {MAX_LINK_GUESTS} guests to its game: "
            "a member of the club adds more"
        )


def club_players(
    club: Club, names: Sequence[str | Player], *, link_game: Session | None = None
) -> dict[str, Player]:
    """Map each name (or Player) to the club's player of that name, names compared as
    everywhere (``scoring.names.name_key``: case, spaces, Unicode's forms), creating the
    unknown ones as guests, their names stored tidied. Keys are the names as given.

    With ``link_game`` the names were typed on that game's scorer link: a new guest is not
    public until a member of the club confirms them (initials, no player page), and the link
    adds at most ``MAX_LINK_GUESTS`` to its game (``TooManyGuests``)."""
    given = [n.name if isinstance(n, Player) else n for n in names]
    if not all(isinstance(n, str) and tidy(n) for n in given):
        raise PlayerNameClash("every player needs a name")
    longest = Player._meta.get_field("name").max_length
    for n in given:
        if len(tidy(n)) > longest:
            raise PlayerNameClash(f"{n[:20]}… is a name longer than {longest} characters")
        if "\x00" in n:
            raise PlayerNameClash("a name cannot hold a NUL character")
    keys = [name_key(n) for n in given]
    if len(set(keys)) != len(keys):
        twice = next(n for n, k in zip(given, keys, strict=True) if keys.count(k) > 1)
        raise PlayerNameClash(f"{tidy(twice)} is named twice (names are the same ignoring case)")
    for player in names:
        if isinstance(player, Player) and player.club_id != club.pk:
            raise PlayerNameClash(f"{player.name} is a player of another club")
    # A player given is that player ("Nieuw spel, zelfde spelers" never makes a guest).
    found = {k: n for n, k in zip(names, keys, strict=True) if isinstance(n, Player)}
    typed = {k for n, k in zip(names, keys, strict=True) if not isinstance(n, Player)}
    # The oldest player of a key, should two have been stored before names were compared so.
    if typed:
        for p in Player.objects.filter(club=club, name_key__in=typed).order_by("-pk"):
            found[p.name_key] = p
    unknown = [n for n, k in zip(given, keys, strict=True) if k not in found]
    if unknown and link_game is not None:
        added = Player.objects.filter(added_in=link_game).count()
        if added + len(unknown) > MAX_LINK_GUESTS:
            raise TooManyGuests()
    players: dict[str, Player] = {}
    for name, key in zip(given, keys, strict=True):
        player = found.get(key)
        if player is None:
            player = found[key] = _guest(club, name, link_game)
        players[name] = player
    return players


def players_joining(session: Session, join: Sequence[str | Player] | None, actor: Any) -> dict:
    """The club's players who sit down at ``session``, by name; the new guests of a scorer
    link are its game's (``club_players``: not public until confirmed, a few per game)."""
    if not join:
        return {}
    by_link = actor_of(actor).scorer_token
    return club_players(session.club, list(join), link_game=session if by_link else None)


def _guest(club: Club, name: str, link_game: Session | None) -> Player:
    name = tidy(name)
    by_link = link_game is not None
    try:
        with transaction.atomic():
            return Player.objects.create(
                club=club,
                name=name,
                is_guest=True,
                confirmed=not by_link,
                public_initials=by_link,
                added_in=link_game,
            )
    except IntegrityError:  # someone else sat the same new guest down a moment ago
        same = Player.objects.filter(club=club).order_by("pk")
        player = (
            same.filter(name_key=name_key(name)).first()
            # A name changed without save() (a queryset's update) has an old key: by the
            # database's unique index itself then.
            or same.annotate(lower_name=Lower("name")).filter(lower_name=Lower(Value(name))).first()
        )
        if player is None:
            raise PlayerNameClash(f"the club has a player called {name} already") from None
        return player


def guests_confirm(*, players: QuerySet[Player], actor: Any = None) -> int:
    """A member of the club confirms guests a scorer link added: from now on they are public
    like any guest (their initials stay until someone unticks them). How many were confirmed."""
    actor = actor_of(actor)
    with transaction.atomic():
        # By id: the admin's queryset may carry annotations (a GROUP BY), which PostgreSQL
        # does not lock.
        ids = players.filter(confirmed=False).values("pk")
        waiting = list(Player.objects.filter(pk__in=ids).select_for_update())
        for club_id in sorted({p.club_id for p in waiting}):
            AuditEntry.objects.create(
                club_id=club_id,
                user=actor.user,
                by_scorer_token=actor.scorer_token,
                action=Action.CONFIRM,
                after={"players": sorted(p.name for p in waiting if p.club_id == club_id)},
            )
        Player.objects.filter(pk__in=[p.pk for p in waiting]).update(confirmed=True)
    return len(waiting)


def player_merge(*, keep: Player, remove: Player, actor: Any = None) -> Player:
    """Make ``remove`` (say, a guest typed twice) the same person as ``keep``.

    Every seat, round score and session result of ``remove`` becomes ``keep``'s, and the events
    of those sessions name ``keep``; then ``remove`` is deleted. Refused when both sat in one
    session: the sheet cannot have the same person twice.
    """
    actor = actor_of(actor)
    if keep.pk == remove.pk:
        raise MergeRefused("a player cannot be merged with themselves")
    if keep.club_id != remove.club_id:
        raise MergeRefused(f"{keep.name} and {remove.name} play in different clubs")
    with transaction.atomic():
        session_ids = list(Seat.objects.filter(player=remove).values_list("session_id", flat=True))
        sessions = Session.objects.select_for_update().filter(pk__in=session_ids)
        shared = Seat.objects.filter(player=keep, session_id__in=session_ids)
        if shared.exists():
            raise MergeRefused(
                f"{keep.name} and {remove.name} both sat in session {shared.first().session_id}"
            )
        _rename_in_sessions(sessions, {remove.name: keep.name})
        Seat.objects.filter(player=remove).update(player=keep)
        RoundScore.objects.filter(player=remove).update(player=keep)
        SessionResult.objects.filter(player=remove).update(player=keep)
        if keep.user_id is None and remove.user_id is not None:
            keep.user_id = remove.user_id
            remove.user_id = None
            remove.save(update_fields=["user"])
            keep.save(update_fields=["user"])
        if not remove.is_guest and keep.is_guest:
            keep.is_guest = False
            keep.save(update_fields=["is_guest"])
        # A toernooi's entries and seats name players too (and keep them from being deleted).
        merge_players_in_tournaments(keep=keep, remove=remove)
        AuditEntry.objects.create(
            club_id=keep.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=Action.MERGE,
            before={"keep": keep.name, "remove": remove.name},
            after={"keep": keep.name, "sessions": session_ids},
        )
        remove.delete()
        # The merged player's games are now another's: the ratings follow in this write, not
        # in the next page that finds them stale (a recompute of the whole club on a GET).
        ratings_refresh(club_id=keep.club_id)
    return keep


def player_rename(*, player: Player, name: str, actor: Any = None) -> Player:
    """Give a player another name, also in the events of every session they sat in (a name
    is how a session's events point at a player, so it cannot change in one place only)."""
    actor = actor_of(actor)
    name = tidy(name)
    if not name:
        raise PlayerNameClash("every player needs a name")
    with transaction.atomic():
        clash = Player.objects.filter(club_id=player.club_id, name_key=name_key(name)).exclude(
            pk=player.pk
        )
        if clash.exists():
            raise PlayerNameClash(f"the club has a player called {name} already")
        old = player.name
        sessions = Session.objects.select_for_update().filter(seats__player=player)
        _rename_in_sessions(sessions, {old: name})
        player.name = name
        player.save(update_fields=["name"])
        AuditEntry.objects.create(
            club_id=player.club_id,
            user=actor.user,
            by_scorer_token=actor.scorer_token,
            action=Action.RENAME,
            before={"name": old},
            after={"name": name},
        )
    return player


def _rename_in_sessions(sessions: QuerySet[Session], names: Mapping[str, str]) -> None:
    """Rewrite player names in the locked ``sessions``: header, rounds; bump their versions."""
    sessions = list(sessions.order_by("pk"))
    now = timezone.now()
    for session in sessions:
        header = rename_players(
            {
                "start": session.start,
                "teams": session.teams or {},
                "dealer": session.first_dealer,
            },
            names,
        )
        session.start = header["start"]
        session.teams = header["teams"] or None
        session.first_dealer = header["dealer"]
        session.version += 1
        session.updated_at = now
    rounds = list(Round.objects.filter(session__in=[s.pk for s in sessions]))
    for round_ in rounds:
        renamed = rename_round(
            {"events": round_.events, "absent": round_.absent, "join": round_.join}, names
        )
        round_.events, round_.absent, round_.join = (
            renamed["events"],
            renamed["absent"],
            renamed["join"],
        )
    Session.objects.bulk_update(
        sessions, ["start", "teams", "first_dealer", "version", "updated_at"]
    )
    Round.objects.bulk_update(rounds, ["events", "absent", "join"])
    for session in sessions:
        # A new version that no stream is told of is one its viewers never get.
        notify.session_changed(session.pk, session.version, session.club_id)


def merge_players_in_tournaments(*, keep: Player, remove: Player) -> None:
    """For ``player_merge``: ``remove``'s check-ins, seats and first deals become
    ``keep``'s. Refused when both are in one tournament (they sat there as two people)."""
    both = Tournament.objects.filter(entries__player=keep).filter(entries__player=remove).first()
    if both is not None:
        raise MergeRefused(f"{keep.name} and {remove.name} both play in the tournament {both.name}")
    TournamentEntry.objects.filter(player=remove).update(player=keep)
    TableSeat.objects.filter(player=remove).update(player=keep)
    TournamentTable.objects.filter(dealer=remove).update(dealer=keep)


def invitation_accept(*, invitation: ClubInvitation, user: Any) -> ClubMembership:
    """``user`` takes up ``invitation`` (once; ``InvitationClosed`` when it was used or has
    expired): a member of its club in its role, with the audit entry that says so. A member
    already keeps their membership, an admin is never made a scorer by it. Invited as an admin,
    the account is made staff, for the club's own admin (scoring/clubs/admin.py). The player it
    names, if any, becomes this account's player unless another account has it already."""
    Role = ClubMembership.Role
    with transaction.atomic():
        locked = (
            ClubInvitation.objects.select_for_update(of=("self",))
            .select_related("created_by")
            .get(pk=invitation.pk)
        )
        if locked.accepted_at is not None or locked.expires_at <= timezone.now():
            raise InvitationClosed(used=locked.accepted_at is not None)
        membership, made = ClubMembership.objects.get_or_create(
            user=user, club_id=locked.club_id, defaults={"role": locked.role}
        )
        before = None if made else {"role": membership.role}
        if locked.role == Role.ADMIN and membership.role != Role.ADMIN:
            membership.role = Role.ADMIN
            membership.save(update_fields=["role"])
        if membership.role == Role.ADMIN and not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        player = None
        if locked.player_id is not None:
            player = Player.objects.select_for_update().get(pk=locked.player_id)
            if player.user_id is None:
                player.user = user
                player.save(update_fields=["user"])
        locked.accepted_by, locked.accepted_at = user, timezone.now()
        locked.save(update_fields=["accepted_by", "accepted_at"])
        AuditEntry.objects.create(
            club_id=locked.club_id,
            user=user,
            action=Action.JOIN,
            before=before,
            after={
                "role": membership.role,
                "player": player.name if player and player.user_id == user.pk else None,
                "invitation": locked.pk,
                "invited_by": locked.created_by.get_username() if locked.created_by else None,
            },
        )
    return membership
