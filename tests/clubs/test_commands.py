"""The commands: session files and whole clubs in and out, and the demo seed."""

import datetime
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from scoring.engine import replay
from scoring.lei import funnel, seals, services
from scoring.models import (
    AuditEntry,
    Club,
    ClubMembership,
    IdempotencyKey,
    Player,
    PushWatch,
    Round,
    Session,
    SessionResult,
)
from tests.builders import example_files, load_example, make_club, new_key, play_rounds, record


def run(*args, stdin: str | None = None, monkeypatch=None) -> str:
    out = io.StringIO()
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    call_command(*args, stdout=out)
    return out.getvalue()


def counts() -> tuple:
    return tuple(
        m.objects.count() for m in (Club, Player, Session, Round, SessionResult, AuditEntry)
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.stem)
def test_import_then_export_gives_an_equivalent_file(path, tmp_path):
    data, expected = load_example(path)
    if "refused" in expected:
        with pytest.raises(CommandError, match=r"^round 1, event 3: A cannot knock"):
            run("import_session", str(path), "--club", "gouden-boer")
        assert counts() == (0, 0, 0, 0, 0, 0)  # not even the club
        return
    out = run("import_session", str(path), "--club", "gouden-boer")
    session_id = int(out.strip().splitlines()[-1])
    exported = json.loads(run("export_session", str(session_id)))
    assert replay(exported).to_json() == expected
    assert {k: exported[k] for k in ("format", "players", "rounds")} == {
        "format": "toepen/1",
        "players": data["players"],
        "rounds": data["rounds"],
    }
    # Exported and imported again: the same file.
    again = tmp_path / "again.json"
    again.write_text(json.dumps(exported))
    second = int(run("import_session", str(again), "--club", "gouden-boer").split()[-1])
    assert Session.objects.get(pk=second).to_file() == exported


@pytest.mark.django_db
def test_import_from_stdin_into_a_season_matching_names(club, people, season, monkeypatch):
    file = {
        "format": "toepen/1",
        "players": ["anne", "BAS", "Zoë"],
        "rounds": [{"events": [{"type": "win", "player": "anne"}]}],
    }
    out = run(
        "import_session",
        "-",
        "--club",
        club.slug,
        "--season",
        season.name,
        stdin=json.dumps(file),
        monkeypatch=monkeypatch,
    )
    session = Session.objects.get(pk=int(out.split()[-1]))
    assert session.season == season
    assert session.to_file()["players"] == ["Anne", "Bas", "Zoë"]
    assert session.to_file()["rounds"][0]["events"][0]["player"] == "Anne"
    assert Player.objects.get(name="Zoë").is_guest


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "toepen/1", "players": ["A", "B"], "rou', "the JSON is cut off"),
        ("[1, 2]", "it is not a JSON object"),
        (
            '{"format": "toepen/1", "players": ["A", "B"], "rules": {"max_points": 1}}',
            "rules: max_points must be from 2 to 1000, not 1",
        ),
        (
            '{"format": "toepen/1", "players": ["A", "B"], '
            '"rounds": [{"events": [{"type": "win", "player": "Zoë"}]}]}',
            "Zoë",
        ),
        (
            '{"format": "toepen/1", "players": ["A", "B"], '
            '"rounds": [{"events": [{"type": "win", "player": "A"}]}], "nonsense": 1',
            "cut off",
        ),
    ],
)
def test_import_refuses_bad_input_and_changes_nothing(text, message, tmp_path, club):
    path = tmp_path / "bad.json"
    path.write_text(text)
    before = counts()
    with pytest.raises(CommandError, match=message):
        run("import_session", str(path), "--club", club.slug)
    with pytest.raises(CommandError, match=message):
        run("import_session", str(path), "--club", "a-new-club")
    assert counts() == before


@pytest.mark.django_db
def test_import_refuses_an_unknown_season_and_a_missing_file(club, tmp_path):
    path = example_files()[0]
    with pytest.raises(CommandError, match="no season 'Zomer'"):
        run("import_session", str(path), "--club", club.slug, "--season", "Zomer")
    with pytest.raises(CommandError, match="No such file"):
        run("import_session", str(tmp_path / "nope.json"), "--club", club.slug)
    with pytest.raises(CommandError, match="there is no session 999"):
        run("export_session", "999")
    assert counts()[1:] == (0, 0, 0, 0, 0)


def make_club_history(club, people, season, user):
    """Two sessions, one finished and locked, one running, with corrections and a join."""
    ClubMembership.objects.create(user=user, club=club, role="admin")
    people["Anne"].user = user
    people["Anne"].save()
    done = services.session_start(
        club=club, players=["Anne", "Bas"], overrides={"max_points": 3}, season=season, actor=user
    )
    play_rounds(done, ["Anne", "Bas", "Anne", "Anne"])
    services.round_replace_events(
        session=done, number=1, events=[{"type": "win", "player": "Anne", "jack": True}], actor=user
    )
    seals.session_lock(session=done, actor=user)
    running = services.session_start(club=club, players=["Cees", "Dirk", "Eva"], table_label="Bar")
    services.session_set_presence(
        session=running, absent={"Eva": "toilet"}, join=["Fleur"], version=0, key=new_key()
    )
    record(running, "knock", "Cees")
    return done, running


