"""Every form, filter, URL and import field of the app sent its extremes: huge, negative, 400
and 5,000 digits, NaN and infinity, bytes that are no UTF-8, lone surrogates (as those bytes and
as JSON escapes), NUL characters, JSON nested thousands deep, formula text, HTML and template
tags, control characters, very long text. Every page of the app and of the admin is visited,
every form found on them is posted with the worst values, every URL converter is given them.

Every answer must be a success, a redirect or a 4xx, never a 5xx; no answer may be over
200 KB; no request may run more than ``MAX_QUERIES`` queries (unbounded work shows there
deterministically, where a timing would be flaky: the time of each request is measured and the
slowest is reported in BENCHMARKS.md, "Safety"); every accepted write adds or removes exactly
one event (nothing lost, nothing doubled) and the stored projection equals a fresh replay.
An import either stops with a message (``CommandError``) and writes nothing, or stores a
session whose projection equals its replay. A NUL anywhere in a request is answered 400 with
its message before any view (``toepen_site.middleware.NulCharacterMiddleware``).

The examples are derandomized (``tests/safety.py``'s ``FUZZ``) and bounded so the whole file
runs in well under a minute on a machine of its own (about 1,400 requests).
"""

from __future__ import annotations

import itertools
import json
import re
import time
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.contrib import admin
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from scoring import access
from scoring import urls as scoring_urls
from scoring.engine import DEFAULT_RULES, EVENT_TYPES
from scoring.evening import services as evenings
from scoring.lei import services
from scoring.models import ClubInvitation, ClubMembership, Player, Season, Session, Tournament
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import admin_form_data, make_club
from tests.safety import FUZZ, events_of, note, projection_problems, row_counts

MAX_BODY = 200 * 1024  # bytes of any answer
MAX_QUERIES = (
    100  # of any one request; the busiest, the admin's club page with its inlines, runs 73
)

EXTREMES = [
    "",
    " ",
    "0",
    "-0",
    "1",
    "-1",
    "-100",
    "100",
    "101",
    "1000",
    "1000000",
    "2147483647",
    "2147483648",
    "-2147483649",
    "3000000000",
    "5000000000",
    "9" * 400,
    "-" + "9" * 400,
    "1e30",
    "1e309",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "3.5",
    "0x10",
    "٣",
    "²",
    '=HYPERLINK("http://x.nl","klik")',
    "@SUM(A1:A9)",
    "+1+1",
    "\t=1+1",
    "\r=1+1",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{{ 7|add:7 }}{% debug %}",
    "\x00",
    "a\nb",
    "Ånne\u200f",
    "👑" * 50,
    "x" * 5000,
    "null",
    "[]",
    "{}",
]
# The worst text a request can carry: a NUL (refused before any view), a lone surrogate, which
# HTTP carries only as bytes no UTF-8 reader takes (Django reads U+FFFD) or as a JSON escape,
# JSON nested thousands deep and numbers of thousands of digits (Python reads at most 4,300).
WORST = [
    "\x00",
    "Anne\x00",
    "\\udcff",
    '"\\udcff"',
    '{"placement_points": ["\\ud83d"], "max_points": "\\u0000"}',
    "[" * 3000 + "]" * 3000,
    '{"a":' * 1000 + "1" + "}" * 1000,
    "9" * 5000,
    "-" + "9" * 4400,
    "1e400",
    "NaN",
    "0.5",
]
# The same in a URL, percent-encoded: a lone surrogate as the bytes UTF-8 would give it.
URL_WORST = [
    "%00",
    "%ED%B3%BF",
    "9" * 5000,
    "%C2%B2",  # "²": a digit to str.isdigit, none to int()
    "a%00b",
    "%5Cudcff",
    "%5B" * 2000,
    "%ED%A0%BD%FF",
    "-1",
    "1e400",
    "x" * 3000,
]
# The short ones among the extremes drawn for every field; all of them go everywhere below
# (test_every_...), in turn.
EXTREMES += [value for value in WORST if len(value) < 100]
HOSTILE = st.one_of(
    st.sampled_from(EXTREMES),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.text(max_size=20),
)
# Bodies that are no UTF-8, or no form at all.
RAW_BODIES = [
    (b"type=win&player=\xff\xfe&version=0&key=k", "application/x-www-form-urlencoded"),
    (
        b"type=penalty&player=Anne&points=%FF%FE&version=0&key=k",
        "application/x-www-form-urlencoded",
    ),
    (b"\xc3\x28\xa0\xa1", "application/x-www-form-urlencoded"),
    (
        b'--x\r\nContent-Disposition: form-data; name="type"\r\n\r\n\xff\r\n--x--',
        "multipart/form-data; boundary=x",
    ),
    (b"--x\r\n\r\n", "multipart/form-data; boundary=x"),
    (b'{"type": "win", "player": "Anne"}', "application/json"),
    (b"\x00" * 100, "text/plain"),
]

SEEN: dict[str, Any] = {
    "requests": 0,
    "server_errors": 0,
    "largest": 0,
    "largest_what": "",
    "slowest_ms": 0.0,
    "slowest_what": "",
    "most_queries": 0,
    "writes": 0,
    "lost_or_doubled": 0,
    "files": 0,
    "imported": 0,
}
NUMBERS = itertools.count(1)  # a club of its own for every example


