"""The admin shows a club admin their own clubs and nothing else, on every page it has.

The walk is generated from ``admin.site._registry`` and each admin's ``get_urls()``, and the
autocomplete walk from every foreign key of every model: a new ModelAdmin, URL or foreign key is
walked without editing this file. Club B's objects all carry the word "Bravo" in their names,
so a page that shows anything of B to A's admin is caught by a substring test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import RequestFactory
from django.urls import URLPattern, reverse

from scoring.admin_base import ClubScopedAdmin
from scoring.lei import services
from scoring.models import Club, ClubInvitation, ClubMembership, Player, Season, Session
from scoring.toernooi import checkin
from scoring.toernooi import services as tournaments
from tests.builders import make_club, record

MARK = "Bravo"  # every name of club B holds it; nothing of club A does


def _world_of(club: Club, prefix: str, admin_user: Any) -> dict[str, Any]:
    """One club's objects of every kind: players, a season, a scored round, an audit trail."""
    ClubMembership.objects.create(user=admin_user, club=club, role="admin")
    season = Season.objects.create(club=club, name=f"{prefix} winter", starts_on="2026-01-01")
    session = services.session_start(
        club=club,
        players=[f"{prefix} Anne", f"{prefix} Bas", f"{prefix} Cees"],
        season=season,
        table_label=f"{prefix} tafel",
        actor=admin_user,
    )
    record(session, "knock", f"{prefix} Anne")
    record(session, "win", f"{prefix} Bas")
    services.session_record_event(
        session=session,
        event={"type": "win", "player": f"{prefix} Anne"},
        version=session.version,
        key=f"{prefix.lower()}-key",
    )
    dirk = Player.objects.create(club=club, name=f"{prefix} Dirk", is_guest=True)
    ClubInvitation.objects.create(
        club=club, player=dirk, note=f"{prefix} Dirk", created_by=admin_user
    )
    tournament = tournaments.tournament_create(club=club, name=f"{prefix} toernooi")
    checkin.tournament_check_in(
        tournament=tournament, guests=[f"{prefix} Anne", f"{prefix} Bas", f"{prefix} Cees"]
    )
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=1)
    tournaments.series_start(series=series, actor=admin_user)
    return {"club": club, "session": session}


@pytest.fixture
def clubs(db, django_user_model) -> dict[str, Any]:
    admin_a = django_user_model.objects.create_user("alice", password="x", is_staff=True)
    admin_b = django_user_model.objects.create_user("bob", password="x", is_staff=True)
    root = django_user_model.objects.create_superuser("root", password="x")
    Group.objects.create(name="Tellers")  # so that the auth admins have an object to walk too
    # Club B first: its ids are lower than A's, so an id of B never happens to be one of A's.
    club_b = make_club(f"{MARK} Boeren", "bravo-boeren")
    world_b = _world_of(club_b, MARK, admin_b)
    club_a = make_club("Het Anker", "anker")
    world_a = _world_of(club_a, "Anker", admin_a)
    return {
        "admin_a": admin_a,
        "admin_b": admin_b,
        "root": root,
        "club_a": club_a,
        "club_b": club_b,
        "world_a": world_a,
        "world_b": world_b,
    }


def scoped_admins() -> list[tuple[type, ClubScopedAdmin]]:
    return [(m, ma) for m, ma in admin.site._registry.items() if isinstance(ma, ClubScopedAdmin)]


def object_of(model_admin: admin.ModelAdmin, club: Club) -> Any:
    obj = (
        model_admin.model._default_manager.filter(**{model_admin.club_path: club.pk})
        .order_by("pk")
        .first()
    )
    assert obj is not None, (
        f"no {model_admin.model.__name__} of club {club}: add one to the fixture's world"
    )
    return obj


def admin_urls(model_admin: admin.ModelAdmin, obj: Any) -> list[tuple[str, str, bool]]:
    """(name, url, is about one object) for every named URL of this admin."""
    urls = []
    for pattern in model_admin.get_urls():
        if not isinstance(pattern, URLPattern) or not pattern.name:
            continue
        converters = set(getattr(pattern.pattern, "converters", {}))
        unknown = converters - {"object_id", "id"}  # auth's password page names it "id"
        assert not unknown, f"{pattern.name}: the walk does not know how to fill {unknown}"
        kwargs = dict.fromkeys(converters, obj.pk)
        urls.append((pattern.name, reverse(f"admin:{pattern.name}", kwargs=kwargs), bool(kwargs)))
    return urls


