"""What every room's admin stands on: the scoping by club, checked selections, the settings typed
as JSON, and the engine's refusals in the admin's language.

Who sees what
-------------
- A superuser sees and changes everything, as in any Django admin.
- A **club admin** is an active staff user with a ``ClubMembership`` of role ``admin``: the role
  as ``scoring/access.py`` defines it (``access.admin_club_ids``), the same that organises the
  club's tournaments. They see and change only their own clubs' objects, with rights from that
  role, not from Django's per-user permission table: one source of truth (the membership), and
  "stop being admin of this club" is one click.
- Any other staff user sees nothing of scoring.
- The app's own bookkeeping (``internal``: round scores, game results, tap keys) is the
  superuser's; the audit log is not on a club admin's index (``listed``) but is reached from a
  game's page, filtered to that game.

How
---
``ClubScopedAdmin`` is the one place of the scoping. Each admin names its path to the club
(``club_path = "session__club"``) and the base class filters ``get_queryset`` by it. Everything
the admin does goes through that queryset: changelists, change/delete/history pages, actions,
autocomplete (the autocomplete view asks the target model's admin for its queryset) and raw id
lookups (the changelist of the target). Foreign-key choices are the target admin's scoped
queryset, and a page for an object outside the scope is a 404 (the same answer as for an object
that does not exist, so ids of other clubs cannot be probed).
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import TO_FIELD_VAR, IncorrectLookupParameters
from django.contrib.admin.utils import unquote
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.access import admin_club_ids, admin_memberships_of
from scoring.engine import MESSAGES, Refusal
from scoring.http import ID
from scoring.sessionfile import too_deep
from scoring.writes import unstorable_character


def scope(request: HttpRequest, queryset: QuerySet, club_path: str) -> QuerySet:
    """``queryset`` narrowed to the clubs of ``request.user``, following ``club_path``."""
    ids = admin_club_ids(request)
    if ids is None:
        return queryset
    if not ids:
        return queryset.none()
    return queryset.filter(**{f"{club_path}__in": ids})


def club_id_of(obj: Any, club_path: str) -> int | None:
    """The club id of ``obj`` by following ``club_path`` (``"pk"`` for a club itself)."""
    if club_path == "pk":
        return obj.pk
    *steps, last = club_path.split("__")
    for step in steps:
        obj = getattr(obj, step, None)
        if obj is None:
            return None
    return getattr(obj, f"{last}_id", None)


# --- the scoping base classes ------------------------------------------------------------------


class ClubScopedPermissions:
    """Rights from the club membership (see the module docstring); one set of rules for
    model admins and inlines. ``read_only`` admins show, never write; ``deletable`` says whether
    club admins may delete (superusers follow Django's rules)."""

    club_path = "club"
    read_only = False
    addable = True
    deletable = True
    # The app's own bookkeeping (projections, tap keys): the superuser's, not a club admin's.
    internal = False
    # Not on a club admin's admin index, only reached from a page that links to it.
    listed = True

    def _club_ok(self, request: HttpRequest, obj: Any) -> bool:
        ids = admin_club_ids(request)
        if ids is None:
            return True
        if not ids:
            return False
        return obj is None or club_id_of(obj, self.club_path) in ids

    def has_module_permission(self, request: HttpRequest) -> bool:
        ids = admin_club_ids(request)
        if ids is not None and (self.internal or not self.listed):
            return False
        return ids != frozenset()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.internal and admin_club_ids(request) is not None:
            return False
        return self._club_ok(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self.read_only and self._club_ok(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not self.read_only and self.addable and self._club_ok(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.read_only or not self.deletable:
            return False
        return self._club_ok(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        """A choice of a related object is a choice among the scoped ones."""
        target = self.admin_site._registry.get(db_field.related_model)
        if isinstance(target, ClubScopedAdmin) and "queryset" not in kwargs:
            kwargs["queryset"] = target.get_queryset(request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class SelectionChecked:
    """An action's rows are the ids posted with it, and Django's admin filters by them as they
    are: an id that is none ("abc", 5,000 digits, more than a column holds) was a ValueError or
    an OverflowError there, a 500. Such a selection is refused with a message, as Django refuses
    an empty one, and nothing changes."""

    def response_action(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(ID.fullmatch(value) for value in selected):
            self.message_user(  # type: ignore[attr-defined]
                request,
                gettext("The selection holds something that is no id of a row: nothing changed."),
                messages.WARNING,
            )
            return None
        return super().response_action(request, queryset)  # type: ignore[misc]


class ClubScopedAdmin(SelectionChecked, ClubScopedPermissions, admin.ModelAdmin):
    """A model admin that shows only the objects of the clubs of the person looking.

    Set ``club_path`` to the lookup from the model to its club (``"club"``,
    ``"session__club"``, ``"round__session__club"``, ``"pk"`` for the club itself).
    """

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope(request, super().get_queryset(request), self.club_path)

    def get_changelist_instance(self, request: HttpRequest):
        # The date hierarchy reads ?at__year= into a date: a year of 30 digits is an
        # OverflowError in Django, answered as Django answers any bad filter (``?e=1``).
        try:
            return super().get_changelist_instance(request)
        except OverflowError as error:
            raise IncorrectLookupParameters(error) from error

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        fields = list(super().get_readonly_fields(request, obj))
        # Once made, an object stays in its club: moving it would take its history along.
        if obj is not None and self.club_path == "club" and "club" not in fields:
            fields.append("club")
        return fields

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A new object of an admin of one club is of that club: adding eighteen players is
        eighteen names, not eighteen times the same club chosen (a superuser with one club's
        membership too)."""
        initial = super().get_changeform_initial_data(request)
        if self.club_path == "club" and "club" not in initial:
            ids = admin_club_ids(request)
            if ids is None:
                ids = set(admin_memberships_of(request.user).values_list("club_id", flat=True))
            if len(ids) == 1:
                initial["club"] = next(iter(ids))
        return initial

    def object_or_404(self, request: HttpRequest, object_id: str) -> Any:
        """The object in scope, or 404: the same answer whether it is another club's or gone."""
        to_field = request.POST.get(TO_FIELD_VAR, request.GET.get(TO_FIELD_VAR))
        if to_field and not self.to_field_allowed(request, to_field):
            return None  # Django's own view refuses it (DisallowedModelAdminToField)
        obj = self.get_object(request, unquote(object_id), to_field)
        if obj is None:
            raise Http404(gettext("Not found."))
        return obj

    def change_view(self, request, object_id, form_url="", extra_context=None):
        self.object_or_404(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        self.object_or_404(request, object_id)
        return super().delete_view(request, object_id, extra_context)

    def history_view(self, request, object_id, extra_context=None):
        self.object_or_404(request, object_id)
        return super().history_view(request, object_id, extra_context)


class ClubScopedInline(ClubScopedPermissions):
    """An inline of a club-scoped page: the parent decides the club, the rights are the same.

    Django asks an inline's permissions with the *parent* object, so the club is found from
    it by ``parent_club_path``; ``club_path`` scopes the inline's own rows.
    """

    parent_club_path = "club"

    def _club_ok(self, request: HttpRequest, obj: Any) -> bool:
        ids = admin_club_ids(request)
        if ids is None:
            return True
        return bool(ids) and (obj is None or club_id_of(obj, self.parent_club_path) in ids)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return scope(request, super().get_queryset(request), self.club_path)


class ReadOnlyTabularInline(ClubScopedInline, admin.TabularInline):
    read_only = True
    extra = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return self.fields or [f.name for f in self.model._meta.fields]


# --- settings typed as JSON --------------------------------------------------------------------


class _BadNumber(ValueError):
    """A number in typed JSON that no setting can be: too long, infinite, NaN."""


def _whole(text: str) -> int:
    # Python reads no integer of more than 4,300 digits (a ValueError that was a 500); the
    # largest setting has four.
    if len(text) > SettingJSONField.MAX_DIGITS:
        raise _BadNumber(text)
    return int(text)


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):  # 1e400; JSON itself has no infinity
        raise _BadNumber(text)
    return number


def _no_constant(text: str) -> Any:
    raise _BadNumber(text)  # NaN, Infinity: Python reads them, JSON has neither


class SettingJSONField(forms.JSONField):
    """A setting typed as JSON into the admin: a club's house rules, a season's ranking, a
    toernooi's table points. What no setting can be is a form error with its reason, never a
    server error: more than ``MAX_CHARS`` characters, nested deeper than ``MAX_DEPTH`` (Python's
    JSON reader raised RecursionError at 1,000 levels), a number of more than ``MAX_DIGITS``
    digits, infinite or NaN, text that no database stores (a NUL or a lone surrogate written as
    an escape, ``"\\udcff"``), and an empty field or ``null`` (the columns hold no null). What
    remains is judged by the setting's own check (the engine, ``Ranking.parse``)."""

    MAX_CHARS = 10_000
    MAX_DEPTH = 4
    MAX_DIGITS = 30
    default_error_messages = {
        "too_long": _("This JSON is too long: at most %(max)s characters."),
        "too_deep": _("This JSON is nested too deeply: at most %(max)s levels."),
        "number": _("This JSON holds a number that is too large, or not a number (NaN, Infinity)."),
        "text": _(
            "This JSON holds a character that cannot be stored: a NUL (\\u0000) or half of a "
            "surrogate pair (such as \\udcff)."
        ),
        "null": _("Enter JSON, for example {} for none: an empty field or null cannot be saved."),
    }

    def to_python(self, value: Any) -> Any:
        if self.disabled or not isinstance(value, str):
            return super().to_python(value)
        if value.strip() in self.empty_values:
            return None
        return self._load(value)

    def validate(self, value: Any) -> None:
        super().validate(value)  # "required" for a required field
        if value is None:
            raise forms.ValidationError(self.error_messages["null"], code="null")

    def bound_data(self, data: Any, initial: Any) -> Any:
        # The page shown again with the error draws the text as typed: Django's own field would
        # parse it once more (RecursionError) and write a lone surrogate into the page.
        if self.disabled or not isinstance(data, str):
            return super().bound_data(data, initial)
        try:
            return self._load(data)
        except forms.ValidationError:
            return forms.fields.InvalidJSONInput(data)

    def _load(self, text: str) -> Any:
        def error(code: str, **params: Any) -> forms.ValidationError:
            return forms.ValidationError(self.error_messages[code], code=code, params=params)

        if len(text) > self.MAX_CHARS:
            raise error("too_long", max=self.MAX_CHARS)
        try:
            value = json.loads(
                text, parse_int=_whole, parse_float=_finite, parse_constant=_no_constant
            )
        except json.JSONDecodeError:
            raise error("invalid") from None
        except RecursionError:
            raise error("too_deep", max=self.MAX_DEPTH) from None
        except _BadNumber:
            raise error("number") from None
        if too_deep(value, self.MAX_DEPTH):
            raise error("too_deep", max=self.MAX_DEPTH)
        if unstorable_character(value) is not None:
            raise error("text")
        return forms.fields.JSONString(value) if isinstance(value, str) else value


# --- the engine's refusals in the admin's language ------------------------------------------


def refusal_message(refusal: Refusal) -> str:
    """The engine's refusal in the admin's language: its template translated, then filled."""
    template = MESSAGES.get(refusal.code)
    detail = refusal.detail(gettext(template) if template else None)
    if refusal.scope == "rules":
        return gettext("rules: %(detail)s") % {"detail": detail}
    if refusal.round is not None and refusal.event is not None:
        where = gettext("round %(round)s, event %(event)s") % {
            "round": refusal.round,
            "event": refusal.event,
        }
        return f"{where}: {detail}"
    if refusal.round is not None:
        return gettext("round %(round)s: %(detail)s") % {"round": refusal.round, "detail": detail}
    return detail
