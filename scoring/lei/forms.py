"""Forms of the tablet: starting a session, one event per tap, correcting a round.

The forms only check the shape of what is sent (a known event type, a number where a number
belongs); whether it may happen is the engine's to say, and its refusal is shown as it is.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import get_language, gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from scoring.engine import DEFAULT_RULES, PRESETS, RANKS, Refusal, resolve_rules
from scoring.engine.bounds import BID_RANGE, MAX_ROUNDS, PENALTY_RANGE, POT_RULE_RANGES, RULE_RANGES
from scoring.models import Club, Game, Season
from scoring.names import name_key, tidy

MAX_SEATS = 8

# --- the rules, in plain words ---------------------------------------------------------------

# Rule key -> (label, one-line explanation). Every key of DEFAULT_RULES has one.
RULE_HELP: dict[str, tuple[Any, Any]] = {
    "max_points": (_("Dood bij"), _("Wie zoveel strafpunten heeft, ligt eruit.")),
    "knock_cap": (
        _("Grens aan toepen"),
        _("Wie mag toepen als de inzet hem over de grens zou brengen."),
    ),
    "max_stake": (_("Hoogste inzet"), _("De inzet gaat nooit hoger dan dit (leeg: geen grens).")),
    "armoede": (
        _("Armoede"),
        _("Wie op één punt van dood staat, opent de ronde alsof hij getoept heeft."),
    ),
    "blind_knock": (_("Blind toepen"), _("Toepen vóór je je kaarten hebt bekeken.")),
    "blind_stake": (_("Inzet na blind toepen"), _("Meestal 3, soms 4.")),
    "blind_reknock": (_("Overtoepen na blind"), _("Mag er na een blinde toep nog getoept worden?")),
    "blind_who": (_("Wie mag blind toepen"), _("Iedereen, of alleen de hoogste of laagste stand.")),
    "jack_win_minus": (
        _("Boer eraf"),
        _("Wie de laatste slag met een boer wint, krijgt er een punt af."),
    ),
    "jack_win_double": (
        _("Boer dubbel"),
        _("Laatste slag met een boer na een toep: de anderen schrijven dubbel."),
    ),
    "jack_knock_bonus": (
        _("Boerentoep"),
        _("Iedereen weg op je toep en je laat alleen boeren zien: punten eraf."),
    ),
    "jack_beaten_by_queen": (
        _("Boer geslagen door vrouw"),
        _("Extra strafpunten voor wie zijn boer in de laatste slag door een vrouw verliest."),
    ),
    "four_of_a_kind": (
        _("Vier gelijke (Toep!)"),
        _("Vier gelijke kaarten winnen de ronde; de anderen schrijven zoveel (0: uit)."),
    ),
    "laundry": (_("Vuile was"), _("Slechte kaarten inleveren voor nieuwe, met controle.")),
    "laundry_bluff": (
        _("Betrapt op vuile was"),
        _("Wat het kost als je vuile was niet echt was."),
    ),
    "pussy_points": (
        _("Pussypunten"),
        _("Wie op de eerste toep weggaat, krijgt bij elke derde keer een punt erbij."),
    ),
    "fold_limit": (
        _("Hoe vaak achter elkaar weg"),
        _("Daarna moet je mee (0: geen grens)."),
    ),
    "five_crosses": (
        _("Vijf kruisjes"),
        _("Wie vijf rondes op rij wint, legt de laagste stand eruit."),
    ),
    "folded_winner": (
        _("Winnaar die weg was"),
        _("Weigeren, of niemand wint en iedereen die mee was schrijft."),
    ),
    "next_dealer": (_("Volgende deler"), _("De winnaar van de laatste slag, of met de klok mee.")),
    "unit": (_("Tellen in"), _("Strafpunten, levens (aftellen) of slokken.")),
    "end": (
        _("Einde van het spel"),
        _("Tot er één over is (de toepkoning), of zodra de eerste eruit ligt."),
    ),
}

# The values of the rules with a choice, in words.
CHOICE_LABELS: dict[str, list[tuple[str, Any]]] = {
    "knock_cap": [
        ("knocker", _("de toeper mag niet over de grens")),
        ("table", _("niemand aan tafel mag over de grens")),
        ("none", _("geen grens (kroeg)")),
    ],
    "blind_who": [
        ("any", _("iedereen")),
        ("most_points", _("alleen met de meeste punten")),
        ("fewest_points", _("alleen met de minste punten")),
    ],
    "laundry_bluff": [
        ("point", _("één strafpunt")),
        ("round_max", _("één punt plus het hoogste van de ronde")),
    ],
    "folded_winner": [("reject", _("weigeren")), ("all_lose", _("iedereen verliest"))],
    "next_dealer": [("winner", _("de winnaar deelt")), ("clockwise", _("met de klok mee"))],
    "unit": [("points", _("strafpunten")), ("lives", _("levens")), ("sips", _("slokken"))],
    "end": [("last_survivor", _("tot de toepkoning")), ("first_out", _("tot de eerste dood"))],
}
BOOLEAN_RULES = [k for k, v in DEFAULT_RULES.items() if isinstance(v, bool)]
PRESET_LABELS: list[tuple[str, Any]] = [
    ("standaard", _("standaard")),
    ("pagat", _("pagat (levens, zonder boer eraf)")),
    ("siwweschroom", _("siwweschroom (zeven levens)")),
    ("gezin", _("gezin (tot 5, inzet hoogstens 2)")),
    ("kroeg", _("kroeg (toepen zonder grens)")),
    ("beginners", _("beginners (niet toepen)")),
]
assert [k for k, _label in PRESET_LABELS] == list(PRESETS)  # a new preset needs a label

YES, NO = "ja", "nee"


def seat_label(seat: int) -> Any:
    return format_lazy("{} {}", pgettext_lazy("seat at the table", "Stoel"), seat)


def rule_field(key: str) -> forms.Field:
    label, help_text = RULE_HELP[key]
    common = {"label": label, "help_text": help_text, "required": False}
    default = DEFAULT_RULES[key]
    if key in CHOICE_LABELS:
        return forms.ChoiceField(
            choices=[("", _("zoals de preset")), *CHOICE_LABELS[key]], **common
        )
    if isinstance(default, bool):
        return forms.ChoiceField(
            choices=[("", _("zoals de preset")), (YES, _("ja")), (NO, _("nee"))], **common
        )
    # The engine's bounds (RULES.md §14), so a slip is a form message before it is a refusal.
    return bounded_int_field(label, RULE_RANGES[key], help_text=help_text, required=False)


def refusal_text(refusal: Refusal) -> str:
    """The engine's refusal in the language of the request."""
    return refusal.detail(_translated(get_language(), refusal.template))