def changelist_url(model_admin: admin.ModelAdmin) -> str:
    return reverse(f"admin:{model_admin.opts.app_label}_{model_admin.opts.model_name}_changelist")


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row of the scoring app, to see that nothing changed."""
    return {
        model.__name__: list(model._default_manager.order_by("pk").values())
        for model in apps.get_app_config("scoring").get_models()
    }


def allowed(model_admin: admin.ModelAdmin, user: Any, name: str, obj: Any) -> bool:
    """Whether the admin's own permission methods let ``user`` open the page ``name``."""
    request = RequestFactory().get("/")
    request.user = user
    kind = name.rsplit("_", 1)[-1]
    if kind == "changelist":
        return model_admin.has_view_or_change_permission(request)
    if kind == "add":
        return model_admin.has_add_permission(request)
    if kind == "delete":
        return model_admin.has_delete_permission(request, obj)
    return model_admin.has_view_or_change_permission(request, obj)


def test_the_walk_covers_every_registered_admin():
    scoped = {m for m, _ in scoped_admins()}
    scoring_models = set(apps.get_app_config("scoring").get_models())
    # Every model of scoring has an admin of its own, and every one of them is club-scoped.
    # TapAllowance is the tap limit's count: it has nothing for an admin to see or change.
    # A toernooi's tables and their seats are shown inline on its pages. The ratings' rows are
    # recomputed from the games (scoring/ratings/), never edited; a club evening's check-in and
    # tables are the organiser's screen (/avonden/), and its games are ordinary sessions.
    not_in_admin = {
        apps.get_model("scoring", name)
        for name in (
            "Seat",
            "TapAllowance",
            "TournamentTable",
            "TableSeat",
            "RatingState",
            "RatingSnapshot",
            "Evening",
            "EveningPlayer",
            "EveningTable",
            "CheckinAllowance",  # the check-in's flood counter, shown on the organiser's screen
            "PushWatch",  # which viewers' parts open streams show (scoring/lei/watch.py)
        )
    }
    assert scoring_models - set(admin.site._registry) <= not_in_admin, (
        "register the new model (or show it inline and list it here)"
    )
    assert {m for m in admin.site._registry if m._meta.app_label == "scoring"} == scoped


def test_a_club_admin_cannot_open_any_page_of_another_clubs_objects(client, clubs):
    client.force_login(clubs["admin_a"])
    walked = 0
    before = snapshot()
    for model_admin in admin.site._registry.values():
        scoped = isinstance(model_admin, ClubScopedAdmin)
        # Other apps' admins (users, groups) are walked with an object a club admin may not see.
        if scoped:
            obj = object_of(model_admin, clubs["club_b"])
        else:
            obj = model_admin.model._default_manager.order_by("pk").first()
            assert obj is not None, f"make a {model_admin.model.__name__} in the fixture"
        for name, url, about_one in admin_urls(model_admin, obj):
            for method in ("get", "post"):
                response = getattr(client, method)(url, {"post": "yes"} if method == "post" else {})
                walked += 1
                if about_one or not scoped:
                    assert response.status_code in (403, 404), (method, url, response.status_code)
                    continue
                if method == "post":
                    # A changelist POST is an action without a selection, an add POST an
                    # empty form: neither may write anything (checked by the snapshot).
                    assert response.status_code in (200, 302, 403), (method, url)
                    continue
                assert response.status_code in (200, 403), (url, response.status_code)
                if response.status_code == 200:
                    assert MARK not in response.content.decode(), f"{url} shows club B"
                    if "cl" in response.context:
                        assert not response.context["cl"].queryset.filter(pk=obj.pk).exists()
            if name.endswith("_changelist"):
                # The popup of a raw id field: the same list, asked for by id.
                response = client.get(url, {"_to_field": "id", "_popup": "1"})
                walked += 1
                if scoped and response.status_code == 200:
                    assert MARK not in response.content.decode(), f"{url} popup shows club B"
    assert snapshot() == before
    assert walked > 100


def test_the_owner_of_the_objects_can_open_every_page_the_permissions_allow(client, clubs):
    client.force_login(clubs["admin_b"])
    for _, model_admin in scoped_admins():
        obj = object_of(model_admin, clubs["club_b"])
        for name, url, _ in admin_urls(model_admin, obj):
            response = client.get(url)
            expected = 200 if allowed(model_admin, clubs["admin_b"], name, obj) else 403
            assert response.status_code == expected, (url, response.status_code)
            if name.endswith("_changelist") and expected == 200:
                assert response.context["cl"].queryset.filter(pk=obj.pk).exists(), url


def test_a_superuser_opens_every_page_of_every_club(client, clubs):
    client.force_login(clubs["root"])
    for _, model_admin in scoped_admins():
        for club in (clubs["club_a"], clubs["club_b"]):
            obj = object_of(model_admin, club)
            for _name, url, _ in admin_urls(model_admin, obj):
                assert client.get(url).status_code in (200, 403), url


def foreign_keys() -> list[Any]:
    """Every foreign key of every model whose target has a searchable admin."""
    fields = []
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if not (field.is_relation and field.many_to_one and field.concrete):
                continue
            target = admin.site._registry.get(field.related_model)
            if target is not None and target.search_fields:
                fields.append(field)
    return fields


