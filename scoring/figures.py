"""How a figure is shown: one rounding rule for every rating and figure on a page or chart.

- ``rounded``: half away from zero (7,85 → 7,9; -7,85 → -7,9) to the places shown, from the
  number as Python writes it (``repr``: 0.05 is 0,1, not the binary 0.04999…), never cut off;
  a result of nought is 0, never "-0,0".
- ``rating``: a rating as pages and charts show it: the export's figure
  (``scoring/ratings/views.py``, ``RATING_PLACES``) rounded once more to one place, so the page
  always says what the CSV says, rounded.
- ``shown``: the rounded figure in the reader's language (Dutch 7,9; English 7.9).
- ``ordinal`` and ``day``: places and dates as each language writes them ("3e", "3rd", "3.";
  "1 jan", "1 Jan", "29. November 2026"); the templates' ``|ordinal`` and ``|day`` filters.
"""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal

from django.utils import dateformat
from django.utils.formats import number_format
from django.utils.translation import get_language

RATING_PLACES = 3  # the ratings' CSV
RATING_SHOWN = 1  # the pages and charts


def rounded(value: float | Decimal | int, places: int) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals.

    >>> rounded(7.868, 1), rounded(-0.04, 1), rounded(2.675, 2)
    (Decimal('7.9'), Decimal('0.0'), Decimal('2.68'))
    """
    number = value if isinstance(value, Decimal) else Decimal(repr(value))
    result = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return result.copy_abs() if result.is_zero() else result


def rating(value: float) -> Decimal:
    """A rating as shown: the export's figure rounded to one place (see the module's note)."""
    return rounded(rounded(value, RATING_PLACES), RATING_SHOWN)


def shown(value: float | Decimal | int, places: int) -> str:
    """``value`` rounded to ``places`` decimals, in the active language's number format."""
    return number_format(rounded(value, places), places)


def shown_rating(value: float) -> str:
    return number_format(rating(value), RATING_SHOWN)


def ordinal(number: int) -> str:
    """A place as the active language writes it: Dutch "3e", German "3.", English "3rd".

    Written here, not translated per number: English needs the last two digits (11th, 21st).
    """
    language = (get_language() or "nl").split("-")[0]
    if language == "en":
        suffix = (
            "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
        )
        return f"{number}{suffix}"
    if language == "de":
        return f"{number}."
    return f"{number}e"


# Dates as each language writes them (Django's date format letters): Dutch months lowercase,
# also abbreviated ("1 jan"; Django's "M" capitalises, "b" does not); German "29. November
# 2026"; English as the British write it.
DATES = {
    "nl": {"long": "j F Y", "short": "j b Y", "day_month": "j F", "weekday": "l j F Y"},
    "de": {"long": "j. F Y", "short": "j. M Y", "day_month": "j. F", "weekday": "l, j. F Y"},
    "en": {"long": "j F Y", "short": "j M Y", "day_month": "j F", "weekday": "l j F Y"},
}


def day(value: datetime.date | None, style: str = "long") -> str:
    """``value`` as the active language writes a date in ``style`` (a key of ``DATES``)."""
    if value is None:
        return ""
    language = (get_language() or "nl").split("-")[0]
    return dateformat.format(value, DATES.get(language, DATES["nl"])[style])
