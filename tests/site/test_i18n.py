"""The translations: Dutch is the source language, English and German are complete.

Others add strings and run ``make messages`` (makemessages + compilemessages); these tests say
when that was forgotten or left half done: an untranslated or fuzzy entry in en or de, or a
committed .mo that does not hold what its .po says (so a fresh machine, which has no gettext
tools, would show stale text).
"""

from __future__ import annotations

import ast
import gettext
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = [code for code, _ in settings.LANGUAGES]
COMPLETE = ["en", "de"]  # nl may leave an entry empty: the msgid is the Dutch text


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())

    @property
    def key(self) -> str:
        return self.msgid if self.msgctxt is None else f"{self.msgctxt}\x04{self.msgid}"


def parse_po(path: Path) -> list[Entry]:
    """The entries of a .po file, header included, obsolete (#~) entries left out.

    Enough of the PO format for what makemessages writes: flags, msgctxt, msgid,
    msgid_plural, msgstr and msgstr[n], strings continued over several lines.
    """
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int] | None = None

    def start() -> Entry:
        nonlocal entry
        if entry is None or entry.msgstr:
            entry = Entry(line=number)
            entries.append(entry)
        return entry

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            continue
        if line.startswith("#,"):
            start().flags.update(f.strip() for f in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        if line.startswith('"'):
            assert target is not None, f"{path}:{number}: a string without a keyword"
            value = ast.literal_eval(line)
            current = entry
            name, index = target
            if name == "msgstr":
                current.msgstr[index] += value
            else:
                setattr(current, name, getattr(current, name) + value)
            continue
        keyword, _, rest = line.partition(" ")
        value = ast.literal_eval(rest)
        if keyword == "msgctxt":
            start().msgctxt = value
            target = ("msgctxt", 0)
        elif keyword == "msgid":
            current = start()
            current.msgid, current.line = value, number
            target = ("msgid", 0)
        elif keyword == "msgid_plural":
            entry.msgid_plural = value
            target = ("msgid_plural", 0)
        elif keyword.startswith("msgstr"):
            index = int(keyword[7:-1]) if keyword != "msgstr" else 0
            entry.msgstr[index] = value
            target = ("msgstr", index)
        else:
            raise AssertionError(f"{path}:{number}: cannot read {line!r}")
    return entries


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_a_catalogue_and_its_compiled_file(language):
    assert po_path(language).is_file(), "run `make messages`"
    assert po_path(language).with_suffix(".mo").is_file(), "run `make messages` and commit the .mo"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_fuzzy_entries(language):
    fuzzy = [
        f"line {e.line}: {e.msgid!r}" for e in parse_po(po_path(language)) if "fuzzy" in e.flags
    ]
    assert fuzzy == [], f"check these translations and remove the fuzzy flag in {language}"


@pytest.mark.parametrize("language", COMPLETE)
def test_english_and_german_are_complete(language):
    missing = [
        f"line {e.line}: {e.msgid!r}"
        for e in parse_po(po_path(language))
        if e.msgid and not e.translated
    ]
    assert missing == [], f"translate these in locale/{language}/LC_MESSAGES/django.po"


@pytest.mark.parametrize("language", LANGUAGES)
def test_compiled_catalogue_matches_the_po_file(language):
    """The .mo holds exactly the translated, non-fuzzy entries of the .po (as msgfmt does)."""
    expected: dict[object, str] = {}
    for entry in parse_po(po_path(language)):
        if not entry.msgid or "fuzzy" in entry.flags or not entry.translated:
            continue
        if entry.msgid_plural is None:
            expected[entry.key] = entry.msgstr[0]
        else:
            for index, text in entry.msgstr.items():
                expected[(entry.key, index)] = text
    with po_path(language).with_suffix(".mo").open("rb") as mo:
        catalogue = dict(gettext.GNUTranslations(mo)._catalog)
    catalogue.pop("", None)  # the header
    stale = {k: (catalogue.get(k), v) for k, v in expected.items() if catalogue.get(k) != v}
    extra = sorted(str(k) for k in catalogue.keys() - expected.keys())
    assert stale == {}, f"the .mo of {language} is older than its .po: run `make messages`"
    assert extra == [], f"the .mo of {language} has entries its .po does not: run `make messages`"


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext (msgfmt) is not installed")
@pytest.mark.parametrize("language", LANGUAGES)
def test_msgfmt_accepts_the_catalogue(language):
    # --check also compares the %(name)s placeholders of each translation with its msgid.
    result = subprocess.run(
        ["msgfmt", "--check", "--output-file=/dev/null", str(po_path(language))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_names_the_language_and_utf8(language):
    header = parse_po(po_path(language))[0]
    assert header.msgid == ""
    assert f"Language: {language}\n" in header.msgstr[0]
    assert "charset=UTF-8" in header.msgstr[0]
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in header.msgstr[0]
