"""A game's table label: stored once, in Dutch, and shown in the reader's language.

A toernooi's and a club evening's tables are labelled by the app ("Wintertoernooi: serie 1,
tafel 1", "Ronde 2 · tafel 3"). The label is stored in Dutch whoever made it (the archive
filters, searches and exports it as one text), and ``shown`` finds the parts in it again and
writes them in the active language: a German reader sees "Wintertoernooi: Serie 1, Tisch 1".
A label someone typed is shown as typed.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext

MAX_LENGTH = 60  # Session.table_label

_TOERNOOI = re.compile(r"^(?P<name>.+): serie (?P<series>\d+), tafel (?P<table>\d+)$")
_FINAL = re.compile(r"^(?P<name>.+): finaletafel$")
_EVENING = re.compile(r"^Ronde (?P<round>\d+) · tafel (?P<table>\d+)$")


def toernooi_table(name: str, *, series: int, table: int, final: bool) -> str:
    """The stored label of a toernooi's table (Dutch, whoever draws the series)."""
    if final:
        return f"{name}: finaletafel"[:MAX_LENGTH]
    return f"{name}: serie {series}, tafel {table}"[:MAX_LENGTH]


def evening_table(*, round_number: int, table: int) -> str:
    """The stored label of a club evening's table (Dutch, whoever draws the round)."""
    return f"Ronde {round_number} · tafel {table}"


def shown(label: str) -> str:
    """``label`` in the active language where the app made it, else as it was typed.

    >>> shown("Wintertoernooi: serie 1, tafel 2")  # in Dutch
    'Wintertoernooi: serie 1, tafel 2'
    """
    if match := _TOERNOOI.match(label):
        return gettext("%(name)s: serie %(series)s, tafel %(table)s") % match.groupdict()
    if match := _FINAL.match(label):
        return gettext("%(name)s: finaletafel") % match.groupdict()
    if match := _EVENING.match(label):
        return gettext("Ronde %(round)s · tafel %(table)s") % match.groupdict()
    return label