def club_state(club) -> dict:
    return {
        "results": sorted(
            SessionResult.objects.filter(session__club=club).values_list(
                "session__table_label",
                "player__name",
                "side",
                "place",
                "total",
                "rounds_played",
                "rounds_won",
                "toepkoning",
                "eliminated_in_round",
            )
        ),
        "audit": list(
            AuditEntry.objects.filter(club=club)
            .order_by("at", "pk")
            .values_list(
                "session__table_label",
                "user__username",
                "by_scorer_token",
                "at",
                "action",
                "round_number",
                "before",
                "after",
            )
        ),
        "sessions": [
            (s.status, s.version, s.scorer_token, s.to_file())
            for s in Session.objects.filter(club=club).order_by("created_at", "pk")
        ],
    }


@pytest.mark.django_db
def test_a_club_moves_to_an_empty_database_unchanged(club, people, season, user, tmp_path):
    make_club_history(club, people, season, user)
    before = club_state(club)
    exported = run("export_club", club.slug)
    path = tmp_path / "club.json"
    path.write_text(exported)
    # An empty database: the club, its people and the user are gone.
    Session.objects.all().delete()
    AuditEntry.objects.all().delete()
    club.delete()
    get_user_model().objects.all().delete()

    out = run("import_club", str(path))
    assert "6 players, 2 sessions" in out
    moved = Club.objects.get(slug=club.slug)
    assert club_state(moved) == before
    assert json.loads(run("export_club", club.slug)) == json.loads(exported)
    anne = Player.objects.get(name="Anne")
    assert anne.user.username == "scorer"
    assert not anne.user.has_usable_password()
    assert ClubMembership.objects.get(club=moved).role == "admin"


@pytest.mark.django_db
def test_import_club_refuses_what_does_not_fit(club, people, season, user, tmp_path):
    make_club_history(club, people, season, user)
    exported = json.loads(run("export_club", club.slug))
    path = tmp_path / "club.json"

    def refused(data, message, *extra):
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        before = counts()
        with pytest.raises(CommandError, match=message):
            run("import_club", str(path), *extra)
        assert counts() == before

    refused(exported, "exists already and is not overwritten")
    refused(
        exported,
        "this file is for the club 'gouden-boer', not 'zwarte-vrouw'",
        "--club",
        "zwarte-vrouw",
    )
    refused(json.dumps(exported)[:500], "the JSON is cut off")
    refused(load_example(example_files()[0])[0], "a session file, not a club export")
    other = {**exported, "club": {**exported["club"], "slug": "elders"}}
    refused(other, "does not fit this database: .*scorer_token")  # a secret link is unique
    other["sessions"] = [{**entry, "scorer_token": None} for entry in other["sessions"]]
    broken = json.loads(json.dumps(other))
    broken["sessions"][0]["file"]["rounds"][0]["events"] = [{"type": "win", "player": "Zoë"}]
    refused(broken, "session 1: round 1, event 1: Zoë is not a player")
    unknown = json.loads(json.dumps(other))
    unknown["players"] = [p for p in unknown["players"] if p["name"] != "Bas"]
    refused(unknown, "session 1 names Bas, who is not a player of the club")
    truncated = json.loads(json.dumps(other))
    del truncated["sessions"][1]["played_on"]
    refused(truncated, "not a valid club export")
    assert not Club.objects.filter(slug="elders").exists()


@pytest.mark.django_db
def test_seed_demo_is_idempotent_and_plays_through_the_services(settings):
    settings.DEBUG = True
    first = run("seed_demo")
    assert "De Gouden Boer" in first
    assert "admin" in first
    state = counts()
    second = run("seed_demo")
    assert "there already" in second
    assert counts() == state
    club = Club.objects.get(slug="de-gouden-boer")
    assert club.players.count() == 8
    assert Session.objects.for_club(club).finished().count() == 3
    assert Session.objects.for_club(club).running().count() == 1
    for session in Session.objects.for_club(club):
        assert replay(session.to_file(), open_round=True).finished == (session.status == "finished")
    User = get_user_model()
    assert User.objects.get(username="admin").is_superuser
    assert ClubMembership.objects.get(user__username="beheer", club=club).role == "admin"


@pytest.mark.django_db
def test_seed_demo_makes_no_users_without_debug(settings):
    settings.DEBUG = False
    run("seed_demo")
    assert not get_user_model().objects.exists()
    assert Club.objects.filter(slug="de-gouden-boer").exists()


@pytest.mark.django_db
def test_export_club_of_an_unknown_club():
    make_club()
    with pytest.raises(CommandError, match="there is no club 'nope'"):
        run("export_club", "nope")


