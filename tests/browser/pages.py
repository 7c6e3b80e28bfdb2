"""What the browser tests share: the screens they are seen on (laptop, tablet, TV, phone), the
console errors a page showed, signing in, a table played out, a finished game opened, the axe
contrast check, and a tournament evening of long names."""

from __future__ import annotations

import datetime
import itertools
import random
from pathlib import Path

from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.lei import services
from scoring.models import Club, ClubMembership, Player, Tournament
from scoring.toernooi import checkin, clock
from scoring.toernooi import results as tournament_results
from scoring.toernooi import services as tournaments
from tests.builders import make_club, make_session, play_out, play_rounds

LAPTOP = {"width": 1280, "height": 800}


TABLET = {"width": 768, "height": 1024}


TV = {"width": 1920, "height": 1080}


PHONE = {"width": 375, "height": 812}


def console_errors(context) -> list[str]:
    """Collect every console error and uncaught exception of the context's pages from now on.

    A page that works leaves this empty; a Content-Security-Policy violation (an inline style
    htmx set, say) is a console error, so this is how the browser tests see one.
    """
    errors: list[str] = []

    def watch(page) -> None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))

    context.on("page", watch)
    return errors


def login(page, base_url: str, username: str, password: str) -> None:
    page.goto(base_url + "/inloggen/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Inloggen", exact=True).click()
    page.wait_for_url(base_url + "/")


AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def contrast_problems(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate(
        """async () => (await axe.run(document, {
            runOnly: {type: "rule", values: ["color-contrast"]},
            resultTypes: ["violations"],
        })).violations"""
    )
    return [
        f"{node['target']}: {node['failureSummary']}"
        for violation in violations
        for node in violation["nodes"]
    ]


SIZES = [(768, 1024), (1024, 768)]  # a tablet upright and on its side


def open_finished_game(page, base_url: str, width: int, height: int) -> None:
    """A scorer's tablet, at this size, on a game closed after three rounds, before anyone is
    out (so the chart's line where a player is out is its top)."""
    club = make_club()
    user = get_user_model().objects.create_user("teller", password="een-lang-wachtwoord")
    ClubMembership.objects.create(user=user, club=club, role="scorer")
    session = make_session(club, players=["Anne", "Bas", "Cees", "Dirk"])
    play_rounds(session, ["Anne", "Bas", "Anne"])
    services.session_finish(session=session)
    page.set_viewport_size({"width": width, "height": height})
    login(page, base_url, "teller", "een-lang-wachtwoord")
    page.goto(base_url + reverse("tablet", args=[session.pk]))


FIRST = ["Wilhelmina", "Anne-Marie", "Cornelis", "Evelien", "Gijsbert", "Dirk-Jan", "Fien", "Bas"]


LAST = [
    "van den Berg", "Schimmelpenninck", "ter Horst", "Groot-Wassink", "van Oldenbarnevelt",
    "de Vries", "Hoogeveen", "van der Velde-Smits", "Zoetemelk", "Brouwer", "Dekker", "Bakker",
    "van Kooten",
]  # fmt: skip


SUFFIX = ["-Hoogendoorn", "-Kuipers", "-Jansen"]


LONGEST = 40  # a player's name is at most this long (scoring/names.py)


def long_names(count: int) -> list[str]:
    triples = itertools.product(SUFFIX, LAST, FIRST)
    names = (f"{first} {last}{suffix}" for suffix, last, first in triples)
    return list(itertools.islice((n for n in names if len(n) <= LONGEST), count))


def evening(count: int, *, end_mode: str = Tournament.EndMode.TOEPKONING) -> Tournament:
    """A club of ``count`` players with long names: series 1 played and closed, series 2
    drawn (at a time: started, with the round timer running)."""
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    players = [Player.objects.create(club=club, name=name) for name in long_names(count)]
    timed = end_mode == Tournament.EndMode.TIME
    tournament = tournaments.tournament_create(
        club=club,
        name="Het grote Wilhelmina van den Berg-Hoogendoorn-toernooi van de Gouden Boer",
        series_count=3,
        end_mode=end_mode,
        end_time=datetime.time(22, 30) if timed else None,
    )
    checkin.tournament_check_in(tournament=tournament, players=players)
    first = tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    tournaments.series_start(series=first)
    rng = random.Random(count)
    for table in first.tables.select_related("session"):
        if timed:
            session = table.session
            names = [s.player.name for s in session.seats.select_related("player")]
            play_rounds(session, [rng.choice(names) for _ in range(3)])
        else:
            play_out(table.session)
    tournament_results.series_finish(series=first)
    second = tournaments.series_draw(tournament=tournament, expected_number=2, seed=5)
    if timed:
        tournaments.series_start(series=second)
        clock.series_clock_start(series=second, minutes=45)
    return tournament
