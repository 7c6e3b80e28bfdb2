"""The ratings where people look: the club's page and CSV (privacy as the standings), the
player page, the season's rules (min_sessions, guests apart, best N shown, by rating) and the
tablet's chance before a game."""

from __future__ import annotations

import csv
import io
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from scoring import figures
from scoring.clubs import services as club_services
from scoring.models import ClubMembership, Player, Season
from scoring.ratings.services import ratings_refresh
from tests.builders import DAY, make_session, play, standings_shown

APART = "\N{EN DASH}"  # the rank cell of a row listed apart


@pytest.fixture
def rated(public_club, people):
    """Anne asked for initials; Gijs is a guest; Hugo a guest a scorer link added, unconfirmed."""
    Player.objects.filter(name="Anne").update(public_initials=True)
    Player.objects.create(club=public_club, name="Gijs Gast", is_guest=True)
    Player.objects.create(
        club=public_club, name="Hugo Link", is_guest=True, confirmed=False, public_initials=True
    )
    play(public_club, ["Anne", "Gijs Gast", "Bas", "Cees"])
    play(public_club, ["Bas", "Anne", "Hugo Link", "Dirk"], days_later=1)
    play(public_club, ["Anne", "Cees", "Dirk", "Eva"], days_later=2)
    return public_club


def _csv(response) -> list[list[str]]:
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_public_sees_initials_and_guests_apart_members_see_names(client, rated, user):
    url = reverse("league_ratings", args=[rated.slug])
    page = client.get(url).content.decode()
    members = page[page.index('id="ratings"') : page.index('id="ratings-guests"')]
    guests = page[page.index('id="ratings-guests"') :]
    assert "A." in members  # Anne, by her initials
    assert "Anne" not in page
    assert "Gijs Gast" in guests
    assert "Gijs Gast" not in members
    assert "Hugo Link" not in page  # unconfirmed: initials, and no link to a page
    hugo = Player.objects.get(name="Hugo Link")
    assert f"/speler/{hugo.pk}/" not in page
    rows = _csv(client.get(reverse("league_ratings_csv", args=[rated.slug])))
    assert rows[0] == ["rank", "player", "guest", "rating", "mu", "sigma", "games"]
    names = [r[1] for r in rows[1:]]
    assert "Anne" not in names
    assert "Hugo Link" not in names
    assert "A." in names
    assert {r[1]: r[2] for r in rows[1:]}["Gijs Gast"] == "1"

    ClubMembership.objects.create(user=user, club=rated)
    client.force_login(user)
    page = client.get(url).content.decode()
    assert "Anne" in page
    assert "Hugo Link" in page
    names = [r[1] for r in _csv(client.get(reverse("league_ratings_csv", args=[rated.slug])))]
    assert "Anne" in names


def test_a_club_that_does_not_publish_shows_no_ratings(client, club, people):
    play(club, ["Anne", "Bas"])
    assert client.get(reverse("league_ratings", args=[club.slug])).status_code == 404
    assert client.get(reverse("league_ratings_csv", args=[club.slug])).status_code == 404


def test_the_ratings_page_costs_four_queries_whatever_the_club(
    client, rated, django_assert_num_queries
):
    ratings_refresh(club_id=rated.pk)
    url = reverse("league_ratings", args=[rated.slug])
    # 1 the club, 2 the history's key, 3 the key the ratings are of, 4 the ratings with players.
    with django_assert_num_queries(4):
        assert client.get(url).status_code == 200
    for day in range(3, 13):
        play(rated, ["Eva", "Dirk", "Cees", "Bas", "Anne"], days_later=day)
    ratings_refresh(club_id=rated.pk)
    with django_assert_num_queries(4):
        assert client.get(url).status_code == 200


def test_the_player_page_shows_the_rating_and_its_chart(client, rated):
    anne = Player.objects.get(name="Anne")
    page = client.get(reverse("league_player", args=[rated.slug, anne.pk])).content.decode()
    section = page[page.index('id="rating"') :]
    assert 'data-stat="rating"' in section
    assert "na 3 sessies" in section
    assert '<svg class="lei-chart"' in section
    assert "Anne" not in page  # the chart's legend too is by initials


