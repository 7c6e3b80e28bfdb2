"""A season's ranking settings (``Season.ranking``), read and checked in one place.

The club admin types them as JSON in the admin; ``Ranking.parse`` is what the admin checks them
with, and the league's standings (``scoring.league.standings``) rank a season by what
``Ranking.from_json`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

PLACEMENT = "placement"
PER_ROUND = "per_round"
RATING = "rating"

TOEPKONINGEN = "toepkoningen"
AVERAGE_PLACE = "average_place"
HEAD_TO_HEAD = "head_to_head"
PER_ROUND_BREAKER = "strafpunten_per_round"

# Other spellings a club may have typed into the JSON (``wins`` is the models' default).
_ALIASES = {
    "wins": TOEPKONINGEN,
    "toepkoning": TOEPKONINGEN,
    "kings": TOEPKONINGEN,
    "place": AVERAGE_PLACE,
    "avg_place": AVERAGE_PLACE,
    "head2head": HEAD_TO_HEAD,
    "onderling": HEAD_TO_HEAD,
    "per_round": PER_ROUND_BREAKER,
    "strafpunten": PER_ROUND_BREAKER,
}

# One line each on the standings page: the club sees how a tie was decided.
TIE_BREAKER_TEXT = {
    TOEPKONINGEN: _("Toepkoningen: wie vaker toepkoning werd, staat hoger."),
    AVERAGE_PLACE: _("Gemiddelde plaats: wie gemiddeld hoger eindigde, staat hoger."),
    HEAD_TO_HEAD: _(
        "Onderling: wie in de sessies tegen elkaar vaker boven de ander eindigde, staat hoger."
    ),
    PER_ROUND_BREAKER: _(
        "Strafpunten per ronde: wie minder strafpunten per gespeelde ronde kreeg, staat hoger."
    ),
}

# Bounds of what a club may type: a season has no more places than this, and no placement is
# worth more points (the points are summed over a season in the database's integers).
MAX_PLACES = 100
MAX_PLACE_POINTS = 1000
MAX_BEST_N = 1000
_KEYS = {"scoring", "best_n", "placement_points", "tie_breakers"}


class InvalidRanking(ValueError):
    """Ranking settings that cannot be read; the message says why, in the user's language."""


def _whole(value: Any) -> int | None:
    """An integer typed as a JSON number or as digits; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    digits = value.strip() if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 9:
        return int(digits)
    return None


@dataclass(frozen=True)
class Ranking:
    """How a season ranks its players, from ``Season.ranking``.

    ``parse`` is the one reading of the settings: the admin validates what a club admin types
    with it (a form error names the problem), and the pages read with ``from_json``, which
    gives the default ranking with the problem in ``invalid`` for a row that was stored before
    it was checked, so the standings still show, with a note, instead of a server error.
    """

    scoring: str = PLACEMENT
    best_n: int | None = None
    placement_points: tuple[int, ...] | None = None
    tie_breakers: tuple[str, ...] = (TOEPKONINGEN, AVERAGE_PLACE)
    invalid: str = ""

    @classmethod
    def from_json(cls, data: Any) -> Ranking:
        try:
            return cls.parse(data)
        except InvalidRanking as problem:
            return cls(invalid=str(problem))

    @classmethod
    def parse(cls, data: Any) -> Ranking:
        """The ranking of ``data`` (the JSON of ``Season.ranking``), or ``InvalidRanking``.

        ``{"scoring": "placement", "best_n": 10, "placement_points": [10, 6, 4],
        "tie_breakers": ["toepkoningen", "head_to_head"]}``; every key may be left out."""
        if data is None or data == "":
            data = {}
        if not isinstance(data, dict):
            raise InvalidRanking(
                _('De rangschikking is een JSON-object, bijvoorbeeld {"scoring": "placement"}.')
            )
        unknown = sorted(str(k) for k in data if k not in _KEYS)
        if unknown:
            raise InvalidRanking(
                _("Onbekende instelling in de rangschikking: %(keys)s. Bekend zijn: %(known)s.")
                % {"keys": ", ".join(unknown), "known": ", ".join(sorted(_KEYS))}
            )
        scoring = data.get("scoring") or PLACEMENT
        if scoring in (PER_ROUND, "strafpunten"):
            scoring = PER_ROUND
        elif scoring not in (PLACEMENT, RATING):
            raise InvalidRanking(_('"scoring" is "placement", "per_round" of "rating".'))
        best_n = data.get("best_n")
        if best_n is not None:
            best_n = _whole(best_n)
            if best_n is None or not 0 <= best_n <= MAX_BEST_N:
                raise InvalidRanking(
                    _('"best_n" is een geheel getal van 1 tot en met %(max)s, of null.')
                    % {"max": MAX_BEST_N}
                )
        points = data.get("placement_points") or None
        if points is not None:
            if (
                not isinstance(points, list)
                or len(points) > MAX_PLACES
                or any(_whole(p) is None or not 0 <= _whole(p) <= MAX_PLACE_POINTS for p in points)
            ):
                raise InvalidRanking(
                    _(
                        '"placement_points" is een lijst van hoogstens %(places)s gehele getallen '
                        "van 0 tot en met %(max)s (de punten voor plaats 1, 2, …), of null."
                    )
                    % {"places": MAX_PLACES, "max": MAX_PLACE_POINTS}
                )
            points = tuple(_whole(p) for p in points)
        breakers: list[str] = []
        names = data.get("tie_breakers", cls.tie_breakers) or []
        if not isinstance(names, list | tuple):
            names = [names]
        for name in names:
            name = _ALIASES.get(str(name), str(name)) if isinstance(name, str) else None
            if name not in TIE_BREAKER_TEXT:
                raise InvalidRanking(
                    _('"tie_breakers" is een lijst uit: %(names)s.')
                    % {"names": ", ".join(TIE_BREAKER_TEXT)}
                )
            if name not in breakers:
                breakers.append(name)
        return cls(
            scoring=scoring,
            best_n=best_n or None,
            placement_points=points,
            tie_breakers=tuple(breakers),
        )

    def explain(self) -> list[str]:
        """The ranking in a line or two, for the page."""
        if self.invalid:
            return [
                _(
                    "De rangschikking van dit seizoen is niet te lezen, dus de stand volgt de "
                    "gewone rangschikking tot de beheerder haar verbetert. %(problem)s"
                )
                % {"problem": self.invalid},
                *Ranking().explain(),
            ]
        if self.scoring == PER_ROUND:
            lines = [_("De minste strafpunten per gespeelde ronde staat bovenaan.")]
        elif self.scoring == RATING:
            lines = [
                _(
                    "De hoogste rating na je laatste sessie van dit seizoen staat bovenaan "
                    "(alle sessies bij de club tellen mee, in de volgorde waarin ze gespeeld zijn)."
                )
            ]
        elif self.placement_points:
            points = ", ".join(str(p) for p in self.placement_points)
            lines = [_("Per sessie punten naar plaats: %(points)s.") % {"points": points}]
        else:
            lines = [
                _(
                    "Per sessie een punt voor elke speler die onder je eindigt: de toepkoning "
                    "aan een tafel van vijf krijgt er 4."
                )
            ]
        if self.best_n and self.scoring == PLACEMENT:
            lines.append(_("Alleen je beste %(n)s sessies tellen.") % {"n": self.best_n})
        return lines

    @property
    def tie_breaker_lines(self) -> list[tuple[str, str]]:
        """Each tie-breaker in order with its line for the page."""
        return [(name, TIE_BREAKER_TEXT[name]) for name in self.tie_breakers]
