"""How a figure is shown: one rounding rule for every rating and figure on a page or chart.

- ``rounded``: half away from zero (7,85 → 7,9; -7,85 → -7,9) to the places shown, from the
  number as Python writes it (``repr``: 0.05 is 0,1, not the binary 0.04999…), never cut off;
  a result of nought is 0, never "-0,0".
- ``rating``: a rating as pages and charts show it: the export's figure
  (``scoring/ratings/views.py``, ``RATING_PLACES``) rounded once more to one place, so the page
  always says what the CSV says, rounded.
- ``shown``: the rounded figure in the reader's language (Dutch 7,9; English 7.9).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.utils.formats import number_format

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