@pytest.fixture(autouse=True, scope="module")
def note_hostile_figures():
    """What this file's tests tried, for bench/safety.py: noted after the last of them, whichever
    of them ran and in whatever order."""
    yield
    note(
        "hostile",
        requests=SEEN["requests"],
        server_errors=SEEN["server_errors"],
        max_answer_bytes=SEEN["largest"],
        max_ms=round(SEEN["slowest_ms"]),
        max_queries=SEEN["most_queries"],
        writes=SEEN["writes"],
        lost_or_doubled=SEEN["lost_or_doubled"],
        files=SEEN["files"],
        imported=SEEN["imported"],
    )
    # Shown with -s: where the largest and slowest answers came from.
    print(
        f"hostile: {SEEN['requests']} requests, largest {SEEN['largest']} B "
        f"({SEEN['largest_what']}), slowest {SEEN['slowest_ms']:.0f} ms ({SEEN['slowest_what']}), "
        f"most queries {SEEN['most_queries']}, {SEEN['files']} files"
    )


def send(what: str, call) -> Any:
    """One request, measured: its status, the size of its answer, its time and queries."""
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        response = call()
        body = b"".join(response.streaming_content) if response.streaming else response.content
        elapsed = (time.perf_counter() - started) * 1000
    SEEN["requests"] += 1
    if response.status_code >= 500:
        SEEN["server_errors"] += 1
    if len(body) > SEEN["largest"]:
        SEEN["largest"], SEEN["largest_what"] = len(body), what
    if elapsed > SEEN["slowest_ms"]:
        SEEN["slowest_ms"], SEEN["slowest_what"] = elapsed, what
    SEEN["most_queries"] = max(SEEN["most_queries"], len(queries))
    assert response.status_code < 500, (what, response.status_code)
    assert len(body) <= MAX_BODY, (what, len(body))
    assert len(queries) <= MAX_QUERIES, (what, len(queries))
    return response


def nul_refused(response: Any) -> bool:
    """The 400 of a request with a NUL in it (toepen_site/middleware.py)."""
    return response.status_code == 400 and "NUL-teken" in response.content.decode()


def version_of(session: Session) -> int:
    return Session.objects.values_list("version", flat=True).get(pk=session.pk)


# --- the tablet ------------------------------------------------------------------------------


class Table:
    """A session at one table, played by a member's tablet that sends hostile taps."""

    def __init__(self, client: Client, session: Session) -> None:
        self.client, self.session = client, session
        self.names = [s.player.name for s in session.seats.select_related("player")]
        self.keys = itertools.count(1)
        self.deltas: list[int] = []  # events each accepted write added, for what undo takes back

    def post(self, name: str, data: Any, *, htmx: bool, **raw: Any):
        url = reverse(name, args=[self.session.pk])
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        return send(f"POST {name}", lambda: self.client.post(url, data, **raw, **headers))

    def step(self, draw: Any) -> None:
        action = draw(
            st.sampled_from(["tap"] * 5 + ["penalty", "penalty", "win", "raw", "undo", "presence"])
        )
        htmx = draw(st.booleans())
        key = f"h-{next(self.keys)}"
        version = version_of(self.session) if draw(st.integers(0, 5)) else draw(HOSTILE)
        before_version, before_events = version_of(self.session), len(events_of(self.session))
        if action == "raw":
            body, kind = draw(st.sampled_from(RAW_BODIES))
            self.post("session_event", body, htmx=htmx, content_type=kind)
        elif action == "undo":
            self.post("session_undo", {"version": version, "key": key}, htmx=htmx)
        elif action == "presence":
            fields = {"version": version, "key": key, "join": draw(HOSTILE)}
            for index in range(len(self.names)):
                if draw(st.integers(0, 3)) == 0:
                    fields[f"absent_{index}"] = draw(st.one_of(st.just("toilet"), HOSTILE))
            self.post("session_presence", fields, htmx=htmx)
        else:
            player = draw(st.sampled_from(self.names)) if draw(st.integers(0, 4)) else draw(HOSTILE)
            if action == "penalty":
                fields = {"type": "penalty", "player": player, "points": draw(HOSTILE)}
                fields["reason"] = draw(HOSTILE)
            elif action == "win":
                fields = {"type": "win", "player": player}
            else:
                fields = {
                    "type": draw(st.one_of(st.sampled_from([*EVENT_TYPES, "bid_fold"]), HOSTILE)),
                    "player": player,
                }
                for field in ["jack", "rank", "challenger", "genuine", "points", "reason", "bid"]:
                    if draw(st.integers(0, 3)) == 0:
                        fields[field] = draw(HOSTILE)
            self.post("session_event", {**fields, "version": version, "key": key}, htmx=htmx)
        after_version, after_events = version_of(self.session), len(events_of(self.session))
        if after_version == before_version:
            assert after_events == before_events, (action, "a refused write changed the log")
            return
        SEEN["writes"] += 1
        delta = after_events - before_events
        if action == "undo":
            expected = -self.deltas.pop() if self.deltas else None
        elif action == "presence":
            expected = delta  # who is away folds in at the first raise: events of its own
            self.deltas.append(delta)
        else:
            expected = 1
            self.deltas.append(delta)
        if after_version != before_version + 1 or delta != expected:
            SEEN["lost_or_doubled"] += 1
        assert after_version == before_version + 1, "one request, one write"
        assert delta == expected, (action, "lost or doubled")

    def correct_round(self, draw: Any) -> None:
        """The round correction form with hostile rows."""
        number = self.session.rounds.order_by("-number").values_list("number", flat=True).first()
        if number is None:
            return
        rows = draw(st.integers(0, 3))
        data: dict[str, Any] = {
            "events-TOTAL_FORMS": str(rows) if draw(st.integers(0, 5)) else draw(HOSTILE),
            "events-INITIAL_FORMS": "0",
            "version": version_of(self.session),
            "key": f"h-{next(self.keys)}",
        }
        for row in range(rows):
            data[f"events-{row}-type"] = draw(st.one_of(st.sampled_from(EVENT_TYPES), HOSTILE))
            data[f"events-{row}-player"] = draw(st.one_of(st.sampled_from(self.names), HOSTILE))
            data[f"events-{row}-points"] = draw(HOSTILE)
        url = reverse("round_edit", args=[self.session.pk, number])
        before = version_of(self.session)
        send("POST round_edit", lambda: self.client.post(url, data))
        assert version_of(self.session) in (before, before + 1)

    def look(self) -> None:
        """Every page that draws the table, as the scorer, a viewer and the public see it."""
        session = Session.objects.select_related("club").get(pk=self.session.pk)
        slug = session.club.slug
        viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
        send("GET tablet", lambda: self.client.get(reverse("tablet", args=[session.pk])))
        send("GET viewer", lambda: Client().get(viewer))
        send("GET viewer tv", lambda: Client().get(viewer + "?tv=1"))
        day = session.played_on.isoformat()
        send("GET evening", lambda: Client().get(reverse("league_evening", args=[slug, day])))
        send(
            "GET league session",
            lambda: Client().get(reverse("league_session", args=[slug, session.pk])),
        )


