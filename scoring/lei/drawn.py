"""Draw once, send everywhere (DESIGN decision 14): the write that changes a session draws the
viewers' parts that open streams show (``scoring/lei/watch.py``) from the lei it has just
replayed, and sends each drawing with the change's announcement, in its own transaction and
one statement (``notify.session_changed``). Every stream server hands it to its streams as it
is (``scoring/push/listener.py``, ``fragments.Drawings.delivered``): no server draws it again,
and two servers cost no more than one. The tap's answer draws the tablet's lei from the lei
built here.

A drawing is the part as its page's poll gets it (``viewer_views.viewer_part_html``): the same lei
for the same audience (initials for the public, ``viewer_views.viewer_lei``), the same
template, in the part's language. What this write does not draw (more parts than
``watch.DRAWN_PER_CHANGE``, a drawing too large for an announcement, a change of seats) the
stream servers draw themselves, as they did before; so does every change made elsewhere than
here (a renewed link, a seal, an organiser's write).

Gain (BENCHMARKS.md, "Draw once: today against 71a9134", the same run, 1x): the stream
worker's CPU a sixth of what it was (2.4-3.0 s against 14.3-18.4 s), a change to a viewer in
1.2-1.6 ms instead of 0.28-0.75 s at p95, gunicorn 0.51-0.53 of its CPU per change; a tap pays
its drawing, about 1 ms. The notes read with the lock and the tablet's answer drawn from the
lei built here, with the rows kept: a change 0.89 of its cost before (``make bench-change``)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import Http404, QueryDict
from django.urls import Resolver404, resolve
from django.utils import translation

from scoring import access, notify
from scoring.lei import viewer_views, watch
from scoring.lei.tablet import Lei, build_lei, shown_until
from scoring.models import Session

log = logging.getLogger(__name__)


@dataclasses.dataclass
class Drawn:
    """What a write drew: its announcements (``notify.part_payload``) and the leis built."""

    parts: list[str] = dataclasses.field(default_factory=list)
    # The leis built with every name in full, by language: the tap's answer draws the tablet's
    # lei from the one in its language (``views.answer_write``) instead of building it again.
    # The public's lei is that very lei when nobody at the table asked for initials.
    leis: dict[str, Lei] = dataclasses.field(default_factory=dict)


def draw_watched(
    session: Session,
    seats: list,
    data: dict[str, Any],
    result: Any,
    asked: Iterable[tuple[str, str, str]],
) -> Drawn:
    """Draw the viewers' parts ``asked`` (the session's notes, read with its lock:
    ``hotsql.lock_and_read``) after a write, inside its transaction; the write announces them
    with its version (``notify.session_changed``), so that a stream server has the drawing when
    it hears of the version. ``session`` is the locked row as the write leaves it (its new
    version), ``data`` and ``result`` the log after the write and its replay."""
    drawn = Drawn()
    built = drawn.leis
    public: dict[str, Lei] = {}
    renames: dict[str, str] | None = None
    for part, language, audience in asked:
        if not _this_session(part, session):
            continue  # a link renewed or revoked since: its streams are told by their own view
        full = audience == "full"
        if not full and renames is None:
            renames = viewer_views.public_renames(seats)
        query = QueryDict(part.partition("?")[2])
        with translation.override(language):
            # Built in the part's language (its live line is in words); the one built for the
            # audience and language serves each of its pages of earlier rounds (``?tot=``).
            if full or not renames:
                lei = built.get(language)
                if lei is None:
                    lei = built[language] = build_lei(session, data, result)
            else:
                lei = public.get(language)
                if lei is None:
                    lei = viewer_views.viewer_lei(session, seats, data, full=False)
                    public[language] = lei
            until = shown_until(query.get("tot"))
            if until is not None:
                lei = dataclasses.replace(lei, until=until)
            tv = query.get("tv") == "1"
            try:
                html = viewer_views.viewer_part_html(session, lei, tv=tv, path=part, full=full)
            except Exception:  # a viewer's drawing never costs the table its tap
                log.exception("push: drawing %s failed; the stream servers draw it", part)
                continue
        payload = notify.part_payload(session.pk, session.version, language, audience, part, html)
        if payload is not None:  # else too large to announce: the streams draw it
            drawn.parts.append(payload)
    return drawn


def notes_read() -> int:
    """How many of the session's notes a write reads with its lock: none without streams (the
    notes say which streams are open)."""
    if settings.PUSH == "off" or connection.vendor != "postgresql":
        return 0
    return watch.DRAWN_PER_CHANGE


def _this_session(part: str, session: Session) -> bool:
    """Whether ``part`` is the viewer link of ``session`` as it is now (not renewed, not
    revoked: then its streams get the 410 of the link's own view)."""
    try:
        pk, key = access.viewer_link(resolve(part.partition("?")[0]).kwargs["signed"])
    except (Resolver404, KeyError, Http404):
        return False
    return pk == session.pk and session.viewer_key is not None and key == session.viewer_key
