"""The lei's hot parts in Jinja2 (docs/decisions.md, "The lei's parts in Jinja2"): the tablet's
``#live`` and round section, the viewer's ``#live`` (templates/jinja2/scoring/lei/). Every tap
and every viewer's drawing renders them; Jinja2 compiles a template to Python once, where
Django's engine walks its nodes for every cell of the sheet.

What they draw is what Django's templates drew, byte for byte but for blank lines:

- ``{{ value }}`` is escaped as Django escapes (``&#x27;``, ``&quot;``: ``finalize``), not as
  MarkupSafe does; what is safe (``SafeString``, ``Markup``, a macro's output) stays as it is.
- ``_("text")`` is Django's ``gettext`` in the active language, drawn as it is, as
  ``{% translate "text" %}`` draws it. ``_("Ronde %(number)s")|blocktrans(number=n)``
  is ``{% blocktranslate %}``: the values escaped, the translation as it is.
- Only ``_("…")`` with one constant string: Django's ``makemessages`` (``make messages``, one
  command) reads these templates as it reads its own and finds exactly that form
  (tests/lei/test_parts_i18n.py checks every one lands in the catalogues). A plural or a text
  with a value that needs more is made in Python (``scoring/lei/tablet.py``).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from html import escape
from typing import Any

from django.http import HttpRequest
from django.template import engines
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, override
from jinja2 import Environment
from markupsafe import Markup

from scoring import svg


def _finalize(value: Any) -> Any:
    """Every ``{{ value }}``, escaped as Django escapes it: MarkupSafe, which escapes what is
    left, writes a quote as ``&#39;`` and ``&#34;``, Django as ``&#x27;`` and ``&quot;``."""
    kind = value.__class__
    if kind is str:
        return Markup(escape(value)) if "'" in value or '"' in value else value  # noqa: S704
    if kind is int or hasattr(value, "__html__"):
        return value
    return _finalize(str(value))


@cache
def _catalogue(language: str) -> Callable[[str], Markup]:
    """``_`` in ``language``: each text translated once per process, as ``tablet._label_texts``
    does (a sheet asks for the same few words in every render)."""
    texts: dict[str, Markup] = {}

    def translate(text: str) -> Markup:
        """``_("text")``: ``{% translate "text" %}``, whose translation is drawn as it is."""
        found = texts.get(text)
        if found is None:
            with override(language):
                found = texts[text] = Markup(gettext(text))  # noqa: S704 (ours, as Django's)
        return found

    return translate


def render(name: str, context: dict[str, Any], request: HttpRequest | None = None) -> SafeString:
    """The part ``name`` in the active language (``request`` for the CSRF input of a form), safe
    to draw into a page that is a Django template."""
    context = {**context, "_": _catalogue(get_language())}
    return SafeString(render_to_string(name, context, request, using="jinja2"))


def blocktrans(text: str, **values: Any) -> SafeString:
    """``{% blocktranslate %}``: ``text`` (already translated) with its values escaped in. A
    Django ``SafeString``, as the tag's ``asvar`` is: ``svg.turfjes`` keeps it as it is (it
    would escape a MarkupSafe ``Markup`` again)."""
    escaped = {k: v if hasattr(v, "__html__") else escape(str(v)) for k, v in values.items()}
    return SafeString(str(text) % escaped)


def turfjes(total: int, label: str, jack_dots: Any = ()) -> Any:
    return svg.turfjes(int(total), jack_dots=jack_dots or (), label=label)


def die(stake: int) -> Any:
    stake = int(stake)
    return svg.die(stake, label=gettext("Inzet: %(stake)s") % {"stake": stake})


class Kept:
    """Drawings kept per process by what they are drawn from (the key), the least recently used
    let go beyond ``size``. A stream server draws on two threads: a drawing let go by one while
    the other uses it is drawn again, never an error."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.drawings: OrderedDict[Any, str] = OrderedDict()

    def get(self, key: Any, draw: Callable[[], str]) -> str:
        """The drawing kept under ``key``, else ``draw()`` kept under it."""
        found = self.drawings.get(key)
        if found is not None:
            with contextlib.suppress(KeyError):  # let go meanwhile by the other thread
                self.drawings.move_to_end(key)
            return found
        found = self.drawings[key] = draw()
        while len(self.drawings) > self.size:
            with contextlib.suppress(KeyError):
                self.drawings.popitem(last=False)
        return found

    def clear(self) -> None:
        self.drawings.clear()


# The sheet's played rounds, each as last drawn, by what it is drawn from (``sheet_row``): a
# round's row stays as it is while the rows above it come and the totals change, so a tap that
# ends a round draws one row, not the thirty the tablet and each audience's viewers show. A sheet
# shows 30 rows, to the tablet and to each audience: 20,000 rows hold a Friday night's 300
# tables, about 1.7 KB each with its key, 33 MiB a process when full. Gain: a change 0.94-0.96
# of its cost with every row drawn (``make bench-change``, 2026-11-29), kept for issue 46's 0.4
# per change, met only with it (BENCHMARKS.md, "The cost of a change").
ROWS = Kept(20_000)


def sheet_row(row: Any, edit: int | None, is_pot: bool) -> Markup:
    """One played round of the sheet (``tablet.HistoryRow``) in the active language: drawn by
    ``_sheet_row.html``, or as drawn before from the same. ``edit``: the session's id where the
    round links to its editor; ``is_pot``: the pot game (no stake)."""
    language = get_language()

    def draw() -> Markup:
        template = engines["jinja2"].env.get_template("scoring/lei/_sheet_row.html")
        context = {"row": row, "edit": edit, "is_pot": is_pot, "_": _catalogue(language)}
        return Markup(template.render(context).strip())  # noqa: S704 (autoescaped)

    return ROWS.get((language, edit, is_pot, row.drawn_from), draw)


def url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


def environment(**options: Any) -> Environment:
    options.update(autoescape=True, keep_trailing_newline=True, finalize=_finalize)
    options.pop("undefined", None)  # DEBUG's DebugUndefined would draw what Django leaves out
    env = Environment(**options)  # noqa: S701 (autoescape on, above)
    env.globals.update(
        _=gettext,  # render() puts the cached catalogue of the language in its place
        url=url,
        turfjes=turfjes,
        die=die,
        sheet_row=sheet_row,
        score_chart=svg.worded_score_chart,
    )
    env.filters["blocktrans"] = blocktrans
    return env
