"""The round-only answer to a tap: a tap that leaves the sheet as the tablet shows it
is answered with the round section alone. ``Lei.sheet_key`` decides; it must never say "the
same" of two different sheets."""

from __future__ import annotations

import copy
import random

import pytest
from django.template import engines
from django.urls import reverse
from django.utils import translation

from scoring.engine.simulate import random_session
from scoring.lei import tablet
from scoring.models import Session
from tests.builders import record, tap


def prefixes(data):
    """The session file after each event (and each presence change) in turn."""
    yield {**data, "rounds": []}
    rounds = []
    for played in data["rounds"]:
        shell = {k: v for k, v in played.items() if k != "events"}
        rounds.append({**shell, "events": []})
        if shell:
            yield {**data, "rounds": copy.deepcopy(rounds)}
        for event in played["events"]:
            rounds[-1]["events"].append(event)
            yield {**data, "rounds": copy.deepcopy(rounds)}


SHEET = (
    '{% import "scoring/lei/_sheet.html" as sheet with context %}'
    "{{ sheet.totals() }}{{ sheet.lei_part(True) }}"
)


def sheet_html(lei: tablet.Lei) -> str:
    """The totals and the sheet as the tablet draws them (templates/jinja2/scoring/lei/)."""
    template = engines["jinja2"].env.from_string(SHEET)
    return template.render({"lei": lei, "session": lei.session, "can_score": True})


@pytest.mark.parametrize("preset", ["standaard", "kroeg", "pagat", "gezin"])
@pytest.mark.parametrize("seed", range(3))
def test_the_same_sheet_key_means_the_same_sheet(preset, seed):
    """Over random sessions with every kind of event (absent, join, laundry, penalties, blind
    knocks...), two states with one key draw one sheet; and the key is the same after most taps
    inside a round (else the round-only answer would never be sent)."""
    rng = random.Random(f"{preset}-{seed}")
    data = random_session(rng, ["Anne", "Bas", "Cees", "Dirk"], rounds=8, preset=preset)
    session = Session(pk=1, game="strafpunten", status=Session.Status.RUNNING)
    seen: dict[str, str] = {}
    same_as_before = 0
    before = None
    with translation.override("nl"):
        for state in prefixes(data):
            lei = tablet.build_lei(session, state)
            html = sheet_html(lei)
            assert seen.setdefault(lei.sheet_key, html) == html
            same_as_before += lei.sheet_key == before
            before = lei.sheet_key
    assert same_as_before >= 3


def test_the_key_changes_with_the_language_and_the_state():
    data = random_session(random.Random(3), ["Anne", "Bas", "Cees"], rounds=3, open_last=True)
    running = Session(pk=1, game="strafpunten", status=Session.Status.RUNNING)
    locked = Session(pk=1, game="strafpunten", status=Session.Status.LOCKED)
    with translation.override("nl"):
        dutch = tablet.build_lei(running, data).sheet_key
        assert tablet.build_lei(locked, data).sheet_key != dutch
    with translation.override("en"):
        assert tablet.build_lei(running, data).sheet_key != dutch


# --- through the view ---------------------------------------------------------------------


def shown_key(html: str) -> str:
    return html.split('name="sheet" value="', 1)[1].split('"', 1)[0]


def test_a_tap_inside_a_round_gets_the_round_section_and_a_round_end_the_whole_lei(scorer, session):
    page = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    sheet = shown_key(page)

    knock = tap(scorer, session, "knock", "Bas", sheet=sheet)
    html = knock.content.decode()
    assert html.lstrip().startswith('<section id="round"')
    assert knock["HX-Retarget"] == "#round"
    assert knock["HX-Reswap"] == "outerHTML"
    assert 'id="sheet"' not in html
    assert shown_key(html) == sheet
    assert f'data-version="{session.version + 1}"' in html

    win = tap(scorer, session, "win", "Bas", sheet=sheet)
    html = win.content.decode()
    assert html.lstrip().startswith('<div id="live"')
    assert "HX-Retarget" not in win
    assert 'id="sheet"' in html
    assert shown_key(html) != sheet


def test_a_refusal_keeps_the_sheet_and_a_stale_tablet_gets_the_whole_lei(scorer, session):
    sheet = shown_key(scorer.get(reverse("tablet", args=[session.pk])).content.decode())
    refused = tap(scorer, session, "fold", "Bas", sheet=sheet)  # nobody knocked
    assert 'id="refusal"' in refused.content.decode()
    assert refused["HX-Retarget"] == "#round"

    record(session, "win", "Anne")  # another tablet ends the round
    stale = tap(scorer, session, "knock", "Bas", version=session.version - 1)
    assert 'id="stale"' in stale.content.decode()
    assert stale.content.decode().lstrip().startswith('<div id="live"')


def test_a_tap_without_the_field_gets_the_whole_lei(scorer, session):
    """Older pages and plain clients send no ``sheet``: they get what they always got."""
    response = tap(scorer, session, "knock", "Bas", sheet="")
    assert response.content.decode().lstrip().startswith('<div id="live"')
