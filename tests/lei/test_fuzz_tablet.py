"""The tablet's write paths fuzzed over HTTP: random sequences of taps, undos and closing time,
legal and illegal (unknown players, out-of-turn folds, knocks beyond the cap, missing or wrong
versions, replayed or oversized keys, malformed bodies, odd unicode in names and reasons), with
and without HTMX.

Every answer must be a success (2xx/3xx) or a 4xx with a message, never a 5xx. A write counts
as accepted when the session's version went up by exactly one; the test keeps its own list of
the accepted events and at the end the stored log must be exactly that list (nothing lost,
nothing doubled), every accepted key must have been recorded once, and the stored projection
must equal a fresh ``replay(session.to_file())``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import replay
from scoring.lei.forms import EVENT_TYPES, EventForm
from scoring.models import AuditEntry, ClubMembership, IdempotencyKey, RoundScore, Session
from tests.builders import make_club, make_session
from tests.safety import FUZZ, events_of, note, projection_problems

ODD_TEXT = st.one_of(
    st.text(max_size=10),
    st.sampled_from(["", " ", "\x00", "anne", "ANNE", "Ånne\u200f", "👑", "X" * 200, "é" * 41]),
)
ODD_NUMBER = st.one_of(
    st.integers(min_value=-(2**40), max_value=2**40),
    st.sampled_from(["", "abc", "1e9", "-1", str(2**63), "3.5", "٣", "0x10"]),
)
LEGAL_KINDS = {
    "knock": "may_knock",
    "blind_knock": "may_blind_knock",
    "fold": "may_fold",
    "stay": "may_stay",
    "win": "may_win",
}

TRIED = {"sessions": 0, "requests": 0, "accepted": 0, "refused": 0, "server_errors": 0}
NUMBERS = itertools.count(1)  # a club of its own for every example


@pytest.fixture(autouse=True, scope="module")
def note_tablet_figures():
    """What this file's tests tried, for bench/safety.py: noted after the last of them, whichever
    of them ran and in whatever order."""
    yield
    note("tablet", **TRIED)


class Table:
    """One session played by a client, with the test's own record of what was accepted."""

    def __init__(self, client: Client, session: Session, htmx: bool) -> None:
        self.client, self.session, self.htmx = client, session, htmx
        self.accepted: list[dict[str, Any]] = []  # the events the tablet saw recorded
        self.keys: list[str] = []  # every key sent
        self.stored_keys: set[str] = set()  # keys whose write was accepted
        self.writes = 0  # accepted writes (events, undos, closing time)
        self.key_number = 0
        self.gone = False  # closing time before any finished round threw the session away

    def version(self) -> int:
        return Session.objects.values_list("version", flat=True).get(pk=self.session.pk)

    def fresh_key(self) -> str:
        self.key_number += 1
        return f"tap-{self.key_number}"

    def pick_key(self, draw: Any) -> str | None:
        choice = draw(st.sampled_from(["fresh"] * 6 + ["replay", "missing", "long", "odd"]))
        if choice == "replay" and self.keys:
            return draw(st.sampled_from(self.keys))
        if choice == "missing":
            return None
        if choice == "long":
            return "k" * 101
        if choice == "odd":
            return draw(ODD_TEXT)
        return self.fresh_key()

    def pick_version(self, draw: Any) -> Any:
        current = self.version()
        choice = draw(st.sampled_from(["current"] * 6 + ["old", "ahead", "missing", "odd"]))
        return {
            "current": current,
            "old": current - 1,
            "ahead": current + 1,
            "missing": None,
            "odd": draw(ODD_NUMBER),
        }.get(choice, current)

    def legal_event(self, draw: Any) -> dict[str, Any] | None:
        view = replay(self.session.to_file(), open_round=True).what_now()
        options = [
            (kind, name)
            for kind, attribute in LEGAL_KINDS.items()
            for name, refusal in getattr(view, attribute).items()
            if refusal is None
        ]
        if not options:
            return None
        kind, name = draw(st.sampled_from(options))
        fields: dict[str, Any] = {"type": kind, "player": name}
        if kind == "win" and draw(st.booleans()):
            fields["jack"] = "on"
        return fields

    def random_event(self, draw: Any) -> dict[str, Any]:
        names = [s.player.name for s in self.session.seats.select_related("player")]
        fields: dict[str, Any] = {
            "type": draw(st.sampled_from([*EVENT_TYPES, "", "bogus", "WIN"])),
            "player": draw(st.one_of(st.sampled_from(names), ODD_TEXT)),
        }
        for name, values in {
            "jack": st.sampled_from(["on", "", "ja", "false"]),
            "rank": st.sampled_from(["ace", "jack", "7", "joker", ""]),
            "points": ODD_NUMBER,
            "reason": ODD_TEXT,
            "challenger": st.one_of(st.sampled_from(names), ODD_TEXT),
            "genuine": st.sampled_from(["on", ""]),
            "bid": ODD_NUMBER,
        }.items():
            if draw(st.integers(0, 4)) == 0:
                fields[name] = draw(values)
        return fields

    def post(self, name: str, fields: dict[str, Any] | None = None, **raw: Any):
        headers = {"HTTP_HX_REQUEST": "true"} if self.htmx else {}
        url = reverse(name, args=[self.session.pk])
        if fields is None:  # a body as it comes: ``data`` bytes with a ``content_type``
            return self.client.post(url, **raw, **headers)
        return self.client.post(url, {k: v for k, v in fields.items() if v is not None}, **headers)

    def step(self, draw: Any) -> None:
        if self.gone:
            return
        action = draw(st.sampled_from(["legal"] * 6 + ["random"] * 3 + ["undo", "finish", "raw"]))
        before = self.version()
        played = RoundScore.objects.filter(round__session_id=self.session.pk).exists()
        event: dict[str, Any] | None = None
        key: str | None = None
        if action == "raw":
            body = draw(st.one_of(st.binary(max_size=200), ODD_TEXT.map(str.encode)))
            kind = draw(st.sampled_from(["application/json", "multipart/form-data", "text/plain"]))
            response = self.post("session_event", None, data=body, content_type=kind)
        elif action in ("undo", "finish"):
            key = self.pick_key(draw)
            data = {"version": self.pick_version(draw), "key": key}
            if action == "finish":  # the confirm step's answer, mostly
                data["confirm"] = draw(st.sampled_from(["ja", "ja", "ja", "", "nee"]))
            response = self.post("session_undo" if action == "undo" else "session_finish", data)
        else:
            fields = self.legal_event(draw) if action == "legal" else None
            fields = fields or self.random_event(draw)
            key = self.pick_key(draw)
            data = {**fields, "version": self.pick_version(draw), "key": key}
            form = EventForm({k: v for k, v in data.items() if v is not None})
            event = form.event() if form.is_valid() else None
            response = self.post("session_event", data)
        if key is not None:
            self.keys.append(key)
            key = key.strip() or None  # as the form cleans it

        TRIED["requests"] += 1
        status = response.status_code
        if status >= 500:
            TRIED["server_errors"] += 1
        assert status < 500, (action, status)
        if status >= 400:
            assert response.content.strip(), "a refusal says why"
        if not Session.objects.filter(pk=self.session.pk).exists():
            assert (action, played) == ("finish", False), "only an unplayed game is thrown away"
            self.gone = True
            return
        after = self.version()
        if key in self.stored_keys:
            assert after == before, "a replayed key records nothing"
        if after == before:
            TRIED["refused"] += 1
            return
        assert after == before + 1, "one request, one write"
        assert key is not None, "a write without a key is not accepted"
        self.stored_keys.add(key)
        self.writes += 1
        TRIED["accepted"] += 1
        if action == "undo":
            assert self.accepted, "undo with nothing recorded"
            self.accepted.pop()
        elif action != "finish":
            assert event is not None, "only a valid form is recorded"
            self.accepted.append(event)

    def check(self) -> None:
        if self.gone:
            thrown = AuditEntry.objects.filter(
                club_id=self.session.club_id, action="finish", after={"discarded": True}
            )
            assert [e.before["session"] for e in thrown] == [self.session.pk]
            return
        session = Session.objects.get(pk=self.session.pk)
        assert events_of(session) == self.accepted
        assert projection_problems(session) == []
        keys = set(IdempotencyKey.objects.filter(session=session).values_list("key", flat=True))
        assert keys == self.stored_keys
        writes = AuditEntry.objects.filter(session=session, action__in=["event", "undo", "finish"])
        assert writes.count() == self.writes