def test_prune_keys_forgets_old_keys_and_a_late_retry_is_refused_not_doubled(club):
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees", "Dirk"])
    services.session_record_event(
        session=session, event={"type": "knock", "player": "Anne"}, version=0, key="oud"
    )
    record(session, "fold", "Bas")
    IdempotencyKey.objects.filter(key="oud").update(
        created_at=timezone.now() - datetime.timedelta(days=3)
    )
    # A viewer's part that streams showed until a minute ago, and one they show now.
    now = timezone.now()
    for part, until in (("/kijk/oud/", -60), ("/kijk/nu/", 60)):
        PushWatch.objects.create(
            session=session, part=part, language="nl", audience="public",
            until=now + datetime.timedelta(seconds=until),
        )  # fmt: skip

    assert run("prune_keys").splitlines() == [
        "1 idempotency keys older than 2 days removed",
        "0 tap counts removed",  # nobody tapped over HTTP here (scoring/lei/taplimit.py)
        "1 push notes removed",  # scoring/lei/watch.py
    ]
    assert list(PushWatch.objects.values_list("part", flat=True)) == ["/kijk/nu/"]
    assert IdempotencyKey.objects.filter(session=session).count() == 1  # the fold's, of today
    assert not IdempotencyKey.objects.filter(key="oud").exists()

    # The tablet that sent "oud" retries it days later: the session moved past its version.
    with pytest.raises(funnel.StaleVersion):
        services.session_record_event(
            session=session, event={"type": "knock", "player": "Anne"}, version=0, key="oud"
        )
    assert [
        e["type"] for e in Session.objects.get(pk=session.pk).to_file()["rounds"][0]["events"]
    ] == [
        "knock",
        "fold",
    ]
    with pytest.raises(CommandError):
        run("prune_keys", "--days", "0")


# --- files that must not hurt: each a clear message, exit 1 (CommandError), nothing written ---


PENALTY_OFF = {"type": "penalty", "player": "Bas", "points": -1, "reason": "kwijtgescholden"}


def two_players(rounds) -> dict:
    return {"format": "toepen/1", "players": ["Anne", "Bas"], "rounds": rounds}


def write(tmp_path, content) -> str:
    path = tmp_path / "file.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'{"format": "toepen/1", "players": ["Anne", "B\xe9s"]}',
            "not UTF-8 text \\(byte 46 cannot be read\\)",
        ),
        ("[" * 200_000 + "]" * 200_000, "nested deeper than 32 levels"),
        ('{"a": ' * 100 + "1" + "}" * 100, "nested deeper than 32 levels"),
        ('{"format": "toepen/1", "n": ' + "9" * 5000 + "}", "a number too long to read"),
        (" " * (8 * 1024 * 1024 + 1), "larger than 8 MB"),
        (
            # Nobody's total moves: Bas is let off the point he loses.
            two_players([{"events": [PENALTY_OFF, {"type": "win", "player": "Anne"}]}] * 33_000),
            "round 10001: a session has at most 10000 rounds",
        ),
        (
            two_players(
                [
                    {
                        "events": [
                            {
                                "type": "penalty",
                                "player": "Bas",
                                "points": 3_000_000_000,
                                "reason": "typo",
                            },
                        ]
                    }
                ]
            ),
            "round 1, event 1: points must be from -100 to 100, not 3000000000",
        ),
    ],
    ids=[
        "not-utf8",
        "200000-deep",
        "100-deep",
        "5000-digits",
        "too-large",
        "33000-rounds",
        "penalty-3e9",
    ],
)
def test_import_session_refuses_a_hostile_file_with_a_message_and_writes_nothing(
    content, message, tmp_path, club
):
    path = write(tmp_path, content)
    before = counts()
    with pytest.raises(CommandError, match=message):
        run("import_session", path, "--club", "nieuwe-club")
    assert counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"format": "toepen-club/1", "club": "\xff"}', "not UTF-8 text"),
        ("[" * 200_000 + "]" * 200_000, "nested deeper than 32 levels"),
    ],
)
def test_import_club_refuses_a_hostile_file_with_a_message_and_writes_nothing(
    content, message, tmp_path
):
    path = write(tmp_path, content)
    before = counts()
    with pytest.raises(CommandError, match=message):
        run("import_club", path)
    assert counts() == before


@pytest.mark.django_db
def test_a_session_file_with_a_byte_order_mark_is_read(tmp_path, club):
    data = two_players([{"events": [{"type": "win", "player": "Anne"}]}])
    path = write(tmp_path, "\ufeff".encode() + json.dumps(data).encode())
    assert Session.objects.get(pk=int(run("import_session", path, "--club", club.slug)))


@pytest.mark.django_db
def test_a_running_session_exported_and_replayed_shows_the_lei_so_far(club, people, tmp_path):
    session = services.session_start(club=club, players=["Anne", "Bas", "Cees"])
    record(session, "win", "Anne")
    session.refresh_from_db()
    record(session, "knock", "Bas")
    session.refresh_from_db()
    exported = run("export_session", str(session.pk))
    path = tmp_path / "bezig.json"
    path.write_text(exported)
    lei = run("replay", str(path))
    assert "Nog bezig." in lei
    assert "    2     2  (bezig)" in lei  # round 2, at a stake of 2
    result = json.loads(run("replay", str(path), "--json"))
    assert result["finished"] is False
    assert result["totals"] == {"Anne": 0, "Bas": 1, "Cees": 1}
    assert [r["number"] for r in result["rounds"]] == [1]
