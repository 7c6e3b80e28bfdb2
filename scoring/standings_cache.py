"""The season standings' rows kept in PostgreSQL (``RenderedStandings``), valid while their data is.

Computing a season's standings costs tens of milliseconds (the window-function aggregate over
its results, then ranking and rendering hundreds of rows) and they change rarely: only
*finished* strafpunten sessions count, while on a Friday night hundreds of running tables
write every few seconds. So the rows are rendered once per state of their data and kept, per
season and variant (language and audience: members see full names, the public initials).

Nothing invalidates a copy. Each request computes the **key** of the data the rows depend on,
in the same query that loads the season (``season_with_key``), and a copy is served only when
its key is that key. No write path has to remember this cache, and a running table never
touches anything the key reads. The key is made of:

- the season's finished strafpunten sessions (exactly those ``standings.results_in_scope``
  reads): their count, the sums of their ids, versions and dates, and the latest
  ``updated_at``. Every write of ``scoring.services`` to a session (an event, a correction,
  closing time, lock and unlock, a rename or merge of its players) bumps its version and
  ``updated_at``, and its results are only written by those; a session that finishes, is
  reopened, deleted or moved to another season changes the count and the sum of ids; the
  admin's edit of a session's date or season is seen by the sum of dates and the count, and
  stamps ``updated_at`` as well (``SessionAdmin.save_model``);
- the ids of the club's players who asked to be shown by initials (exact: a different set
  never gives the same text). Names change only through ``services.player_rename``, which
  bumps every session the player sat in;
- the season's ranking settings, the club's slug (the rows link to the players' pages) and the
  variant;
- the release: this app's code, its translations, Django's version (number formats) and the
  format settings, so that a deploy never serves rows made by the code before it.

A miss computes the rows in one consistent snapshot of the database together with the key it
stores (``snapshot``): otherwise a change committed between reading the key and reading the
data, undone before the next request (a session finished and deleted again, initials switched
on and off), could leave rows labelled with a key that is current again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import django
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils.translation import get_language

from scoring import standings
from scoring.models import Club, Game, RenderedStandings, Season


def variant(*, member: bool) -> str:
    """What else the rows depend on besides the data: the language and who looks."""
    return f"{get_language()}-{'members' if member else 'public'}"


# One query: the season, what its key is made of, and the copy kept for the variant asked for
# (none when that is NULL). Written out rather than built with the ORM: it runs on every view of
# the standings, and building and compiling its expressions cost more than running it.
#
# sessions_key: of the season's finished strafpunten sessions (the ones
# ``standings.results_in_scope`` reads), by the (season, status) index: the count, the sums of
# ids, versions and dates (in days), and the latest ``updated_at``.
# initials_key: the ids of the club's players shown by initials on public pages, listed in
# full, so that two different sets never give the same text (were SQLite to list them in
# another order, that would cost a miss, never a wrong copy).
_SEASON_SQL = """
SELECT s.id, s.club_id, s.name, s.starts_on, s.ends_on, s.ranking,
       (SELECT COUNT(*) || ' ' || SUM(x.id) || ' ' || SUM(x.version) || ' ' || SUM({day})
               || ' ' || MAX(x.updated_at)
          FROM scoring_session x
         WHERE x.season_id = s.id AND x.club_id = s.club_id
           AND x.status IN ({finished}) AND x.game = %s) AS sessions_key,
       (SELECT {ids} FROM scoring_player p
         WHERE p.club_id = s.club_id AND p.public_initials) AS initials_key,
       k.key AS kept_key, k.html AS kept_html
FROM scoring_season s
LEFT JOIN scoring_renderedstandings k ON k.season_id = s.id AND k.variant = %s
WHERE s.id = %s AND s.club_id = %s
"""
_VENDOR = {
    "postgresql": {
        "day": "(x.played_on - DATE '2000-01-01')",
        "ids": "STRING_AGG(CAST(p.id AS text), ',' ORDER BY p.id)",
    },
    "sqlite": {"day": "CAST(julianday(x.played_on) AS integer)", "ids": "GROUP_CONCAT(p.id)"},
}


def season_with_key(club: Club, season_id: int, *, kept: str | None = None) -> Season | None:
    """The club's season ``season_id`` with what its key is made of (``sessions_key``,
    ``initials_key``), in one query; with ``kept`` a variant, also the copy kept for it
    (``kept_key`` and ``kept_html``, ``None`` when there is none)."""
    finished = ", ".join(["%s"] * len(standings.FINISHED))
    sql = _SEASON_SQL.format(finished=finished, **_VENDOR[connection.vendor])
    params = [*standings.FINISHED, Game.STRAFPUNTEN, kept, season_id, club.pk]
    return next(iter(Season.objects.raw(sql, params)), None)


def key(season: Season, *, club: Club, variant: str) -> str:
    """The key of the data of ``season`` as loaded by ``season_with_key``."""
    parts = [
        season.sessions_key,
        season.initials_key,
        season.ranking,
        club.slug,
        variant,
        _release(),
    ]
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def _release() -> str:
    """What the rows are made by besides the data, read once per process: this app's code and
    the translations, Django's version (its number formats) and the format settings."""
    digest = hashlib.sha256()
    app = Path(__file__).resolve().parent
    files = sorted(app.rglob("*.py"))
    for locale in settings.LOCALE_PATHS:
        files += sorted(Path(locale).rglob("*.mo"))
    for path in files:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    formats = [
        getattr(settings, name, None)
        for name in (
            "USE_THOUSAND_SEPARATOR",
            "NUMBER_GROUPING",
            "DECIMAL_SEPARATOR",
            "THOUSAND_SEPARATOR",
            "FORMAT_MODULE_PATH",
        )
    ]
    digest.update(repr([django.__version__, formats]).encode())
    return digest.hexdigest()


@contextlib.contextmanager
def snapshot() -> Iterator[None]:
    """The reads inside see one state of the database: a transaction, REPEATABLE READ in
    PostgreSQL (SQLite's transactions are serializable). Inside a transaction that is open
    already (the tests'), its isolation is kept."""
    outermost = not connection.in_atomic_block
    with transaction.atomic(savepoint=False):
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def keep(season: Season, *, variant: str, key: str, html: str) -> None:
    """Keep the rows for the next request: one statement whoever gets here first, and two
    misses at once each write a copy that is right for its own key (INSERT ... ON CONFLICT).
    Outside ``snapshot``: under REPEATABLE READ a concurrent upsert of the row would fail. A
    season deleted meanwhile has nothing kept: its rows are still served to this request."""
    # Only its season can be missing (a conflict updates), and only in autocommit, as views
    # run: inside a transaction the foreign key is checked when it commits.
    with contextlib.suppress(IntegrityError):
        RenderedStandings.objects.bulk_create(
            [RenderedStandings(season=season, variant=variant, key=key, html=html)],
            update_conflicts=True,
            unique_fields=["season", "variant"],
            update_fields=["key", "html"],
        )
