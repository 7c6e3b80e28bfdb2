"""League standings and statistics from known sessions, the pages, privacy and freshness.

Sessions are built as ``toepen/1`` dicts whose outcome is known by construction
(``finish_order``) or by the worked examples of RULES.md, stored through
``services.session_import`` like the import command does, and the tables asserted exactly.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import random

import pytest
from django.urls import reverse

from scoring.engine.simulate import random_session
from scoring.league import player_stats, standings
from scoring.lei import services
from scoring.models import ClubMembership, Player, Season, Session
from scoring.ratings.services import ratings_refresh
from tests.builders import DAY, finish_order, make_club, play, record, standings_shown


def table(season, **ranking) -> list[tuple]:
    """The standings as (rank, name, sessions, toepkoningen, average place, points, rounds
    played, rounds won, form); ``=`` after a shared rank."""
    if ranking:
        season.ranking = {**season.ranking, **ranking}
        season.save()
    return [
        (
            f"{r.rank}{'=' if r.tied else ''}",
            r.name,
            r.sessions,
            r.toepkoningen,
            round(r.average_place, 2),
            r.points,
            r.rounds_played,
            r.rounds_won,
            [f.place for f in r.form],
        )
        for r in standings.season_standings(season).rows
    ]


# --- standings -----------------------------------------------------------------------------------


def test_a_toepkoning_at_a_table_of_five_scores_four(season, people):
    play(season.club, ["Anne", "Bas", "Cees", "Dirk", "Eva"], season=season)
    assert [(r[1], r[5]) for r in table(season)] == [
        ("Anne", 4),
        ("Bas", 3),
        ("Cees", 2),
        ("Dirk", 1),
        ("Eva", 0),
    ]


def test_standings_count_players_below_and_shared_places(season, people):
    club = season.club
    play(club, ["Anne", "Bas", "Cees", "Dirk"], season=season)
    # Anne and Cees go out in the same round with the same total: they share second place and
    # each scores 1 (only Eva is below them).
    play(club, ["Bas", ("Anne", "Cees"), "Eva"], season=season, days_later=7)
    assert table(season) == [
        ("1", "Bas", 2, 1, 1.5, 5, 5, 2, [1, 2]),
        ("2", "Anne", 2, 1, 1.5, 4, 5, 3, [2, 1]),
        ("3", "Cees", 2, 0, 2.5, 2, 4, 0, [2, 3]),
        ("4=", "Dirk", 1, 0, 4.0, 0, 1, 0, [4]),
        ("4=", "Eva", 1, 0, 4.0, 0, 1, 0, [4]),
    ]


def test_only_finished_sessions_of_the_season_count(season, people):
    club = season.club
    play(club, ["Anne", "Bas"], season=season)
    play(club, ["Bas", "Anne"])  # no season
    other = Season.objects.create(club=club, name="Zomer", starts_on="2026-06-01")
    play(club, ["Bas", "Anne"], season=other)
    services.session_start(club=club, players=["Bas", "Anne"], season=season)  # running
    assert [(r[1], r[2], r[5]) for r in table(season)] == [("Anne", 1, 1), ("Bas", 1, 0)]


@pytest.fixture
def tied_season(season, people):
    """Anne, Bas and Dirk have 1 point and 1 toepkoning each; Anne beat Bas, Dirk beat Anne.

    Anne: 1st of 2, 2nd of 2 (average 1.5). Bas: 2nd of 2, 1st of 2 (1.5). Dirk: 1st of 2 (1.0).
    """
    club = season.club
    play(club, ["Anne", "Bas"], season=season)
    play(club, ["Bas", "Cees"], season=season, days_later=1)
    play(club, ["Dirk", "Anne"], season=season, days_later=2)
    return season


def test_tie_breaker_toepkoningen_then_average_place(tied_season):
    rows = table(tied_season, tie_breakers=["toepkoningen", "average_place"])
    assert [(r[0], r[1]) for r in rows] == [
        ("1", "Dirk"),
        ("2=", "Anne"),
        ("2=", "Bas"),
        ("4", "Cees"),
    ]
    by_name = {r.name: r for r in standings.season_standings(tied_season).rows}
    assert by_name["Anne"].decided_by == "average_place"
    assert by_name["Bas"].decided_by is None  # still tied with Anne


def test_tie_breaker_head_to_head(tied_season):
    rows = table(tied_season, tie_breakers=["head_to_head"])
    # Within the three: Dirk beat Anne, Anne beat Bas.
    assert [(r[0], r[1]) for r in rows] == [
        ("1", "Dirk"),
        ("2", "Anne"),
        ("3", "Bas"),
        ("4", "Cees"),
    ]
    by_name = {r.name: r for r in standings.season_standings(tied_season).rows}
    assert by_name["Anne"].decided_by == "head_to_head"


def test_no_tie_breakers_leave_a_shared_place(tied_season):
    rows = table(tied_season, tie_breakers=[])
    assert [(r[0], r[1]) for r in rows] == [
        ("1=", "Anne"),
        ("1=", "Bas"),
        ("1=", "Dirk"),
        ("4", "Cees"),
    ]


def test_tie_breaker_toepkoningen_before_average_place(season, people):
    """Anne: 1 point, toepkoning once, average place 2.5. Bas: 1 point, never, average 2."""
    club = season.club
    play(club, ["Anne", "Cees"], season=season)
    play(club, ["Dirk", "Eva", "Cees", "Anne"], season=season, days_later=1)
    play(club, ["Cees", "Bas", "Dirk"], season=season, days_later=2)
    kings_first = table(season, tie_breakers=["toepkoningen", "average_place"])
    places_first = table(season, tie_breakers=["average_place", "toepkoningen"])
    assert [r[1] for r in kings_first if r[1] in ("Anne", "Bas")] == ["Anne", "Bas"]
    assert [r[1] for r in places_first if r[1] in ("Anne", "Bas")] == ["Bas", "Anne"]
    # Cees and Dirk: 3 points, one toepkoning, average 2 each, one win each against the other;
    # Dirk had 11 strafpunten in 4 rounds, Cees 23 in 5: fewer per round goes higher.
    assert [r[:2] for r in table(season, tie_breakers=["wins", "average_place", "head_to_head"])][
        :2
    ] == [("1=", "Cees"), ("1=", "Dirk")]
    rows = table(season, tie_breakers=["head_to_head", "strafpunten_per_round"])
    assert [r[:2] for r in rows][:2] == [("1", "Dirk"), ("2", "Cees")]


def test_best_n_counts_only_the_best_sessions(season, people):
    club = season.club
    play(club, ["Anne", "Bas", "Cees", "Dirk"], season=season)  # 3 2 1 0
    play(club, ["Bas", "Anne"], season=season, days_later=1)  # Bas 1
    play(club, ["Cees", "Anne"], season=season, days_later=2)  # Cees 1
    # Anne and Bas both have 3 and one toepkoning; Bas's average place is better (1.5 to 1.67).
    assert [(r[1], r[5]) for r in table(season)] == [
        ("Bas", 3),
        ("Anne", 3),
        ("Cees", 2),
        ("Dirk", 0),
    ]
    season.ranking = {"best_n": 1, "tie_breakers": []}
    season.save()
    rows = standings.season_standings(season).rows
    assert [(r.name, r.points, r.all_points) for r in rows] == [
        ("Anne", 3, 3),
        ("Bas", 2, 3),
        ("Cees", 1, 2),
        ("Dirk", 0, 0),
    ]


def test_placement_points_by_place(season, people):
    play(season.club, ["Anne", "Bas", "Cees", "Dirk"], season=season)
    rows = table(season, placement_points=[10, 6, 4])
    assert [(r[1], r[5]) for r in rows] == [("Anne", 10), ("Bas", 6), ("Cees", 4), ("Dirk", 0)]


def test_per_round_scoring_ranks_fewest_strafpunten_per_round(season, people):
    club = season.club
    play(club, ["Anne", "Bas", "Cees", "Dirk"], season=season)
    play(club, ["Bas", "Anne"], season=season, days_later=1)
    season.ranking = {"scoring": "per_round", "tie_breakers": []}
    season.save()
    rows = standings.season_standings(season).rows
    # Anne: 0 in 3 rounds + 11 in 1; Bas: 13 in 3 + 0 in 1; Cees 12 in 2; Dirk 11 in 1.
    assert [(r.name, r.points, r.rounds_played, round(r.per_round, 3)) for r in rows] == [
        ("Anne", 11, 4, 2.75),
        ("Bas", 13, 4, 3.25),
        ("Cees", 12, 2, 6.0),
        ("Dirk", 11, 1, 11.0),
    ]


def test_start_totals_from_a_paper_lei_are_not_strafpunten_of_the_season(season, people):
    data = finish_order(["Anne", "Bas"])
    data["start"] = {"Anne": 5, "Bas": 3}
    services.session_import(club=season.club, data=data, season=season, played_on=DAY)
    rows = standings.season_standings(season).rows
    # Anne wins the one round (0), Bas takes the stake and a penalty of 10.
    assert [(r.name, r.strafpunten, r.rounds_played) for r in rows] == [
        ("Anne", 0, 1),
        ("Bas", 11, 1),
    ]


def test_the_title_toepkoning_from_three_on_the_standings_page(client, public_club, season, people):
    for i in range(3):
        play(public_club, ["Anne", "Bas"], season=season, days_later=i)
    body = client.get(reverse("league_season", args=[public_club.slug, season.pk])).content
    assert body.count(b"badge--toepkoning") == 1


# --- a player's statistics -----------------------------------------------------------------------

STATS_SESSION = {
    "format": "toepen/1",
    "players": ["Anne", "Bas", "Cees", "Dirk"],
    "rounds": [
        # RULES.md §15 example 2: B knocks, C folds, D and A stay, D wins -> 2 2 1 0.
        {
            "events": [
                {"type": "knock", "player": "Bas"},
                {"type": "fold", "player": "Cees"},
                {"type": "win", "player": "Dirk"},
            ]
        },
        # Example 5: no knock, A wins with a boer -> -1 1 1 1. Totals 1 3 2 1.
        {"events": [{"type": "win", "player": "Anne", "jack": True}]},
        # Example 4 with Anne knocking: everyone folds -> 0 1 1 1. Totals 1 4 3 2.
        {
            "events": [
                {"type": "knock", "player": "Anne"},
                {"type": "fold", "player": "Bas"},
                {"type": "fold", "player": "Cees"},
                {"type": "fold", "player": "Dirk"},
            ]
        },
        # Anne wins; Cees also gets a penalty of 5. Totals 1 5 9 3: Cees in armoede.
        {
            "events": [
                {"type": "penalty", "player": "Cees", "points": 5, "reason": "test"},
                {"type": "win", "player": "Anne"},
            ]
        },
        # Armoede: the others fold to the opening raise and Cees wins it: survived.
        {
            "events": [
                {"type": "fold", "player": "Dirk"},
                {"type": "fold", "player": "Anne"},
                {"type": "fold", "player": "Bas"},
            ]
        },
        # Armoede again: Anne wins at a stake of 2, Cees is out on 11. Totals 2 7 11 5.
        {"events": [{"type": "win", "player": "Anne"}]},
        # Bas and Dirk take 10: out; Anne is the toepkoning.
        {
            "events": [
                {"type": "penalty", "player": "Bas", "points": 10, "reason": "test"},
                {"type": "penalty", "player": "Dirk", "points": 10, "reason": "test"},
                {"type": "win", "player": "Anne"},
            ]
        },
    ],
}


def test_player_statistics_from_known_rounds(club, people):
    session = services.session_import(club=club, data=STATS_SESSION, played_on=DAY)
    assert session.status == "finished"
    anne = player_stats.player_stats(club_id=club.pk, player_id=people["Anne"].pk)
    assert anne.sessions == 1
    assert anne.toepkoningen == 1
    assert anne.places == {1: 1}
    assert (anne.rounds_played, anne.rounds_won) == (7, 5)  # rounds 2, 3, 4, 6, 7
    assert (anne.knocks, anne.knocked_rounds, anne.knocked_rounds_won) == (1, 1, 1)
    assert anne.folds == 1
    assert anne.boer_wins == 1
    assert anne.longest_run == 3  # rounds 2-4 (round 5 is Cees's)
    bas = player_stats.player_stats(club_id=club.pk, player_id=people["Bas"].pk)
    assert (bas.knocks, bas.knocked_rounds, bas.knocked_rounds_won) == (1, 1, 0)
    assert (bas.rounds_won, bas.longest_run, bas.folds) == (0, 0, 2)
    cees = player_stats.player_stats(club_id=club.pk, player_id=people["Cees"].pk)
    assert (cees.armoede_rounds, cees.armoede_survived) == (2, 1)
    assert (cees.rounds_won, cees.longest_run, cees.places) == (1, 1, {4: 1})
    assert cees.folds == 2  # rounds 1 and 3
    dirk = player_stats.player_stats(club_id=club.pk, player_id=people["Dirk"].pk)
    assert (dirk.rounds_won, dirk.boer_wins, dirk.places) == (1, 0, {2: 1})


def test_three_toepkoningen_carry_the_title(club, people):
    for i in range(3):
        play(club, ["Anne", "Bas"], days_later=i)
    anne = player_stats.player_stats(club_id=club.pk, player_id=people["Anne"].pk)
    assert (anne.toepkoningen, anne.is_toepkoning) == (3, True)
    bas = player_stats.player_stats(club_id=club.pk, player_id=people["Bas"].pk)
    assert (bas.toepkoningen, bas.is_toepkoning) == (0, False)


def test_head_to_head_and_league_points(season, people):
    club = season.club
    play(club, ["Anne", "Bas", "Cees"], season=season)
    play(club, ["Bas", "Anne"], season=season, days_later=1)
    play(club, ["Cees", "Dirk"], season=season, days_later=2)
    rivals = player_stats.opponents(club_id=club.pk, player_id=people["Anne"].pk)
    assert [(o.name, o.sessions, o.higher, o.lower) for o in rivals] == [
        ("Bas", 2, 1, 1),
        ("Cees", 1, 1, 0),
    ]
    points = player_stats.league_points(season=season, player_id=people["Anne"].pk)
    assert [(p.place, p.table_size, p.points) for p in points] == [(1, 3, 2), (2, 2, 0)]


# --- the pages -----------------------------------------------------------------------------------


def _pages(club, season, session, player):
    return [
        reverse("league_club", args=[club.slug]),
        reverse("league_season", args=[club.slug, season.pk]),
        reverse("league_season_csv", args=[club.slug, season.pk]),
        reverse("league_season_rounds_csv", args=[club.slug, season.pk]),
        reverse("league_player", args=[club.slug, player.pk]),
        reverse("league_archive", args=[club.slug]),
        reverse("league_session", args=[club.slug, session.pk]),
        reverse("league_session_export", args=[club.slug, session.pk]),
        reverse("league_evening", args=[club.slug, DAY.isoformat()]),
    ]


def test_a_club_that_does_not_publish_shows_nothing_to_the_public(
    client, club, season, people, django_user_model
):
    session = play(club, ["Anne", "Bas"], season=season)
    pages = _pages(club, season, session, people["Anne"])
    for url in pages:
        assert client.get(url).status_code == 404, url
    outsider = django_user_model.objects.create_user(username="outsider")
    client.force_login(outsider)
    assert client.get(pages[1]).status_code == 404
    member = django_user_model.objects.create_user(username="member")
    ClubMembership.objects.create(club=club, user=member)
    client.force_login(member)
    for url in pages:
        assert client.get(url).status_code == 200, url


def test_initials_on_public_pages_and_full_names_for_members(
    client, public_club, season, people, django_user_model
):
    Player.objects.filter(pk=people["Anne"].pk).update(public_initials=True)
    Player.objects.filter(pk=people["Bas"].pk).update(name="Bas van Dijk")
    session = play(public_club, ["Anne", "Bas van Dijk"], season=season)
    pages = _pages(public_club, season, session, people["Bas"])
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response) if response.streaming else response.content
        assert b"Anne" not in body, url
    standings_page = client.get(pages[1]).content.decode()
    assert "A." in standings_page
    assert "Bas van Dijk" in standings_page
    exported = json.loads(client.get(pages[7]).content)
    assert exported["players"] == ["A.", "Bas van Dijk"]
    member = django_user_model.objects.create_user(username="member")
    ClubMembership.objects.create(club=public_club, user=member)
    client.force_login(member)
    assert "Anne" in client.get(pages[1]).content.decode()
    assert json.loads(client.get(pages[7]).content)["players"] == ["Anne", "Bas van Dijk"]


def test_standings_csv(client, public_club, season, people):
    play(public_club, ["Anne", "Bas", "Cees"], season=season)
    response = client.get(reverse("league_season_csv", args=[public_club.slug, season.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [
        [
            "rank",
            "player",
            "sessions",
            "toepkoningen",
            "average_place",
            "points",
            "rounds_played",
            "rounds_won",
            "rounds_won_pct",
            "strafpunten",
            "strafpunten_per_round",
            "form",
            "part",
        ],
        ["1", "Anne", "1", "1", "1.00", "2", "2", "2", "100.0", "0", "0.000", "1", "ranked"],
        ["2", "Bas", "1", "0", "2.00", "1", "2", "0", "0.0", "12", "6.000", "2", "ranked"],
        ["3", "Cees", "1", "0", "3.00", "0", "1", "0", "0.0", "11", "11.000", "3", "ranked"],
    ]


def test_rounds_csv(client, public_club, season, people):
    session = play(public_club, ["Anne", "Bas"], season=season, table="Tafel 1")
    response = client.get(reverse("league_season_rounds_csv", args=[public_club.slug, season.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:6] == ["date", "session", "table", "round", "player", "points"]
    assert rows[1:] == [
        ["2026-01-05", str(session.pk), "Tafel 1", "1", "Anne", "0", "1", "1", "0", "0", "0", "0",
         "", "0", "0", "0"],
        ["2026-01-05", str(session.pk), "Tafel 1", "1", "Bas", "11", "1", "0", "0", "0", "0", "0",
         "", "10", "11", "1"],
    ]  # fmt: skip


def test_session_export_is_the_session_file(client, public_club, people):
    session = services.session_import(club=public_club, data=STATS_SESSION, played_on=DAY)
    response = client.get(reverse("league_session_export", args=[public_club.slug, session.pk]))
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content) == session.to_file()


def test_archive_filters(client, public_club, season, people):
    a = play(public_club, ["Anne", "Bas"], season=season, table="Tafel 1")
    b = play(public_club, ["Cees", "Dirk"], season=season, table="Tafel 2")
    c = play(public_club, ["Anne", "Cees"], season=season, table="Tafel 1", days_later=7)
    url = reverse("league_archive", args=[public_club.slug])

    def listed(**query) -> list[int]:
        return [s.pk for s, _ in client.get(url, query).context["listed"]]

    assert listed() == [c.pk, b.pk, a.pk]
    assert listed(datum=DAY.isoformat()) == [b.pk, a.pk]
    assert listed(speler=people["Anne"].pk) == [c.pk, a.pk]
    assert listed(tafel="Tafel 1") == [c.pk, a.pk]
    assert listed(tafel="Tafel 1", datum=DAY.isoformat()) == [a.pk]


def test_session_page_shows_the_lei_read_only(client, public_club, people):
    session = services.session_import(club=public_club, data=STATS_SESSION, played_on=DAY)
    response = client.get(reverse("league_session", args=[public_club.slug, session.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "<svg" in body
    assert 'id="sheet"' in body
    assert len(response.context["sheet"]) == 7
    assert "<form" not in body.split('id="content"')[1]  # nothing to change here


def test_evening_polls_with_etag_and_304(client, public_club, people):
    session = services.session_start(club=public_club, players=["Anne", "Bas"], played_on=DAY)
    other_day = services.session_start(club=public_club, players=["Cees", "Dirk"])
    url = reverse("league_evening", args=[public_club.slug, DAY.isoformat()])
    page = client.get(url)
    assert page.status_code == 200
    assert b"<html" in page.content
    assert page.context["tables"][0][0].pk == session.pk
    assert [s.pk for s, _ in page.context["tables"]] != [other_day.pk]
    fragment = client.get(url, headers={"HX-Request": "true"})
    assert b"<html" not in fragment.content
    assert b'id="evening-tables"' in fragment.content
    etag = fragment["ETag"]
    assert client.get(url, headers={"HX-Request": "true", "If-None-Match": etag}).status_code == 304
    record(session, "win", "Anne")
    changed = client.get(url, headers={"HX-Request": "true", "If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert "HX-Request" in changed["Vary"]


def test_the_evening_polls_only_while_it_is_looked_at(client, public_club, people):
    # static/js/poll.js skips the polls of a hidden page and polls at once when it is shown.
    url = reverse("league_evening", args=[public_club.slug, DAY.isoformat()])
    page = client.get(url).content.decode()
    assert "js/poll." in page
    tables = page.split('id="evening-tables"')[1].split(">")[0]
    assert "data-poll-visible" in tables
    assert ", shown" in tables


def test_evening_of_a_bad_date_is_not_found(client, public_club):
    assert client.get(f"/club/{public_club.slug}/avond/2026-13-01/").status_code == 404


# --- freshness -----------------------------------------------------------------------------------


def test_standings_and_player_page_follow_a_recorded_round_and_a_correction(
    client, public_club, season, people
):
    club = public_club
    session = play(club, ["Anne", "Bas", "Cees"], season=season)
    standings_url = reverse("league_season", args=[club.slug, season.pk])
    bas_url = reverse("league_player", args=[club.slug, people["Bas"].pk])

    def first() -> str:
        return standings_shown(client.get(standings_url))[0][1]

    def bas_kings() -> int:
        return client.get(bas_url).context["stats"].toepkoningen

    assert (first(), bas_kings()) == ("Anne", 0)
    # Correct the last round: Anne takes the penalty and Bas wins, so Bas is the toepkoning.
    services.round_replace_events(
        session=session,
        number=2,
        events=[
            {"type": "penalty", "player": "Anne", "points": 10, "reason": "test"},
            {"type": "win", "player": "Bas"},
        ],
    )
    assert (first(), bas_kings()) == ("Bas", 1)
    # A new session recorded round by round counts as soon as its last round is in.
    live = services.session_start(club=club, players=["Bas", "Dirk"], season=season)
    record(live, "penalty", "Bas", points=10, reason="test")
    assert standings_shown(client.get(standings_url))[0][2] == "1"  # still running
    record(live, "win", "Dirk")
    rows = {row[1]: row for row in standings_shown(client.get(standings_url))}
    assert (rows["Dirk"][2], rows["Dirk"][5], rows["Bas"][2]) == ("1", "1", "2")


# --- query counts --------------------------------------------------------------------------------


def _random_season(club, season, sessions: int) -> list[Session]:
    rng = random.Random(sessions)
    names = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fleur", "Gijs"]
    made = []
    for i in range(sessions):
        players = rng.sample(names, rng.randint(2, 6))
        data = random_session(rng, players, rounds=300)
        made.append(
            services.session_import(
                club=club,
                data=data,
                season=season,
                played_on=DAY + datetime.timedelta(days=i % 4),
                table_label=f"Tafel {i % 3 + 1}",
            )
        )
    return made


def _count_queries(client, django_assert_num_queries, club, season, sessions):
    anne = Player.objects.get(club=club, name="Anne")
    ratings_refresh(club_id=club.pk)  # imported games: the first page would compute them
    standings_url = reverse("league_season", args=[club.slug, season.pk])
    # The first request computes the rows: 1 club, 2 season with its finished sessions'
    # aggregates, 3 the players shown by initials, 4 the cache (a miss); then in one snapshot
    # 5 the season and 6 the initials again, 7 aggregate per player (points, best N,
    # strafpunten, form), 8 the players' names, 9 start totals of sessions carried over from a
    # paper lei; 10-14 the rows kept (Django's database cache: its count, then in a savepoint
    # of the test's transaction the row's lookup and insert).
    with django_assert_num_queries(14):
        assert client.get(standings_url).status_code == 200
    # Every next request while the data is unchanged: 1 club, 2 season, 3 initials, 4 the cache.
    with django_assert_num_queries(4):
        assert client.get(standings_url).status_code == 200
    # 1 club, 2 player, 3 seasons, 4 session results, 5 round scores, 6 longest run,
    # 7 league points, 8-9 the ratings' key and state (current: refreshed above), 10 the
    # rating history, 11 head-to-head, 12 latest sessions, 13 seats and 14 round scores of the
    # latest session for its chart.
    with django_assert_num_queries(14):
        assert client.get(reverse("league_player", args=[club.slug, anne.pk])).status_code == 200
    # 1 club, 2 players for the filter, 3 table labels, 4 count, 5 the page of sessions,
    # 6 their results with the players.
    with django_assert_num_queries(6):
        assert client.get(reverse("league_archive", args=[club.slug])).status_code == 200
    # 1 club, 2 the evening's sessions (the ETag), 3 the evenings before and after (the
    # page's links), 4 their results with the players.
    url = reverse("league_evening", args=[club.slug, DAY.isoformat()])
    with django_assert_num_queries(4):
        response = client.get(url)
    with django_assert_num_queries(3):
        assert client.get(url, headers={"If-None-Match": response["ETag"]}).status_code == 304
    # The TV's poll while nothing changed: 1 club, 2 the sessions; then 304.
    poll = {"HX-Request": "true"}
    etag = client.get(url, headers=poll)["ETag"]
    with django_assert_num_queries(2):
        assert client.get(url, headers={**poll, "If-None-Match": etag}).status_code == 304
    # 1 club, 2 session with its last scored round, 3 seats, 4 round scores of the last rounds
    # of the sheet, 5 results, 6 every round's totals for the chart.
    with django_assert_num_queries(6):
        page = client.get(reverse("league_session", args=[club.slug, sessions[0].pk]))
        assert page.status_code == 200


@pytest.mark.parametrize("size", [3, 30])
def test_query_counts_do_not_grow_with_the_season(
    client, public_club, season, django_assert_num_queries, size
):
    sessions = _random_season(public_club, season, size)
    assert len(standings.season_standings(season).rows) >= 2
    _count_queries(client, django_assert_num_queries, public_club, season, sessions)


def test_head_to_head_costs_one_query_only_when_a_tie_reaches_it(
    client, tied_season, django_assert_num_queries
):
    tied_season.ranking = {"tie_breakers": ["head_to_head"]}
    tied_season.save()
    club = tied_season.club
    club.standings_public = True
    club.save()
    # 1 club, 2 season with its sessions' aggregates, 3 initials, 4 the cache (a miss); 5-6 the
    # key again, 7 aggregate, 8 names, 9 start totals, 10 results among the tied players; 11-15
    # the rows kept (the cache's count, then in the test's savepoint its lookup and insert).
    with django_assert_num_queries(15):
        client.get(reverse("league_season", args=[club.slug, tied_season.pk]))


def test_unknown_club_and_foreign_ids_are_not_found(client, public_club, season, people):
    other = make_club(name="Elders", slug="elders", standings_public=True)
    foreign = Season.objects.create(club=other, name="X", starts_on="2026-01-01")
    assert client.get("/club/nope/").status_code == 404
    assert (
        client.get(reverse("league_season", args=[public_club.slug, foreign.pk])).status_code == 404
    )
    stranger = Player.objects.create(club=other, name="Zoe")
    assert (
        client.get(reverse("league_player", args=[public_club.slug, stranger.pk])).status_code
        == 404
    )


def test_members_get_the_live_viewer_link_and_the_public_does_not(
    client, public_club, people, django_user_model
):
    session = services.session_start(club=public_club, players=["Anne", "Bas"], played_on=DAY)
    url = reverse("league_session", args=[public_club.slug, session.pk])
    assert client.get(url).context["viewer_link"] is None
    member = django_user_model.objects.create_user(username="member")
    ClubMembership.objects.create(club=public_club, user=member)
    client.force_login(member)
    link = client.get(url).context["viewer_link"]
    assert link.startswith("/kijk/")
    assert client.get(link).status_code == 200