@pytest.mark.django_db
@settings(FUZZ, max_examples=25, phases=[Phase.generate])
@given(st.data())
def test_hostile_taps_never_break_the_tablet_or_its_pages(django_user_model, data):
    n = next(NUMBERS)
    club = make_club(f"Vijand {n}", f"vijand-{n}", standings_public=True)
    scorer = django_user_model.objects.create_user(f"vijand-{n}")
    ClubMembership.objects.create(club=club, user=scorer, role="scorer")
    rules = {"knock_cap": data.draw(st.sampled_from(["knocker", "table", "none"]))}
    session = services.session_start(
        club=club, players=["Anne", "Bas", "Cees", "Dirk"], overrides=rules
    )
    client = Client()
    client.force_login(scorer)
    table = Table(client, session)
    for _ in range(data.draw(st.integers(4, 10))):
        table.step(data.draw)
    table.correct_round(data.draw)
    table.look()
    assert projection_problems(Session.objects.get(pk=session.pk)) == []


# --- starting a session ------------------------------------------------------------------------


@pytest.mark.django_db
@settings(FUZZ, max_examples=20, phases=[Phase.generate])
@given(st.data())
def test_hostile_set_ups_start_a_session_or_say_why(django_user_model, data):
    n = next(NUMBERS)
    club = make_club(f"Opzet {n}", f"vijand-opzet-{n}")
    scorer = django_user_model.objects.create_user(f"vijand-opzet-{n}")
    ClubMembership.objects.create(club=club, user=scorer, role="scorer")
    post: dict[str, Any] = {"club": club.pk, "game": "strafpunten", "preset": "standaard"}
    seats = data.draw(st.integers(2, 5))
    for seat in range(1, seats + 1):
        post[f"seat_{seat}"] = ["Anne", "Bas", "Cees", "Dirk", "Eva"][seat - 1]
    fields = [
        "club",
        "dealer",
        "game",
        "preset",
        "table_label",
        "season",
        "teams",
        "ante",
        "pot_minimum",
        "pass_payment",
        *(f"seat_{s}" for s in range(1, seats + 1)),
        *(f"rule_{key}" for key in DEFAULT_RULES),
    ]
    for field in data.draw(st.lists(st.sampled_from(fields), min_size=1, max_size=4, unique=True)):
        post[field] = data.draw(HOSTILE)
    client = Client()
    client.force_login(scorer)
    before = row_counts()
    response = send("POST session_new", lambda: client.post(reverse("session_new"), post))
    if nul_refused(response):
        assert row_counts() == before
        return
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert response.context["form"].errors, "the form says what is wrong"
        assert row_counts()["Session"] == before["Session"]
        return
    session = Session.objects.get(club=club)
    assert projection_problems(session) == []
    send("GET tablet", lambda: client.get(reverse("tablet", args=[session.pk])))
    send("GET player_search", lambda: client.get(reverse("player_search"), {"q": post["seat_1"]}))


# --- the league's pages, their URLs and query strings -------------------------------------------


@pytest.fixture
def public_league(django_user_model):
    club = make_club("Openbaar", "openbaar", standings_public=True)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    players = ["Anne", "Bas", "Cees"]
    session = services.session_start(club=club, players=players, season=season)
    for winner in ["Anne", "Bas", "Anne"]:
        services.session_record_event(
            session=session,
            event={"type": "win", "player": winner},
            version=version_of(session),
            key=f"l-{version_of(session)}",
        )
    player = Player.objects.get(club=club, name="Anne")
    return {"club": club, "season": season, "session": session, "player": player}


