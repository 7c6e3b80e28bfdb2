"""Every form, URL and import field of the app sent its extremes: huge, negative, 400 digits,
NaN and infinity, bytes that are no UTF-8, formula text, HTML and template tags, control
characters, very long text.

Every answer must be a success, a redirect or a 4xx, never a 5xx; no answer may be over
200 KB; no request may run more than ``MAX_QUERIES`` queries (unbounded work shows there
deterministically, where a timing would be flaky: the time of each request is measured and the
slowest is reported in BENCHMARKS.md, "Safety"); every accepted write adds or removes exactly
one event (nothing lost, nothing doubled) and the stored projection equals a fresh replay.
An import either stops with a message (``CommandError``) and writes nothing, or stores a
session whose projection equals its replay.

The examples are derandomized (``tests/safety.py``'s ``FUZZ``) and bounded so the whole file
runs in well under a minute.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from scoring import access
from scoring.engine import DEFAULT_RULES, EVENT_TYPES
from scoring.lei import services
from scoring.models import ClubMembership, Player, Season, Session
from tests.conftest import admin_form_data, make_club
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
def figures():
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
def league(django_user_model):
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
def test_hostile_urls_and_query_strings_of_the_league(league, data):
    club, season, session = league["club"], league["season"], league["session"]
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
        reverse("league_player", args=[slug, league["player"].pk]),
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
    if day.strip() and "\x00" not in day:
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
def test_hostile_admin_fields_are_a_form_error_never_a_500(league, django_user_model, data):
    club, season = league["club"], league["season"]
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
        "player": league["player"],
        "session": league["session"],
    }[target]
    url = reverse(f"admin:scoring_{target}_change", args=[obj.pk])
    page = send(f"GET admin {target}", lambda: client.get(url))
    value = hostile_json(data.draw) if field in ("ranking", "rules") else data.draw(HOSTILE)
    response = send(
        f"POST admin {target}.{field}",
        lambda: client.post(url, {**admin_form_data(page), field: value}),
    )
    assert response.status_code in (200, 302)
    for url in [
        reverse("league_season", args=[club.slug, season.pk]),
        reverse("league_season_csv", args=[club.slug, season.pk]),
        reverse("league_player", args=[club.slug, league["player"].pk]),
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
    assert response.status_code in (200, 429)


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
        name = draw(HOSTILE)
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
def test_an_id_of_400_digits_in_a_url_is_not_found(league, django_user_model, url):
    member = django_user_model.objects.create_user("lid")
    ClubMembership.objects.create(club=league["club"], user=member)
    client = Client()
    client.force_login(member)
    for n in ["9" * 19, "9" * 400]:
        assert client.get(url.format(n=n)).status_code == 404, n
