"""Builders: one call makes what a test needs (a club, a session, a played round, a tap), and
small readers of what a page shows. Plain functions over the app's own services rather than
factory_boy: a session is only real when ``services.session_start`` made it and its rounds went
through ``services.session_record_event``, so a factory would call these functions anyway.

Tests import from here; fixtures (tests/conftest.py and each room's conftest.py) build on it.
"""

from __future__ import annotations

import datetime
import itertools
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from django.urls import reverse

from scoring.lei import services
from scoring.models import Club, Session

# The header HTMX sends with every request it makes: ``client.post(url, data, **HX)``.
HX = {"HTTP_HX_REQUEST": "true"}

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "rules-examples"
PEOPLE = ["Anne", "Bas", "Cees", "Dirk", "Eva"]

_keys = itertools.count(1)


def example_files() -> list[Path]:
    """The worked examples of RULES.md §15, each with its ``.expected.json``."""
    return sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def load_example(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    expected = path.with_name(path.name.removesuffix(".json") + ".expected.json")
    return json.loads(path.read_text()), json.loads(expected.read_text())


def make_club(name: str = "De Gouden Boer", slug: str = "gouden-boer", **fields: Any) -> Club:
    return Club.objects.create(name=name, slug=slug, **fields)


def make_session(club: Club, players: list[str] | None = None, **options: Any) -> Session:
    return services.session_start(club=club, players=players or PEOPLE[:4], **options)


def new_key() -> str:
    return f"key-{next(_keys)}"


def record(session: Session, event_type: str, player: str, **fields: Any):
    """Record one event with a fresh key at the version the session shows."""
    return services.session_record_event(
        session=session,
        event={"type": event_type, "player": player, **fields},
        version=session.version,
        key=new_key(),
    )


def tap(
    client,
    session: Session,
    event_type: str,
    player: str,
    *,
    key: str | None = None,
    version: int | None = None,
    htmx: bool = True,
    **fields: Any,
):
    """One tap on the tablet, posted as the page posts it: at the version the session shows
    (or ``version``, a stale tablet's), with a fresh key unless ``key`` names one, as HTMX
    unless ``htmx=False`` (a browser without JavaScript).

    ``tap(scorer, session, "penalty", "Anne", points="2", reason="gekeken")``
    """
    session.refresh_from_db()
    data = {
        "type": event_type,
        "player": player,
        "version": session.version if version is None else version,
        "key": new_key() if key is None else key,
        **fields,
    }
    headers = HX if htmx else {}
    return client.post(reverse("session_event", args=[session.pk]), data, **headers)


def play_rounds(session: Session, winners: list[str]) -> None:
    """Rounds without a knock, each won by the next name in ``winners``."""
    for winner in winners:
        record(session, "win", winner)


def play_out(session: Session) -> None:
    """Rounds won by the first seat until the engine ends the game (a toepkoning)."""
    session.refresh_from_db()
    winner = session.seats.select_related("player").first().player.name
    while session.status == Session.Status.RUNNING:
        services.session_record_event(
            session=session,
            event={"type": "win", "player": winner},
            version=session.version,
            key=new_key(),
        )
        session.refresh_from_db()


def admin_form_data(page) -> dict[str, Any]:
    """What an admin change page posts back unchanged: its form and its inlines' forms."""
    assert page.status_code == 200
    forms = [page.context["adminform"].form]
    for inline in page.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data = {}
    for form in forms:
        for name, field in form.fields.items():
            value = form[name].value()
            data[form.add_prefix(name)] = "" if value is None else value
            if field.show_hidden_initial:  # a field with a callable default, e.g. a date
                data[form.add_initial_prefix(name)] = data[form.add_prefix(name)]
    return data


class _StandingsTable(HTMLParser):
    """The body rows of the standings page, each as the texts of its cells: the players' rows
    only (``data-player``), not the lines that open a part or list a player's sessions."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_body = self._in_cell = self._in_row = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self._in_row = any(name == "data-player" for name, _ in attrs)
            if self._in_row:
                self.rows.append([])
        elif self._in_body and self._in_row and tag in ("td", "th"):
            self.rows[-1].append("")
            self._in_cell = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False
        elif tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.rows[-1][-1] += data


def standings_shown(response) -> list[tuple[str, ...]]:
    """The standings as the page shows them: (rank, player, sessions, toepkoningen, average
    place, points, rounds, rounds won, form) per row, as text. The player cell is the name,
    then the toepkoning title and the deciding tie-breaker when the row has them."""
    assert response.status_code == 200
    table = _StandingsTable()
    table.feed(response.content.decode())
    return [tuple(" ".join(cell.split()) for cell in row) for row in table.rows]


DAY = datetime.date(2026, 1, 5)


def finish_order(order: list, *, rules: dict | None = None) -> dict:
    """A session whose final order is ``order``: the first is the toepkoning, then second, ….

    A tuple in ``order`` is players who share a place. Every round the toepkoning wins (so the
    others alive score the stake of 1) and the next player(s) from the bottom take a penalty of
    10, so they are out: the player in seat j of n (from 1) goes out in round n - j + 1 with
    n - j + 1 + 10 strafpunten, after n - j + 1 rounds.
    """
    groups = [g if isinstance(g, tuple) else (g,) for g in order]
    players = [p for g in groups for p in g]
    rounds = [
        {
            "events": [
                *({"type": "penalty", "player": p, "points": 10, "reason": "test"} for p in g),
                {"type": "win", "player": players[0]},
            ]
        }
        for g in reversed(groups[1:])
    ]
    return {
        "format": "toepen/1",
        "players": players,
        "rules": {"armoede": False, **(rules or {})},
        "rounds": rounds,
    }


def play(club: Club, order: list, *, season=None, days_later: int = 0, table: str = "") -> Session:
    """A finished game whose final order is ``order`` (``finish_order``), played ``days_later``
    days after DAY, stored through ``services.session_import`` as the import command stores it:
    ``play(club, ["Anne", ("Bas", "Cees")], season=season, days_later=7)``."""
    return services.session_import(
        club=club,
        data=finish_order(order),
        season=season,
        played_on=DAY + datetime.timedelta(days=days_later),
        table_label=table,
    )


def correction(response, events: list[dict[str, Any]], **presence: Any) -> dict[str, Any]:
    """The POST of the correction page: ``events`` as rows in this order, the page's version
    and key, and the presence fields as given (``absent_0="drinks"``, ``join="Eva"``)."""
    form = response.context["presence"]
    data: dict[str, Any] = {
        "events-TOTAL_FORMS": len(events),
        "events-INITIAL_FORMS": 0,
        "events-MIN_NUM_FORMS": 0,
        "events-MAX_NUM_FORMS": 1000,
        "version": form.initial["version"],
        "key": form.initial["key"],
        "join": "",
    }
    for i, event in enumerate(events):
        row = {"ORDER": i + 1, **event}
        for name, value in row.items():
            if isinstance(value, bool):
                value = {"jack": "on" if value else ""}.get(name, "true" if value else "false")
            data[f"events-{i}-{name}"] = value
    data.update(presence)
    return data
