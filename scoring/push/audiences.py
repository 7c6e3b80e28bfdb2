"""Whom a pushed part is drawn for: the audience a stream's request resolves to (DESIGN
decision 14), never the request's bytes.

A part is drawn once per change for each (part, language, audience) and every stream of that
audience gets the same drawing, so what keys a drawing must be what the page's view reads and
nothing more: the part's route with only the query values its view reads, in one spelling
(``?n=1`` … ``?n=300`` are one part), and what the asker may see there, as ``scoring/access.py``
answers it (a made-up ``sessionid`` is nobody: the public). Per page:

- the viewer link, the club's evening and the toernooi's TV show names in full to the club's
  members and by initials (where asked) to everyone else: two audiences, ``public`` (drawn
  with no cookie at all) and ``full`` (drawn as the first member who asked; a member who has
  since left sees at most the public's part, never more);
- the tablet and the organiser's series page are drawn for the one asking (their forms carry
  that person's tokens): the audience is their Django session, as the database holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, QueryDict

from scoring import access
from scoring.lei.tablet import shown_until


@dataclass(frozen=True)
class Audience:
    key: str  # what the drawing is kept by: "public", "full", "own:<session key>"
    cookie: str  # the session key the part is drawn with ("" for the public)


PUBLIC = Audience("public", "")


def _session_key(request: HttpRequest) -> str:
    """The request's Django session as the database holds it: "" for none, or for a cookie
    that names no session (the session store forgets such a key once it is looked up)."""
    session = request.session
    if not session.session_key:
        return ""
    session.keys()  # loads it: the store forgets a key it does not hold
    return session.session_key or ""


def _names(request: HttpRequest, full: bool) -> Audience:
    key = _session_key(request) if full else ""
    return Audience("full", key) if key else PUBLIC


def _viewer(request: HttpRequest, kwargs: Mapping[str, Any]) -> Audience:
    pk, _key = access.viewer_link(kwargs["signed"])
    return _names(request, access.sees_full_names(request, pk))


def _club(request: HttpRequest, kwargs: Mapping[str, Any]) -> Audience:
    try:
        member = access.league_viewer(request, kwargs["slug"]).member
    except Http404:
        return PUBLIC  # drawn for the public: the club's 404, as its page answers
    return _names(request, member)


def _own(request: HttpRequest, kwargs: Mapping[str, Any]) -> Audience:
    key = _session_key(request)
    return Audience(f"own:{key}", key) if key else PUBLIC


def _round(value: str) -> str | None:
    until = shown_until(value)
    return None if until is None else str(until)


def _page(value: str) -> str | None:
    return value if value.isascii() and value.isdigit() and len(value) <= 4 else None


def _tv(value: str) -> str | None:
    return "1" if value == "1" else None


@dataclass(frozen=True)
class Page:
    audience: Callable[[HttpRequest, Mapping[str, Any]], Audience]
    reads: Mapping[str, Callable[[str], str | None]]  # the query values its view reads


PAGES: dict[str, Page] = {
    "viewer": Page(_viewer, {"tot": _round, "tv": _tv}),
    "tablet": Page(_own, {"tot": _round}),
    "league_evening": Page(_club, {"pagina": _page}),
    "tournament_series": Page(_own, {}),
    "tournament_tv": Page(_club, {"pagina": _page}),
}


def part_path(name: str, route: str, query: str) -> str:
    """The part's path in one spelling: its route and the query values its view reads, in
    their order, each in one form. ``/kijk/x/?n=7&tv=1`` → ``/kijk/x/?tv=1``."""
    asked = QueryDict(query)
    kept = []
    for field, form in sorted(PAGES[name].reads.items()):
        value = form(asked.get(field, ""))
        if value is not None:
            kept.append((field, value))
    return f"{route}?{urlencode(kept)}" if kept else route


def audience(request: HttpRequest, name: str, kwargs: Mapping[str, Any]) -> Audience:
    """The audience of ``request`` at the part named ``name`` (ORM: on a drawing thread)."""
    return PAGES[name].audience(request, kwargs)
