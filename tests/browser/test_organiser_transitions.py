"""Two organisers at one toernooi, in two Chromium browsers against the app as deployed (issue 43
items 3 and 4, DESIGN decision 13): the second paper lei of a table, saved from a form read
before the first, is refused in words and the first stays; closing the series over a table
waiting for akkoord asks once, naming it, and accepts it right there; the other organiser's
close from a page read before that is told the series is closed."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from scoring.models import Club, ClubMembership, Player, Series, Session
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from scoring.toernooi.selectors import tournament_standings
from tests.browser.pages import login
from tests.builders import play_out

PASSWORD = "geheim-genoeg-1"


def toernooi_with_a_waiting_table() -> Series:
    """Series 1 of eight players under "alleen met akkoord": table 1 played out, waiting for
    its akkoord; table 2 not played (its lei is on paper)."""
    club = Club.objects.create(
        name="De Gouden Boer", slug="gouden-boer", agreement_rule=Club.AgreementRule.AGREED
    )
    names = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans"]
    players = [Player.objects.create(club=club, name=name) for name in names]
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    tournaments.series_start(series=series)
    play_out(series.tables.get(number=1).session)
    for username in ("anne-org", "bas-org"):
        user = get_user_model().objects.create_user(username, password=PASSWORD)
        ClubMembership.objects.create(user=user, club=club, role="admin")
    return series


def fill_totals(page, series: Series, totals: list[int]) -> None:
    seats = series.tables.get(number=2).seats.order_by("position")
    for seat, total in zip(seats, totals, strict=True):
        page.fill(f'input[name="total_{seat.player_id}"]', str(total))


def table_2_totals(series: Series) -> list[int]:
    table = series.tables.get(number=2)
    totals = dict(table.session.results.values_list("player_id", "total"))
    return [totals[s.player_id] for s in table.seats.order_by("position")]


def test_two_organisers_paper_form_and_a_close_over_a_waiting_table(
    page, browser, base_url, screenshot_dir
):
    series = toernooi_with_a_waiting_table()
    other = browser.new_context(viewport={"width": 1024, "height": 768}, locale="nl-NL")
    second = other.new_page()
    page.set_viewport_size({"width": 1024, "height": 768})
    login(page, base_url, "anne-org", PASSWORD)
    login(second, base_url, "bas-org", PASSWORD)
    series_url = f"{base_url}/toernooi/{series.tournament_id}/serie/1/"
    paper_url = f"{series_url}tafel/2/papier/"

    # Both open table 2's paper form; the first saves, then the second from its older form.
    page.goto(paper_url)
    second.goto(paper_url)
    fill_totals(page, series, [4, 11, 12, 13])
    page.get_by_role("button", name="Eindstand opslaan").click()
    page.get_by_text("De papieren lei van tafel 2 is ingevoerd.").wait_for()
    fill_totals(second, series, [13, 12, 11, 4])
    second.get_by_role("button", name="Eindstand opslaan").click()
    error = second.locator("#paper-error")
    error.wait_for()
    assert error.inner_text().startswith("Intussen is er al een papieren lei van tafel 2 ingevoerd")
    assert "De jouwe is niet opgeslagen" in error.inner_text()
    second.screenshot(path=screenshot_dir / "organiser-paper-refused-1024.png", full_page=True)
    assert table_2_totals(series) == [4, 11, 12, 13]

    # The second organiser's series page, read now; the first closes over the waiting table.
    second.goto(series_url)
    page.goto(series_url)
    page.locator("#finish-series").click()
    pending = page.locator("#close-pending")
    pending.wait_for()
    assert "tafel 1: wacht op akkoord" in pending.inner_text()
    assert page.locator('input[name="accept"][value="1"]').is_checked()
    page.screenshot(path=screenshot_dir / "organiser-close-asks-1024.png", full_page=True)
    page.locator("#close-confirm").click()
    page.get_by_text("De uitslag van tafel 1 is geaccepteerd.").wait_for()
    assert page.get_by_text("Serie 1 is afgesloten.").is_visible()

    # The second organiser's close, from the page read before, changes nothing and says why.
    second.locator("#finish-series").click()
    second.get_by_text("Serie 1 is al afgesloten (door een andere organisator?).").wait_for()
    other.close()

    series.refresh_from_db()
    assert series.state == Series.State.FINISHED
    waited = series.tables.get(number=1).session
    assert waited.agreement == Session.Agreement.ACCEPTED
    assert sum(r.series_played for r in tournament_standings(series.tournament).rows) == 8