@pytest.mark.django_db
@settings(FUZZ, max_examples=30)
@given(data=st.data())
def test_hostile_urls_and_query_strings_of_the_league(public_league, data):
    club, season, session = public_league["club"], public_league["season"], public_league["session"]
    slug = club.slug
    number = data.draw(st.one_of(st.sampled_from(["0", "9" * 400, "2147483648"]), HOSTILE))
    digits = number if number.isascii() and number.isdigit() else "9" * 400
    pages = [
        f"/club/{slug}/seizoen/{digits}/",
        f"/club/{slug}/seizoen/{digits}/stand.csv",
        f"/club/{slug}/speler/{digits}/",
        f"/club/{slug}/archief/{digits}/",
        f"/club/{slug}/archief/{digits}/toepen.json",
        f"/sessies/{digits}/",
        reverse("league_archive", args=[slug]),
        reverse("league_player", args=[slug, public_league["player"].pk]),
        reverse("league_season", args=[slug, season.pk]),
        reverse("league_season_rounds_csv", args=[slug, season.pk]),
        reverse("home"),
    ]
    query = {
        name: data.draw(HOSTILE)
        for name in data.draw(
            st.lists(
                st.sampled_from(["datum", "speler", "tafel", "seizoen", "pagina", "sessie", "q"]),
                max_size=3,
                unique=True,
            )
        )
    }
    client = Client()
    for url in data.draw(st.lists(st.sampled_from(pages), min_size=1, max_size=3, unique=True)):
        send(
            f"GET {url.split('/')[3] if url.count('/') > 3 else url}",
            lambda u=url: client.get(u, query),
        )
    day = data.draw(st.one_of(st.dates().map(str), HOSTILE)).replace("/", "")
    if day.strip():
        send("GET evening", lambda: client.get(f"/club/{slug}/avond/{day}/"))
    send("GET viewer", lambda: client.get(f"/kijk/{data.draw(HOSTILE).replace('/', '') or 'x'}/"))
    assert session.pk


# --- the club admin -----------------------------------------------------------------------------


def hostile_json(draw: Any) -> str:
    """JSON (and not quite JSON) with extreme values where settings are expected."""
    value = draw(
        st.one_of(
            st.sampled_from(
                [
                    "[1, 2]",
                    '"x"',
                    '{"placement_points": [1e30, 1]}',
                    '{"placement_points": [' + "9" * 400 + "]}",
                    '{"best_n": NaN}',
                    '{"best_n": Infinity}',
                    '{"max_points": -1}',
                    '{"max_points": 3000000000}',
                    '{"knock_cap": "<script>"}',
                    "[" * 5000 + "]" * 5000,
                    '{"a":' * 2000 + "1" + "}" * 2000,
                    "9" * 5000,
                    '{"best_n": ' + "9" * 5000 + "}",
                    "1e400",
                    "null",
                    '"\\udcff"',
                    '{"knock_cap": "\\udcff"}',
                    '{"\\udcff": 1}',
                    '{"scoring": "\\u0000"}',
                    "{",
                    "",
                ]
            ),
            st.dictionaries(
                st.sampled_from([*DEFAULT_RULES, "scoring", "best_n", "placement_points"]),
                HOSTILE,
                max_size=3,
            ).map(json.dumps),
        )
    )
    return value


@pytest.mark.django_db
@settings(FUZZ, max_examples=20, phases=[Phase.generate])
@given(data=st.data())
def test_hostile_admin_fields_are_a_form_error_never_a_500(public_league, django_user_model, data):
    club, season = public_league["club"], public_league["season"]
    user, _ = django_user_model.objects.get_or_create(username="beheer", is_staff=True)
    ClubMembership.objects.get_or_create(club=club, user=user, role="admin")
    client = Client()
    client.force_login(user)
    target, field = data.draw(
        st.sampled_from(
            [
                ("season", "ranking"),
                ("season", "name"),
                ("season", "starts_on"),
                ("club", "rules"),
                ("club", "name"),
                ("player", "name"),
                ("session", "table_label"),
                ("session", "played_on"),
            ]
        )
    )
    obj = {
        "season": season,
        "club": club,
        "player": public_league["player"],
        "session": public_league["session"],
    }[target]
    url = reverse(f"admin:scoring_{target}_change", args=[obj.pk])
    page = send(f"GET admin {target}", lambda: client.get(url))
    value = hostile_json(data.draw) if field in ("ranking", "rules") else data.draw(HOSTILE)
    response = send(
        f"POST admin {target}.{field}",
        lambda: client.post(url, {**admin_form_data(page), field: value}),
    )
    assert response.status_code in (200, 302) or nul_refused(response)
    for url in [
        reverse("league_season", args=[club.slug, season.pk]),
        reverse("league_season_csv", args=[club.slug, season.pk]),
        reverse("league_player", args=[club.slug, public_league["player"].pk]),
    ]:
        send("GET league after admin", lambda u=url: Client().get(u))


# --- logging in ---------------------------------------------------------------------------------


@pytest.mark.django_db
@settings(FUZZ, max_examples=15)
@given(data=st.data())
def test_hostile_logins_are_refused_with_the_form(data):
    fields = {"username": data.draw(HOSTILE), "password": data.draw(HOSTILE)}
    address = f"10.9.{data.draw(st.integers(0, 255))}.{data.draw(st.integers(1, 254))}"
    response = send(
        "POST login", lambda: Client().post(reverse("login"), fields, REMOTE_ADDR=address)
    )
    assert response.status_code in (200, 429) or nul_refused(response)


# --- importing files ----------------------------------------------------------------------------


def session_file(rounds: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"format": "toepen/1", "players": ["Anne", "Bas", "Cees"], "rounds": rounds, **extra}


EXTREME_NUMBERS = [
    0,
    -1,
    101,
    -101,
    2**31,
    -(2**31) - 1,
    3_000_000_000,
    10**400,
    1e30,
    float("nan"),
    float("inf"),
    True,
    "12",
]


