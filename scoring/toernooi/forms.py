"""Forms of the toernooi's pages: creating one, adding a guest, a swap, a paper lei.

Like the tablet's forms they only check the shape of what is sent; whether it may happen
(enough players, a table still playing, a score the rules allow) is for
``scoring.toernooi.services`` and the engine to say, and the view shows their refusal.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.days import evening_day
from scoring.engine import DEFAULT_RULES, Refusal, resolve_rules
from scoring.engine.bounds import START_RANGE
from scoring.lei.forms import BOOLEAN_RULES, PRESET_LABELS, YES, refusal_text, rule_field
from scoring.models import Club, Season
from scoring.names import name_key, tidy

DEFAULT_TABLE_POINTS = "10, 7, 5, 3, 1"
MAX_SERIES = 12


def parse_table_points(text: str) -> list[int]:
    """``"10, 7, 5, 3, 1"`` -> ``[10, 7, 5, 3, 1]``: the points for places 1, 2, ... at a table.

    Spaces, commas and semicolons separate; one to eight places, no negative points (that a
    lower place gets no more than a higher one is the service's to check)."""
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        points = [int(p) for p in parts]
    except ValueError:
        raise forms.ValidationError(
            _("Schrijf de tafelpunten als getallen, gescheiden door komma's: 10, 7, 5, 3, 1.")
        ) from None
    if not 1 <= len(points) <= 8:
        raise forms.ValidationError(_("Geef tafelpunten voor één tot acht plaatsen."))
    if any(p < 0 for p in points):
        raise forms.ValidationError(_("Tafelpunten zijn nul of meer."))
    return points


class TournamentForm(forms.Form):
    """A new toernooi: its club, name, date, rules and how its series are played."""

    club = forms.ModelChoiceField(queryset=Club.objects.none(), label=_("Club"), empty_label=None)
    name = forms.CharField(label=_("Naam"), max_length=100)
    date = forms.DateField(
        label=_("Datum"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        initial=evening_day,
    )
    season = forms.ModelChoiceField(
        queryset=Season.objects.none(),
        label=_("Seizoen"),
        required=False,
        help_text=_("Telt het toernooi mee voor de competitie? Dan kies je het seizoen."),
    )
    series = forms.IntegerField(
        label=_("Aantal series"),
        min_value=1,
        max_value=MAX_SERIES,
        initial=4,
        help_text=_("In elke serie worden de tafels opnieuw geloot."),
    )
    end = forms.ChoiceField(
        label=_("Een tafel is klaar"),
        choices=[
            ("toepkoning", _("bij de toepkoning")),
            ("rounds", _("na een aantal rondes")),
            ("time", _("op een tijd")),
        ],
        initial="toepkoning",
        widget=forms.RadioSelect,
        help_text=_(
            "Na de rondes of op de tijd telt de stand aan tafel: de minste strafpunten wint."
        ),
    )
    end_rounds = forms.IntegerField(
        label=_("Aantal rondes"), min_value=1, max_value=200, required=False, initial=15
    )
    end_time = forms.TimeField(
        label=_("Tafels stoppen om"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    table_points = forms.CharField(
        label=_("Tafelpunten per plaats"),
        initial=DEFAULT_TABLE_POINTS,
        max_length=60,
        help_text=_("Voor plaats 1, 2, 3, ... aan tafel. Gedeelde plaatsen delen de punten."),
    )
    table_size = forms.TypedChoiceField(
        label=_("Liefst tafels van"),
        coerce=int,
        choices=[(4, _("4 spelers")), (5, _("5 spelers"))],
        initial=4,
        help_text=_("Waar het niet uitkomt, loot de lei tafels van 3 of 5 (nooit minder dan 3)."),
    )
    final_table = forms.BooleanField(
        label=_("Finaletafel voor de beste vier"), required=False, initial=True
    )
    rated = forms.BooleanField(
        label=_("Telt mee voor de rating"),
        required=False,
        initial=True,
        help_text=_(
            "De uitslagen van de tafels tellen mee voor de rating van de club. Zet dit uit "
            "voor een toernooi voor de gezelligheid of met veel gasten."
        ),
    )
    preset = forms.ChoiceField(
        label=_("Regels"),
        choices=[("", _("de huisregels van de club")), *PRESET_LABELS],
        required=False,
        initial="",
    )

    def __init__(self, *args: Any, clubs: list[Club], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["club"].queryset = Club.objects.filter(pk__in=[c.pk for c in clubs])
        if len(clubs) == 1:
            self.fields["club"].widget = forms.HiddenInput()
            self.fields["club"].initial = clubs[0].pk
        self.fields["season"].queryset = Season.objects.filter(club__in=clubs).select_related(
            "club"
        )
        for key in DEFAULT_RULES:
            self.fields[f"rule_{key}"] = rule_field(key)

    def rule_fields(self) -> list[forms.BoundField]:
        return [self[f"rule_{key}"] for key in DEFAULT_RULES]

    def clean_table_points(self) -> list[int]:
        return parse_table_points(self.cleaned_data.get("table_points") or "")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        club, season = data.get("club"), data.get("season")
        if season is not None and club is not None and season.club_id != club.pk:
            self.add_error("season", _("Dat seizoen is van een andere club."))
        if data.get("end") == "rounds" and not data.get("end_rounds"):
            self.add_error("end_rounds", _("Hoeveel rondes speelt een tafel?"))
        if data.get("end") == "time" and not data.get("end_time"):
            self.add_error("end_time", _("Hoe laat stoppen de tafels?"))
        overrides: dict[str, Any] = {}
        for key in DEFAULT_RULES:
            value = data.get(f"rule_{key}")
            if value in (None, ""):
                continue
            overrides[key] = value == YES if key in BOOLEAN_RULES else value
        if data.get("preset"):
            try:
                resolve_rules(data["preset"], overrides)
            except Refusal as refusal:
                raise forms.ValidationError(refusal_text(refusal)) from None
        data["overrides"] = overrides  # the club's house rules are checked by the service
        return data


class GuestForm(forms.Form):
    name = forms.CharField(label=_("Naam van de gast"), max_length=40)

    def clean_name(self) -> str:
        name = tidy(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError(_("Vul een naam in."))
        return name


class PasteForm(forms.Form):
    """A pasted list of names, one a line (``checkin.paste_plan`` reads the lines), and the
    digest of the plan the organiser was shown when they save it."""

    names = forms.CharField(
        label=_("Plak een lijst met namen, één per regel"),
        # 200 names of 40 characters with room for spaces; longer is refused, not cut.
        max_length=20_000,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
    )
    plan = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class SwapForm(forms.Form):
    # Player ids, bounded as the URLs' ids are (scoring/urls.py): a 400-digit number is no id.
    a = forms.IntegerField(label=_("Speler"), min_value=1, max_value=10**18 - 1)
    b = forms.IntegerField(label=_("wisselt met"), min_value=1, max_value=10**18 - 1)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("a") is not None and data.get("a") == data.get("b"):
            raise forms.ValidationError(_("Kies twee verschillende spelers om te wisselen."))
        return data


class PaperTotalsForm(forms.Form):
    """The final totals of one table from a paper lei, a field per seat."""

    def __init__(self, *args: Any, seats: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seats = seats
        for player_id, name in seats:
            # A paper total becomes the session's start total, bounded by the engine; below 0
            # after a win with a jack (RULES.md §6).
            self.fields[f"total_{player_id}"] = forms.IntegerField(
                label=name, min_value=START_RANGE[0], max_value=START_RANGE[1]
            )

    def total_fields(self) -> list[forms.BoundField]:
        return [self[f"total_{player_id}"] for player_id, _name in self.seats]

    def totals(self) -> dict[int, int]:
        return {pid: self.cleaned_data[f"total_{pid}"] for pid, _name in self.seats}


# The words of a paper lei's round, last word(s) of each item: "Bas toept", "Anne wint met boer".
PAPER_WORDS: list[tuple[str, dict[str, Any]]] = [
    ("toept blind", {"type": "blind_knock"}),
    ("toept", {"type": "knock"}),
    ("weg", {"type": "fold"}),
    ("mee", {"type": "stay"}),
    ("wint met boer", {"type": "win", "jack": True}),
    ("wint", {"type": "win"}),
]


class PaperRoundsForm(forms.Form):
    """A table's rounds from a paper lei, one line per round, what happened in order::

        Anne wint
        Bas toept, Cees weg, Dirk mee, Anne mee, Bas wint met boer

    Only the words are read here; whether the rounds are possible is the engine's to say."""

    rounds = forms.CharField(
        label=_("Rondes"),
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        max_length=20_000,
        help_text=_(
            "Eén regel per ronde, op volgorde: 'Bas toept, Cees weg, Dirk mee, Anne wint'."
            " Woorden: toept, toept blind, weg, mee, wint, wint met boer."
        ),
    )

    def __init__(self, *args: Any, players: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = {name_key(name): name for name in players}

    def clean_rounds(self) -> list[dict[str, Any]]:
        lines = [line.strip() for line in self.cleaned_data["rounds"].splitlines()]
        rounds = []
        for number, line in enumerate((line for line in lines if line), start=1):
            events = [self._event(number, item) for item in line.split(",") if item.strip()]
            rounds.append({"events": events})
        if not rounds:
            raise forms.ValidationError(_("Schrijf minstens één ronde."))
        if len(rounds) > 500:
            raise forms.ValidationError(_("Hoogstens 500 rondes."))
        return rounds

    def _event(self, number: int, item: str) -> dict[str, Any]:
        text = " ".join(item.split())
        for words, event in PAPER_WORDS:
            if text.casefold().endswith(" " + words):
                who = text[: -len(words) - 1].strip()
                name = self.players.get(name_key(who))
                if name is None:
                    raise forms.ValidationError(
                        _("Ronde %(round)s: %(name)s zit niet aan deze tafel.")
                        % {"round": number, "name": who}
                    )
                return {**event, "player": name}
        raise forms.ValidationError(
            _("Ronde %(round)s: '%(text)s' begrijp ik niet; schrijf naam en wat er gebeurde.")
            % {"round": number, "text": text}
        )
