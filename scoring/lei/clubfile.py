"""A whole club as a ``toepen-club/1`` file, for a backup or a move to another server.

Written from the database here; read back by ``clubfile_import.club_import``, since writing a
club writes its projections too. Each session inside is a ``toepen/1`` file
(``scoring.sessionfile``), which knows nothing of the models.
"""

from __future__ import annotations

from typing import Any

from scoring.models import AuditEntry, Club, Round, Seat
from scoring.sessionfile import CLUB_FORMAT, file_from_rows


def club_to_file(club: Club) -> dict[str, Any]:
    """A whole club for a backup or a move: players, memberships (by username), seasons,
    sessions (each as its ``toepen/1`` file plus what the file does not hold) and the audit
    trail. Sessions are referred to by their place in the list, never by a database id."""
    sessions = list(club.sessions.select_related("season").order_by("created_at", "pk"))
    seats: dict[int, list[Seat]] = {}
    for seat in (
        Seat.objects.filter(session__club=club).select_related("player").order_by("position")
    ):
        seats.setdefault(seat.session_id, []).append(seat)
    rounds: dict[int, list[Round]] = {}
    for round_ in Round.objects.filter(session__club=club).order_by("number"):
        rounds.setdefault(round_.session_id, []).append(round_)
    index = {s.pk: i for i, s in enumerate(sessions)}
    username = _username
    return {
        "format": CLUB_FORMAT,
        "club": {
            "name": club.name,
            "slug": club.slug,
            "preset": club.preset,
            "rules": club.rules,
            "standings_public": club.standings_public,
            "agreement_rule": club.agreement_rule,
            "language": club.language,
            "embed_origins": club.embed_origins,
            "created_at": club.created_at.isoformat(),
        },
        "players": [
            {
                "name": p.name,
                "is_guest": p.is_guest,
                "public_initials": p.public_initials,
                "confirmed": p.confirmed,
                "user": username(p.user),
            }
            for p in club.players.select_related("user").order_by("name", "pk")
        ],
        "memberships": [
            {"user": m.user.username, "role": m.role}
            for m in club.memberships.select_related("user").order_by("user__username")
        ],
        "seasons": [
            {
                "name": s.name,
                "starts_on": s.starts_on.isoformat(),
                "ends_on": s.ends_on.isoformat() if s.ends_on else None,
                "ranking": s.ranking,
            }
            for s in club.seasons.order_by("starts_on", "name")
        ],
        "sessions": [
            {
                "season": s.season.name if s.season else None,
                "table_label": s.table_label,
                "played_on": s.played_on.isoformat(),
                "status": s.status,
                "agreement": s.agreement,
                "dispute_note": s.dispute_note,
                "version": s.version,
                "scorer_token": s.scorer_token,
                "created_at": s.created_at.isoformat(),
                "updated_at": s.updated_at.isoformat(),
                "file": file_from_rows(s, seats.get(s.pk, []), rounds.get(s.pk, [])),
            }
            for s in sessions
        ],
        "audit": [
            {
                "session": index.get(a.session_id),
                "user": username(a.user),
                "by_scorer_token": a.by_scorer_token,
                "at": a.at.isoformat(),
                "action": a.action,
                "round_number": a.round_number,
                "before": a.before,
                "after": a.after,
            }
            for a in AuditEntry.objects.filter(club=club)
            .select_related("user")
            .order_by("at", "pk")
        ],
    }


def _username(user: Any) -> str | None:
    return user.username if user is not None else None
