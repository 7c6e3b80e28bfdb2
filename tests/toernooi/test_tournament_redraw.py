"""Two organisers at one draw: each page acts on the draw it shows (``Series.draw_version``).

Real HTTP through two logged-in clients; the race itself on PostgreSQL, whose row locks order
the two redraws (SQLite has none: the test is skipped there).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from scoring.models import AuditEntry, Series, TableSeat
from tests.toernooi.tournaments import drawn, messages_of, state

TOLD = "Iemand anders heeft intussen opnieuw geloot"


def seating(series: Series) -> list[tuple[int, int, int]]:
    return list(
        TableSeat.objects.filter(series=series)
        .order_by("table__number", "position")
        .values_list("table__number", "position", "player_id")
    )


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def series_form_draw(page) -> str:
    """The draw version the series page's forms carry (all three carry the same)."""
    text = page.content.decode()
    values = {part.split('"', 1)[0] for part in text.split('name="draw" value="')[1:]}
    assert len(values) == 1, values
    return values.pop()


def test_the_second_of_two_redraws_from_the_same_page_is_told_and_shown_the_new_draw(
    organiser, tournament, members
):
    series = drawn(tournament, members)
    a, b = logged_in(organiser), logged_in(organiser)
    page_url = reverse("tournament_series", args=[tournament.pk, 1])
    shown = series_form_draw(a.get(page_url))
    assert series_form_draw(b.get(page_url)) == shown  # both look at the same draw

    redraw = reverse("tournament_series_redraw", args=[tournament.pk, 1])
    first = a.post(redraw, {"draw": shown, "seed": "11"}, follow=True)
    assert "Serie 1 is opnieuw geloot (lotnummer 11)." in messages_of(first)
    series.refresh_from_db()
    after_first = (seating(series), series.seed, series.draw_version)

    second = b.post(redraw, {"draw": shown, "seed": "12"}, follow=True)
    told = [m for m in messages_of(second) if TOLD in m]
    assert told, messages_of(second)
    # B lands on the series page, showing A's draw: its forms now carry the new version.
    assert second.request["PATH_INFO"] == page_url
    assert series_form_draw(second) == str(after_first[2])
    series.refresh_from_db()
    assert (seating(series), series.seed, series.draw_version) == after_first
    # A's redraw is in the audit log, the refused one is not.
    logged = AuditEntry.objects.filter(
        tournament=tournament, action=AuditEntry.Action.SERIES_REDRAW
    )
    assert [(e.before["seed"], e.after["seed"]) for e in logged] == [(7, 11)]


@pytest.mark.parametrize("action", ["start", "swap"])
def test_a_page_showing_a_draw_that_no_longer_exists_is_refused(
    organiser, tournament, members, action
):
    series = drawn(tournament, members)
    a, b = logged_in(organiser), logged_in(organiser)
    page_url = reverse("tournament_series", args=[tournament.pk, 1])
    stale = series_form_draw(b.get(page_url))
    a.post(reverse("tournament_series_redraw", args=[tournament.pk, 1]), {"draw": stale})
    before = state(tournament)
    seats = series.seats.order_by("player_id")
    data = {"draw": stale}
    if action == "swap":
        data |= {"a": seats[0].player_id, "b": seats[5].player_id}
    url = reverse(f"tournament_series_{action}", args=[tournament.pk, 1])
    response = b.post(url, data, follow=True)
    assert any(TOLD in m for m in messages_of(response))
    assert state(tournament) == before
    assert Series.objects.get(pk=series.pk).state == Series.State.DRAWN
    # The page it lands on acts on the draw it shows: the same action now goes through.
    again = b.post(url, data | {"draw": series_form_draw(response)}, follow=True)
    assert not any(TOLD in m for m in messages_of(again))
    assert state(tournament) != before


def test_a_swap_changes_the_draw_an_older_page_showed(organiser, tournament, members):
    drawn(tournament, members)
    client = logged_in(organiser)
    page_url = reverse("tournament_series", args=[tournament.pk, 1])
    shown = series_form_draw(client.get(page_url))
    series = Series.objects.get(tournament=tournament, number=1)
    seats = list(series.seats.order_by("table__number", "position"))
    swap = reverse("tournament_series_swap", args=[tournament.pk, 1])
    client.post(swap, {"draw": shown, "a": seats[0].player_id, "b": seats[-1].player_id})
    before = state(tournament)
    response = client.post(
        reverse("tournament_series_redraw", args=[tournament.pk, 1]), {"draw": shown}, follow=True
    )
    assert any(TOLD in m for m in messages_of(response))
    assert state(tournament) == before


def test_a_draw_version_that_is_no_number_is_refused_as_stale(organiser, tournament, members):
    drawn(tournament, members)
    before = state(tournament)
    response = logged_in(organiser).post(
        reverse("tournament_series_redraw", args=[tournament.pk, 1]),
        {"draw": "9" * 400},
        follow=True,
    )
    assert response.status_code == 200
    assert any(TOLD in m for m in messages_of(response))
    assert state(tournament) == before


@pytest.mark.django_db(transaction=True)
def test_two_organisers_redrawing_at_once_one_wins_and_the_other_is_told(
    organiser, tournament, members
):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no row locks: two writers at once need PostgreSQL")
    drawn(tournament, members)
    page_url = reverse("tournament_series", args=[tournament.pk, 1])
    shown = series_form_draw(logged_in(organiser).get(page_url))
    url = reverse("tournament_series_redraw", args=[tournament.pk, 1])
    answers: list[str] = []
    barrier = threading.Barrier(2)

    def redraw(seed: int) -> None:
        own = logged_in(organiser)
        barrier.wait()
        response = own.post(url, {"draw": shown, "seed": str(seed)}, follow=True)
        # The page's text: the test client's captured context is shared between threads.
        answers.append(response.content.decode())
        connection.close()

    threads = [threading.Thread(target=redraw, args=(seed,)) for seed in (21, 22)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [a for a in answers if "Serie 1 is opnieuw geloot" in a]
    told = [a for a in answers if TOLD in a]
    assert (len(won), len(told)) == (1, 1), answers
    series = Series.objects.get(tournament=tournament, number=1)
    assert series.draw_version == int(shown) + 1
    assert series.seed in (21, 22)
    # The one told sees the winner's draw: its page names the winner's seed.
    assert f"lotnummer {series.seed}" in won[0]
    assert f'name="draw" value="{series.draw_version}"' in told[0]


def test_a_redraw_by_mistake_is_undone_with_the_lotnummer_the_log_names(
    organiser, tournament, members
):
    series = drawn(tournament, members)
    first = (seating(series), series.seed)
    client = logged_in(organiser)
    url = reverse("tournament_series_redraw", args=[tournament.pk, 1])
    page_url = reverse("tournament_series", args=[tournament.pk, 1])
    client.post(url, {"draw": series_form_draw(client.get(page_url)), "seed": "11"})
    series.refresh_from_db()
    assert seating(series) != first[0]
    page = client.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    log = page[page.index('id="corrections"') :]
    told = f"Opnieuw geloot: serie 1 (lotnummer 11) (vorige loting: lotnummer {first[1]})"
    assert told in log
    client.post(url, {"draw": series_form_draw(client.get(page_url)), "seed": str(first[1])})
    series.refresh_from_db()
    assert (seating(series), series.seed) == first
