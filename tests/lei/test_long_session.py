"""A long evening stays light: the tablet's answer to a tap and the viewers' fragment show the
last 30 rounds one by one and fold the rest into one row, the totals always whole; the earlier
rounds have pages of their own (``?tot=<round>``). Sizes and query counts, never timings."""

from __future__ import annotations

import gzip
import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring import access
from scoring.engine import replay
from scoring.engine.simulate import random_session
from scoring.lei import services
from scoring.lei.tablet import SHOWN_ROUNDS, load_lei
from tests.builders import HX

DASH = "\u2013"  # the en dash of "Ronde 1-30" on the sheet
PLAYERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur"]
ROUND_ROW = re.compile(r'<span class="sheet__word">Ronde </span>(\d+)')
TOTAL = re.compile(r'<td[^>]*data-player="([^"]+)" data-total="(-?\d+)"')


def long_session(club, rounds: int):
    """A running session of ``rounds`` rounds, six players, few knocks (nobody out yet)."""
    data = random_session(
        random.Random(rounds),
        PLAYERS,
        rounds=rounds,
        rules={"max_points": 1000, "knock_cap": "none"},
        knock_chance=0.05,
        extras=False,
    )
    assert len(data["rounds"]) == rounds
    return services.session_import(club=club, data=data), data


def round_ending_tap(client, session):
    """The last trick of a new round, as the tablet posts it (saying which sheet it shows, an
    older one): the whole ``#live`` comes back, panel, totals and sheet."""
    session.refresh_from_db()
    winner = next(p.name for p in load_lei(session).players if p.win is None)
    data = {"type": "win", "player": winner, "version": session.version, "key": "k", "sheet": "x"}
    url = reverse("session_event", args=[session.pk])
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, data, **HX)
    assert response["X-Lei-Outcome"] == "recorded"
    return response, len(queries), winner


def whole_totals(data) -> dict[str, int]:
    return replay(data, open_round=True).totals


def test_a_tap_and_a_viewer_fragment_at_1200_rounds_stay_under_their_bounds(scorer, club):
    session, data = long_session(club, 1200)
    response, _, winner = round_ending_tap(scorer, session)
    html = response.content.decode()
    assert len(response.content) <= 50_000
    assert 'id="sheet"' in html
    assert ROUND_ROW.findall(html) == [str(n) for n in range(1201, 1201 - SHOWN_ROUNDS, -1)]
    assert f"Ronde 1{DASH}1.171 · samengevat" in html
    assert f'href="{reverse("tablet", args=[session.pk])}?tot=1171"' in html
    # The totals are the whole evening's, the 1,201st round included.
    data["rounds"].append({"events": [{"type": "win", "player": winner}]})
    totals = whole_totals(data)
    assert dict(TOTAL.findall(html)) == {name: str(totals[name]) for name in PLAYERS}

    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    fragment = scorer.get(viewer, HTTP_ACCEPT_ENCODING="gzip", **HX)
    assert fragment.status_code == 200
    assert fragment["Content-Encoding"] == "gzip"
    assert len(fragment.content) <= 20_000
    text = gzip.decompress(fragment.content).decode()
    assert len(ROUND_ROW.findall(text)) == SHOWN_ROUNDS
    assert dict(TOTAL.findall(text)) == {name: str(totals[name]) for name in PLAYERS}


def test_the_folded_row_adds_up_each_players_points(scorer, club):
    session, data = long_session(club, 40)
    html = scorer.get(reverse("tablet", args=[session.pk]), **HX).content.decode()
    result = replay(data, open_round=True)
    folded = re.search(r'class="sheet__row--folded">(.*?)</tr>', html).group(1)
    assert f"Ronde 1{DASH}10 · samengevat" in folded
    sums = [sum(rr.points.get(name, 0) for rr in result.rounds[:10]) for name in result.players]
    assert re.findall(r"<td[^>]*>(-?\d+)</td>", folded) == [str(s) for s in sums]


def test_a_short_session_folds_nothing(scorer, club):
    session, _ = long_session(club, SHOWN_ROUNDS)
    html = scorer.get(reverse("tablet", args=[session.pk]), **HX).content.decode()
    assert "samengevat" not in html
    assert len(ROUND_ROW.findall(html)) == SHOWN_ROUNDS


def test_a_taps_queries_do_not_grow_with_the_rounds(scorer, club):
    short, _ = long_session(club, 10)
    long, _ = long_session(club, 1200)
    _, few, _ = round_ending_tap(scorer, short)
    _, many, _ = round_ending_tap(scorer, long)
    assert few == many


def test_the_earlier_rounds_have_pages_of_their_own(scorer, club):
    session, data = long_session(club, 100)
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    totals = whole_totals(data)
    for url in (f"{viewer}?tot=50", f"{viewer}?tv=1&tot=50", f"/sessies/{session.pk}/?tot=50"):
        html = scorer.get(url).content.decode()
        assert ROUND_ROW.findall(html) == [str(n) for n in range(50, 20, -1)], url
        assert f"Ronde 51{DASH}100 · samengevat" in html
        assert f"Ronde 1{DASH}20 · samengevat" in html
        assert dict(TOTAL.findall(html)) == {name: str(totals[name]) for name in PLAYERS}
    html = scorer.get(f"{viewer}?tv=1&tot=50").content.decode()
    assert f'href="{viewer}?tv=1&amp;tot=20"' in html  # the page before
    assert f'href="{viewer}?tv=1&amp;tot=80"' in html  # the page after
    html = scorer.get(f"{viewer}?tot=80").content.decode()
    assert f'href="{viewer}"' in html  # the next page is the newest rounds'


@pytest.mark.parametrize("tot", ["abc", "0", "-5", "99999999", "1e3", "٣"])
def test_a_page_number_that_is_no_round_shows_a_sheet_all_the_same(scorer, club, tot):
    session, _ = long_session(club, 40)
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    for url in (f"{viewer}?tot={tot}", f"/sessies/{session.pk}/?tot={tot}"):
        response = scorer.get(url)
        assert response.status_code == 200, url
        assert len(ROUND_ROW.findall(response.content.decode())) == SHOWN_ROUNDS


def test_a_finished_long_session_stays_under_the_bound(client, club):
    session, _ = long_session(club, 1200)
    services.session_finish(session=session, version=session.version, key="end", actor=None)
    viewer = reverse("viewer", args=[access.viewer_token(session.pk)])
    fragment = client.get(viewer, HTTP_ACCEPT_ENCODING="gzip", **HX)
    assert "uitgespeeld" in gzip.decompress(fragment.content).decode()
    assert len(fragment.content) <= 20_000