@lru_cache(maxsize=1024)
def _translated(language: str, message: str) -> str:
    """``gettext(message)`` in ``language`` (the active one), once per process: a tap's answer
    says why for every button that cannot be pressed, a dozen refusals."""
    return gettext(message)


def euros_to_cents(value: Decimal) -> int:
    return int((value * 100).to_integral_value())


def cents_to_euros(cents: int) -> Decimal:
    return Decimal(cents) / 100


def bounds_messages(label: Any, low: Any, high: Any) -> dict[str, Any]:
    """Error messages that name the field and both bounds: the tablet shows a form's first
    error on its own, away from the field."""
    # Translators: a number outside its bounds, e.g. "Punten: van -100 tot en met 100."
    text = format_lazy(
        _("{label}: van {minimum} tot en met {maximum}."), label=label, minimum=low, maximum=high
    )
    return {"min_value": text, "max_value": text}


def bounded_int_field(label: Any, bounds: tuple[int, int], **kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=bounds[0],
        max_value=bounds[1],
        error_messages=bounds_messages(label, *bounds),
        **kwargs,
    )


def euro_field(label: Any, bounds: tuple[int, int], **kwargs: Any) -> forms.DecimalField:
    """An amount in euros within the engine's bounds in cents (RULES.md §14)."""
    low = max(cents_to_euros(bounds[0]), Decimal("0.01") if bounds[0] else Decimal(0))
    high = cents_to_euros(bounds[1])
    return forms.DecimalField(
        label=label,
        min_value=low,
        max_value=high,
        decimal_places=2,
        error_messages=bounds_messages(label, low, high),
        **kwargs,
    )


# --- starting a session ----------------------------------------------------------------------