def hostile_file(draw: Any) -> bytes:
    """A session file with one extreme where a number or a name is expected."""
    kind = draw(st.sampled_from(["penalty", "start", "rule", "name"]))
    number = draw(st.sampled_from(EXTREME_NUMBERS))
    win = {"type": "win", "player": "Anne"}
    if kind == "penalty":
        event = {"type": "penalty", "player": "Bas", "points": number, "reason": "x"}
        data = session_file([{"events": [event, win]}])
    elif kind == "start":
        data = session_file([{"events": [win]}], start={"Bas": number})
    elif kind == "rule":
        key = draw(st.sampled_from(sorted(DEFAULT_RULES)))
        data = session_file([{"events": [win]}], rules={key: number})
    else:
        # json.dumps writes a lone surrogate as its escape, as a hostile file would.
        name = draw(st.one_of(HOSTILE, st.sampled_from(["\udcff", "An\ud83dne", "\udfff"])))
        data = session_file([{"events": [{"type": "win", "player": name}]}])
        data["players"] = [name, "Bas", "Cees"]
    return json.dumps(data, allow_nan=True).encode("utf-8")


def _rounds_nobody_loses(count: int) -> list[dict[str, Any]]:
    """Rounds without a knock that Anne, Bas and Cees win in turn, under lives that never end."""
    names = ["Anne", "Bas", "Cees"]
    return [{"events": [{"type": "win", "player": names[n % 3]}]} for n in range(count)]


def heavy_files() -> dict[str, bytes]:
    win = {"type": "win", "player": "Anne"}
    plain = json.dumps(session_file([{"events": [win]}]))
    many = session_file(_rounds_nobody_loses(33_000), rules={"max_points": 1000})
    return {
        "not UTF-8": plain.replace("Anne", "\udcff").encode("utf-8", "surrogateescape"),
        "a lone surrogate escaped": plain.replace("Anne", "\\udcff").encode(),
        "a NUL escaped": plain.replace("Anne", "An\\u0000ne").encode(),
        "latin-1": plain.replace("Anne", "Ånne").encode("latin-1"),
        "200,000 deep": (
            b'{"format": "toepen/1", "rounds": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
        ),
        "33,000 rounds": json.dumps(many).encode(),
        "3 MB of notes": json.dumps(
            session_file([{"events": [win]}], notes="x" * 3_000_000)
        ).encode(),
        "NaN": plain.replace('"rounds"', '"start": {"Bas": NaN}, "rounds"').encode(),
        "empty": b"",
    }


HEAVY = heavy_files()


def import_file(content: bytes, tmp_path_factory) -> None:
    """Import ``content``: refused with a message and nothing written, or stored whole."""
    path = Path(tmp_path_factory.mktemp("hostile")) / "session.json"
    path.write_bytes(content)
    club = f"import-{next(NUMBERS)}"
    before = row_counts()
    started = time.perf_counter()
    refusal = ""
    try:
        call_command("import_session", str(path), club=club, stdout=_Sink())
    except CommandError as error:
        refusal = str(error).strip() or "(a refusal without a message)"
    finally:
        SEEN["files"] += 1
        elapsed = (time.perf_counter() - started) * 1000
        if elapsed > SEEN["slowest_ms"]:
            SEEN["slowest_ms"], SEEN["slowest_what"] = elapsed, "import_session"
    if refusal:
        assert "without a message" not in refusal
        assert row_counts() == before, "a refused file writes nothing"
        return
    SEEN["imported"] += 1
    session = Session.objects.get(club__slug=club)
    assert projection_problems(session) == []
    for result in session.results.all():
        assert abs(result.total) < 2**31


@pytest.mark.django_db
@settings(FUZZ, max_examples=25, phases=[Phase.generate])
@given(data=st.data())
def test_hostile_numbers_and_names_in_files_are_refused_or_imported_whole(tmp_path_factory, data):
    import_file(hostile_file(data.draw), tmp_path_factory)


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_and_broken_files_are_refused_with_a_message_or_imported_whole(
    tmp_path_factory, name
):
    import_file(HEAVY[name], tmp_path_factory)


class _Sink:
    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/club/openbaar/seizoen/{n}/",
        "/club/openbaar/seizoen/{n}/stand.csv",
        "/club/openbaar/seizoen/{n}/rondes.csv",
        "/club/openbaar/speler/{n}/",
        "/club/openbaar/archief/{n}/",
        "/club/openbaar/archief/{n}/toepen.json",
        "/sessies/{n}/",
        "/sessies/{n}/ronde/{n}/",
    ],
)
def test_an_id_of_400_digits_in_a_url_is_not_found(public_league, django_user_model, url):
    member = django_user_model.objects.create_user("lid")
    ClubMembership.objects.create(club=public_league["club"], user=member)
    client = Client()
    client.force_login(member)
    for n in ["9" * 19, "9" * 400]:
        assert client.get(url.format(n=n)).status_code == 404, n


# --- every page, form, filter and URL converter, the admin's and the toernooi's too -------------

TURN = itertools.count()  # the worst values are handed out in turn: every one goes everywhere


def worst() -> str:
    return WORST[next(TURN) % len(WORST)]


def url_worst() -> str:
    return URL_WORST[next(TURN) % len(URL_WORST)]


