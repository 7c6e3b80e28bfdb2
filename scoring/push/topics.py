"""Which change a pushed page part follows, by the name of its URL, and its current version.

A session's viewers and tablet follow ``lei:<session>`` (its version is the session's); the
club's evening and a toernooi's pages follow ``club:<club>`` (every change of the club's
games and toernooien: its version is the last change this process was told of). A page whose
URL is not here is not pushed: it polls."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from scoring import access
from scoring.models import Club, Session, Tournament


def _session(kwargs: Mapping[str, Any]) -> str | None:
    return f"lei:{kwargs['pk']}"


def _viewer(kwargs: Mapping[str, Any]) -> str | None:
    pk, _key = access.viewer_link(kwargs["signed"])  # Http404 for a link never made
    return f"lei:{pk}"


def _club(kwargs: Mapping[str, Any]) -> str | None:
    club = Club.objects.filter(slug=kwargs["slug"]).values_list("pk", flat=True).first()
    return None if club is None else f"club:{club}"


def _tournament(kwargs: Mapping[str, Any]) -> str | None:
    club = Tournament.objects.filter(pk=kwargs["pk"]).values_list("club_id", flat=True).first()
    return None if club is None else f"club:{club}"


TOPICS: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "viewer": _viewer,
    "tablet": _session,
    "league_evening": _club,
    "tournament_series": _tournament,
    "tournament_tv": _tournament,
}

_unseen = itertools.count(1)


def session_version(topic: str) -> str | None:
    """A session's version now, from the database (None: it is gone)."""
    pk = int(topic.partition(":")[2])
    version = Session.objects.filter(pk=pk).values_list("version", flat=True).first()
    return None if version is None else str(version)


def club_version(topic: str, latest: dict[str, str]) -> str:
    """A club's version: the last change this process heard of, or a token of its own until it
    hears one (what is drawn for it is kept until a change replaces it)."""
    return latest.setdefault(topic, f"u{next(_unseen)}")
