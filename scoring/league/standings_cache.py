"""The season standings' rows kept in Django's cache (``CACHES``: the database's), under the
version of their data: only a finished session changes them. Gain: the page costs 107 ms of CPU
computed, 15 ms kept, and keeps its target met (``bench/load.py``: p95 ≤ 5 x the floor;
BENCHMARKS.md, "Ablation").

Nothing invalidates a copy: the key is read from the data on every request, so any change
makes a new key. It is made of the season's finished strafpunten sessions (their count, the
sums of their ids and versions, the latest ``updated_at``: every write of ``scoring.lei.services``
bumps a session's version, and the admin stamps ``updated_at``), the club's players shown by
initials or listed as guests (and whether each is confirmed), the ranking settings and
minimum of evenings (and, ranked by rating, the key of the club's ratings), the club's slug,
the variant (language and audience) and ``RELEASE``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator

import django
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum
from django.utils.translation import get_language

from scoring.clubs.ranking import RATING, Ranking
from scoring.league import standings
from scoring.models import Club, Game, Player, RatingState, Season, Session

# Bump when a change of the code or the translations changes the rows; a copy nobody bumped
# for is gone within a day at most.
RELEASE = f"1 {django.__version__}"
KEEP_SECONDS = 24 * 3600


def variant(*, member: bool) -> str:
    """What else the rows depend on besides the data: the language and who looks."""
    return f"{get_language()}-{'members' if member else 'public'}"


def season_with_key(club: Club, season_id: int) -> Season | None:
    """The club's season ``season_id`` with its finished sessions' aggregates, in one query."""
    finished = Session.objects.filter(
        season=OuterRef("pk"),
        club=OuterRef("club"),
        status__in=standings.FINISHED,
        game=Game.STRAFPUNTEN,
    ).values("season")

    def of_finished(aggregate):
        return Subquery(finished.annotate(value=aggregate).values("value"))

    return (
        Season.objects.filter(pk=season_id, club=club)
        .annotate(
            finished_count=of_finished(Count("pk")),
            finished_ids=of_finished(Sum("pk")),
            finished_versions=of_finished(Sum("version")),
            finished_latest=of_finished(Max("updated_at")),
        )
        .first()
    )


def key(season: Season, *, club: Club, variant: str) -> str:
    """The cache key of the rows of ``season`` as loaded by ``season_with_key``."""
    # Shown by initials, or listed apart as a guest (``standings.GUEST``): a tick in the admin
    # changes the rows without touching a session.
    apart = Player.objects.filter(Q(public_initials=True) | Q(is_guest=True), club=club)
    parts = [
        season.pk,
        season.finished_count,
        season.finished_ids,
        season.finished_versions,
        season.finished_latest,
        # With whether each is confirmed: a guest a scorer link added has no public page yet.
        list(apart.order_by("pk").values_list("pk", "confirmed", "public_initials", "is_guest")),
        season.ranking,
        season.min_sessions,
        _ratings_key(club, season),
        club.slug,
        club.agreement_rule,  # which games count (scoring/lei/akkoord.py)
        variant,
        RELEASE,
    ]
    text = json.dumps(parts, sort_keys=True, default=str)
    return "standings:" + hashlib.sha256(text.encode()).hexdigest()


def _ratings_key(club: Club, season: Season) -> str:
    """The history the club's ratings are of, for a season ranked by rating (one query then):
    a game of an earlier season changes them too."""
    if Ranking.from_json(season.ranking).scoring != RATING:
        return ""
    return RatingState.objects.filter(club=club).values_list("key", flat=True).first() or ""


@contextlib.contextmanager
def snapshot() -> Iterator[None]:
    """The reads inside see one state of the database (REPEATABLE READ in PostgreSQL), so the
    rows kept are of the very data their key was read from."""
    outermost = not connection.in_atomic_block
    with transaction.atomic(savepoint=False):
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def kept(key: str) -> str | None:
    return cache.get(key)


def keep(key: str, html: str) -> None:
    cache.set(key, html, KEEP_SECONDS)
