"""How names are compared, stored and shown by initials: one rule for the whole app.

- ``tidy``: a name as it is stored: Unicode NFC (the form a keyboard types "é" in), runs of
  spaces, tabs and newlines one space, nothing before or after, and none of Unicode's
  bidirectional controls (U+202E and its kin: invisible, they turn the rest of a line around
  on the organiser's screen and the TV, and no name needs one). "Anne  Jansen " is stored
  as "Anne Jansen". NFC, not NFKC, because it keeps what was typed: NFKC would turn "²"
  into "2" and a ligature into two letters in a name people read back.
- ``name_key``: what two names are compared by: the tidy name with its case folded and
  Unicode's compatibility forms folded too (NFKC, Unicode's "compatibility caseless match").
  "anne  JANSEN", "Anne Jansen" and "Anne Jansen" typed with a full-width A (U+FF21) are one
  person at the table; "Anne Jansen" and "Anne-Jansen" are not.
- ``initials``: "Anne van Dijk" is "A.V.D." on a public page; ``display_name``: the name, or
  its initials where the player asked for them and the reader is no member.
- ``public_names``: the initials of the players of one game who asked for them, made unique.
- ``alike``: names close enough to ask "Bedoel je Kees Bakker?" before a second player is
  made for one person: one edit apart ("Kees Baker"), by initials ("K. Bakker"), the parts
  swapped ("Bakker Kees", "Bakker, Kees") or spelled with other spaces, hyphens and dots
  ("Jan Willem", "Jan-Willem"). Equal names (``name_key``) are one player, not alike.
- ``in_text``: finds a player's name inside a side's name ("anne geheimnaam & Fleur") by
  the same comparison, word by word, so a side named after a player shown by initials is
  renamed with them.

Pure Python: the engine, the forms, the services and the public pages all use it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

_WORD = re.compile(r"\w+")
# Unicode's bidirectional controls (marks, embeddings, overrides, isolates): dropped by ``tidy``.
_STEERING = dict.fromkeys(
    map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)


def tidy(name: str) -> str:
    """The name as it is stored: NFC, single spaces, trimmed, no bidirectional controls.

    >>> tidy("  Anne \\t Jansen ")
    'Anne Jansen'
    >>> tidy("\\u202eAnne")
    'Anne'
    """
    return " ".join(unicodedata.normalize("NFC", name).translate(_STEERING).split())


def name_key(name: str) -> str:
    """What names are compared by: equal keys, the same player.

    >>> name_key("anne  JANSEN") == name_key("Anne Jansen")
    True
    """
    folded = unicodedata.normalize("NFKC", tidy(name)).casefold()
    # Folding can undo the normal form ("ǰ" folds to "ǰ" decomposed): once more, as Unicode's
    # toNFKC_Casefold does.
    return " ".join(unicodedata.normalize("NFKC", folded).split())


def initials(name: str) -> str:
    """The first letter of each word, capital, with a dot.

    >>> initials("anne van  dijk")
    'A.V.D.'
    """
    return "".join(part[0].upper() + "." for part in tidy(name).split())


def display_name(name: str, public_initials: bool, *, full: bool) -> str:
    """The name as the viewer may see it: initials on public pages for who asked for that
    (and for a guest the club has not confirmed: ``Player.public_initials`` is set for them)."""
    return name if full or not public_initials else initials(name)


def public_names(players: Iterable[tuple[str, bool]]) -> dict[str, str]:
    """For one game's ``(name, shown by initials)`` players: the initials of those shown by
    initials, made unique within the game with a prime ("A.J.", "A.J.'") and never the same
    name, as names are compared, as a player shown in full (the renamed game is replayed).

    >>> public_names([("Anne Jansen", True), ("a.j.", False), ("Arie Jol", True)])
    {'Anne Jansen': "A.J.'", 'Arie Jol': "A.J.''"}
    """
    players = list(players)
    taken = {name_key(name) for name, hidden in players if not hidden}
    renames: dict[str, str] = {}
    for name, hidden in players:
        if hidden and name not in renames:
            shown = initials(name) or "?"
            while name_key(shown) in taken:
                shown += "'"
            taken.add(name_key(shown))
            renames[name] = shown
    return renames


def in_text(text: str, names: Mapping[str, str]) -> str:
    """``text`` with every name of ``names`` found in it replaced by what it maps to, names
    compared as everywhere (``name_key``), whole words only: "Bo" is not found in "Bob".
    Without a name in it, ``text`` comes back as it was.

    >>> in_text("anne  GEHEIMNAAM & Fleur", {"Anne Geheimnaam": "A.G."})
    'A.G. & Fleur'
    """
    original, text = text, tidy(text)
    words = [(m.start(), m.end(), name_key(m.group())) for m in _WORD.finditer(text)]
    wanted = []
    for name, new in names.items():
        keys = [name_key(w) for w in _WORD.findall(tidy(name))]
        if keys:
            wanted.append((keys, new))
    wanted.sort(key=lambda item: len(item[0]), reverse=True)  # "Anne Jansen" before "Anne"
    out, done, i = [], 0, 0
    while i < len(words):
        for keys, new in wanted:
            found = [w[2] for w in words[i : i + len(keys)]]
            if found == keys:
                out += [text[done : words[i][0]], new]
                done = words[i + len(keys) - 1][1]
                i += len(keys)
                break
        else:
            i += 1
    return "".join(out) + text[done:] if out else original


# Shorter names than this are not compared letter by letter: "Bas" and "Bob" are two people.
_ALIKE_MIN_LETTERS = 5


def _letters(name: str) -> str:
    return "".join(c for c in name_key(name) if c.isalnum())


def _parts(name: str) -> list[str]:
    return [w for w in re.split(r"[\s,.\-]+", name_key(name)) if w]


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one letter added, dropped, changed or two swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:
        return True
    return a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1]


def _by_initials(typed: list[str], known: list[str]) -> bool:
    """ "K. Bakker" for "Kees Bakker": every typed part the known part or its first letter,
    at least one of them whole."""
    if len(typed) != len(known) or typed == known:
        return False
    whole = 0
    for short, full in zip(typed, known, strict=True):
        if short == full:
            whole += 1
        elif not (len(short) == 1 and short.isalpha() and full.startswith(short)):
            return False
    return whole > 0


def alike(typed: str, known: str) -> bool:
    """Whether ``typed`` is probably ``known`` spelled otherwise (not the same name).

    >>> [alike(t, "Kees Bakker") for t in ("Kees Baker", "K. Bakker", "Bakker, Kees", "Kees")]
    [True, True, True, False]
    """
    if name_key(typed) == name_key(known):
        return False
    a, b = _letters(typed), _letters(known)
    if not a or not b:
        return False
    if a == b:
        return True
    parts_a, parts_b = _parts(typed), _parts(known)
    if len(parts_a) > 1 and sorted(parts_a) == sorted(parts_b):
        return True
    if _by_initials(parts_a, parts_b) or _by_initials(parts_b, parts_a):
        return True
    if [c for c in a if c.isdigit()] != [c for c in b if c.isdigit()]:
        return False  # "Speler 1" and "Speler 2", "Tafel 3" and "Tafel 30" are not typos
    return min(len(a), len(b)) >= _ALIKE_MIN_LETTERS and _one_edit(a, b)
