"""Challenges: an account's bot challenges another account's active bot of the same game to a
two-seat match, played now. The gRPC call (``ChallengeBot``), the CLI (``arena challenge``) and
the website's button (``POST /bots/<id>/challenge``) all come here, with the account's user id.

What is refused, each with a one-line reason (:class:`ChallengeRefused`):

* an unknown bot; a challenger bot the account does not own;
* a bot challenging itself, or another bot of the same account: a challenge is a match against
  *someone else*. An owner tries their own bots against each other with ``arena play`` (locally)
  or, for two versions of one bot, with the SPRT; allowing it here would also let one account
  feed one of its bots rating points from another (a rated challenge it loses on purpose);
* bots of different games; a bot that is not active (deactivated, or no version qualified
  yet); an engine-played automaton (it never takes a seat); a dial-in bot not connected now;
* one account over its caps (:class:`ChallengeLimits`): challenges per rolling hour, and
  challenges not finished yet; a bot with too many challenges against it not finished yet.

The caps are counted per *account* in the database, over every bot of the account and every
client and server it calls from: more bots or more clients do not buy more challenges, and a
restart forgets nothing. New accounts are themselves capped per client
(``ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR``, :mod:`arena.server.registrations`). The count and
the insert happen in one transaction that first locks the account's ``users`` row (on SQLite
every write transaction holds the database write lock from its start), so parallel calls of
one account cannot all pass a count that none of them has raised yet.

Rated or not: the challenger chooses, unrated by default. An unrated match is played, recorded
and ranked like any other and shown on both bots' pages, but changes no rating
(``matches.rated`` false: :mod:`arena.records.recording`). Why unrated by default: the ladder chooses its
pairings; a challenger chooses the opponent, which invites cherry-picking an opponent with a
known weakness again and again. A rated challenge is allowed (a match is a match to TrueSkill),
capped like any other — but one in which a seat never made a move is recorded unrated (a
challenger must not farm an opponent it knows is offline; :mod:`arena.records.recording`).

The match: the ladder's variant and time control of the game when it has a ladder (so a rated
challenge is played as ladder matches are), else the game's defaults; seats drawn at random;
the playing version of each bot (the newest not held back by an SPRT). It goes to the workers
through :func:`arena.workers.tasks.enqueue` — Celery when ``ARENA_BROKER_URL`` is set; without a broker,
the thread pool of the process that plays matches (``arena serve``). A process that does not
play matches (the website) only stores it: ``arena serve``'s ticker picks up pending challenge
matches (:func:`arena.workers.tasks.sweep` of kind ``challenge``) within ``ARENA_LADDER_TICK`` seconds.
"""

from __future__ import annotations

import logging
import math
import os
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.competition import dialin_presence as dialin
from arena.db import Bot, BotVersion, Challenge, Ladder, Match, User, session_scope, utcnow
from arena.quoting import shorten
from arena.records import recording
from referee import dialin_client, registry
from referee.engine import ConfigError
from referee.rng import match_seed

log = logging.getLogger(__name__)

#: The match kind of a challenge (``matches.kind``): the match lists and the sweeper know it.
KIND = "challenge"
#: The rolling window of the per-hour cap.
WINDOW = timedelta(hours=1)
PER_HOUR_ENV = "ARENA_CHALLENGES_PER_HOUR"
PENDING_ENV = "ARENA_CHALLENGES_PENDING"
PENDING_PER_BOT_ENV = "ARENA_CHALLENGES_PENDING_PER_BOT"
_UNFINISHED = ("pending", "running")


def _env_count(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) <= 0:
        raise ValueError(f"{name}={shorten(value, 40)!r} is not a positive whole number")
    return int(value)


@dataclass(frozen=True)
class ChallengeLimits:
    """The caps on challenges (module docstring). ``from_env`` reads the ``ARENA_CHALLENGES_*``
    settings; the defaults let an author try a bot a few times an hour without letting one
    account keep the workers busy."""

    #: Challenges one account may make per rolling hour (``ARENA_CHALLENGES_PER_HOUR``).
    per_hour: int = 10
    #: Challenges of one account not finished yet (``ARENA_CHALLENGES_PENDING``).
    pending: int = 2
    #: Challenges against one bot not finished yet, from every account together
    #: (``ARENA_CHALLENGES_PENDING_PER_BOT``): a popular bot — one its owner runs on their own
    #: machine, say — is not flooded.
    pending_per_bot: int = 4

    @classmethod
    def from_env(cls) -> ChallengeLimits:
        return cls(
            per_hour=_env_count(PER_HOUR_ENV, cls.per_hour),
            pending=_env_count(PENDING_ENV, cls.pending),
            pending_per_bot=_env_count(PENDING_PER_BOT_ENV, cls.pending_per_bot),
        )


