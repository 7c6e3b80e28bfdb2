"""The digital lei's data: clubs and their people, sessions as event logs, and projections.

A session's rounds hold what happened, exactly as in the ``toepen/1`` session file (RULES.md
§14): that log is the truth. ``RoundScore`` and ``SessionResult`` are a projection of it,
rebuilt by ``scoring.lei.services`` from an engine replay after every write, and read by the
lei, the league pages and the admin. Every model reaches its club in at most three steps
(``club``, ``session__club``, ``round__session__club``) so that every admin queryset can be
scoped to the clubs of the person looking.

One module per room (``clubs``, ``lei``, ``toernooi``, ``ratings``, ``evening``); everything is
imported from ``scoring.models``, as Django and the migrations expect.
"""

from scoring.models.clubs import (
    Club,
    ClubInvitation,
    ClubMembership,
    Game,
    Player,
    Season,
    default_ranking,
    new_scorer_token,
)
from scoring.models.evening import (
    CheckinAllowance,
    Evening,
    EveningPlayer,
    EveningTable,
    new_checkin_token,
)
from scoring.models.lei import (
    AuditEntry,
    IdempotencyKey,
    PushWatch,
    Round,
    RoundScore,
    Seat,
    Session,
    SessionQuerySet,
    SessionResult,
    TapAllowance,
    counted_q,
)
from scoring.models.ratings import RatingSnapshot, RatingState
from scoring.models.toernooi import (
    Series,
    TableSeat,
    Tournament,
    TournamentEntry,
    TournamentTable,
    default_table_points,
)

__all__ = [
    "AuditEntry",
    "CheckinAllowance",
    "Club",
    "ClubInvitation",
    "ClubMembership",
    "Evening",
    "EveningPlayer",
    "EveningTable",
    "Game",
    "IdempotencyKey",
    "Player",
    "PushWatch",
    "RatingSnapshot",
    "RatingState",
    "Round",
    "RoundScore",
    "Season",
    "Seat",
    "Series",
    "Session",
    "SessionQuerySet",
    "SessionResult",
    "TableSeat",
    "TapAllowance",
    "Tournament",
    "TournamentEntry",
    "TournamentTable",
    "counted_q",
    "default_ranking",
    "default_table_points",
    "new_checkin_token",
    "new_scorer_token",
]
