"""Every page asks ``scoring/access.py`` who may use it, or is public by name.

``test_permissions_matrix.py`` pins the answer of every URL to every role; this test pins where
the answers come from. Each view of ``scoring`` (each one a URL pattern names, and each decorated
function of a ``scoring/*/*views*.py`` module) goes through ``access.requires`` with one of
access.py's roles, or is in ``PUBLIC`` with the reason it needs none. A new view that checks by
hand, or forgets to, fails here before anyone has to spot it in review.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from django.views.decorators.http import require_GET, require_POST

from scoring import access
from scoring.models import ClubMembership, hotsql
from tests.builders import make_club

SCORING = Path(__file__).resolve().parents[2] / "scoring"

# The views anyone may open, each with why it needs no rule of access.py.
PUBLIC = {
    "scoring.league.views.home": "the public clubs; a signed-in user's own from access.clubs_of",
    "scoring.lei.views.service_worker": "the tablet's offline script, the same for everyone",
    "scoring.lei.views.scorer_link": "the secret link is the key (access.session_by_scorer_token)",
    "scoring.lei.viewer_views.viewer": "the signed link is the key (access.viewer_token)",
    "scoring.push.views.stream": (
        "it streams a part drawn through the part's own view, with that view's rule"
        " (scoring/push/fragments.py)"
    ),
}


def name_of(view: Callable[..., Any]) -> str:
    return f"{view.__module__}.{view.__qualname__}"


def routed_views(patterns: list[Any]) -> Iterator[Callable[..., Any]]:
    """The views of ``scoring`` that URL patterns name (the Django admin has its own rules:
    ``scoring/admin_base.py``, which asks ``access.admin_club_ids``)."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace != "admin":
                yield from routed_views(entry.url_patterns)
        elif isinstance(entry, URLPattern) and entry.callback.__module__.startswith("scoring."):
            yield entry.callback


def decorated_functions() -> Iterator[Callable[..., Any]]:
    """The functions of the views modules that carry a decorator: every view does, by the
    house style (``@require_GET``...), so a view that no URL names yet is found too."""
    for path in sorted(SCORING.glob("*/*views*.py")):
        module = importlib.import_module(f"scoring.{path.parent.name}.{path.stem}")
        for _, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and hasattr(function, "__wrapped__"):
                yield function


def all_views() -> dict[str, Callable[..., Any]]:
    found = [*routed_views(get_resolver().url_patterns), *decorated_functions()]
    return {name_of(view): view for view in found}


def rule_of(view: Callable[..., Any]) -> Callable[..., Any] | None:
    """The role ``access.requires`` asks for ``view``, found through its decorators."""
    while view is not None:
        if "access_role" in vars(view):
            return view.access_role
        view = getattr(view, "__wrapped__", None)
    return None


def without_a_rule(views: dict[str, Callable[..., Any]]) -> list[str]:
    return sorted(
        name for name, view in views.items() if rule_of(view) is None and name not in PUBLIC
    )


def test_every_view_asks_access_or_is_public_by_name():
    views = all_views()
    assert "scoring.lei.views.tablet" in views  # the walk sees the views modules
    assert "scoring.league.exports.session_export" in views  # and views in other modules
    assert without_a_rule(views) == [], (
        "decorate these with access.requires(<a role of scoring/access.py>), or add them to "
        "PUBLIC with the reason anyone may open them"
    )


def test_every_rule_is_a_role_of_access_py():
    roles = {name: rule_of(view) for name, view in all_views().items()}
    elsewhere = {
        name: role for name, role in roles.items() if role and role.__module__ != "scoring.access"
    }
    assert elsewhere == {}


def test_the_public_views_are_views_without_a_rule():
    views = all_views()
    assert set(PUBLIC) <= set(views), set(PUBLIC) - set(views)
    assert [name for name in PUBLIC if rule_of(views[name]) is not None] == []


def test_a_view_without_a_rule_is_found():
    @require_GET
    def page(request):
        """A new page."""

    @require_POST
    @access.requires(access.scorer)
    def write(request, scorer):
        """A new write."""

    assert without_a_rule({"new.page": page, "new.write": write}) == ["new.page"]
    assert rule_of(write) is access.scorer
    assert (write.__name__, write.__doc__) == ("write", "A new write.")  # functools.wraps


def test_the_tap_s_own_query_asks_the_roles_as_access_py_defines_them(session, django_user_model):
    """``hotsql.scorer_session`` writes out in SQL who is a member and who a club admin, for
    the one query of a tap: it agrees with ``access.memberships_of`` and
    ``access.admin_memberships_of``."""
    other = make_club("De Zwarte Zeven", "zwarte-zeven")
    people = {  # who: (their membership, (member, admin) of the session's club)
        "beheer": ((session.club, ClubMembership.Role.ADMIN), (True, True)),
        "teller": ((session.club, ClubMembership.Role.SCORER), (True, False)),
        "zeven-beheer": ((other, ClubMembership.Role.ADMIN), (False, False)),
        "niemand": (None, (False, False)),
    }
    for name, (membership, expected) in people.items():
        user = django_user_model.objects.create_user(name)
        if membership is not None:
            ClubMembership.objects.create(user=user, club=membership[0], role=membership[1])
        read = hotsql.scorer_session(session.pk, user.pk)
        asked = (
            access.memberships_of(user).filter(club=session.club).exists(),
            access.admin_memberships_of(user).filter(club=session.club).exists(),
        )
        assert (read.is_member, read.is_admin) == asked == expected, name
