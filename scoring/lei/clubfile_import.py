"""A whole club's backup file read back: the club, its seasons, players and members, and every
session through the lei's own import (``scoring.lei.services``), so each game is replayed and
checked by the engine."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from scoring import names
from scoring.engine import Refusal, replay
from scoring.lei.services import Action, must_be_storable, session_create
from scoring.models import (
    AuditEntry,
    Club,
    ClubMembership,
    Player,
    Season,
    Session,
)
from scoring.models.clubs import validate_origins
from scoring.sessionfile import CLUB_FORMAT, FORMAT, all_names
from scoring.writes import Actor, ServiceError


class ClubImportError(ServiceError):
    pass


def club_import(*, data: Mapping[str, Any], slug: str | None = None) -> Club:
    """Load a club written by ``club_to_file`` into this database, whole or not at all.

    Refused: another kind of file, a file of another club than ``slug``, a club whose slug
    exists here already (it is never overwritten), and any session the engine refuses.
    """
    if data.get("format") != CLUB_FORMAT:
        if data.get("format") == FORMAT:
            raise ClubImportError("this is a session file, not a club export: use import_session")
        raise ClubImportError(f'not a club export: "format" must be "{CLUB_FORMAT}"')
    header = data.get("club")
    if not isinstance(header, Mapping) or not isinstance(header.get("slug"), str):
        raise ClubImportError("not a valid club export: it names no club")
    if slug is not None and header["slug"] != slug:
        raise ClubImportError(f"this file is for the club {header['slug']!r}, not {slug!r}")
    must_be_storable(data)
    if Club.objects.filter(slug=header["slug"]).exists():
        raise ClubImportError(
            f"a club {header['slug']!r} exists already and is not overwritten:"
            " import into another database, or delete that club first"
        )
    dt = datetime.datetime.fromisoformat
    day = datetime.date.fromisoformat
    try:
        with transaction.atomic():
            club = Club.objects.create(
                name=header["name"],
                slug=header["slug"],
                preset=header.get("preset", "standaard"),
                rules=header.get("rules") or {},
                standings_public=bool(header.get("standings_public", False)),
                agreement_rule=_choice(header.get("agreement_rule"), Club.AgreementRule),
                language=_language(header.get("language")),
                embed_origins=_origins(header.get("embed_origins")),
            )
            if header.get("created_at"):
                Club.objects.filter(pk=club.pk).update(created_at=dt(header["created_at"]))

            User = get_user_model()
            wanted = {p.get("user") for p in data.get("players", [])}
            wanted |= {m["user"] for m in data.get("memberships", [])}
            wanted |= {a.get("user") for a in data.get("audit", [])}
            wanted.discard(None)
            users = {u.username: u for u in User.objects.filter(username__in=wanted)}
            for username in sorted(wanted - set(users)):
                # Someone who has no account here yet: they set a password with a reset.
                user = User(username=username)
                user.set_unusable_password()
                user.save()
                users[username] = user

            players = Player.objects.bulk_create(
                Player(
                    club=club,
                    name=p["name"],
                    name_key=names.name_key(p["name"]),
                    is_guest=bool(p.get("is_guest", False)),
                    # A guest the club has not confirmed is shown by initials (models/clubs.py).
                    public_initials=bool(p.get("public_initials", False))
                    or not p.get("confirmed", True),
                    confirmed=bool(p.get("confirmed", True)),
                    user=users.get(p.get("user")),
                )
                for p in data.get("players", [])
            )
            by_name = {p.name: p for p in players}
            ClubMembership.objects.bulk_create(
                ClubMembership(club=club, user=users[m["user"]], role=m["role"])
                for m in data.get("memberships", [])
            )
            seasons = {
                s["name"]: Season.objects.create(
                    club=club,
                    name=s["name"],
                    starts_on=day(s["starts_on"]),
                    ends_on=day(s["ends_on"]) if s.get("ends_on") else None,
                    ranking=s.get("ranking") or {},
                )
                for s in data.get("seasons", [])
            }

            sessions: list[Session] = []
            for number, entry in enumerate(data.get("sessions", []), start=1):
                file = entry["file"]
                try:
                    result = replay(file, open_round=True)
                except Refusal as refusal:
                    raise ClubImportError(f"session {number}: {refusal}") from None
                missing = [n for n in all_names(file) if n not in by_name]
                if missing:
                    raise ClubImportError(
                        f"session {number} names {missing[0]}, who is not a player of the club"
                    )
                session = session_create(
                    club=club,
                    data=file,
                    result=result,
                    players=by_name,
                    season=seasons[entry["season"]] if entry.get("season") else None,
                    table_label=entry.get("table_label", ""),
                    played_on=day(entry["played_on"]),
                    actor=Actor(),
                    action=Action.IMPORT,
                    audit=False,
                )
                kept = {
                    "status": entry.get("status", session.status),
                    "agreement": _choice(entry.get("agreement"), Session.Agreement),
                    "dispute_note": str(entry.get("dispute_note") or "")[:140],
                    "version": entry.get("version", 0),
                    "scorer_token": entry.get("scorer_token"),
                    "created_at": dt(entry["created_at"]),
                    "updated_at": dt(entry["updated_at"]),
                }
                Session.objects.filter(pk=session.pk).update(**kept)
                sessions.append(session)

            AuditEntry.objects.bulk_create(
                AuditEntry(
                    club=club,
                    session=sessions[a["session"]] if a.get("session") is not None else None,
                    user=users.get(a.get("user")),
                    by_scorer_token=bool(a.get("by_scorer_token", False)),
                    at=dt(a["at"]),
                    action=a["action"],
                    round_number=a.get("round_number"),
                    before=a.get("before"),
                    after=a.get("after"),
                )
                for a in data.get("audit", [])
            )
            # The rounds the sheets mark "verbeterd" (``Session.corrected_rounds``), as the
            # audit log has them.
            corrected: dict[int, set[int]] = {}
            for a in data.get("audit", []):
                index, number = a.get("session"), a.get("round_number")
                if a["action"] == Action.CORRECT and index is not None and number is not None:
                    corrected.setdefault(index, set()).add(number)
            for index, numbers in corrected.items():
                Session.objects.filter(pk=sessions[index].pk).update(
                    corrected_rounds=sorted(numbers)
                )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise ClubImportError(f"not a valid club export: {type(error).__name__} {error}") from None
    except IntegrityError as error:
        raise ClubImportError(f"the club export does not fit this database: {error}") from None
    return club


def _language(value: Any) -> str:
    """The club's language as it was, or the site's first for a file without (or with another)."""
    codes = [code for code, _name in settings.LANGUAGES]
    return value if value in codes else codes[0]


def _origins(value: Any) -> str:
    """The sites that may frame the standings, checked as the admin checks them: they go into
    a Content-Security-Policy header."""
    if value in (None, ""):
        return ""
    if not isinstance(value, str):
        raise ClubImportError('"embed_origins" must be text, one https origin a line')
    try:
        validate_origins(value)
    except ValidationError as error:
        raise ClubImportError(f'"embed_origins": {" ".join(error.messages)}') from None
    return value


def _choice(value: Any, choices: Any) -> str:
    """A stored choice as it was, or the field's first (its default) for a file without it."""
    return value if value in choices.values else choices.values[0]