def test_min_sessions_puts_who_played_too_few_evenings_under_the_line(client, rated):
    season = Season.objects.create(club=rated, name="Lente", starts_on=DAY, min_sessions=2)
    play(rated, ["Anne", "Bas", "Cees", "Gijs Gast"], days_later=10, season=season)
    play(rated, ["Bas", "Anne", "Dirk"], days_later=10, season=season)  # Dirk: one evening
    play(rated, ["Cees", "Anne", "Bas"], days_later=11, season=season)
    page = client.get(reverse("league_season", args=[rated.slug, season.pk]))
    shown = standings_shown(page)
    html = page.content.decode()
    assert {row[1] for row in shown[:3]} == {"A.", "Bas", "Cees"}
    assert all(row[0][0].isdigit() for row in shown[:3])
    assert [row[0] for row in shown[3:]] == [APART, APART]
    assert [row[1] for row in shown[3:]] == ["Dirk", "Gijs Gast"]
    dirk = Player.objects.get(name="Dirk").pk
    assert html.index('id="not-yet"') < html.index(f'data-player="{dirk}"')
    assert html.index('id="guests"') > html.index('id="not-yet"')
    # The CSV says the same: no rank for who is listed apart.
    rows = _csv(client.get(reverse("league_season_csv", args=[rated.slug, season.pk])))
    assert [(r[0], r[1], r[-1]) for r in rows[4:]] == [
        ("", "Dirk", "not_yet"),
        ("", "Gijs Gast", "guest"),
    ]


def test_a_guest_never_pushes_a_member_down(client, rated):
    season = Season.objects.create(club=rated, name="Zomer", starts_on=DAY)
    play(rated, ["Gijs Gast", "Bas", "Cees"], days_later=20, season=season)
    shown = standings_shown(client.get(reverse("league_season", args=[rated.slug, season.pk])))
    assert [(row[0], row[1]) for row in shown] == [
        ("1", "Bas"),
        ("2", "Cees"),
        (APART, "Gijs Gast"),
    ]


def test_the_rating_is_written_as_numbers_are_in_the_pages_language(client, rated):
    url = reverse("league_ratings", args=[rated.slug])
    dutch = client.get(url).content.decode()
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    number = r'<td class="num">-?\d+{}\d</td>'
    assert re.search(number.format(","), dutch)
    assert not re.search(number.format(r"\."), dutch)
    assert re.search(number.format(r"\."), english)


def test_a_club_that_keeps_no_members_ranks_its_guests(client, public_club):
    # Everybody typed in at the table is a guest: with no member to list them apart from,
    # the standings are one ranked list, as before guests were listed apart.
    season = Season.objects.create(club=public_club, name="Kroeg", starts_on=DAY)
    play(public_club, ["Gijs Gast", "Hanna Gast", "Ilse Gast"], days_later=20, season=season)
    assert not Player.objects.filter(club=public_club, is_guest=False).exists()
    url = reverse("league_season", args=[public_club.slug, season.pk])
    shown = standings_shown(client.get(url))
    assert [row[0] for row in shown] == ["1", "2", "3"]


def test_best_n_lists_each_players_counted_and_dropped_sessions(client, rated):
    season = Season.objects.create(club=rated, name="Herfst", starts_on=DAY, ranking={"best_n": 2})
    play(rated, ["Bas", "Cees", "Dirk"], days_later=30, season=season)  # Bas 2
    play(rated, ["Cees", "Bas", "Dirk"], days_later=31, season=season)  # Bas 1
    play(rated, ["Cees", "Dirk", "Bas"], days_later=32, season=season)  # Bas 0
    html = client.get(reverse("league_season", args=[rated.slug, season.pk])).content.decode()
    bas = Player.objects.get(name="Bas").pk
    line = html[html.index(f'data-games="{bas}"') :]
    line = line[: line.index("</tr>")]
    assert "geteld: 2 · 1" in line
    assert "geschrapt: <s>0</s>" in line


def test_a_season_ranked_by_rating(client, rated):
    season = Season.objects.create(
        club=rated, name="Rating", starts_on=DAY, ranking={"scoring": "rating"}
    )
    for day in range(40, 44):
        play(rated, ["Dirk", "Eva", "Bas"], days_later=day, season=season)
    shown = standings_shown(client.get(reverse("league_season", args=[rated.slug, season.pk])))
    assert [row[1].split()[0] for row in shown] == ["Dirk", "Eva", "Bas"]
    # A correction of an earlier game, in another season, reaches the page: the key follows.
    Player.objects.filter(name="Bas").update(public_initials=False)
    again = standings_shown(client.get(reverse("league_season", args=[rated.slug, season.pk])))
    assert again == shown


def test_the_tablet_shows_the_chances_only_where_the_club_wants_them(client, rated, user):
    for day in range(5):
        play(rated, ["Anne", "Bas", "Cees", "Dirk"], days_later=day)
    ClubMembership.objects.create(user=user, club=rated)
    client.force_login(user)
    game = make_session(rated, ["Anne", "Bas", "Cees", "Dirk"])
    url = reverse("tablet", args=[game.pk])
    assert 'id="win-chances"' not in client.get(url).content.decode()
    rated.win_chance = True
    rated.save()
    page = client.get(url).content.decode()
    chances = page[page.index('id="win-chances"') :]
    chances = chances[: chances.index("</p>")]
    assert "Anne" in chances
    assert "%" in chances