@pytest.mark.django_db
@settings(FUZZ, max_examples=30)
@given(st.data())
def test_random_taps_lose_and_double_nothing(django_user_model, data):
    n = next(NUMBERS)
    club = make_club(f"Fuzz {n}", f"fuzz-{n}")
    scorer = django_user_model.objects.create_user(f"scorer-{n}")
    ClubMembership.objects.create(club=club, user=scorer, role="scorer")
    players = data.draw(st.sampled_from([["Anne", "Bas"], ["Anne", "Bas", "Cees", "Dirk"]]))
    rules = data.draw(st.sampled_from([{}, {"max_points": 5}, {"knock_cap": "table"}]))
    session = make_session(club, players, overrides=rules)
    client = Client()
    client.force_login(scorer)
    table = Table(client, session, htmx=data.draw(st.booleans()))
    TRIED["sessions"] += 1
    for _ in range(data.draw(st.integers(5, 30))):
        table.step(data.draw)
    table.check()


@pytest.mark.django_db
def test_oversized_bodies_get_a_4xx(client, session, django_user_model):
    scorer = django_user_model.objects.create_user("groot")
    ClubMembership.objects.create(club=session.club, user=scorer, role="scorer")
    client.force_login(scorer)
    url = reverse("session_event", args=[session.pk])
    huge = {"type": "win", "player": "Anne", "version": 0, "key": "k", "reason": "x" * 3_000_000}
    many = {f"field{n}": "x" for n in range(1_500)}
    for body in (huge, many):
        response = client.post(url, body)
        # 413: a body larger than any tap is refused before it is read (TapBodyLimitMiddleware).
        assert response.status_code == 413
        assert response.content.strip()
        TRIED["requests"] += 1
        TRIED["refused"] += 1
    assert session.rounds.count() == 0
