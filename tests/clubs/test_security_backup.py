"""Backups: ``export_club`` and ``import_club`` give back a large randomized club exactly.

The club has members, seasons and forty random sessions (``scoring.engine.simulate``) of two to
six players on several presets, some still being played, imported through
``services.session_import``; then it lives a little (taps, closing time, a lock, a renamed player,
a renewed and a revoked scorer link), so its audit trail has every kind of entry. It is exported,
deleted, and imported from the file: every session's file, status, version, scorer link, scores,
results and audit history must be as before, and a second export must equal the first.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import random
from typing import Any

import pytest
from django.core.management import call_command

from scoring import writes
from scoring.clubs import services as club_services
from scoring.engine import PRESETS, Refusal
from scoring.engine.simulate import random_session
from scoring.lei import seals, services
from scoring.models import AuditEntry, Club, ClubMembership, Player, RoundScore, Season
from tests.safety import note, projection_problems

POOL = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Huub", "Ilse", "Joop", "Kees"]
SESSIONS = 40


def build_club(django_user_model) -> Club:
    rng = random.Random(2026)
    club = Club.objects.create(
        name="De Reservekopie", slug="reservekopie", rules={"max_points": 12}
    )
    users = [django_user_model.objects.create_user(f"lid{n}") for n in range(3)]
    for user, role in zip(users, ["admin", "scorer", "scorer"], strict=True):
        ClubMembership.objects.create(club=club, user=user, role=role)
    Player.objects.create(club=club, name="Anne", user=users[1], public_initials=True)
    seasons = [
        Season.objects.create(club=club, name="Najaar 2025", starts_on="2025-09-01"),
        Season.objects.create(
            club=club, name="Voorjaar 2026", starts_on="2026-01-01", ends_on="2026-06-30"
        ),
    ]
    presets = [p for p in PRESETS if p != "beginners"]
    sessions = []
    for n in range(SESSIONS):
        players = rng.sample(POOL, rng.randint(2, 6))
        file = random_session(
            rng,
            players,
            rounds=rng.randint(1, 14),
            preset=rng.choice(presets),
            knock_chance=rng.random(),
            open_last=rng.random() < 0.3,
        )
        sessions.append(
            services.session_import(
                club=club,
                data=file,
                season=rng.choice([None, *seasons]),
                table_label=rng.choice(["", "Tafel 1", "Bar"]),
                played_on=datetime.date(2025, 9, 1) + datetime.timedelta(days=n * 5),
                actor=rng.choice([None, *users]),
            )
        )
    # A little life after the import: taps, closing time, a lock, a rename, the scorer links.
    for session in sessions[:10]:
        with contextlib.suppress(Refusal, writes.ServiceError):
            services.session_record_event(
                session=session,
                event={"type": "win", "player": session.seats.first().player.name},
                version=session.version,
                key=f"backup-{session.pk}",
                actor=users[2],
            )
    services.session_finish(session=sessions[11], actor=users[0])
    seals.session_lock(session=sessions[11], actor=users[0])
    seals.session_rotate_token(session=sessions[12], actor=users[0])
    seals.session_revoke_token(session=sessions[13], actor=users[0])
    club_services.player_rename(
        player=club.players.get(name="Kees"), name="Kees de Boer", actor=None
    )
    return club


def snapshot(club: Club) -> dict[str, Any]:
    """Everything a restore must give back, without database ids."""
    sessions = []
    for s in club.sessions.select_related("season").order_by("created_at", "pk"):
        sessions.append(
            {
                "file": s.to_file(),
                "status": s.status,
                "version": s.version,
                "ended": s.ended,
                "scorer_token": s.scorer_token,
                "season": s.season.name if s.season else None,
                "table_label": s.table_label,
                "played_on": s.played_on.isoformat(),
                "created_at": s.created_at.isoformat(),
                "scores": sorted(
                    (
                        r.round.number,
                        r.player.name if r.player else "",
                        r.side,
                        r.points,
                        r.total,
                        r.won,
                        r.folded,
                        r.knocks,
                        r.eliminated,
                    )
                    for r in RoundScore.objects.filter(round__session=s).select_related(
                        "round", "player"
                    )
                ),
                "results": sorted(
                    (
                        r.player.name if r.player else "",
                        r.side,
                        r.place,
                        r.total,
                        r.rounds_played,
                        r.rounds_won,
                        r.toepkoning,
                        r.eliminated_in_round,
                    )
                    for r in s.results.select_related("player")
                ),
                "problems": projection_problems(s),
            }
        )
    audit = [
        (
            a.session.created_at.isoformat() if a.session else None,
            a.user_id and a.user.username,
            a.by_scorer_token,
            a.at.isoformat(),
            a.action,
            a.round_number,
            json.dumps(a.before, sort_keys=True),
            json.dumps(a.after, sort_keys=True),
        )
        for a in AuditEntry.objects.filter(club=club).select_related("user", "session")
    ]
    return {
        "club": (club.name, club.slug, club.preset, club.rules, club.standings_public),
        "players": sorted(
            (p.name, p.is_guest, p.public_initials, p.user.username if p.user else None)
            for p in club.players.select_related("user")
        ),
        "members": sorted(
            (m.user.username, m.role) for m in club.memberships.select_related("user")
        ),
        "seasons": sorted(
            (s.name, str(s.starts_on), str(s.ends_on), json.dumps(s.ranking))
            for s in club.seasons.all()
        ),
        "sessions": sessions,
        "audit": sorted(audit, key=repr),
    }


def export(slug: str) -> str:
    out = io.StringIO()
    call_command("export_club", slug, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_large_random_club_comes_back_exactly_from_its_backup(django_user_model, tmp_path):
    club = build_club(django_user_model)
    before = snapshot(club)
    assert len(before["sessions"]) == SESSIONS
    assert all(s["problems"] == [] for s in before["sessions"])
    assert {a[4] for a in before["audit"]} >= {
        "import",
        "event",
        "finish",
        "lock",
        "rotate_token",
        "revoke_token",
        "rename",
    }
    first = export("reservekopie")
    backup = tmp_path / "reservekopie.json"
    backup.write_text(first, encoding="utf-8")

    club.sessions.all().delete()  # the disaster (seats protect players: sessions go first)
    club.delete()
    assert not Club.objects.filter(slug="reservekopie").exists()
    call_command("import_club", str(backup), "--club", "reservekopie", stdout=io.StringIO())

    restored = Club.objects.get(slug="reservekopie")
    after = snapshot(restored)
    for number, (old, new) in enumerate(zip(before["sessions"], after["sessions"], strict=True)):
        assert new == old, f"session {number + 1}"
    assert after == before
    assert json.loads(export("reservekopie")) == json.loads(first)
    rounds = sum(len(s["file"]["rounds"]) for s in before["sessions"])
    note("backup", sessions=SESSIONS, rounds=rounds, audit_entries=len(before["audit"]), diffs=0)


@pytest.mark.django_db
def test_a_backup_does_not_overwrite_a_club_that_exists(django_user_model, tmp_path):
    club = Club.objects.create(name="Bestaat", slug="bestaat")
    services.session_start(club=club, players=["Anne", "Bas"])
    backup = tmp_path / "bestaat.json"
    backup.write_text(export("bestaat"), encoding="utf-8")
    with pytest.raises(Exception, match="exists already"):
        call_command("import_club", str(backup), stdout=io.StringIO())
    assert Club.objects.filter(slug="bestaat").count() == 1
