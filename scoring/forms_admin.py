"""Forms of the club admin: people by username, and a round's events as readable rows.

The round correction form never scores anything: it turns rows back into the events of the
session file (RULES.md §14) and hands them to ``services.round_replace_events``, which asks the
engine. A row's extra fields are only put into the event when its type uses them, so a stale
``rank`` on a row that became a ``knock`` is not sent.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.engine import EVENT_TYPES, MESSAGES, Refusal, resolve_rules
from scoring.engine.bounds import MAX_EVENTS
from scoring.forms import RANK_LABELS
from scoring.models import Club, ClubMembership, Player, Season, Session
from scoring.standings import InvalidRanking, Ranking

ABSENCE_CHOICES = [("", _("at the table")), ("toilet", _("toilet")), ("drinks", _("drinks"))]
EVENT_LABELS = {
    "knock": _("knock (toep)"),
    "fold": _("fold (weg)"),
    "stay": _("stay (mee)"),
    "win": _("win (last trick)"),
    "blind_knock": _("blind knock"),
    "four_of_a_kind": _("four of a kind (Toep!)"),
    "laundry": _("laundry (was)"),
    "jack_beaten": _("jack beaten"),
    "penalty": _("penalty"),
    "disqualify": _("disqualify"),
}


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


# --- clubs, and people by username ---------------------------------------------------------


class UsernameField(forms.ModelChoiceField):
    """A user typed by their exact username, so the form never lists every account."""

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
        fields = ["club", "name", "is_guest", "public_initials", "user"]


class ClubForm(forms.ModelForm):
    """A club's house rules are checked by the engine before they are saved, so that the next
    session of the club does not start on rules that contradict themselves."""

    class Meta:
        model = Club
        fields = ["name", "slug", "preset", "rules", "standings_public"]

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
        fields = ["club", "name", "starts_on", "ends_on", "ranking"]

    def clean_ranking(self) -> Any:
        ranking = self.cleaned_data.get("ranking")
        try:
            Ranking.parse(ranking)
        except InvalidRanking as problem:
            raise forms.ValidationError(str(problem)) from None
        return ranking


class SessionForm(forms.ModelForm):
    """Only what does not change the score: the season, the table, the date."""

    class Meta:
        model = Session
        fields = ["season", "table_label", "played_on"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "season" in self.fields and self.instance.club_id:
            field = self.fields["season"]
            field.queryset = field.queryset.filter(club_id=self.instance.club_id)


# --- merging players -----------------------------------------------------------------------


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


# --- correcting a round --------------------------------------------------------------------


class EventForm(forms.Form):
    type = forms.ChoiceField(label=_("event"))
    player = forms.ChoiceField(label=_("player"))
    jack = forms.BooleanField(label=_("with a jack"), required=False)
    jacks_shown = forms.IntegerField(label=_("jacks shown"), required=False, min_value=0)
    rank = forms.ChoiceField(label=_("rank"), required=False)
    challenger = forms.ChoiceField(label=_("challenger"), required=False)
    genuine = forms.TypedChoiceField(
        label=_("genuine"),
        required=False,
        choices=[("", "—"), ("true", _("yes")), ("false", _("no"))],
        coerce=lambda value: value == "true",
        empty_value=None,
    )
    points = forms.IntegerField(label=_("points"), required=False)
    reason = forms.CharField(label=_("reason"), required=False, max_length=200)

    def __init__(self, *args: Any, players: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        people = [(name, name) for name in players]
        self.fields["type"].choices = [("", "—")] + [
            (kind, EVENT_LABELS.get(kind, kind)) for kind in EVENT_TYPES
        ]
        self.fields["player"].choices = [("", "—"), *people]
        self.fields["challenger"].choices = [("", "—"), *people]
        self.fields["rank"].choices = [("", "—"), *RANK_LABELS.items()]

    @staticmethod
    def initial_from(event: dict[str, Any]) -> dict[str, Any]:
        initial = {k: event[k] for k in ("type", "player", "jacks_shown", "rank") if k in event}
        initial.update({k: event[k] for k in ("challenger", "points", "reason") if k in event})
        initial["jack"] = bool(event.get("jack", False))
        if "genuine" in event:
            initial["genuine"] = "true" if event["genuine"] else "false"
        return initial

    def to_event(self) -> dict[str, Any]:
        """The event of the session file this row says, with only the fields its type uses."""
        data = self.cleaned_data
        kind = data["type"]
        event: dict[str, Any] = {"type": kind, "player": data["player"]}
        if kind == "win":
            if data.get("jack"):
                event["jack"] = True
            if data.get("jacks_shown") is not None:
                event["jacks_shown"] = data["jacks_shown"]
        elif kind == "four_of_a_kind" and data.get("rank"):
            event["rank"] = data["rank"]
        elif kind == "laundry":
            if data.get("genuine") is not None:
                event["genuine"] = data["genuine"]
            if data.get("challenger"):
                event["challenger"] = data["challenger"]
        elif kind == "penalty":
            if data.get("points") is not None:
                event["points"] = data["points"]
            if data.get("reason"):
                event["reason"] = data["reason"]
        return event


class BaseEventFormSet(forms.BaseFormSet):
    def events(self) -> list[dict[str, Any]]:
        """The events in the order of the rows' order field, deleted rows left out."""
        return [form.to_event() for form in self.ordered_forms]


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


class PresenceForm(forms.Form):
    """Who is away this round (one select per seated player) and who sits down."""

    join = forms.CharField(
        label=_("joining this round"),
        required=False,
        help_text=_("Names separated by commas; unknown names become guests of the club."),
    )
    version = forms.IntegerField(widget=forms.HiddenInput)
    key = forms.CharField(widget=forms.HiddenInput, max_length=100)

    def __init__(self, *args: Any, players: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        for index, name in enumerate(players):
            self.fields[f"absent_{index}"] = forms.ChoiceField(
                label=name, choices=ABSENCE_CHOICES, required=False
            )

    @classmethod
    def initial_from(cls, *, absent: dict[str, str], join: list[str], players: list[str],
                     version: int) -> dict[str, Any]:  # fmt: skip
        initial: dict[str, Any] = {
            f"absent_{i}": absent.get(name, "") for i, name in enumerate(players)
        }
        initial.update(join=", ".join(join), version=version, key=f"admin-{uuid.uuid4().hex}")
        return initial

    def absent_fields(self) -> list[forms.BoundField]:
        return [self[f"absent_{i}"] for i in range(len(self.players))]

    def absent(self) -> dict[str, str]:
        return {
            name: self.cleaned_data[f"absent_{i}"]
            for i, name in enumerate(self.players)
            if self.cleaned_data.get(f"absent_{i}")
        }

    def joining(self) -> list[str]:
        return [n.strip() for n in self.cleaned_data["join"].split(",") if n.strip()]