@pytest.fixture
def full_site(public_league, django_user_model) -> dict[str, Any]:
    """The league's club with a toernooi whose first series is drawn and started, a superuser
    and a club admin: every page of the app has something to show."""
    club = public_league["club"]
    names = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans"]
    players = [Player.objects.get_or_create(club=club, name=name)[0] for name in names]
    tournament = tournaments.tournament_create(
        club=club,
        name="Wintertoernooi",
        season=public_league["season"],
        series_count=2,
        end_mode=Tournament.EndMode.ROUNDS,
        end_rounds=1,
    )
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=7)
    tournaments.series_start(series=series)
    # Table 1 has played its one round: its "Tafel beëindigen" is on the series page.
    game = series.tables.get(number=1).session
    winner = game.seats.order_by("position").first().player.name
    services.session_record_event(
        session=game, event={"type": "win", "player": winner}, version=game.version, key=None
    )
    # A second toernooi whose series is drawn, not started: its swap, redraw and start forms.
    drawn = tournaments.tournament_create(club=club, name="Zomertoernooi", series_count=1)
    checkin.tournament_check_in(tournament=drawn, players=players)
    tournaments.series_draw(tournament=drawn, expected_number=1, seed=3)
    root = django_user_model.objects.create_superuser("baas", password="x")
    beheer = django_user_model.objects.create_user("clubbeheer", password="x", is_staff=True)
    ClubMembership.objects.create(club=club, user=beheer, role="admin")
    invitation = ClubInvitation.objects.create(club=club, created_by=beheer)
    # A club evening with four checked in and a guest waiting: its confirm, add and draw forms.
    evening = evenings.evening_create(club=club)
    for name in names[:4]:
        evenings.checkin_by_organiser(evening=evening, name=name)
    evenings.checkin_guest(evening=evening, token=evening.checkin_token, name="Gast", phone="p")
    return {
        **public_league,
        "tournament": tournament,
        "drawn": drawn,
        "root": root,
        "beheer": beheer,
        "invitation": invitation,
        "evening": evening,
    }


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def pages(world: dict[str, Any]) -> dict[str, str]:
    """Every URL of scoring/urls.py with the world's ids, by its name."""
    session, tournament = world["session"], world["tournament"]
    slug, t = world["club"].slug, tournament.pk
    session.refresh_from_db()
    return {
        "viewer": reverse("viewer", args=[access.viewer_token(session.pk)]),
        "push_stream": reverse("push_stream")
        + "?deel="
        + reverse("viewer", args=[access.viewer_token(session.pk)]),
        "home": reverse("home"),
        "login": reverse("login"),
        "logout": reverse("logout"),
        "session_new": reverse("session_new"),
        "player_search": reverse("player_search"),
        "service_worker": reverse("service_worker"),
        **{
            name: reverse(name, args=[session.pk])
            for name in [
                "tablet",
                "session_event",
                "session_undo",
                "session_presence",
                "session_finish",
                "session_again",
                "scorer_link_change",
                "viewer_link_change",
                "session_share",
                "session_picture",
                "session_agree",
                "session_dispute",
            ]
        },
        "tournament_checkin_qr": reverse("tournament_checkin_qr", args=[t]),
        "tournament_table_accept": reverse("tournament_table_accept", args=[t, 1, 1]),
        "checkin_phone": reverse("checkin_phone", args=[world["evening"].checkin_token]),
        "evening_new": reverse("evening_new"),
        **{
            name: reverse(name, args=[world["evening"].pk])
            for name in [
                "evening_page",
                "evening_qr",
                "evening_poster",
                "evening_add",
                "evening_guest",
                "evening_draw",
                "evening_sign_out",
                "evening_flood",
                "evening_draw_discard",
                "evening_date",
            ]
        },
        "round_edit": reverse("round_edit", args=[session.pk, 1]),
        "scorer_link": reverse("scorer_link", args=[session.scorer_token or "x"]),
        "tournament_list": reverse("tournament_list"),
        "tournament_new": reverse("tournament_new"),
        "tournament_page": reverse("tournament_page", args=[t]),
        "tournament_checkin": reverse("tournament_checkin", args=[t]),
        "tournament_paste": reverse("tournament_paste", args=[t]),
        "tournament_draw": reverse("tournament_draw", args=[t]),
        **{
            name: reverse(name, args=[t, 1])
            for name in [
                "tournament_series",
                "tournament_series_redraw",
                "tournament_series_swap",
                "tournament_series_start",
                "tournament_series_finish",
                "tournament_series_reopen",
                "tournament_series_sheet",
                "tournament_series_clock",
                "tournament_table_cards",
            ]
        },
        "tournament_table_paper": reverse("tournament_table_paper", args=[t, 1, 1]),
        "tournament_table_finish": reverse("tournament_table_finish", args=[t, 1, 1]),
        "tournament_table_paper_undo": reverse("tournament_table_paper_undo", args=[t, 1, 1]),
        "invitation_accept": reverse("invitation_accept", args=[world["invitation"].token]),
        "tournament_final": reverse("tournament_final", args=[t]),
        "tournament_prizes": reverse("tournament_prizes", args=[t]),
        "tournament_prizes_public": reverse("tournament_prizes_public", args=[t]),
        "tournament_csv": reverse("tournament_csv", args=[t]),
        "tournament_public_prizes": reverse("tournament_public_prizes", args=[slug, t]),
        "tournament_public_csv": reverse("tournament_public_csv", args=[slug, t]),
        "tournament_standings": reverse("tournament_standings", args=[slug, t]),
        "tournament_tv": reverse("tournament_tv", args=[slug, t]),
        "league_club": reverse("league_club", args=[slug]),
        "league_season": reverse("league_season", args=[slug, world["season"].pk]),
        "league_season_csv": reverse("league_season_csv", args=[slug, world["season"].pk]),
        "league_season_rounds_csv": reverse(
            "league_season_rounds_csv", args=[slug, world["season"].pk]
        ),
        "league_player": reverse("league_player", args=[slug, world["player"].pk]),
        "league_ratings": reverse("league_ratings", args=[slug]),
        "league_ratings_csv": reverse("league_ratings_csv", args=[slug]),
        "league_archive": reverse("league_archive", args=[slug]),
        "league_session": reverse("league_session", args=[slug, session.pk]),
        "league_session_export": reverse("league_session_export", args=[slug, session.pk]),
        "league_evening_today": reverse("league_evening_today", args=[slug]),
        "league_evening": reverse("league_evening", args=[slug, session.played_on.isoformat()]),
        "league_session_picture": reverse("league_session_picture", args=[slug, session.pk]),
        "league_evening_picture": reverse(
            "league_evening_picture", args=[slug, session.played_on.isoformat()]
        ),
        "tournament_standings_picture": reverse("tournament_standings_picture", args=[slug, t]),
        "embed_standings": reverse("embed_standings", args=[slug]),
        "embed_evening_today": reverse("embed_evening_today", args=[slug]),
        "embed_evening": reverse("embed_evening", args=[slug, session.played_on.isoformat()]),
        "standings_feed": reverse("standings_feed", args=[slug]),
        "evening_feed": reverse("evening_feed", args=[slug, session.played_on.isoformat()]),
        "club_calendar": reverse("club_calendar", args=[slug]),
    }