class ChallengeRefused(Exception):
    """A challenge that cannot be made. ``kind``: ``not_found``, ``denied``, ``invalid``,
    ``unavailable`` (a state that may change: a bot not active or not connected) or
    ``exhausted`` (a cap; ``retry_after_s`` says when one challenge more fits)."""

    def __init__(self, kind: str, message: str, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class ChallengeMade:
    """A challenge just stored (its match pending, already sent to be played)."""

    id: int
    bot_id: int
    opponent_bot_id: int
    challenger: str
    rated: bool
    match_id: str
    match_status: str
    created_at: datetime
    remaining_this_hour: int


def challenge(
    user_id: int,
    bot_id: int,
    opponent_bot_id: int,
    rated: bool = False,
    *,
    limits: ChallengeLimits | None = None,
    sandbox: bool | None = None,
    plays_matches: bool = True,
    url: str | None = None,
    now: datetime | None = None,
) -> ChallengeMade:
    """User ``user_id``'s bot ``bot_id`` challenges bot ``opponent_bot_id``: check, count, store
    the challenge and its match in one transaction, then send the match to be played.

    ``sandbox``: run the bots sandboxed (None: as the game's ladder does, else ``ARENA_SANDBOX``).
    ``plays_matches``: this process plays matches when there is no broker (``arena serve``); the
    website passes False and leaves the match to the server's ticker. Raises
    :class:`ChallengeRefused`."""
    from arena.workers.celery_app import has_broker  # not at import: the website loads this module

    limits = limits or ChallengeLimits.from_env()
    now = now or utcnow()
    with session_scope(url) as s:
        # Who is dialled in now is known to a process that plays matches, or to all through
        # Redis; the website without a broker cannot tell (a no-show is recorded unrated anyway).
        presence = plays_matches or has_broker()
        made = _make(s, user_id, bot_id, opponent_bot_id, rated, limits, sandbox, now, presence)
    dispatch(made.match_id, plays_matches)
    return made


def dispatch(match_id: str, plays_matches: bool) -> None:
    """Send a stored challenge match to be played (module docstring). A broker that cannot be
    reached now loses nothing: the match waits in the database for the sweeper."""
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    if not has_broker() and not plays_matches:
        return  # arena serve's ticker sweeps it up (arena.server.app.LadderTicker)
    try:
        tasks.enqueue([match_id])
    except Exception:  # noqa: BLE001 - stored; the sweeper sends it once the broker is back
        log.warning(
            "challenge match %s is stored but could not be sent now; the sweeper will",
            match_id,
            exc_info=True,
        )


def _make(
    session: Session,
    user_id: int,
    bot_id: int,
    opponent_bot_id: int,
    rated: bool,
    limits: ChallengeLimits,
    sandbox: bool | None,
    now: datetime,
    presence: bool,
) -> ChallengeMade:
    # The account's row, locked: calls of one account are counted one after another.
    user = session.scalar(select(User).where(User.id == user_id).with_for_update())
    if user is None:
        raise ChallengeRefused("not_found", f"no user with id {user_id}")
    mine = _bot(session, bot_id, "bot_id")
    theirs = _bot(session, opponent_bot_id, "opponent_bot_id")
    if mine.owner != user.name:
        raise ChallengeRefused(
            "denied",
            f"bot {mine.id} ({mine.name!r}) belongs to another user; "
            "challenge with one of your own bots",
        )
    if mine.id == theirs.id:
        raise ChallengeRefused("invalid", f"bot {mine.id} ({mine.name!r}) cannot challenge itself")
    if theirs.owner == user.name:
        raise ChallengeRefused(
            "invalid",
            f"bot {theirs.id} ({theirs.name!r}) is yours too: challenges are "
            "against other users' bots (try your own with `arena play`)",
        )
    if mine.game != theirs.game:
        raise ChallengeRefused(
            "invalid",
            f"bot {mine.name!r} plays {mine.game} and bot {theirs.name!r} plays "
            f"{theirs.game}: a challenge is a match of one game",
        )
    versions = [_playing(session, mine, presence), _playing(session, theirs, presence)]
    variant, decision_ms, bank_ms, ladder_sandbox = _table(session, mine.game)
    _check_caps(session, user, theirs, limits, now)
    order = versions[:]
    random.SystemRandom().shuffle(order)
    match = recording.create_match(
        session,
        mine.game,
        variant,
        [v.id for v in order],
        seed=match_seed(),
        kind=KIND,
        decision_ms=decision_ms,
        bank_ms=bank_ms,
        sandbox=sandbox if sandbox is not None else ladder_sandbox,
    )
    match.rated = bool(rated)
    row = Challenge(
        user_id=user.id,
        challenger_bot_id=mine.id,
        opponent_bot_id=theirs.id,
        match_id=match.id,
        rated=bool(rated),
        created_at=now,
    )
    session.add(row)
    session.flush()
    used = _made_since(session, user.id, now - WINDOW)
    return ChallengeMade(
        row.id,
        mine.id,
        theirs.id,
        user.name,
        row.rated,
        match.id,
        match.status,
        now,
        max(0, limits.per_hour - len(used)),
    )


def _bot(session: Session, bot_id: int, field: str) -> Bot:
    if bot_id <= 0:
        raise ChallengeRefused("invalid", f"{field} must be a positive bot id")
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise ChallengeRefused("not_found", f"no bot with id {bot_id}")
    return bot


def _playing(session: Session, bot: Bot, presence: bool) -> BotVersion:
    """The version that would play: the newest not held by an SPRT, of an active bot that can
    take a seat now (a dial-in bot: connected, when ``presence`` says this process can know)."""
    if not bot.active:
        raise ChallengeRefused(
            "unavailable",
            f"bot {bot.id} ({bot.name!r}) is not active (its owner "
            "deactivated it): only active bots play challenges",
        )
    version = session.scalar(
        select(BotVersion)
        .where(BotVersion.bot_id == bot.id, BotVersion.held.is_(False))
        .order_by(BotVersion.number.desc())
        .limit(1)
    )
    if version is None:
        raise ChallengeRefused(
            "unavailable", f"bot {bot.id} ({bot.name!r}) has no qualified version yet"
        )
    if version.kind == "automaton":
        raise ChallengeRefused(
            "invalid",
            f"bot {bot.id} ({bot.name!r}) is played by the game engine "
            "itself and never takes a seat",
        )
    if (
        presence
        and dialin_client.is_source(version.source)
        and not dialin.connected_among([version.source])
    ):
        raise ChallengeRefused(
            "unavailable",
            f"bot {bot.id} ({bot.name!r}) dials in and is not connected "
            "now; challenge it while it is",
        )
    return version


def _table(session: Session, game: str) -> tuple[str, int | None, int | None, bool]:
    """Variant, time control and sandbox of the match: the game's ladder's, else the defaults."""
    from arena.workers.sandbox import sandbox_default

    spec = registry.get_spec(game)
    ladder = session.get(Ladder, game)
    try:
        variant = spec.check(2, ladder.variant if ladder is not None else None)
    except ConfigError:  # the ladder plays a solo variant: the game's default with two seats
        try:
            variant = spec.check(2, None)
        except ConfigError:
            raise ChallengeRefused("invalid", f"{game} is not played by two players") from None
    if ladder is None:
        return variant, None, None, sandbox_default()
    return variant, ladder.decision_ms, ladder.bank_ms, ladder.sandbox


def _made_since(session: Session, user_id: int, since: datetime) -> list[datetime]:
    return list(
        session.scalars(
            select(Challenge.created_at)
            .where(Challenge.user_id == user_id, Challenge.created_at >= since)
            .order_by(Challenge.created_at)
        )
    )


def _unfinished(session: Session, *where: object) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(Challenge)
            .join(Match, Match.id == Challenge.match_id)
            .where(*where, Match.status.in_(_UNFINISHED))
        )
        or 0
    )


