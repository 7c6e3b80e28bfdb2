"""A club and a few named people, and small helpers to make what tests need."""

from __future__ import annotations

import itertools
import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse
from hypothesis import settings as hypothesis_settings

from scoring.lei import services
from scoring.models import Club, Player, Season, Session

# CI explores the same examples on every run, so a red CI always means the same failure; a
# developer's run keeps exploring new ones (set HYPOTHESIS_PROFILE=ci to reproduce CI locally).
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default")
)

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
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("session_event", args=[session.pk]), data, **headers)


def play_rounds(session: Session, winners: list[str]) -> None:
    """Rounds without a knock, each won by the next name in ``winners``."""
    for winner in winners:
        record(session, "win", winner)


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


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, request, tmp_path_factory
) -> None:
    """With browser tests in the run, a SQLite test database is a file rather than memory: their
    server is another process (tests/browser/conftest.py, ``live_server``) and opens it too. Each
    writer takes the lock when its transaction begins, so that neither process finds, halfway
    through a transaction, that the other wrote meanwhile (tests/browser/deployed_settings.py)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    browser = any(item.get_closest_marker("browser") for item in request.session.items)
    if database["ENGINE"] == "django.db.backends.sqlite3" and browser:
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)
        database.setdefault("OPTIONS", {}).update(transaction_mode="IMMEDIATE", timeout=20)


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing():
    """MD5 instead of PBKDF2 for every test (Django's testing docs, "Speeding up the tests"):
    each password a test sets or checks costs microseconds, not a large share of a second.
    Logins still go through the real login view and django-axes (tests/site/test_lockout.py)."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def club(db) -> Club:
    return make_club()


@pytest.fixture
def people(club) -> dict[str, Player]:
    return {name: Player.objects.create(club=club, name=name) for name in PEOPLE}


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(club=club, name="Winter 2026", starts_on="2026-01-01")


@pytest.fixture
def session(club, people) -> Session:
    """Anne, Bas, Cees and Dirk at one table, standaard rules, nothing played yet."""
    return make_session(club)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="scorer", password="x")