# The query parameters the pages read (the archive's and the evening's filters, paging, the TV).
QUERY_PARAMETERS = [
    "datum",
    "speler",
    "tafel",
    "seizoen",
    "pagina",
    "sessie",
    "q",
    "club",
    "formaat",
    "tv",
    "tot",
    "next",
]


class FormsOf(HTMLParser):
    """The forms of a page as a browser would send them: where to, how, and each field's value
    as drawn (the first choice of a select, the first button's value)."""

    def __init__(self, page_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page_url = page_url
        self.forms: list[tuple[str, str, dict[str, str]]] = []
        self._fields: dict[str, str] | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        fields = self._fields
        if tag == "form":
            self._fields = {}
            action = a.get("action") or self.page_url
            self.forms.append((action, a.get("method", "get").lower(), self._fields))
        elif fields is None:
            return
        elif tag == "option" and self._select:
            if not fields.get(self._select) or "selected" in a:
                fields[self._select] = a.get("value", "")
        elif not a.get("name"):
            return
        elif tag in ("input", "button"):
            fields.setdefault(a["name"], a.get("value", "on" if tag == "input" else ""))
        elif tag == "select":
            self._select = a["name"]
            fields.setdefault(a["name"], "")
        elif tag == "textarea":
            self._textarea = a["name"]
            fields.setdefault(a["name"], "")

    def handle_data(self, data: str) -> None:
        if self._textarea and self._fields is not None:
            self._fields[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._fields = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def forms_of(url: str, response: Any) -> list[tuple[str, str, dict[str, str]]]:
    if not response.get("Content-Type", "").startswith("text/html"):
        return []
    parser = FormsOf(url)
    parser.feed(response.content.decode())
    return parser.forms


@pytest.mark.django_db
def test_every_page_and_every_form_on_it_takes_the_worst_values(full_site):
    """Each page of scoring/urls.py, as the public and as the site's admin, with the worst
    values in every query parameter a page reads; then every distinct form found on the pages,
    posted (or, for a filter, sent) as drawn with two of its fields the worst values, in turn."""
    urls = pages(full_site)
    assert set(urls) == {p.name for p in scoring_urls.urlpatterns}, "a page is not visited"
    root, public = logged_in(full_site["root"]), Client()
    found: dict[tuple[str, str, tuple[str, ...]], dict[str, str]] = {}
    logout = reverse("logout")
    drawn = full_site["drawn"].pk
    urls["drawn toernooi"] = reverse("tournament_page", args=[drawn])
    urls["drawn series"] = reverse("tournament_series", args=[drawn, 1])
    for name, url in urls.items():
        if name == "logout":
            continue
        query = "&".join(f"{p}={url_worst()}" for p in QUERY_PARAMETERS)
        send(f"GET {name}?worst", lambda u=url, q=query: public.get(f"{u}?{q}"))
        send(f"GET {name}?worst (admin)", lambda u=url, q=query: root.get(f"{u}?{q}"))
        page = send(f"GET {name} (admin)", lambda u=url: root.get(u))
        for action, method, fields in forms_of(url, page):
            target = urlsplit(action).path or url
            if target != logout and fields:
                found.setdefault((target, method, tuple(sorted(fields))), fields)
    assert len(found) > 20, found.keys()  # the tablet's, the toernooi's, the set-up, the filters
    for (target, method, names), fields in found.items():
        for round_ in range(2):
            data = dict(fields)
            for index in (round_, round_ + len(names) // 2):
                data[names[index % len(names)]] = worst()
            if method == "get":
                # The filter forms of the pages: their values in the query string.
                send(f"GET form {target}", lambda t=target, d=data: root.get(t, d))
            else:
                send(f"POST form {target}", lambda t=target, d=data: root.post(t, d))
    # The tablet's writes kept their log whole (nothing half-written by a refusal).
    session = Session.objects.filter(pk=full_site["session"].pk).first()
    if session is not None:
        assert projection_problems(session) == []


def converter_values(kind: str) -> list[str]:
    """What a URL converter of ``kind`` is given: its extremes that still match it, and for
    text all of the worst (which must fail to match, be refused, or be the view's 404)."""
    if kind == "IdConverter":  # 1 to 18 digits: longer is no id, and never reaches a query
        return ["0", "9" * 18, "9" * 19]
    if kind == "SlugConverter":
        return ["openbaar", "x" * 3000, "-"]
    return URL_WORST


@pytest.mark.django_db
def test_every_url_converter_takes_the_worst_values(full_site):
    """Every pattern of scoring/urls.py with each converter given its extremes and the worst
    text: a GET as the site's admin, and the first ones as the public and as a POST of worst
    form fields."""
    root, public = logged_in(full_site["root"]), Client()
    for pattern in scoring_urls.urlpatterns:
        route = str(pattern.pattern)
        kinds = {name: type(c).__name__ for name, c in pattern.pattern.converters.items()}
        turns = max([len(converter_values(kind)) for kind in kinds.values()] or [1])
        for turn in range(turns):
            values = {
                name: converter_values(kind)[turn % len(converter_values(kind))]
                for name, kind in kinds.items()
            }
            url = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m, v=values: v[m[1]], route)
            send(f"GET {pattern.name} {turn}", lambda u=url: root.get(u))
            if turn < 2:
                send(f"GET {pattern.name} (public)", lambda u=url: public.get(u))
                form = {"version": worst(), "key": worst(), "type": "win", "player": worst()}
                send(f"POST {pattern.name}", lambda u=url, f=form: root.post(u, f))


def filter_parameters(response: Any) -> set[str]:
    """The query parameters of a changelist's filter links (its list_filter, date hierarchy)."""
    names: set[str] = set()
    for href in re.findall(r'href="(\?[^"]*)"', response.content.decode()):
        names |= {key for key, _ in parse_qsl(unescape(href[1:]), keep_blank_values=True)}
    return names


ADMIN_PARAMETERS = {"q", "o", "p", "all", "e", "_to_field", "_popup", "_changelist_filters"}


@pytest.mark.django_db
def test_every_admin_changelist_filter_search_and_object_url_takes_the_worst_values(full_site):
    """Each model of the admin: its changelist with the worst value in its search and in each of
    its filters (as the site's admin and as a club admin), its actions given worst ids, the
    pages of one of its objects, and its object URLs given the worst ids."""
    root, beheer = logged_in(full_site["root"]), logged_in(full_site["beheer"])
    for model, model_admin in admin.site._registry.items():
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        changelist = reverse(f"{info}_changelist")
        page = send(f"GET {info} changelist", lambda u=changelist: root.get(u))
        for parameter in sorted(filter_parameters(page) | ADMIN_PARAMETERS):
            # At most 1,000 characters: a changelist repeats its query string in each of its
            # filter links, so its answer grows with it (gunicorn takes a request line of 4 KB).
            url = f"{changelist}?{parameter}={url_worst()[:1000]}"
            send(f"GET {info} ?{parameter}", lambda u=url: root.get(u))
        url = (
            f"{changelist}?q={url_worst()[:1000]}&{sorted(filter_parameters(page) or ['o'])[0]}=-1"
        )
        send(f"GET {info} (club admin)", lambda u=url: beheer.get(u))
        for action in model_admin.get_actions(_request(full_site["root"])):
            data = {"action": action, "index": "0", "_selected_action": [worst(), "9" * 30]}
            send(f"POST {info} {action}", lambda u=changelist, d=data: root.post(u, d))
        for object_id in ["%00", "9" * 30, "%ED%B3%BF", "-1", "1e400", "x" * 3000]:
            url = reverse(f"{info}_change", args=["0"]).replace("/0/", f"/{object_id}/")
            send(f"GET {info} object {object_id[:6]}", lambda u=url: root.get(u))
        obj = model._default_manager.order_by("pk").first()
        if obj is not None:
            for view in ("history",):
                url = reverse(f"{info}_{view}", args=[obj.pk])
                send(f"GET {info} {view}", lambda u=url: root.get(u))


def _request(user: Any) -> Any:
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request


@pytest.mark.django_db
def test_every_admin_form_takes_the_worst_values_and_the_autocomplete_too(full_site):
    """The change page of one object of each model, and the add page where there is one, posted
    back with two of its fields (the form's, its inlines', its management form's) the worst
    values in turn; the autocomplete with the worst term, page and names."""
    root = logged_in(full_site["root"])
    for model in admin.site._registry:
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        obj = model._default_manager.order_by("pk").first()
        urls = [reverse(f"{info}_change", args=[obj.pk])] if obj is not None else []
        urls.append(reverse(f"{info}_add"))
        for url in urls:
            page = send(f"GET {info}", lambda u=url: root.get(u))
            context = page.context or {}
            may = "has_add_permission" if context.get("add") else "has_change_permission"
            if page.status_code != 200 or "adminform" not in context or not context.get(may):
                continue  # no such page, or one to look at only (its POST is a 403)
            data = admin_form_data(page)
            names = sorted(data)
            for round_ in range(2 if names else 0):
                posted = dict(data)
                for index in (round_, round_ + len(names) // 2):
                    posted[names[index % len(names)]] = worst()
                response = send(f"POST {info}", lambda u=url, d=posted: root.post(u, d))
                assert response.status_code in (200, 302) or nul_refused(response)
    autocomplete = reverse("admin:autocomplete")
    base = {"app_label": "scoring", "model_name": "session", "field_name": "season"}
    for field in ["term", "page", "app_label", "model_name", "field_name"]:
        for value in (url_worst(), url_worst()):
            query = "&".join(f"{k}={v}" for k, v in {**base, field: value}.items())
            send(f"GET autocomplete {field}", lambda q=query: root.get(f"{autocomplete}?{q}"))
    assert Tournament.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("year", ["9" * 30, "99999999999"])
def test_a_year_no_date_can_have_is_a_bad_filter_in_the_admin_not_a_500(full_site, year):
    """Django's date hierarchy turns ?at__year= into a date: OverflowError for a huge year."""
    client = logged_in(full_site["root"])
    response = client.get(reverse("admin:scoring_auditentry_changelist"), {"at__year": year})
    assert response.status_code in (200, 302)
