"""manage.py simulate_tournament: a whole toernooi played at random, nothing kept."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scoring.models import Club, Player, Session, Tournament
from scoring.toernooi.draw import extra_meetings, most_meetings


def simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate_tournament", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_json_is_one_object_of_series_repeats_standings_and_final_table():
    data = json.loads(simulate("--players", "13", "--series", "3", "--seed", "4", "--json"))
    assert set(data) == {
        "series",
        "repeat_pairs",
        "most_meetings",
        "most_bound",
        "extra_meetings",
        "lower_bound",
        "standings",
        "final_table",
    }
    assert [s["number"] for s in data["series"]] == [1, 2, 3]
    for series in data["series"]:
        assert set(series) == {"number", "tables", "draw_ms"}
        assert series["draw_ms"] > 0
        assert sorted(len(t) for t in series["tables"]) == [4, 4, 5]
        assert len({n for t in series["tables"] for n in t}) == 13
    assert all(len(pair) == 2 and pair[0] < pair[1] for pair in data["repeat_pairs"])
    seatings = [s["tables"] for s in data["series"]]
    assert data["extra_meetings"] == extra_meetings(seatings)
    # 3 x 22 seats' pairs < 78 pairs, but any two series of 13 share 4 pairs: 3 x 4 meet twice.
    assert data["most_meetings"] == most_meetings(seatings) >= data["most_bound"] == 2
    assert data["extra_meetings"] >= data["lower_bound"] == 12
    rows = data["standings"]
    assert [set(r) for r in rows] == [
        {"player", "place", "table_points", "strafpunten", "series_played"}
    ] * 13
    assert rows[0]["place"] == 1
    assert all(r["series_played"] == 3 for r in rows)
    assert len(data["final_table"]) == 4
    assert set(data["final_table"]) == {r["player"] for r in rows[:4]}


@pytest.mark.django_db
def test_the_same_seed_plays_the_same_tournament_and_nothing_is_kept():
    def played() -> dict:
        data = json.loads(simulate("--players", "36", "--series", "4", "--seed", "11", "--json"))
        for series in data["series"]:
            del series["draw_ms"]  # how long a draw took is not part of the tournament
        return data

    data = played()
    assert data == played()
    assert data["repeat_pairs"] == []
    assert all(len(t) == 4 for s in data["series"] for t in s["tables"])
    assert not Club.objects.exists()
    assert not Tournament.objects.exists()
    assert not Player.objects.exists()
    assert not Session.objects.exists()


@pytest.mark.django_db
def test_without_a_final_table_it_is_null_and_the_text_report_names_the_seed():
    data = json.loads(simulate("--players", "7", "--series", "2", "--no-final", "--json"))
    assert data["final_table"] is None
    text = simulate("--players", "5", "--series", "1", "--seed", "3", "--table-size", "5")
    assert text.startswith("Seed 3")
    assert "Meeste keren samen aan tafel: 1 (minstens 1 onvermijdelijk)" in text
    assert "Serie 1" in text
    assert "Finaletafel" in text


@pytest.mark.django_db
def test_16_players_over_5_series_drawn_through_the_services_meet_nobody_twice():
    data = json.loads(
        simulate("--players", "16", "--series", "5", "--seed", "2", "--json", "--draw-only")
    )
    assert (data["extra_meetings"], data["repeat_pairs"], data["lower_bound"]) == (0, [], 0)
    assert [len(s["tables"]) for s in data["series"]] == [4] * 5


@pytest.mark.django_db
def test_draw_only_draws_what_the_played_evening_draws_without_playing():
    args = ("--players", "13", "--series", "4", "--seed", "6", "--json")
    played = json.loads(simulate(*args, "--no-final"))
    drawn = json.loads(simulate(*args, "--draw-only"))
    assert [s["tables"] for s in drawn["series"]] == [s["tables"] for s in played["series"]]
    # Nobody sits together more than twice (judged by extra meetings alone, three pairs did in
    # all four series), at 24 extra meetings: the least for that, any two series share 4 pairs.
    assert drawn["most_meetings"] == played["most_meetings"] == drawn["most_bound"] == 2
    assert drawn["extra_meetings"] == played["extra_meetings"] == drawn["lower_bound"] == 24
    assert (drawn["standings"], drawn["final_table"]) == ([], None)
    assert len(played["standings"]) == 13
    assert not Session.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args",
    [
        ["--players", "2", "--series", "2"],
        ["--players", "500", "--series", "2"],
        ["--players", "12", "--series", "0"],
        ["--players", "12", "--series", "2", "--seed", "-1"],
    ],
)
def test_bad_arguments_are_refused_with_a_message(args):
    with pytest.raises(CommandError):
        simulate(*args)
