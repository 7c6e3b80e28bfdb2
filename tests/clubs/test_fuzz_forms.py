"""The club admin's round correction form and the session set-up form, fuzzed over HTTP.

Correction: random rows (the round's own events shuffled, dropped, changed, plus garbage),
absent and joining players, good and bad versions and keys, broken management forms. Every
answer is a success or a 4xx, never a 5xx; an accepted correction (the version went up by one)
stores exactly the rows the form meant, a refused one changes nothing, and the projection always
equals a fresh replay.

Set-up: random seats, dealers, presets, rule values, teams and pot amounts. A session is either
started (a redirect to its tablet, with a projection equal to its replay) or the form is shown
again with a message and nothing is written.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import DEFAULT_RULES
from scoring.engine.simulate import random_session
from scoring.lei import services
from scoring.lei.admin_forms import EventFormSet, PresenceForm
from scoring.lei.forms import MAX_SEATS
from scoring.models import ClubMembership, Round, Season, Session
from tests.builders import make_club
from tests.safety import FUZZ, note, projection_problems, row_counts

ODD_TEXT = st.one_of(
    st.text(max_size=10),
    st.sampled_from(["", " ", "\x00", "anne", "Ånne\u200f", "👑", "X" * 250, "Anne, Anne"]),
)
ODD_NUMBER = st.one_of(
    st.integers(min_value=-(2**40), max_value=2**40),
    st.sampled_from(["", "abc", str(2**63), "3.5", "-0", "1e3"]),
)
KINDS = ["knock", "fold", "stay", "win", "blind_knock", "four_of_a_kind", "laundry", "penalty"]

TRIED = {"corrections": 0, "accepted": 0, "refused": 0, "setups": 0, "started": 0}
NUMBERS = itertools.count(1)  # a club of its own for every example


@pytest.fixture(autouse=True, scope="module")
def note_forms_figures():
    """What this file's tests tried, for bench/safety.py: noted after the last of them, whichever
    of them ran and in whatever order."""
    yield
    note("forms", **TRIED)


# --- the round correction form -----------------------------------------------------------------


def row_fields(event: dict[str, Any], players: list[str], draw: Any) -> dict[str, Any]:
    """An editor row: the event as it is, or (with ``draw``) maybe changed or garbage."""
    row: dict[str, Any] = {"type": event.get("type", ""), "player": event.get("player", "")}
    if event.get("jack"):
        row["jack"] = "on"
    for name in ("rank", "points", "reason", "challenger"):
        if name in event:
            row[name] = event[name]
    if "genuine" in event:
        row["genuine"] = "true" if event["genuine"] else "false"
    if draw is None:
        return row
    change = draw(st.sampled_from(["keep"] * 3 + ["player", "type", "garbage", "delete"]))
    if change == "player":
        row["player"] = draw(st.one_of(st.sampled_from(players), ODD_TEXT))
    elif change == "type":
        row["type"] = draw(st.sampled_from([*KINDS, "", "bogus"]))
    elif change == "garbage":
        field = draw(st.sampled_from(["points", "jacks_shown", "rank", "reason", "genuine"]))
        row[field] = draw(st.one_of(ODD_TEXT, ODD_NUMBER))
    elif change == "delete":
        row["DELETE"] = "on"
    return row


def correction(round_: Round, players: list[str], version: int, draw: Any) -> dict[str, Any]:
    """The POST of the correction page: a fair edit, or (one time in three) a hostile one."""
    hostile = draw(st.integers(0, 2)) == 0
    events = list(round_.events)
    if events and draw(st.integers(0, 5)) == 0:
        events = draw(st.permutations(events))
    for _ in range(draw(st.sampled_from([0, 0, 0, 0, 1, 2]))):
        events.append(
            {"type": draw(st.sampled_from(KINDS)), "player": draw(st.sampled_from(players))}
        )
    rows = [row_fields(e, players, draw if hostile else None) for e in events]
    data: dict[str, Any] = {
        "events-TOTAL_FORMS": len(rows),
        "events-INITIAL_FORMS": 0,
        "events-MIN_NUM_FORMS": 0,
        "events-MAX_NUM_FORMS": 1000,
    }
    broken = draw(st.sampled_from([None] * 15 + ["TOTAL_FORMS", "INITIAL_FORMS", "gone"]))
    if not hostile:
        broken = None
    if broken == "gone":
        data = {}
    elif broken:
        data[f"events-{broken}"] = draw(ODD_NUMBER)
    for index, row in enumerate(rows):
        data[f"events-{index}-ORDER"] = index + 1
        data.update({f"events-{index}-{k}": v for k, v in row.items()})
    for index, _name in enumerate(players):
        if draw(st.integers(0, 9)) == 0:
            data[f"absent_{index}"] = draw(st.sampled_from(["toilet", "drinks", "", "bar"]))
    if draw(st.integers(0, 9)) == 0:
        data["join"] = draw(ODD_TEXT)
    data["version"] = version
    data["key"] = "fresh"
    if hostile:
        data["version"] = draw(st.sampled_from([version, version - 1, "", "x", 2**63]))
        data["key"] = draw(st.sampled_from(["fresh", "same", "", "k" * 101]))
    return data


@pytest.mark.django_db
@settings(FUZZ, max_examples=25)
@given(st.data())
def test_random_corrections_are_stored_whole_or_not_at_all(django_user_model, data):
    n = next(NUMBERS)
    club = make_club(f"Correctie {n}", f"correctie-{n}")
    admin = django_user_model.objects.create_user(
        f"beheer-{n}", is_staff=True
    )  # force_login: no hashing
    ClubMembership.objects.create(club=club, user=admin, role="admin")
    players = ["Anne", "Bas", "Cees", "Dirk"][: data.draw(st.integers(2, 4))]
    file = random_session(random.Random(data.draw(st.integers(0, 50))), players, rounds=6)
    session = services.session_import(club=club, data=file)
    client = Client()
    client.force_login(admin)
    for _ in range(data.draw(st.integers(1, 4))):
        rounds = list(session.rounds.order_by("number"))
        if not rounds:
            break
        round_ = data.draw(st.sampled_from(rounds))
        session.refresh_from_db()
        version = session.version
        post = correction(round_, players, version, data.draw)
        if post["key"] == "fresh":
            post["key"] = f"admin-{n}-{version}-{data.draw(st.integers(0, 10**6))}"
        elif post["key"] == "same":
            post["key"] = f"admin-{n}-same"
        before_file, before_rows = session.to_file(), row_counts()
        url = reverse("admin:scoring_round_change", args=[round_.pk])
        response = client.post(url, post)
        TRIED["corrections"] += 1
        assert response.status_code < 500
        session.refresh_from_db()
        if session.version == version:
            TRIED["refused"] += 1
            assert session.to_file() == before_file, "a refused correction changes nothing"
            assert row_counts()["AuditEntry"] == before_rows["AuditEntry"]
            continue
        TRIED["accepted"] += 1
        assert session.version == version + 1
        assert response.status_code == 302
        formset = EventFormSet(post, prefix="events", form_kwargs={"players": players})
        presence = PresenceForm(post, players=players)
        assert formset.is_valid()
        assert presence.is_valid()
        round_.refresh_from_db()
        assert round_.events == formset.events()
        assert round_.absent == presence.absent()
        assert projection_problems(session) == []
    assert projection_problems(session) == []


# --- the session set-up form --------------------------------------------------------------------


def rule_value(key: str, draw: Any) -> Any:
    default = DEFAULT_RULES[key]
    if isinstance(default, bool):
        return draw(st.sampled_from(["ja", "nee", "", "misschien"]))
    if isinstance(default, int) and not isinstance(default, bool):
        return draw(st.one_of(st.integers(-5, 40), ODD_NUMBER))
    return draw(st.one_of(st.just(str(default)), ODD_TEXT))


@pytest.mark.django_db
@settings(FUZZ, max_examples=40)
@given(st.data())
def test_random_set_ups_start_a_session_or_say_why(django_user_model, data):
    n = next(NUMBERS)
    club = make_club(f"Opzet {n}", f"opzet-{n}")
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    scorer = django_user_model.objects.create_user(f"opzet-{n}")
    ClubMembership.objects.create(club=club, user=scorer, role="scorer")
    seated = data.draw(
        st.lists(
            st.sampled_from(["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Huub"]),
            min_size=2,
            max_size=MAX_SEATS,
            unique=True,
        )
    )
    if data.draw(st.integers(0, 3)) == 0:  # one odd name: empty, twice, unicode, too long
        seated[data.draw(st.integers(0, len(seated) - 1))] = data.draw(
            st.one_of(ODD_TEXT, st.sampled_from(["anne", "ANNE", ""]))
        )
    sometimes = st.integers(0, 9)
    post: dict[str, Any] = {
        "club": club.pk if data.draw(sometimes) else data.draw(st.sampled_from([club.pk + 9, "x"])),
        "dealer": data.draw(st.integers(1, len(seated))) if data.draw(sometimes) else 9,
        "game": "strafpunten" if data.draw(sometimes) else data.draw(st.sampled_from(["pot", "x"])),
        "preset": data.draw(st.sampled_from(["standaard", "kroeg", "pagat", "gezin", "x"])),
        "table_label": data.draw(ODD_TEXT) if not data.draw(sometimes) else "Tafel 1",
    }
    for seat, name in enumerate(seated, start=1):
        post[f"seat_{seat}"] = name
    if data.draw(st.integers(0, 5)) == 0:
        post["teams"] = "on"
    if data.draw(st.integers(0, 3)) == 0:
        post["season"] = data.draw(st.sampled_from([season.pk, season.pk, season.pk + 9, "x"]))
    for key in DEFAULT_RULES:
        if data.draw(st.integers(0, 15)) == 0:
            post[f"rule_{key}"] = rule_value(key, data.draw)
    for key in ("ante", "pot_minimum", "pass_payment"):
        if data.draw(st.integers(0, 3)) == 0:
            post[key] = data.draw(st.one_of(st.sampled_from(["0.50", "1", "-1", "0"]), ODD_NUMBER))

    client = Client()
    client.force_login(scorer)
    before = row_counts()
    response = client.post(reverse("session_new"), post)
    TRIED["setups"] += 1
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert response.context["form"].errors, "the form says what is wrong"
        assert row_counts()["Session"] == before["Session"]
        return
    TRIED["started"] += 1
    session = Session.objects.get(club=club)
    assert response["Location"] == reverse("tablet", args=[session.pk])
    assert projection_problems(session) == []
