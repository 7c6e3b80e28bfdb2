"""Forms of the session admin: a round's events as readable rows, presence, the session's own
fields, and the services' refusals in the admin's language.

The round correction form never scores anything: it turns rows back into the events of the
session file (RULES.md §14) and hands them to ``services.round_replace_events``, which asks the
engine."""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import writes
from scoring.engine import EVENT_TYPES
from scoring.engine.bounds import MAX_EVENTS
from scoring.lei import funnel
from scoring.lei.forms import RANK_LABELS
from scoring.models import Session

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


# --- the services' refusals in the admin's language -----------------------------------------


def service_error_message(error: writes.ServiceError) -> str:
    """A refusal of the services in the admin's language."""
    if isinstance(error, funnel.StaleVersion):
        return gettext("The sheet changed meanwhile (it is at version %(version)s): try again.") % {
            "version": error.version
        }
    if isinstance(error, funnel.SessionLocked):
        return gettext("The session is locked: unlock it to change it.")
    if isinstance(error, funnel.NotFinished):
        return gettext("Only a finished session can be locked.")
    if isinstance(error, funnel.ResultClosed) and error.reopen:
        return gettext(
            "The organiser closed this game's toernooi series: after this change the game would"
            " play on, so reopen the series first (on the toernooi's series page)."
        )
    if isinstance(error, funnel.CorrectionEndsGame):
        return gettext(
            "Not saved: with this correction the game is over after round %(ended)s, but"
            " %(last)s rounds were played. If the correction is right, first delete the rounds"
            " after round %(ended)s (undo them on the lei), then correct round %(number)s again;"
            " otherwise check the events of round %(number)s."
        ) % {"ended": error.ended, "last": error.last, "number": error.number}
    if isinstance(error, funnel.KeyReused):
        return gettext(
            "This form was sent before with other contents, so nothing was saved: open the "
            "page again and make the change there."
        )
    return str(error)


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
