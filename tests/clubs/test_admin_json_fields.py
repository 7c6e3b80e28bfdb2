"""The settings typed as JSON in the admin (a club's house rules, a season's ranking, a
toernooi's table points): what no setting can be is a form error on that field, the page shows
the text as typed, and nothing is saved (``scoring.admin_base.SettingJSONField``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.models import Club, ClubMembership, Season, Tournament
from tests.builders import admin_form_data

# Each was a 500 (finding 4): RecursionError, ValueError of Python's integer reader, the not
# null constraint, or a lone surrogate that the page drawing the error could not encode.
HOSTILE = {
    "nested 5,000 deep": "[" * 5000 + "]" * 5000,
    "objects 3,000 deep": '{"a":' * 3000 + "1" + "}" * 3000,
    "a number of 5,000 digits": '{"max_points": ' + "9" * 5000 + "}",
    "a list of huge numbers": '{"placement_points": [' + "9" * 4400 + "]}",
    "null": "null",
    "an empty field": "",
    "a lone surrogate": '"\\udcff"',
    "a lone surrogate as a value": '{"knock_cap": "\\udcff"}',
    "a lone surrogate as a key": '{"\\udcff": 1}',
    "a lone high surrogate": '{"tie_breakers": ["\\ud83d"]}',
    "a NUL as an escape": '{"scoring": "\\u0000"}',
    "infinity": '{"max_points": 1e400}',
    "NaN": '{"best_n": NaN}',
    "a megabyte": '{"x": "' + "x" * 1_000_000 + '"}',
}
SETTINGS = [("club", "rules"), ("season", "ranking"), ("tournament", "table_points")]


@pytest.fixture
def setup(club, django_user_model, client):
    user = django_user_model.objects.create_user("annemiek", password="x", is_staff=True)
    ClubMembership.objects.create(user=user, club=club, role="admin")
    client.force_login(user)
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    tournament = Tournament.objects.create(club=club, name="Koningsdag", date="2026-04-27")
    return {"client": client, "club": club, "season": season, "tournament": tournament}


def stored(obj, field):
    return getattr(type(obj).objects.get(pk=obj.pk), field)


@pytest.mark.parametrize(("target", "field"), SETTINGS)
def test_json_that_no_setting_can_be_is_a_form_error_and_changes_nothing(setup, target, field):
    obj = setup[target]
    client = setup["client"]
    url = reverse(f"admin:scoring_{target}_change", args=[obj.pk])
    before = stored(obj, field)
    page = admin_form_data(client.get(url))
    for name, value in HOSTILE.items():
        response = client.post(url, {**page, field: value})
        assert response.status_code == 200, name
        assert response.context["adminform"].form.errors[field], name
        assert stored(obj, field) == before, name
        if len(value) < 10_000:  # the text as typed, escapes and all
            assert value.replace('"', "&quot;") in response.content.decode(), name


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nested 5,000 deep", "nested too deeply"),
        ("a number of 5,000 digits", "a number that is too large"),
        ("infinity", "a number that is too large"),
        ("a lone surrogate", "cannot be stored"),
        ("a NUL as an escape", "cannot be stored"),
        ("null", "an empty field or null cannot be saved"),
        ("a megabyte", "too long"),
    ],
)
def test_the_error_says_what_is_wrong(setup, name, message):
    client, club = setup["client"], setup["club"]
    url = reverse("admin:scoring_club_change", args=[club.pk])
    data = {**admin_form_data(client.get(url)), "rules": HOSTILE[name]}
    response = client.post(url, data, HTTP_ACCEPT_LANGUAGE="en")
    assert message in " ".join(response.context["adminform"].form.errors["rules"])


def test_good_settings_are_still_saved(setup):
    client = setup["client"]
    for target, field, value, want in [
        ("club", "rules", '{"max_points": 20}', {"max_points": 20}),
        ("club", "rules", "{}", {}),
        ("season", "ranking", '{"best_n": 3}', {"best_n": 3}),
        ("tournament", "table_points", "[10, 5, 1]", [10, 5, 1]),
    ]:
        obj = setup[target]
        url = reverse(f"admin:scoring_{target}_change", args=[obj.pk])
        response = client.post(url, {**admin_form_data(client.get(url)), field: value})
        assert response.status_code == 302, (target, value)
        assert stored(obj, field) == want
    assert Club.objects.count() == 1
