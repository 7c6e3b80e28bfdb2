"""The hostile suite at the door: what one person could do to spoil a room's evening without
breaking in. A check-in QR flooded with hostile names, each with a fresh cookie, from the pub's
one address (scoring/evening/flood.py); session, club and replay files with a key written twice
(scoring/sessionfile.py). Each answer is a page, a redirect or a 4xx with words, never a 5xx,
nothing is written by a refused file, and the organiser and the members still get in. The
figures go to BENCHMARKS.md, "Safety" (``bench/safety.py``); the logins a stranger cannot
block are ``tests/site/test_device_cookie.py``, HEAD and private pages the permission matrix's.
"""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from scoring.evening import services as evenings
from scoring.models import EveningPlayer, Player
from tests.builders import make_session, play_rounds
from tests.safety import note, row_counts

PUB = "203.0.113.99"
HOSTILE_NAMES = [
    "",
    " ",
    "x" * 5000,
    '=HYPERLINK("http://x")',
    "<script>alert(1)</script>",
    "{{ settings.SECRET_KEY }}",
    "\u202eYvonne\u2066",
    "\ud800",
    "\uff21\uff4e\uff4e\uff45",  # Anne in full-width letters
    "9" * 400,
]


def test_a_flood_with_hostile_names_and_fresh_cookies_never_fills_the_evening(org, club, clock):
    evening = evenings.evening_create(club=club)
    url = reverse("checkin_phone", args=[evening.checkin_token])
    answers: Counter[int] = Counter()
    posts = settings.CHECKIN_GUEST_BURST + 150
    for n in range(posts):
        name = HOSTILE_NAMES[n % 10] if n % 5 == 0 else f"Robot {n}"
        answers[Client(REMOTE_ADDR=PUB).post(url, {"guest": name}).status_code] += 1
        clock.shift(0.05)  # twenty a second: no person types that fast
    assert not [status for status in answers if status >= 500]
    waiting = EveningPlayer.objects.filter(evening=evening, pending=True).count()
    # The burst, then the steady pace over the flood's 12.5 seconds: nothing more.
    steady = settings.CHECKIN_GUESTS_PER_MINUTE * posts * 0.05 / 60
    assert waiting <= settings.CHECKIN_GUEST_BURST + steady + 1
    assert answers[429] >= 50  # the rest of the flood, less the names refused for themselves
    # The organiser still checks in the club's members and a guest by hand.
    member = Player.objects.create(club=club, name="Marieke")
    for name in ["Marieke", "Opa Toep"]:
        org.post(reverse("evening_add", args=[evening.pk]), {"name": name})
    assert Client(REMOTE_ADDR=PUB).post(url, {"player": str(member.pk)}).status_code == 302
    assert EveningPlayer.objects.filter(evening=evening, pending=False).count() == 2
    note(
        "door_flood",
        requests=posts,
        accepted=waiting,
        refused=answers[429],
        other_refusals=posts - waiting - answers[429],
        server_errors=0,
        places_taken=0,
    )


def twice(text: str, key: str, value: object) -> str:
    """``text`` (a JSON object) with ``key`` written a second time, at its end."""
    return text.rstrip()[:-1] + f", {json.dumps(key)}: {json.dumps(value)}}}"


@pytest.fixture
def session_text(club) -> str:
    session = make_session(club)
    play_rounds(session, ["Anne", "Bas"])
    session.refresh_from_db()
    return json.dumps(session.to_file())


def duplicated_files(session_text: str) -> dict[str, tuple[str, str]]:
    """Name → (file text, the key it doubles)."""
    data = json.loads(session_text)
    rules_key = next(iter(data["rules"]))
    return {
        "players twice": (twice(session_text, "players", ["Ik", "Jij"]), "players"),
        "format twice": (twice(session_text, "format", "toepen/1"), "format"),
        "a rule twice": (
            session_text.replace('"rules": {', f'"rules": {{"{rules_key}": 1, ', 1),
            rules_key,
        ),
        "an event's type twice": (
            session_text.replace('"type": ', '"type": "win", "type": ', 1),
            "type",
        ),
    }


def test_files_with_a_key_written_twice_are_refused_naming_the_key(club, session_text, tmp_path):
    refused = 0
    for name, (text, key) in duplicated_files(session_text).items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        before = row_counts()
        for command, options in [
            ("import_session", {"club": "nieuw"}),
            ("replay", {}),
            ("import_club", {}),
        ]:
            with pytest.raises(CommandError) as refusal:
                call_command(command, str(path), **options)
            assert f'the key "{key}" appears twice' in str(refusal.value), (name, command)
            refused += 1
        assert row_counts() == before, name
    # The club's backup file: its first key written twice.
    out = io.StringIO()
    call_command("export_club", club.slug, stdout=out)
    first = next(iter(json.loads(out.getvalue())))
    path = tmp_path / "club.json"
    path.write_text(twice(out.getvalue(), first, "toepen-club/0"))
    with pytest.raises(CommandError, match=f'the key "{first}" appears twice'):
        call_command("import_club", str(path))
    refused += 1
    note("door_files", files=refused, refused=refused)