def _check_caps(
    session: Session, user: User, target: Bot, limits: ChallengeLimits, now: datetime
) -> None:
    made = _made_since(session, user.id, now - WINDOW)
    if len(made) >= limits.per_hour:
        free_at = made[len(made) - limits.per_hour] + WINDOW
        wait_s = max(1, math.ceil((free_at - now).total_seconds()))
        raise ChallengeRefused(
            "exhausted",
            f"too many challenges: {len(made)} in the last hour (limit {limits.per_hour} per account per hour, "
            f"over all your bots); try again in {_minutes(wait_s)} (at {free_at:%H:%M} UTC)",
            wait_s,
        )
    open_ = _unfinished(session, Challenge.user_id == user.id)
    if open_ >= limits.pending:
        raise ChallengeRefused(
            "exhausted",
            f"you have {open_} challenges not finished yet (limit {limits.pending} at once); "
            "try again when one has finished",
            30,
        )
    against = _unfinished(session, Challenge.opponent_bot_id == target.id)
    if against >= limits.pending_per_bot:
        raise ChallengeRefused(
            "exhausted",
            f"bot {target.id} ({target.name!r}) already has {against} challenges waiting "
            f"(limit {limits.pending_per_bot} at once); try again in a few minutes",
            60,
        )


def _minutes(seconds: int) -> str:
    minutes = math.ceil(seconds / 60)
    return "1 min" if minutes <= 1 else f"{minutes} min"