def autocomplete(client, field, term: str = "") -> tuple[int, set[str]]:
    response = client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": field.model._meta.app_label,
            "model_name": field.model._meta.model_name,
            "field_name": field.name,
            "term": term,
        },
    )
    if response.status_code != 200:
        return response.status_code, set()
    return 200, {item["id"] for item in json.loads(response.content)["results"]}


# The count of entries groups the tournaments, and Django drops Meta.ordering from a grouped
# query: an autocomplete page at a time needs an order it keeps.
@pytest.mark.filterwarnings("error::django.core.paginator.UnorderedObjectListWarning")
def test_autocomplete_of_every_foreign_key_shows_only_the_own_clubs_objects(client, clubs):
    fields = foreign_keys()
    assert len(fields) >= 10
    for field in fields:
        target = admin.site._registry[field.related_model]
        to_field = field.remote_field.field_name
        if isinstance(target, ClubScopedAdmin):
            manager = field.related_model._default_manager
            of_b = {
                str(v)
                for v in manager.filter(**{target.club_path: clubs["club_b"].pk}).values_list(
                    to_field, flat=True
                )
            }
        else:
            of_b = {str(getattr(clubs["admin_b"], to_field))}
        for term in ("", MARK):
            client.force_login(clubs["admin_a"])
            status, ids = autocomplete(client, field, term)
            assert status in (200, 403), (field, status)
            assert not ids & of_b, f"{field} autocomplete shows club B to A's admin"
        if isinstance(target, ClubScopedAdmin):
            client.force_login(clubs["admin_b"])
            status, ids = autocomplete(client, field)
            assert status == 200, field
            assert ids & of_b, f"{field} autocomplete hides club B from its own admin"


def test_no_action_of_any_admin_touches_another_clubs_objects(client, clubs):
    request = RequestFactory().get("/")
    request.user = clubs["root"]
    client.force_login(clubs["admin_a"])
    before = snapshot()
    tried = 0
    for _, model_admin in scoped_admins():
        obj = object_of(model_admin, clubs["club_b"])
        url = reverse(
            f"admin:{model_admin.opts.app_label}_{model_admin.opts.model_name}_changelist"
        )
        for action in model_admin.get_actions(request):
            for extra in ({}, {"post": "yes", "keep": obj.pk}):
                client.post(
                    url, {"action": action, "_selected_action": [obj.pk], "index": 0, **extra}
                )
                tried += 1
    assert tried >= 8
    assert snapshot() == before


def test_foreign_key_choices_on_the_add_pages_are_the_own_clubs(client, clubs):
    client.force_login(clubs["admin_a"])
    for model_admin in (admin.site._registry[Player], admin.site._registry[Season]):
        url = reverse(f"admin:scoring_{model_admin.opts.model_name}_add")
        response = client.get(url)
        assert response.status_code == 200
        choices = list(response.context["adminform"].form.fields["club"].queryset)
        assert choices == [clubs["club_a"]]
        # Posting club B's id anyway is refused as an invalid choice, and nothing is made.
        data = {"club": clubs["club_b"].pk, "name": "Bravo Intruder", "starts_on": "2026-02-01"}
        response = client.post(url, data)
        assert response.status_code == 200
        assert "club" in response.context["adminform"].form.errors
    assert not Player.objects.filter(name="Bravo Intruder").exists()
    assert not Season.objects.filter(name="Bravo Intruder").exists()


def test_staff_without_a_membership_sees_nothing_of_scoring(client, clubs, django_user_model):
    staff = django_user_model.objects.create_user("carl", password="x", is_staff=True)
    client.force_login(staff)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 200
    assert not response.context["available_apps"]
    for _, model_admin in scoped_admins():
        url = reverse(
            f"admin:{model_admin.opts.app_label}_{model_admin.opts.model_name}_changelist"
        )
        assert client.get(url).status_code == 403


def test_a_scorer_of_a_club_is_not_its_admin(client, clubs, django_user_model):
    scorer = django_user_model.objects.create_user("sam", password="x", is_staff=True)
    ClubMembership.objects.create(user=scorer, club=clubs["club_b"], role="scorer")
    client.force_login(scorer)
    assert client.get(reverse("admin:scoring_session_changelist")).status_code == 403


def test_an_admin_of_two_clubs_sees_both(client, clubs):
    ClubMembership.objects.create(user=clubs["admin_a"], club=clubs["club_b"], role="admin")
    client.force_login(clubs["admin_a"])
    response = client.get(reverse("admin:scoring_session_changelist"))
    assert set(response.context["cl"].queryset) == set(
        Session.objects.filter(club__in=[clubs["club_a"], clubs["club_b"]])
    )
    assert {clubs["world_a"]["session"], clubs["world_b"]["session"]} <= set(
        response.context["cl"].queryset
    )
