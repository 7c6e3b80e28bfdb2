"""DESIGN decision 13 for the organisers, through real HTTP: every write carries the version it
was read at (two organisers are two clients that load a page, then both post), and a close
names what it leaves behind (issue 43, items 3 and 4). A stale write is refused in words that
say what changed, and changes nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring.lei import akkoord
from scoring.models import Club, Series, Session
from scoring.toernooi import checkin, closing
from scoring.toernooi import services as tournaments
from scoring.toernooi.selectors import tournament_standings
from tests.builders import play_out

NAMES = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans"]


@pytest.fixture
def players(club):
    from scoring.models import Player

    return [Player.objects.create(club=club, name=name) for name in NAMES]


def started(club, players, *, count: int = 4) -> Series:
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players[:count])
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    return tournaments.series_start(series=series)


def hidden(page, name: str, form: str = "") -> dict[str, str]:
    """The hidden fields named ``name`` of ``page``, from the form that holds ``form``."""
    html = page.content.decode()
    if form:
        html = html[html.index(form) :]
    return {name: re.search(rf'name="{name}" value="([^"]*)"', html).group(1)}


def paper_url(series: Series, number: int = 1) -> str:
    return reverse("tournament_table_paper", args=[series.tournament_id, series.number, number])


def totals_of(series: Series, totals: list[int]) -> dict[str, str]:
    seats = list(series.tables.get(number=1).seats.order_by("position"))
    return {f"total_{s.player_id}": str(t) for s, t in zip(seats, totals, strict=True)}


def stored_totals(series: Series) -> list[int]:
    """Table 1's stored totals in seat order, as ``totals_of`` posts them."""
    table = series.tables.get(number=1)
    totals = dict(table.session.results.values_list("player_id", "total"))
    return [totals[s.player_id] for s in table.seats.order_by("position")]


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- the paper form --------------------------------------------------------------------------


def test_the_second_paper_form_from_a_stale_page_is_refused_naming_what_was_entered(
    org, club_admin_client, club, players
):
    series = started(club, players)
    first = org.get(paper_url(series))
    second = club_admin_client.get(paper_url(series))
    saved = org.post(
        paper_url(series), {**totals_of(series, [4, 11, 12, 13]), **hidden(first, "seen")}
    )
    assert saved.status_code == 302
    late = club_admin_client.post(
        paper_url(series), {**totals_of(series, [13, 12, 11, 4]), **hidden(second, "seen")}
    )
    assert late.status_code == 422
    error = late.content.decode().split('id="paper-error">', 1)[1].split("</div>", 1)[0]
    assert error.startswith("Intussen is er al een papieren lei van tafel 1 ingevoerd (nu: ")
    assert "De jouwe is niet opgeslagen" in error
    assert stored_totals(series) == [4, 11, 12, 13]  # the first one
    # The page shows the game as it is now: saving again replaces it, on purpose.
    again = club_admin_client.post(
        paper_url(series), {**totals_of(series, [13, 12, 11, 4]), **hidden(late, "seen")}
    )
    assert again.status_code == 302
    assert stored_totals(series) == [13, 12, 11, 4]


def test_taking_back_a_paper_lei_from_a_stale_page_is_refused(
    org, club_admin_client, club, players
):
    series = started(club, players)
    org.post(paper_url(series), {**totals_of(series, [4, 11, 12, 13])})
    shown = club_admin_client.get(paper_url(series))
    org.post(paper_url(series), {**totals_of(series, [13, 12, 11, 4])})  # the right lei
    url = reverse("tournament_table_paper_undo", args=[series.tournament_id, 1, 1])
    response = club_admin_client.post(url, hidden(shown, "seen"), follow=True)
    assert any(m.startswith("Intussen is er al een papieren lei") for m in messages_of(response))
    assert stored_totals(series) == [13, 12, 11, 4]


# --- acceptance ------------------------------------------------------------------------------


def test_accepting_a_result_that_changed_since_the_page_was_read_is_refused(org, club, players):
    series = started(club, players)
    session = series.tables.get().session
    play_out(session)
    page = org.get(reverse("tournament_series", args=[series.tournament_id, 1]))
    shown = hidden(page, "version")
    akkoord.session_dispute(session=session, note="ronde 3 klopt niet")  # the table, meanwhile
    url = reverse("tournament_table_accept", args=[series.tournament_id, 1, 1])
    response = org.post(url, shown, follow=True)
    (said,) = messages_of(response)
    assert said.startswith("De uitslag van tafel 1 is intussen veranderd (nu: ")
    assert "Er is niets geaccepteerd" in said
    session.refresh_from_db()
    assert session.agreement == Session.Agreement.DISPUTED
    response = org.post(url, hidden(response, "version"), follow=True)
    session.refresh_from_db()
    assert session.agreement == Session.Agreement.ACCEPTED


# --- closing a series ------------------------------------------------------------------------


def agreed_only(club: Club) -> None:
    club.agreement_rule = Club.AgreementRule.AGREED
    club.save()


