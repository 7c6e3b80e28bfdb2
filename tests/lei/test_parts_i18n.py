"""The words of the lei's Jinja2 templates (templates/jinja2/) reach the catalogues through the
one ``make messages``: Django's ``makemessages`` reads them as it reads its own templates and
finds ``_("…")`` with one constant text (scoring/lei/jinja.py). Every text Jinja2 itself sees
translated must be one it finds, and be translated in English and German."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.template import engines
from django.utils.translation.template import templatize
from jinja2 import nodes

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "templates" / "jinja2").rglob("*.html"))
FOUND_BY_DJANGO = re.compile(r"""\b_\((?:"(.*?)"|'(.*?)')\)""")


def translated(path: Path) -> list[tuple[int, str]]:
    """Each ``_(…)`` call of a template as Jinja2 parses it: (line, its constant text or "")."""
    tree = engines["jinja2"].env.parse(path.read_text())
    calls = []
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name in ("_", "gettext", "ngettext"):
            args = call.args
            alone = (
                call.node.name == "_"
                and len(args) == 1
                and isinstance(args[0], nodes.Const)
                and not call.kwargs
            )
            calls.append((call.lineno, args[0].value if alone else ""))
    return calls


def catalogue(language: str) -> dict[str, str]:
    text = (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").read_text()
    entries = {}
    for block in text.split("\n\n"):
        ids = re.search(r'^msgid ((?:".*"\n?)+)', block, re.M)
        strs = re.search(r'^msgstr ((?:".*"\n?)+)', block, re.M)
        if ids and strs:
            join = lambda quoted: "".join(re.findall(r'"(.*)"', quoted))  # noqa: E731
            entries[join(ids[1]).replace('\\"', '"')] = join(strs[1])
    return entries


def test_there_are_jinja_templates():
    assert [p.name for p in TEMPLATES if p.name.startswith("_")] == [
        "_round.html",
        "_sheet.html",
        "_sheet_row.html",
    ]


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_every_text_is_found_by_makemessages_and_translated(path):
    calls = translated(path)
    assert [line for line, text in calls if not text] == []  # only _("one constant text")
    found = {a or b for a, b in FOUND_BY_DJANGO.findall(templatize(path.read_text(), str(path)))}
    texts = {text for _, text in calls}
    assert texts - found == set()
    for language in ("en", "de"):
        messages = catalogue(language)
        assert {t for t in texts if not messages.get(t)} == set(), language


def test_a_text_of_a_jinja_template_lands_in_the_catalogue():
    """The sheet's "won de laatste slag" is in no Django template: the catalogues have it from
    the Jinja2 sheet's row."""
    sheet = ROOT / "templates" / "jinja2" / "scoring" / "lei" / "_sheet_row.html"
    assert "won de laatste slag" in {text for _, text in translated(sheet)}
    django_templates = [p for p in (ROOT / "templates").rglob("*.html") if "jinja2" not in p.parts]
    assert all("won de laatste slag" not in p.read_text() for p in django_templates)
    for language in ("nl", "en", "de"):
        po = (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").read_text()
        (entry,) = [e for e in po.split("\n\n") if '\nmsgid "won de laatste slag"' in e]
        assert "#: templates/jinja2/scoring/lei/_sheet_row.html" in entry
