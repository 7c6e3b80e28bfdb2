"""The lei's hot parts drawn by Jinja2 (templates/jinja2/scoring/lei/) are what Django's
templates drew: the viewer's ``#live``, the tablet's ``#live`` and its round section, for
game states of every kind. Compared with blank lines dropped: Django's partials left runs of
empty lines where a part was defined, which no browser shows."""

from __future__ import annotations

import random
import re

import pytest
from django.template.loader import get_template
from django.test import RequestFactory
from django.utils import translation
from django.utils.safestring import SafeString

from scoring import access
from scoring.engine.simulate import random_session
from scoring.lei import tablet, views
from scoring.lei.viewer_views import viewer_part_html
from scoring.models import Session
from scoring.writes import Actor

PLAYERS = ["Anne & Co", "D'Arc", 'Bas "B"', "<Cees>", "Eva", "Fien"]


def same(html: str) -> str:
    html = re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]+', r"\1-", html)  # masked anew
    return re.sub(r"\n[ \t]*(?=\n)", "", html).strip("\n")


def states():
    for preset in ("standaard", "pagat", "kroeg", "gezin"):
        for seed, rounds in ((1, 3), (2, 8), (3, 40)):
            rng = random.Random(f"{preset}-{seed}")
            data = random_session(
                rng,
                PLAYERS[: 3 + seed],
                rounds=rounds,
                preset=preset,
                open_last=True,
                presence=0.2,
                penalties=0.05,
            )
            yield f"{preset}-{seed}", data
    yield (
        "pot",
        {
            "format": "toepen/1",
            "game": "pot",
            "players": PLAYERS[:3],
            "rounds": [
                {
                    "bids": {PLAYERS[0]: 150, PLAYERS[1]: "fold", PLAYERS[2]: 40},
                    "winner": PLAYERS[0],
                },
                {"bids": {PLAYERS[2]: 25}},
            ],
        },
    )


STATES = list(states())


def leis(data):
    game = "pot" if data.get("game") == "pot" else "strafpunten"
    for status in ("running", "finished", "locked"):
        for agreement in ("open", "agreed", "disputed", "accepted"):
            session = Session(
                pk=7,
                game=game,
                status=status,
                version=12,
                agreement=agreement,
                dispute_note="Bas' <punt>",
            )
            lei = tablet.build_lei(session, data)
            lei.corrected = frozenset({2, 5, 33})
            yield session, lei
            if status != "running":
                break


@pytest.mark.parametrize(("name", "data"), STATES, ids=[n for n, _ in STATES])
@pytest.mark.parametrize("language", ["nl", "en", "de"])
def test_the_parts_are_what_django_drew(name, data, language, rf: RequestFactory, monkeypatch):
    monkeypatch.setattr(views, "_tournament_game", lambda session: False)
    with translation.override(language):
        for n, (session, lei) in enumerate(leis(data)):
            lei.until = 12 if n == 1 else None
            for tv in (False, True):
                path = "/kijk/abc/?tv=1&tot=5" if tv else "/kijk/abc/"
                request = rf.get(path, HTTP_HX_REQUEST="true")
                page = request.path + ("?tv=1" if tv else "")
                base = f"lei-7-12-{language}{'-tv' if tv else ''}"
                context = {
                    "lei": lei,
                    "session": session,
                    "tv": tv,
                    "live_etag": f'"{base}-live"',
                    "sheet_url": page,
                    "sheet_tot": page + ("&tot=" if tv else "?tot="),
                }
                old = get_template("scoring/lei/viewer.html#live").render(context, request)
                new = viewer_part_html(session, lei, tv=tv, path=path)
                assert same(new) == same(old)
            request = rf.post("/sessies/7/gebeurtenis/", HTTP_HX_REQUEST="true")
            for can_score, closed, again in ((True, False, True), (False, True, False)):
                scorer = access.ScorerAccess(session, Actor(scorer_token=True))
                context = views._live_context(request, scorer, lei)
                context.update(
                    hidden=lambda: SafeString('<input type="hidden" name="key" value="k">'),
                    can_score=can_score,
                    can_undo=can_score,
                    closed=closed,
                    again=again,
                    error="Niet 'zo' & <zo>",
                    notice="",
                    undone="Weg van D'Arc" if n else "",
                    flash="Ronde 3: D'Arc wint" if n == 2 else "",
                )
                for part, new_render in (("live", views.live_html), ("round", views.round_html)):
                    old = get_template(f"scoring/lei/tablet.html#{part}").render(context, request)
                    new = new_render(request, context)
                    assert same(new) == same(old), part