def test_a_merge_shows_on_the_ratings_page_at_once(client, rated):
    twice = Player.objects.create(club=rated, name="Eva Twee", is_guest=True)
    play(rated, ["Eva Twee", "Bas"], days_later=50)
    client.get(reverse("league_ratings", args=[rated.slug]))
    club_services.player_merge(keep=Player.objects.get(name="Eva"), remove=twice)
    page = client.get(reverse("league_ratings", args=[rated.slug])).content.decode()
    assert "Eva Twee" not in page
    eva = Player.objects.get(name="Eva").pk
    row = page[page.index(f'data-player="{eva}"') :]
    assert '<td class="num">2</td></tr>' in row[: row.index("</tr>") + 5]


def test_a_season_ranked_by_rating_follows_a_game_of_another_season(client, rated):
    season = Season.objects.create(
        club=rated, name="Rating", starts_on=DAY, ranking={"scoring": "rating"}
    )
    for day in range(40, 44):
        play(rated, ["Dirk", "Eva", "Bas"], days_later=day, season=season)
    url = reverse("league_season", args=[rated.slug, season.pk])
    shown = standings_shown(client.get(url))  # and kept in the cache
    # A paper lei of an earlier evening, in no season: every later rating moves, the kept
    # rows of this season (whose own games did not change) must not be served again.
    play(rated, ["Bas", "Eva", "Dirk"], days_later=3)
    again = standings_shown(client.get(url))
    assert [row[1] for row in again] == [row[1] for row in shown]
    assert [row[5] for row in again] != [row[5] for row in shown]


def test_a_guest_made_a_member_is_ranked_at_once(client, rated):
    season = Season.objects.create(club=rated, name="Voorjaar", starts_on=DAY)
    play(rated, ["Gijs Gast", "Bas", "Cees"], days_later=20, season=season)
    url = reverse("league_season", args=[rated.slug, season.pk])
    assert standings_shown(client.get(url))[-1][:2] == (APART, "Gijs Gast")  # and kept
    Player.objects.filter(name="Gijs Gast").update(is_guest=False)  # as the admin's tick does
    assert [row[:2] for row in standings_shown(client.get(url))] == [
        ("1", "Gijs Gast"),
        ("2", "Bas"),
        ("3", "Cees"),
    ]


def test_every_rating_shown_is_the_exports_figure_rounded_in_the_pages_language(client, rated):
    """Half away from zero to the one place shown, never cut off: 7,868 is 7,9, not 7,8; the
    player page and its chart say the same, with a decimal comma in Dutch."""
    csv_rows = _csv(client.get(reverse("league_ratings_csv", args=[rated.slug])))[1:]
    expected = {}
    for row in csv_rows:
        figure = Decimal(row[3]).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        expected[row[1]] = str(figure.copy_abs() if figure.is_zero() else figure).replace(".", ",")
    assert any(abs(Decimal(row[3])) % Decimal("0.1") >= Decimal("0.05") for row in csv_rows), (
        "the history has a rating that rounds up, where cutting off would differ"
    )
    page = client.get(reverse("league_ratings", args=[rated.slug])).content.decode()
    shown = dict(
        re.findall(
            r'<th scope="row">(?:<a [^>]*>)?([^<]+)(?:</a>)?</th><td class="num">([^<]+)</td>', page
        )
    )
    assert shown == expected
    assert "-0,0" not in page
    for player in Player.objects.filter(club=rated, confirmed=True):
        url = reverse("league_player", args=[rated.slug, player.pk])
        html = client.get(url).content.decode()
        name = "A." if player.name == "Anne" else player.name
        rating = re.search(r'data-stat="rating">([^<]+)<', html).group(1)
        assert rating == expected[name]
        legend = html[html.index('id="rating"') :]
        assert f"{name} ({rating})" in legend  # the chart's legend, comma and all


def test_figures_round_half_away_from_zero_and_never_show_minus_nought():
    from django.utils import translation

    assert figures.rounded(7.868, 1) == Decimal("7.9")
    assert figures.rounded(-7.85, 1) == Decimal("-7.9")
    assert figures.rounded(0.05, 1) == Decimal("0.1")  # 0.05 as written, not its binary
    assert str(figures.rounded(-0.04, 1)) == "0.0"
    with translation.override("nl"):
        assert figures.shown(-0.04, 1) == "0,0"
        assert figures.shown_rating(4.887) == "4,9"
        assert figures.shown_rating(4.809) == "4,8"
    with translation.override("en"):
        assert figures.shown(1.25, 1) == "1.3"


def test_the_ratings_page_says_in_words_what_the_number_means(client, rated):
    page = client.get(reverse("league_ratings", args=[rated.slug])).content.decode()
    text = page[page.index('id="rating-explained"') :]
    text = text[: text.index("</p>")]
    for words in ("begint op 0", "onder 0 is gewoon", "hele geschiedenis van de club", "seizoen"):
        assert words in text
