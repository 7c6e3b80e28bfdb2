"""Forms of the club admin: invitations, people by username (the superuser's only), a club's
house rules, a season's ranking, and merging two players."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.engine import Refusal, resolve_rules
from scoring.engine.bounds import MAX_EVENTS
from scoring.league.standings import InvalidRanking, Ranking
from scoring.lei.admin_forms import BaseEventFormSet, EventForm, refusal_message
from scoring.lei.sessionfile import too_deep
from scoring.models import Club, ClubInvitation, ClubMembership, Player, Season
from scoring.names import name_key, tidy
from scoring.writes import unstorable_character


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


class UsernameField(forms.ModelChoiceField):
    """A user typed by their exact username, so the form never lists every account. Only the
    site's superusers have it (who see every account anyway): a club admin adds a member by
    invitation (``ClubInvitationForm``), since a field that says whether a name is taken tells
    who has an account."""

    widget = forms.TextInput

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("queryset", get_user_model().objects.filter(is_active=True))
        kwargs.setdefault("to_field_name", get_user_model().USERNAME_FIELD)
        kwargs.setdefault(
            "error_messages", {"invalid_choice": _("There is no active user with that username.")}
        )
        super().__init__(**kwargs)


class _UsernameInitialMixin:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The admin excludes a read-only field from the form it builds, but a declared field
        # stays: a required username that the page never sends refused every save.
        if "user" in (self._meta.exclude or ()):
            self.fields.pop("user", None)
        user = getattr(self.instance, "user", None) if self.instance.user_id else None
        if user is not None and "user" in self.fields:
            self.initial["user"] = user.get_username()


class ClubMembershipForm(_UsernameInitialMixin, forms.ModelForm):
    user = UsernameField(label=_("username"))

    class Meta:
        model = ClubMembership
        fields = ["user", "club", "role"]

    def _post_clean(self) -> None:
        # A row of the club's page that nobody changed is not saved, and it was checked when
        # it was: asking the database for its constraints again cost two queries per member.
        if self.instance.pk and not self.has_changed():
            return
        super()._post_clean()


class PlayerForm(_UsernameInitialMixin, forms.ModelForm):
    user = UsernameField(
        label=_("username"),
        required=False,
        help_text=_("The account of this player, if they have one (optional)."),
    )

    class Meta:
        model = Player
        fields = ["club", "name", "is_guest", "public_initials", "confirmed", "user"]

    def clean_name(self) -> str:
        return tidy(self.cleaned_data.get("name") or "")

    def clean(self) -> dict[str, Any]:
        """A name is the club's only one as names are compared at the table (scoring/names.py):
        "anne  vos" is Anne Vos, and would be found as her."""
        data = super().clean()
        club = data.get("club")
        club_id = club.pk if club is not None else self.instance.club_id  # read-only: its own
        name = data.get("name")
        if club_id is not None and name:
            others = Player.objects.filter(club_id=club_id, name_key=name_key(name))
            if others.exclude(pk=self.instance.pk).exists():
                self.add_error(
                    "name",
                    _("The club has a player of this name already (as the lei compares names)."),
                )
        return data


class ClubInvitationForm(forms.ModelForm):
    """An invitation to become a member of a club: its role, the club's player who is the one
    invited (optional), and until when its link works."""

    class Meta:
        model = ClubInvitation
        fields = ["club", "role", "player", "note", "expires_at"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        club, player = data.get("club") or self.instance_club(), data.get("player")
        if player is not None and club is not None and player.club_id != club.pk:
            self.add_error("player", _("Choose a player of the club this invitation is for."))
        elif player is not None and player.user_id is not None:
            self.add_error("player", _("This player has an account already."))
        expires = data.get("expires_at")
        if expires is not None and "expires_at" in self.changed_data and expires <= timezone.now():
            self.add_error("expires_at", _("Choose a moment in the future."))
        return data

    def instance_club(self) -> Club | None:
        return self.instance.club if self.instance.club_id else None


class ClubForm(forms.ModelForm):
    """A club's house rules are checked by the engine before they are saved, so that the next
    session of the club does not start on rules that contradict themselves."""

    class Meta:
        model = Club
        fields = [
            "name",
            "slug",
            "preset",
            "rules",
            "standings_public",
            "win_chance",
            "agreement_rule",
        ]
        field_classes = {"rules": SettingJSONField}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        preset = data.get("preset", self.instance.preset)
        rules = data.get("rules", self.instance.rules)
        try:
            resolve_rules(preset, rules or {})
        except Refusal as refusal:
            raise forms.ValidationError(refusal_message(refusal)) from None
        return data


class SeasonForm(forms.ModelForm):
    """A season's ranking is read by the one code that ranks the standings
    (``standings.Ranking.parse``), so what it cannot read is a form error, never a page that
    breaks later."""

    class Meta:
        model = Season
        fields = ["club", "name", "starts_on", "ends_on", "ranking", "min_sessions"]
        field_classes = {"ranking": SettingJSONField}

    def clean_ranking(self) -> Any:
        ranking = self.cleaned_data.get("ranking")
        try:
            Ranking.parse(ranking)
        except InvalidRanking as problem:
            raise forms.ValidationError(str(problem)) from None
        return ranking


class MergeForm(forms.Form):
    keep = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        widget=forms.RadioSelect,
        label=_("Keep"),
        empty_label=None,
    )

    def __init__(self, *args: Any, players: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["keep"].queryset = players


# A round holds at most MAX_EVENTS events; a posted TOTAL_FORMS beyond that is refused before
# that many forms are built.
EventFormSet = forms.formset_factory(
    EventForm,
    formset=BaseEventFormSet,
    extra=2,
    can_order=True,
    can_delete=True,
    max_num=MAX_EVENTS,
    absolute_max=MAX_EVENTS,
)
