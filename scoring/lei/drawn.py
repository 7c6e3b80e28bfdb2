"""Draw once, send everywhere (DESIGN decision 14): the write that changes a session draws the
viewers' parts that open streams show (``scoring/lei/watch.py``) from the lei it has just
replayed, and sends each drawing with the change's announcement, in its own transaction
(``notify.part_drawn``). Every stream server hands it to its streams as it is
(``scoring/push/listener.py``, ``fragments.Drawings.delivered``): no server draws it again, and
two servers cost no more than one.

A drawing is the part as its page's poll gets it (``viewer_views.viewer_part_html``): the same lei
for the same audience (initials for the public, ``viewer_views.viewer_lei``), the same
template, in the part's language. What this write does not draw (more parts than
``watch.DRAWN_PER_CHANGE``, a drawing too large for an announcement, a change of seats) the
stream servers draw themselves, as they did before; so does every change made elsewhere than
here (a renewed link, a seal, an organiser's write).

Gain (BENCHMARKS.md, "Friday night with push", the same run against 71a9134): the stream
worker's CPU a seventh of what it was (3 s against 23 s), a change to a viewer in 3 ms instead of
7-16 s at p95, gunicorn 0.56-0.58 of its CPU per change; a tap pays the notes' read and its
drawing, about 1.4 ms."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import Http404, QueryDict
from django.urls import Resolver404, resolve
from django.utils import translation

from scoring import access, notify
from scoring.lei import viewer_views, watch
from scoring.lei.tablet import Lei, shown_until
from scoring.models import Session

log = logging.getLogger(__name__)


def draw_watched(session: Session, seats: list, data: dict[str, Any], result: Any) -> int:
    """Draw and announce the session's watched viewers' parts after a write, inside its
    transaction and before ``notify.session_changed`` (so that a stream server has the
    drawing when it hears of the version). ``session`` is the locked row as the write leaves
    it (its new version), ``data`` and ``result`` the log after the write and its replay. The
    number of parts sent."""
    if settings.PUSH == "off" or connection.vendor != "postgresql":
        return 0  # no streams: no notes to read (the notes say which streams are open)
    asked = watch.watched(session.pk)
    leis: dict[tuple[bool, str], Lei] = {}
    sent = 0
    for part, language, audience in asked:
        if not _this_session(part, session):
            continue  # a link renewed or revoked since: its streams are told by their own view
        full = audience == "full"
        query = QueryDict(part.partition("?")[2])
        with translation.override(language):
            # Built in the part's language (its live line is in words); the one built for the
            # audience and language serves each of its pages of earlier rounds (``?tot=``).
            lei = leis.get((full, language))
            if lei is None:
                lei = viewer_views.viewer_lei(session, seats, data, full=full, result=result)
                leis[full, language] = lei
            until = shown_until(query.get("tot"))
            if until is not None:
                lei = dataclasses.replace(lei, until=until)
            tv = query.get("tv") == "1"
            try:
                html = viewer_views.viewer_part_html(session, lei, tv=tv, path=part, full=full)
            except Exception:  # a viewer's drawing never costs the table its tap
                log.exception("push: drawing %s failed; the stream servers draw it", part)
                continue
        sent += notify.part_drawn(session.pk, session.version, language, audience, part, html)
    return sent


def _this_session(part: str, session: Session) -> bool:
    """Whether ``part`` is the viewer link of ``session`` as it is now (not renewed, not
    revoked: then its streams get the 410 of the link's own view)."""
    try:
        pk, key = access.viewer_link(resolve(part.partition("?")[0]).kwargs["signed"])
    except (Resolver404, KeyError, Http404):
        return False
    return pk == session.pk and session.viewer_key is not None and key == session.viewer_key