class SessionStartForm(forms.Form):
    club = forms.ModelChoiceField(queryset=Club.objects.none(), label=_("Club"), empty_label=None)
    dealer = forms.TypedChoiceField(
        label=_("Eerste deler"),
        coerce=int,
        choices=[(i, seat_label(i)) for i in range(1, MAX_SEATS + 1)],
        initial=1,
        help_text=_("De stoel van wie als eerste deelt."),
    )
    game = forms.ChoiceField(label=_("Spel"), choices=Game.choices, initial=Game.STRAFPUNTEN)
    preset = forms.ChoiceField(label=_("Regels"), choices=PRESET_LABELS, initial="standaard")
    teams = forms.BooleanField(
        label=_("Teams van twee"),
        required=False,
        help_text=_("Met 4 of 6 spelers: wie tegenover elkaar zit, speelt samen."),
    )
    table_label = forms.CharField(label=_("Tafel"), max_length=60, required=False)
    season = forms.ModelChoiceField(
        queryset=Season.objects.none(), label=_("Seizoen"), required=False
    )
    ante = euro_field(_("Inleg (€)"), POT_RULE_RANGES["ante"], required=False)
    pot_minimum = euro_field(_("Pot minimaal (€)"), POT_RULE_RANGES["pot_minimum"], required=False)
    pass_payment = euro_field(
        _("Betalen bij passen (€)"), POT_RULE_RANGES["pass_payment"], required=False
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
        for seat in range(1, MAX_SEATS + 1):
            self.fields[f"seat_{seat}"] = forms.CharField(
                label=seat_label(seat),
                max_length=40,
                required=False,
                widget=forms.TextInput(attrs={"list": "club-players", "autocomplete": "off"}),
            )
        for key in DEFAULT_RULES:
            self.fields[f"rule_{key}"] = rule_field(key)

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{seat}"] for seat in range(1, MAX_SEATS + 1)]

    def rule_fields(self) -> list[forms.BoundField]:
        return [self[f"rule_{key}"] for key in DEFAULT_RULES]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        seats = [(i, tidy(data.get(f"seat_{i}") or "")) for i in range(1, MAX_SEATS + 1)]
        players = [name for _i, name in seats if name]
        if len(players) < 2:
            raise forms.ValidationError(_("Er zijn minstens twee spelers nodig."))
        keys = [name_key(p) for p in players]
        twice = [p for p, k in zip(players, keys, strict=True) if keys.count(k) > 1]
        if twice:
            raise forms.ValidationError(
                _("%(name)s staat twee keer aan tafel.") % {"name": twice[0]}
            )
        dealer_seat = data.get("dealer") or 1
        dealer = dict(seats).get(dealer_seat, "")
        if not dealer:
            self.add_error("dealer", _("Op die stoel zit niemand."))
        data["players"] = players
        data["dealer_name"] = dealer or players[0]
        teams = None
        if data.get("teams"):
            if len(players) not in (4, 6):
                raise forms.ValidationError(_("Teams spelen met 4 of 6 spelers."))
            half = len(players) // 2
            teams = {
                f"{players[i]} & {players[i + half]}": [players[i], players[i + half]]
                for i in range(half)
            }
        data["team_sides"] = teams
        club = data.get("club")
        season = data.get("season")
        if season is not None and club is not None and season.club_id != club.pk:
            self.add_error("season", _("Dat seizoen is van een andere club."))
        if data.get("game") == Game.POT:
            overrides = {
                key: euros_to_cents(data[key])
                for key in ("ante", "pot_minimum", "pass_payment")
                if data.get(key) is not None
            }
            data["preset"] = "standaard"
        else:
            overrides = {}
            for key in DEFAULT_RULES:
                value = data.get(f"rule_{key}")
                if value in (None, ""):
                    continue
                if key in BOOLEAN_RULES:
                    value = value == YES
                overrides[key] = value
            try:
                resolve_rules(data.get("preset") or "standaard", overrides, teams=bool(teams))
            except Refusal as refusal:
                raise forms.ValidationError(refusal_text(refusal)) from None
        data["overrides"] = overrides
        return data


# --- one event per tap -----------------------------------------------------------------------

PLAIN_EVENTS = ("knock", "fold", "stay", "blind_knock", "jack_beaten", "disqualify")
EVENT_TYPES = (
    *PLAIN_EVENTS,
    "win",
    "four_of_a_kind",
    "laundry",
    "penalty",
    "bid",  # the pot game: a bid in euros
    "bid_fold",  # the pot game: fold
)
EVENT_LABELS = {
    "knock": _("toep"),
    "fold": _("weg"),
    "stay": _("mee"),
    "win": _("laatste slag"),
    "blind_knock": _("blind toepen"),
    "jack_beaten": _("boer geslagen door vrouw"),
    "disqualify": _("eruit (kans op toep gebluft)"),
    "four_of_a_kind": _("vier gelijke"),
    "laundry": _("vuile was"),
    "penalty": _("strafpunt"),
    "bid": _("bod"),
    "bid_fold": _("pas"),
}
# Four of a kind, in the order of the cards: 7 8 9 10 aas heer vrouw boer.
RANK_LABELS = {
    "7": "7",
    "8": "8",
    "9": "9",
    "10": "10",
    "ace": _("azen"),
    "king": _("heren"),
    "queen": _("vrouwen"),
    "jack": _("boeren"),
}


assert set(RANK_LABELS) == RANKS  # a rank the engine knows needs a label

# The round editor: the event types of each game, and the fields each type has besides who
# (RULES.md §3; ``EventFieldsMixin.event`` makes the event of them).
GAME_EVENT_TYPES = {
    Game.STRAFPUNTEN: (
        "knock",
        "fold",
        "stay",
        "win",
        "blind_knock",
        "four_of_a_kind",
        "laundry",
        "penalty",
        "jack_beaten",
        "disqualify",
    ),
    Game.POT: ("bid", "bid_fold", "win"),
}
TYPE_FIELDS = {
    Game.STRAFPUNTEN: {
        "win": ("jack",),
        "four_of_a_kind": ("rank",),
        "laundry": ("challenger", "genuine"),
        "penalty": ("points", "reason"),
    },
    Game.POT: {"bid": ("bid",)},
}


class EventFieldsMixin(forms.Form):
    """The fields of one event (RULES.md §3) and the event dict they make."""

    type = forms.ChoiceField(choices=[(t, EVENT_LABELS[t]) for t in EVENT_TYPES])
    player = forms.CharField(max_length=40)
    jack = forms.BooleanField(required=False, label=_("met boer"))
    # In card order (RANK_LABELS), not the engine's set's.
    rank = forms.ChoiceField(choices=list(RANK_LABELS.items()), required=False, label=_("Wat"))
    challenger = forms.CharField(max_length=40, required=False, label=_("Wie controleert"))
    genuine = forms.BooleanField(required=False, label=_("Echt vuile was"))
    points = bounded_int_field(_("Punten"), PENALTY_RANGE, required=False)
    reason = forms.CharField(max_length=100, required=False, label=_("Reden"))
    bid = euro_field(_("Bod (€)"), BID_RANGE, required=False)

    def event(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind, player = data["type"], data["player"]
        if kind == "win":
            event: dict[str, Any] = {"type": "win", "player": player}
            if data.get("jack"):
                event["jack"] = True
            return event
        if kind == "four_of_a_kind":
            return {"type": kind, "player": player, "rank": data["rank"]}
        if kind == "laundry":
            event = {"type": kind, "player": player, "genuine": bool(data.get("genuine"))}
            if data.get("challenger"):
                event["challenger"] = data["challenger"]
            return event
        if kind == "penalty":
            return {
                "type": kind,
                "player": player,
                "points": data["points"],
                "reason": data.get("reason") or "",
            }
        if kind == "bid":
            return {"type": "bid", "player": player, "bid": euros_to_cents(data["bid"])}
        if kind == "bid_fold":
            return {"type": "bid", "player": player, "bid": "fold"}
        return {"type": kind, "player": player}

    def clean(self) -> dict[str, Any]:
        """What the event needs is there: a cleared field is refused, never read as a number
        the scorer did not choose (a penalty's emptied "Punten" was recorded as 1)."""
        data = super().clean()
        kind = data.get("type")
        if kind == "bid" and data.get("bid") is None:
            self.add_error("bid", _("Vul een bod in."))
        if kind == "penalty" and data.get("points") is None and "points" not in self.errors:
            self.add_error("points", _("Vul het aantal strafpunten in."))
        if kind == "four_of_a_kind" and not data.get("rank") and "rank" not in self.errors:
            self.add_error("rank", _("Kies welke vier gelijke."))
        return data


# The round a tap was made in (``funnel.RoundOver``). Optional: a tap kept by an outbox from
# before taps named their round is checked by its version alone.
def _round_field() -> forms.IntegerField:
    return forms.IntegerField(min_value=1, max_value=MAX_ROUNDS + 1, required=False)


class EventForm(EventFieldsMixin):
    """One tap: one event, the version of the sheet the tablet showed, the round it was made
    in, and the tap's key."""

    version = forms.IntegerField(min_value=0)
    key = forms.CharField(max_length=100)
    round = _round_field()


class VersionForm(forms.Form):
    version = forms.IntegerField(min_value=0)
    key = forms.CharField(max_length=100)
    round = _round_field()


# The seats a presence form may name (``seat``): a table of eight and those who joined it.
MAX_NAMED_SEATS = 32


class PresenceForm(VersionForm):
    """Who is away this round and who sits down; the absent fields are added per player.

    The form names the seats it was drawn with (``seat``, once per player, in order), and
    ``absent_<i>`` is the i-th of those: a form drawn before a player went out (the tablet
    played the round to its end without a connection) still marks the player it showed. A
    form without them (an outbox's tap from before they were named) counts the seats as they
    are now. A named player who went out meanwhile is refused by the engine."""

    join = forms.CharField(max_length=40, required=False, label=_("Speler erbij"))

    def __init__(
        self, *args: Any, players: list[str], seats: list[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.seats_too_many = bool(seats) and (
            len(seats) > MAX_NAMED_SEATS or any(len(name) > 40 for name in seats)
        )
        if seats and not self.seats_too_many:
            players = list(seats)
        self.players = players
        for index, _name in enumerate(players):
            self.fields[f"absent_{index}"] = forms.ChoiceField(
                required=False,
                choices=[("", _("aan tafel")), ("toilet", _("toilet")), ("drinks", _("drinken"))],
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.seats_too_many:
            raise forms.ValidationError(_("Dit formulier noemt te veel of te lange namen."))
        return data

    def absent(self) -> dict[str, str]:
        return {
            name: self.cleaned_data[f"absent_{i}"]
            for i, name in enumerate(self.players)
            if self.cleaned_data.get(f"absent_{i}")
        }


class EventRowForm(EventFieldsMixin):
    """A row of the round editor; a row without a type is left out (that deletes it). Only the
    game's event types are offered (and accepted): the pot game's bids only in the pot game."""

    type = forms.ChoiceField(
        choices=[("", "—"), *((t, EVENT_LABELS[t]) for t in EVENT_TYPES)], required=False
    )
    player = forms.CharField(max_length=40, required=False)

    def __init__(self, *args: Any, game: str = Game.STRAFPUNTEN, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        types = GAME_EVENT_TYPES.get(game, GAME_EVENT_TYPES[Game.STRAFPUNTEN])
        self.fields["type"].choices = [("", "—"), *((t, EVENT_LABELS[t]) for t in types)]
        self.type_fields = TYPE_FIELDS.get(game, {})

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("type") and not data.get("player"):
            self.add_error("player", _("Kies een speler."))
        return data


# absolute_max too: a posted TOTAL_FORMS of thousands would otherwise build that many forms.
EventRowFormSet = forms.formset_factory(EventRowForm, extra=2, max_num=60, absolute_max=60)


def event_row_initial(event: dict[str, Any]) -> dict[str, Any]:
    """A stored event as the initial data of an editor row."""
    row = {k: v for k, v in event.items() if k != "bid"}
    if event.get("type") == "bid":
        if event.get("bid") == "fold":
            row["type"] = "bid_fold"
        else:
            row["bid"] = Decimal(event["bid"]) / 100
    return row


def translated_error(form: forms.Form) -> str:
    """The first error of a form, for a notice beside the panel."""
    for errors in form.errors.values():
        for error in errors:
            return str(error)
    return gettext("Dat ging niet.")
