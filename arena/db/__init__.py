"""Storage for the platform: models (``arena.db.models``) and sessions (``arena.db.session``).

Use it like this (web/, arena/server)::

    from arena.db import session_scope, Bot, BotVersion, Match, MatchSeat, Rating
    with session_scope() as s:                      # commits on success
        rows = s.scalars(select(Rating).where(Rating.game == "solenia")).all()

Tables (stable names): bots, bot_versions, tournaments, tournament_entries, matches,
match_seats, ratings, rating_history, rating_locks, ladders — see :mod:`arena.db.models`.
``database_url()`` tells which database is in use (``ARENA_DATABASE_URL`` or the per-user SQLite
file); ``init_db()`` upgrades the schema with Alembic and is called automatically by
``get_engine``/``session_scope`` on first use in a process.
"""

# accounts: the API server's own tables (users, submissions), on the same Base so migrations
# see them.
from arena.db.accounts import ApiRequest, Registration, Submission, User
from arena.db.challenges import (
    Challenge,  # challenges of one bot by another (arena.play.challenges)
)
from arena.db.human_seats import HumanSeat  # a person's seat in a browser game
from arena.db.live_tables import LiveBoard, LiveEvent  # the live feed without Redis
from arena.db.models import (
    Base,
    Bot,
    BotVersion,
    Ladder,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    RatingLock,
    Tournament,
    TournamentAudit,
    TournamentEntry,
    TournamentRound,
    utcnow,
)
from arena.db.seasons import (  # seasons: a period's competition (arena.competition.seasons)
    Season,
    SeasonEntry,
)
from arena.db.session import (
    database_url,
    default_sqlite_path,
    dispose_all,
    get_engine,
    get_sessionmaker,
    init_db,
    session_scope,
)

__all__ = [
    "Base",
    "ApiRequest",
    "Challenge",
    "Registration",
    "Submission",
    "User",
    "LiveBoard",
    "LiveEvent",
    "HumanSeat",
    "Season",
    "SeasonEntry",
    "Bot",
    "BotVersion",
    "Ladder",
    "Match",
    "MatchSeat",
    "Rating",
    "RatingHistory",
    "RatingLock",
    "Tournament",
    "TournamentEntry",
    "TournamentAudit",
    "TournamentRound",
    "database_url",
    "default_sqlite_path",
    "dispose_all",
    "get_engine",
    "get_sessionmaker",
    "init_db",
    "session_scope",
    "utcnow",
]