def test_a_series_does_not_close_over_a_table_waiting_for_akkoord_it_names_it(org, club, players):
    agreed_only(club)
    series = started(club, players, count=8)
    one, two = (t.session for t in series.tables.order_by("number"))
    play_out(one)
    play_out(two)
    akkoord.session_agree(session=two)
    page = org.get(reverse("tournament_series", args=[series.tournament_id, 1]))
    url = reverse("tournament_series_finish", args=[series.tournament_id, 1])
    asked = org.post(url, hidden(page, "seen"))
    assert asked.status_code == 200  # the question, nothing closed
    text = asked.content.decode()
    assert "Serie 1 is niet afgesloten: tafel 1: wacht op akkoord." in text
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    # Accepted right there: closed, and the table counts.
    done = org.post(url, {**hidden(asked, "seen"), "confirm": "1", "accept": "1"}, follow=True)
    assert messages_of(done) == [
        "Serie 1 is afgesloten.",
        "De uitslag van tafel 1 is geaccepteerd.",
    ]
    series.refresh_from_db()
    one.refresh_from_db()
    assert series.state == Series.State.FINISHED
    assert one.agreement == Session.Agreement.ACCEPTED
    rows = tournament_standings(series.tournament).rows
    assert sum(r.series_played for r in rows) == 8


def test_a_series_closes_without_the_waiting_table_only_when_the_organiser_says_so(
    org, club, players
):
    agreed_only(club)
    series = started(club, players)
    session = series.tables.get().session
    play_out(session)
    url = reverse("tournament_series_finish", args=[series.tournament_id, 1])
    asked = org.post(url)
    assert asked.status_code == 200  # the question, nothing closed
    org.post(url, {**hidden(asked, "seen"), "confirm": "1"})  # nothing ticked
    series.refresh_from_db()
    session.refresh_from_db()
    assert series.state == Series.State.FINISHED
    assert session.agreement == Session.Agreement.OPEN
    assert sum(r.series_played for r in tournament_standings(series.tournament).rows) == 0


def test_a_close_from_a_page_that_showed_another_state_names_the_table_that_changed(
    org, club_admin_client, club, players
):
    series = started(club, players, count=8)
    one, two = (t.session for t in series.tables.order_by("number"))
    play_out(one)
    play_out(two)
    page = org.get(reverse("tournament_series", args=[series.tournament_id, 1]))
    akkoord.session_dispute(session=two, note="fout geteld")  # the table, meanwhile
    url = reverse("tournament_series_finish", args=[series.tournament_id, 1])
    response = org.post(url, hidden(page, "seen"), follow=True)
    assert messages_of(response) == [
        "Intussen is er iets veranderd: tafel 2 (nu: klaar, niet akkoord). Serie 1 is niet"
        " afgesloten: kijk de tafels na en sluit dan opnieuw af."
    ]
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    # The second organiser's close of a series already closed says so.
    org.post(url, hidden(response, "seen"))
    late = club_admin_client.post(url, hidden(page, "seen"), follow=True)
    assert messages_of(late) == ["Serie 1 is al afgesloten (door een andere organisator?)."]


# --- check-in --------------------------------------------------------------------------------


def test_a_check_in_from_a_page_that_said_another_series_is_refused(
    org, club_admin_client, club, players
):
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=3)
    checkin.tournament_check_in(tournament=tournament, players=players[:4])
    url = reverse("tournament_checkin", args=[tournament.pk])
    page = org.get(url)  # nothing drawn: a check-in plays from series 1
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=3)
    tournaments.series_start(series=series)  # the other organiser, meanwhile
    late = org.post(url, {"in": players[4].pk, **hidden(page, "joining")}, follow=True)
    assert messages_of(late) == [
        "Intussen is er een serie begonnen of geloot: wie je nu aan- of afmeldt, telt vanaf"
        " serie 2, niet vanaf serie 1 zoals de pagina zei. Er is niets veranderd: kijk het na"
        " en tik opnieuw."
    ]
    assert not tournament.entries.filter(player=players[4]).exists()
    out = org.post(url, {"out": players[0].pk, **hidden(page, "joining")}, follow=True)
    assert messages_of(out)[0].startswith("Intussen is er een serie begonnen of geloot")
    assert tournament.entries.get(player=players[0]).withdrawn_after is None
    # Tapped again on the page as it is now: checked in, from series 2.
    org.post(url, {"in": players[4].pk, **hidden(late, "joining")})
    assert tournament.entries.get(player=players[4]).from_series == 2


def test_a_draw_of_the_next_series_does_not_close_over_a_waiting_table_either(club, players):
    agreed_only(club)
    series = started(club, players)
    play_out(series.tables.get().session)
    with pytest.raises(closing.SeriesWaiting, match="tafel 1: wacht op akkoord"):
        tournaments.series_draw(tournament=series.tournament, expected_number=2, seed=4)
    series.refresh_from_db()
    assert series.state == Series.State.RUNNING
    assert series.tournament.series.count() == 1
