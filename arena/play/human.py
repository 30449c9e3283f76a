"""A seat for a person: a whole game in the browser against bots, through the same referee.

How a person's seat is played — the choice and why:

* The match is an ordinary :func:`referee.match.run_match`; the person's seat is a real gRPC
  ``Bot`` server in the process playing the match (:class:`SeatServer`, on 127.0.0.1, one per
  process for every human seat it plays), dialled by the referee like any remote bot. So the
  referee, its clocks, forfeits, fallback play, live feed and record are the very ones every
  match has; nothing in the referee knows a person is there, except that the seat has a clock
  of its own (``MatchConfig.seat_time_controls``: :data:`DECISION_ENV`, 600 s a decision and
  no bank by default, while the bots keep the game's clock). A person who leaves runs out of
  time and forfeits like a silent bot: the fallback plays the seat on and the match ends.
  A person who resigns (:func:`resign`) forfeits at once: the seat's row says ``resigned``
  and the seat server answers the referee's call with an error (``ABORTED``:
  :data:`RESIGNED`), which the referee records as the fault ``bot_error`` with that message —
  an existing reason of the one vocabulary (``referee.faults``) rather than a new one, which
  would change both protocols' ``FaultReason`` enums for a seat no bot ever holds.
* The hand-over is a database row (``human_seats``): the seat server writes the decision
  waiting for the person (its number, the seat's own observation, the legal options, the
  deadline); the website shows it to the one browser holding the seat's secret and writes the
  person's answer into the row; the seat server takes it and answers the referee. The row
  works across processes (the website may run several), and in one process a wake-up
  (:func:`_wake`) saves the poll's delay.
* The match is played by the process that asked for it (``arena web``, in a small thread
  pool), as ``arena serve`` plays the matches it asks for without a broker; the sweeper never
  hands a human match to a worker (``arena.workers.tasks``): only the process holding the seat can
  play it. If that process dies, the game is lost: :func:`sweep_dead` marks it failed.
* A human match is never rated: its row has ``kind = "human"`` and is finished here, not by
  :func:`arena.records.recording.record_result` — no TrueSkill update, no ``rating_seq`` (so no
  leaderboard, win count or rebuild ever counts it), no history row. The person's seat is the
  pseudo-bot ``human`` of the ``house`` owner (:data:`HUMAN_KIND`, never active, never
  scheduled). The record is stored and public when the match ends, like any other.
* Hidden information stays hidden: the observation is only in the seat's row, and the row is
  read only with the seat's secret (32 random bytes; the database keeps its SHA-256). Live
  spectators see the public feed as for any match.
* Caps: :data:`MAX_ENV` human games at once in all (default 8) and :data:`PER_CLIENT_ENV` per
  client address (default 2), so one person cannot take every seat server thread.
* What changed, at once: the process playing a human match counts its changes (a decision
  written for the person, a batch of the public feed, the end: :func:`changed`), so the
  website in that process can answer a waiting request the moment the bot's reply is made
  (:func:`wait_for_change`) instead of polling the row; another process sees the row only.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import orjson
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.db import BotVersion, HumanSeat, Match, MatchSeat, session_scope, utcnow
from arena.db.models import Bot, Rating
from arena.intake import house
from arena.records import recording
from arena.records import stored as stored_records
from referee import registry
from referee._proto import bot_pb2, bot_pb2_grpc
from referee.engine import ConfigError, TimeControl

log = logging.getLogger(__name__)

HUMAN_KIND = "human"
HUMAN_NAME = "human"
DECISION_ENV = "ARENA_HUMAN_DECISION_S"
MAX_ENV = "ARENA_HUMAN_GAMES"
PER_CLIENT_ENV = "ARENA_HUMAN_GAMES_PER_CLIENT"
#: The process playing a game renews its row's ``alive_until`` this often, for this long.
ALIVE_EVERY_S = 5.0
ALIVE_FOR_S = 30.0
#: How often a waiting seat looks at its row for an answer from another process (an answer
#: taken in this process wakes it at once).
POLL_S = 1.0
#: What the seat server answers the referee for a person who resigned (the forfeit's message).
RESIGNED = "the person resigned"
#: A seat's row while the person plays it; ``resigned`` until the fallback has played it out.
LIVE_STATUSES = ("playing", "resigned")


class HumanGameError(ValueError):
    """A game cannot start as asked (a user mistake); the message says why in one line."""


class HumanGamesFull(HumanGameError):
    """Too many human games are running (in all, or from this client)."""


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        log.warning("%s=%r is not a number; using %g", name, raw, default)
        return default
    return value if value > 0 else default


def decision_seconds() -> float:
    """The person's time per decision (:data:`DECISION_ENV`, default 600 s)."""
    return _env_number(DECISION_ENV, 600.0)


def caps() -> tuple[int, int]:
    """(human games at once in all, per client)."""
    return int(_env_number(MAX_ENV, 8)), int(_env_number(PER_CLIENT_ENV, 2))


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def client_key(address: str) -> str:
    """What the per-client cap counts: a hash of the client's address (not the address itself): the site passes
    ``web.account.client_key()`` — IPv6 by /64, behind a trusted proxy the address it names."""
    return hashlib.sha256(("human-seat:" + address).encode()).hexdigest()


# --- who may sit across the table -------------------------------------------------------------


@dataclass(frozen=True)
class Opponent:
    """A bot a person may play: an active bot's playing version, or a house bot."""

    key: str  # "v<version id>" or "house-<name>"
    label: str
    house: bool
    bot_id: int | None = None  # None: a house bot


#: How many active bots the form lists (after the house bots): the best rated. A select of every
#: bot was unusable at 5,000 bots a game (and its 210 KB page cost ~55 ms of CPU); any other bot
#: is one click away from its page ("Play this bot", which names it here).
LISTED = 100


def _playing_versions(game: str) -> Any:
    """The select of every active bot's playing version of ``game`` (the newest not held back
    by an SPRT; not the house's, not an automaton's or a person's seat) as (version id, number,
    bot id, name, owner): what a person may play, in one statement."""
    active = (Bot.game == game, Bot.active.is_(True), Bot.owner != house.HOUSE_OWNER)
    newest = (
        select(BotVersion.bot_id, func.max(BotVersion.number).label("number"))
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(*active, BotVersion.held.is_(False))
        .group_by(BotVersion.bot_id)
        .subquery()
    )
    return (
        select(BotVersion.id, BotVersion.number, Bot.id, Bot.name, Bot.owner)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(newest, (newest.c.bot_id == BotVersion.bot_id) & (newest.c.number == BotVersion.number))
        .where(BotVersion.kind.notin_((HUMAN_KIND, house.AUTOMATON_KIND)))
    )


def _opponent(row: Any) -> Opponent:
    vid, number, bot_id, name, owner = row[:5]
    return Opponent(f"v{vid}", f"{name} v{number} ({owner})", False, bot_id)


def listed_opponents(session: Any, game: str, include_bot: int | None = None) -> tuple[list[Opponent], int]:
    """The form's choices: the house bots, the :data:`LISTED` best-rated active bots (μ − 3σ of
    their playing version, the newest not held back by an SPRT; unrated ones last) and
    ``include_bot`` (a bot id, "Play this bot"), first after the house bots when it is active.
    Returns them and the number of active bots. One query (two with ``include_bot``) whatever
    the number of bots: the best are picked by the database, not by reading every bot (at 5,000
    bots a game that cost ~40 ms of CPU a page)."""
    houses = [Opponent(name, f"{name} (house bot)", True) for name in house.house_sources(game)]
    conservative = Rating.mu - 3 * Rating.sigma
    playing = _playing_versions(game).outerjoin(
        Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == game)
    )
    # one pass: the best LISTED and, by a window over the whole set, how many there are
    ranked = playing.add_columns(func.count().over().label("total"))
    rows = [tuple(row) for row in session.execute(
        ranked.order_by(conservative.desc().nulls_last(), Bot.id).limit(LISTED))]
    total = rows[0][5] if rows else 0
    rows = [row[:5] for row in rows]
    if include_bot is not None and all(row[2] != include_bot for row in rows):
        rows = [tuple(row) for row in session.execute(playing.where(Bot.id == include_bot))] + rows
    rows.sort(key=lambda row: row[2] != include_bot)  # stable: the chosen bot first, then by rating
    return houses + [_opponent(row) for row in rows], total


def opponents(session: Any, game: str) -> list[Opponent]:
    """The house bots of ``game`` (registered on first use) and every active bot's playing version
    (the newest not held back by an SPRT; none whose playing version is an automaton or a
    person's seat), by bot id, in one query (:func:`_playing_versions`; through the ORM it took
    two queries a bot: 10-14 s at ``arena bench web``'s 4,000-5,000 bots a game)."""
    out = [Opponent(name, f"{name} (house bot)", True) for name in house.house_sources(game)]
    out += [_opponent(row) for row in session.execute(_playing_versions(game).order_by(Bot.id))]
    return out


def _opponent_version(session: Any, game: str, key: str) -> int:
    """The version id of opponent ``key`` (see :class:`Opponent`), or a :class:`HumanGameError`."""
    from arena.intake.bots import register_version

    sources = house.house_sources(game)
    if key in sources:
        bot = session.scalar(
            select(Bot).where(Bot.owner == house.HOUSE_OWNER, Bot.name == key, Bot.game == game)
        )
        created = bot is None
        version = register_version(session, game, sources[key], name=key, owner=house.HOUSE_OWNER)
        if created:  # registered for this game only: it joins no ladder on its own
            version.bot.active = False
        return version.id
    vid = int(key[1:]) if key[:1] == "v" and key[1:].isdigit() and len(key) < 20 else None
    if vid is None or session.scalar(_playing_versions(game).where(BotVersion.id == vid)) is None:
        raise HumanGameError(f"{key[:40]!r} is not an active bot of {game} (nor a house bot)")
    return vid


def human_version(session: Any, game: str) -> int:
    """The version id of the pseudo-bot that sits in a person's seat (created on first use)."""
    bot = session.scalar(
        select(Bot).where(Bot.owner == house.HOUSE_OWNER, Bot.name == HUMAN_NAME, Bot.game == game)
    )
    if bot is None:
        bot = Bot(owner=house.HOUSE_OWNER, name=HUMAN_NAME, game=game, active=False)
        session.add(bot)
        session.flush()
    found = next((v for v in bot.versions if v.kind == HUMAN_KIND), None)
    if found is not None:
        return found.id
    if bot.versions:
        raise HumanGameError(f"bot {HUMAN_NAME!r} of {game} is not the human seat's pseudo-bot")
    source = f"{HUMAN_KIND}:{game}"
    version = BotVersion(
        bot=bot,
        number=1,
        kind=HUMAN_KIND,
        source=source,
        digest=hashlib.sha256(source.encode()).hexdigest(),
        initial_mu=0.0,
        initial_sigma=0.0,
    )
    session.add(version)
    session.flush()
    return version.id


# --- starting a game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    match_id: str
    seat: int
    #: The seat's secret: the browser keeps it (a cookie); the database only its hash.
    secret: str


def start_game(
    url: str | None,
    game: str,
    players: int,
    variant: str | None,
    seat: int,
    opponent_keys: list[str],
    client: str,
) -> Started:
    """Create a human match and start playing it in this process. Raises :class:`HumanGameError`
    for a mistake in the request and :class:`HumanGamesFull` past a cap."""
    try:
        spec = registry.get_spec(game)
        variant = spec.check(players, variant)
    except (ConfigError, KeyError, LookupError) as exc:
        raise HumanGameError(str(exc).strip("'\"")) from None
    if not 0 <= seat < players:
        raise HumanGameError(f"your seat must be 1-{players}")
    if len(opponent_keys) != players - 1:
        raise HumanGameError(
            f"a {players}-player game needs {players - 1} opponent(s), not {len(opponent_keys)}"
        )
    if len(set(opponent_keys)) != len(opponent_keys):
        raise HumanGameError("choose a different bot for each opponent seat")
    sweep_dead(url)
    secret = secrets.token_urlsafe(32)
    total_cap, client_cap = caps()
    with session_scope(url) as s:
        playing = (
            s.scalar(
                select(func.count())
                .select_from(HumanSeat)
                .where(HumanSeat.status.in_(LIVE_STATUSES))
            )
            or 0
        )
        if playing >= total_cap:
            raise HumanGamesFull(
                f"{playing} games against people are running, the most at once; "
                "try again when one ends"
            )
        mine = (
            s.scalar(
                select(func.count())
                .select_from(HumanSeat)
                .where(HumanSeat.client == client, HumanSeat.status.in_(LIVE_STATUSES))
            )
            or 0
        )
        if mine >= client_cap:
            raise HumanGamesFull(
                f"you have {mine} games running, the most per player; finish or leave one first"
            )
        ids = [_opponent_version(s, game, key) for key in opponent_keys]
        ids.insert(seat, human_version(s, game))
        from referee.rng import match_seed

        match = recording.create_match(
            s, game, variant, ids, match_seed(), kind=HUMAN_KIND, sandbox=_sandbox()
        )
        match.status = "running"
        match.worker = recording.worker_name()
        match.started_at = utcnow()
        match.attempts = 1
        s.add(
            HumanSeat(
                match_id=match.id,
                seat=seat,
                secret_hash=hash_secret(secret),
                client=client,
                status="playing",
                prompt="",
                alive_until=time.time() + ALIVE_FOR_S,
            )
        )
        match_id = match.id
    _runner().submit(url, match_id)
    return Started(match_id, seat, secret)


def _sandbox() -> bool:
    """Bots play in bubblewrap unless ``ARENA_SANDBOX=0`` (as the server's own matches)."""
    from arena.workers.sandbox import sandbox_default

    return sandbox_default()


def sweep_dead(url: str | None) -> int:
    """Mark failed the human games whose playing process stopped renewing them (it died)."""
    now = time.time()
    with session_scope(url) as s:
        dead = s.scalars(
            select(HumanSeat).where(
                HumanSeat.status.in_(LIVE_STATUSES), HumanSeat.alive_until < now
            )
        ).all()
        for row in dead:
            row.status, row.observation, row.options, row.decision = "failed", None, None, None
            match = s.get(Match, row.match_id)
            if match is not None and match.status not in ("done", "failed"):
                match.status, match.finished_at = "failed", utcnow()
                match.error = "the process playing this game against a person stopped"
        return len(dead)


# --- the person's side: what the page shows, what a click does ---------------------------------


@dataclass
class SeatView:
    """What the person's page shows: only this seat's observation, and its options."""

    match_id: str
    game: str
    variant: str
    players: int
    seat: int
    status: str  # playing | resigned | done | failed
    match_status: str
    decision: int | None
    observation: dict[str, Any] | None
    options: list[tuple[str, str]] = field(default_factory=list)
    prompt: str = ""
    deadline: float | None = None
    seat_names: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: str | None = None
    #: The seat's forfeit when the game is over ({"reason", "message"}), else None.
    forfeit: dict[str, Any] | None = None
    #: The person's own choices in words by decision number (their hidden ones included: the
    #: public stream does not name those).
    own_choices: dict[int, str] = field(default_factory=dict)


def seat_view(session: Session, match_id: str, secret: str | None) -> SeatView | None:
    """The seat's page data, or None when ``secret`` is not this match's seat secret (another
    browser: it gets nothing of the seat).

    Only reads, on the caller's ``session``: the website passes its read-only session, so a
    page polled every second never takes SQLite's write lock."""
    if not secret:
        return None
    s = session
    s.expire_all()  # a session polled in a loop must see the rows as they are now
    row = s.scalar(select(HumanSeat).where(HumanSeat.match_id == match_id))
    if row is None or not secrets.compare_digest(row.secret_hash, hash_secret(secret)):
        return None
    match = s.get(Match, match_id)
    # answered, not yet taken by the seat server: nothing is waiting for the person now
    waiting = (
        row.status == "playing" and row.decision is not None and row.answer_decision != row.decision
    )
    names = [
        f"{seat.version.bot.name} v{seat.version.number}" if seat.seat != row.seat else "you"
        for seat in match.seats
    ]
    return SeatView(
        match_id=match_id,
        game=match.game,
        variant=match.variant,
        players=match.players,
        seat=row.seat,
        status=row.status,
        match_status=match.status,
        decision=row.decision if waiting else None,
        observation=orjson.loads(row.observation) if row.observation else None,
        options=[tuple(o) for o in orjson.loads(row.options)] if waiting and row.options else [],
        prompt=row.prompt or "",
        deadline=row.deadline,
        seat_names=names,
        result=match.result,
        error=match.error,
        forfeit=next(
            (f for f in match.forfeits or [] if isinstance(f, dict) and f.get("seat") == row.seat),
            None,
        ),
        own_choices={int(n): str(label) for n, label in orjson.loads(row.own_log or "[]")},
    )


@dataclass(frozen=True)
class Rematch:
    """The start form of "Play again": the same game, variant and bots, seats rotated by one
    (the person moves to the next seat; each bot too), as a board game club changes who starts."""

    game: str
    players: int
    variant: str
    seat: int  # the person's new seat, 1..players (the form's numbering)
    opponents: list[str]  # the opponent keys (:class:`Opponent`) in seat order, the person's left out


def rematch(session: Session, match_id: str, seat: int) -> Rematch | None:
    """"Play again" for the person in ``seat`` of ``match_id`` (None: no such match)."""
    match = session.get(Match, match_id)
    if match is None:
        return None
    keys: list[str] = []
    for s in sorted(match.seats, key=lambda x: x.seat):
        bot = s.version.bot
        keys.append(bot.name if bot.owner == house.HOUSE_OWNER else f"v{s.version.id}")
    n = len(keys)
    rotated = [keys[(k - 1) % n] for k in range(n)]  # who sat at j sits at j + 1
    new_seat = (seat + 1) % n
    return Rematch(match.game, n, match.variant, new_seat + 1,
                   [key for k, key in enumerate(rotated) if k != new_seat])


def _own_row(s: Session, match_id: str, secret: str | None) -> HumanSeat:
    """The seat's row for the holder of its ``secret``, else a :class:`HumanGameError`."""
    row = s.scalar(select(HumanSeat).where(HumanSeat.match_id == match_id))
    if (
        row is None
        or not secret
        or not secrets.compare_digest(row.secret_hash, hash_secret(secret))
    ):
        raise HumanGameError("this browser does not hold a seat in that game")
    return row


def choose(
    url: str | None, match_id: str, secret: str | None, decision: int, option_id: str
) -> None:
    """The person's answer to ``decision``. Raises :class:`HumanGameError` when it cannot be
    taken (not this seat's secret, that decision is not waiting, not a legal option)."""
    with session_scope(url) as s:
        row = _own_row(s, match_id, secret)
        if row.status != "playing" or row.decision != decision:
            raise HumanGameError("that decision is no longer waiting (the game moved on)")
        label = next((o[1] for o in orjson.loads(row.options or "[]") if o[0] == option_id), None)
        if label is None:
            raise HumanGameError(f"{option_id[:80]!r} is not one of the options")
        row.answer, row.answer_decision = option_id, decision
        row.own_log = orjson.dumps([*orjson.loads(row.own_log or "[]"), [decision, label]]).decode()
    _wake(match_id)


def resign(url: str | None, match_id: str, secret: str | None) -> None:
    """The person leaves the game: the seat forfeits at its next (or waiting) decision, at once —
    the fallback plays it to the end, so the bots finish and the record becomes public.
    Raises :class:`HumanGameError` when this browser does not hold the seat or the game is over."""
    with session_scope(url) as s:
        row = _own_row(s, match_id, secret)
        if row.status == "resigned":
            return  # a second click (or a second tab): already done
        if row.status != "playing":
            raise HumanGameError("the game is over already")
        row.status, row.options, row.answer, row.answer_decision = "resigned", None, None, None
    _wake(match_id)


# --- what changed: the website's waiting requests wake on these ---------------------------------

_changes: dict[str, int] = {}
_changes_cond = threading.Condition()


def changed(match_id: str) -> None:
    """Something a seat's page shows changed in ``match_id`` (the row, the feed, the end)."""
    with _changes_cond:
        _changes[match_id] = _changes.get(match_id, 0) + 1
        _changes_cond.notify_all()


def change_count(match_id: str) -> int:
    """How many changes this process has seen in ``match_id`` (0: none, or not played here)."""
    with _changes_cond:
        return _changes.get(match_id, 0)


def wait_for_change(match_id: str, seen: int, timeout: float) -> int:
    """Wait until ``match_id``'s change count is no longer ``seen`` or ``timeout`` seconds pass;
    returns the count. Holds no database connection: the count lives in this process."""
    end = time.monotonic() + timeout
    with _changes_cond:
        while _changes.get(match_id, 0) == seen:
            left = end - time.monotonic()
            if left <= 0:
                break
            _changes_cond.wait(left)
        return _changes.get(match_id, 0)


def played_here(match_id: str) -> bool:
    """Is ``match_id`` played by this process (so :func:`changed` is called for it here)?"""
    runner = _runner_instance
    if runner is None:
        return False
    with runner.lock:
        return match_id in runner.held


def resign_games_played_here(wait_s: float = 30.0) -> list[str]:
    """Resign every person's seat this process plays, and wait up to ``wait_s`` for those
    games to end (the fallback plays each seat out; the match is stored as any resigned one).
    Returns the match ids still running when the wait ended.

    For a process that is about to stop serving its people's games, such as the tests after
    each test: a game left waiting for its person otherwise holds its bots' processes for up to
    :data:`DECISION_ENV` (600 s) after nobody can answer any more."""
    runner = _runner_instance
    if runner is None:
        return []
    with runner.lock:
        held = dict(runner.held)
    for match_id, url in held.items():
        try:
            with session_scope(url) as s:
                s.execute(
                    update(HumanSeat)
                    .where(HumanSeat.match_id == match_id, HumanSeat.status == "playing")
                    .values(status="resigned", options=None, answer=None, answer_decision=None)
                )
        except Exception:  # noqa: BLE001 - its database is gone: the game fails on its own
            log.warning("could not resign human game %s", match_id, exc_info=True)
        _wake(match_id)
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        with runner.lock:
            left = [m for m in held if m in runner.held]
        if not left:
            return []
        time.sleep(0.05)
    with runner.lock:
        return [m for m in held if m in runner.held]


def _forget_changes(match_id: str) -> None:
    """The game is over here: a last wake-up (the count drops to 0, so every waiter sees a
    change), and the count goes."""
    with _changes_cond:
        _changes.pop(match_id, None)
        _changes_cond.notify_all()


class _NotifyingBus:
    """The live bus of a human match, calling :func:`changed` after each batch is sent (memory
    and tables written), so a seat's page shows the public table's new moves at once."""

    def __init__(self, bus: Any, match_id: str) -> None:
        self._bus = bus
        self._match_id = match_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bus, name)

    def publish_batch(self, match_id: str, events: list[dict[str, Any]], view: dict[str, Any] | None) -> None:
        self._bus.publish_batch(match_id, events, view)
        if match_id == self._match_id:
            changed(match_id)


# --- the seat server: the referee's side of the person ------------------------------------------

_events: dict[str, threading.Event] = {}
_events_lock = threading.Lock()


def _event(match_id: str) -> threading.Event:
    with _events_lock:
        return _events.setdefault(match_id, threading.Event())


def _wake(match_id: str) -> None:
    """An answer or a resignation arrived: wake the seat's waiting ``Act`` call, and the
    seat's pages waiting on :func:`wait_for_change`."""
    with _events_lock:
        event = _events.get(match_id)
    if event is not None:
        event.set()
    changed(match_id)


class _SeatService(bot_pb2_grpc.BotServicer):
    """The ``Bot`` service of every human seat this process plays: a decision is written to the
    seat's row and answered when the person's answer arrives (or the referee's deadline ends the
    call: the seat then forfeits on time, as a silent bot would)."""

    def __init__(self) -> None:
        #: match id -> its database, for the matches played here
        self.urls: dict[str, str | None] = {}

    def StartMatch(
        self, request: bot_pb2.MatchStart, context: grpc.ServicerContext
    ) -> bot_pb2.Ready:  # noqa: N802
        return bot_pb2.Ready(
            protocol_version=request.protocol_version, bot_name="a person in a browser"
        )

    def Act(self, request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> bot_pb2.ActReply:  # noqa: N802
        if request.match_id not in self.urls:
            context.abort(grpc.StatusCode.NOT_FOUND, "no person's seat in that match here")
        url = self.urls[request.match_id]
        event = _event(request.match_id)
        options = orjson.dumps([[o.id, o.label] for o in request.options]).decode()
        with session_scope(url) as s:
            if (
                s.scalar(select(HumanSeat.status).where(HumanSeat.match_id == request.match_id))
                == "resigned"
            ):
                context.abort(grpc.StatusCode.ABORTED, RESIGNED)
            s.execute(
                update(HumanSeat)
                .where(HumanSeat.match_id == request.match_id)
                .values(
                    decision=request.decision,
                    observation=request.observation_json,
                    options=options,
                    prompt=request.prompt[:500],
                    deadline=time.time() + request.time_left_ms / 1000.0,
                    answer=None,
                    answer_decision=None,
                )
            )
        changed(request.match_id)  # the person's decision is there: wake the seat's page
        while context.is_active():
            event.wait(POLL_S)
            event.clear()
            with session_scope(url) as s:
                row = s.scalar(select(HumanSeat).where(HumanSeat.match_id == request.match_id))
                if row is not None and row.status == "resigned":
                    row.decision = row.options = None
                    break
                if row is not None and row.answer_decision == request.decision and row.answer:
                    answer = row.answer
                    row.decision = row.options = row.answer = row.answer_decision = None
                    return bot_pb2.ActReply(option_id=answer)
        else:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the person did not choose in time")
        context.abort(grpc.StatusCode.ABORTED, RESIGNED)

    def EndMatch(self, request: bot_pb2.MatchEnd, context: grpc.ServicerContext) -> bot_pb2.Ack:  # noqa: N802
        return bot_pb2.Ack()


class SeatServer:
    """One gRPC server per process for the human seats it plays (127.0.0.1, a free port)."""

    def __init__(self, threads: int) -> None:
        self.service = _SeatService()
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="human-seat")
        )
        bot_pb2_grpc.add_BotServicer_to_server(self.service, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


class _Runner:
    """Plays this process's human games: a thread each, up to the cap, and the seat server."""

    def __init__(self) -> None:
        total, _ = caps()
        self.pool = futures.ThreadPoolExecutor(max_workers=total, thread_name_prefix="human-game")
        self.seats = SeatServer(threads=total + 4)
        self.held: dict[str, str | None] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._keep_alive, daemon=True, name="human-alive").start()

    def submit(self, url: str | None, match_id: str) -> None:
        with self.lock:
            self.held[match_id] = url
        self.seats.service.urls[match_id] = url
        self.pool.submit(self._play, url, match_id)

    def _keep_alive(self) -> None:
        while True:
            time.sleep(ALIVE_EVERY_S)
            with self.lock:
                held = dict(self.held)
            for match_id, url in held.items():
                try:
                    with session_scope(url) as s:
                        s.execute(
                            update(HumanSeat)
                            .where(HumanSeat.match_id == match_id)
                            .values(alive_until=time.time() + ALIVE_FOR_S)
                        )
                except Exception:  # noqa: BLE001 - a missed renewal only risks an early sweep
                    log.warning("could not renew human game %s", match_id, exc_info=True)

    def _play(self, url: str | None, match_id: str) -> None:
        try:
            play(url, match_id, self.seats.address)
        except Exception as exc:  # noqa: BLE001 - the game is lost; say so on its page
            log.exception("human game %s failed", match_id)
            with session_scope(url) as s:
                recording.fail(s, match_id, f"{type(exc).__name__}: {exc}")
                s.execute(
                    update(HumanSeat)
                    .where(HumanSeat.match_id == match_id)
                    .values(status="failed", observation=None, options=None, decision=None)
                )
        finally:
            with self.lock:
                self.held.pop(match_id, None)
            self.seats.service.urls.pop(match_id, None)
            with _events_lock:
                _events.pop(match_id, None)
            _forget_changes(match_id)


_runner_instance: _Runner | None = None
_runner_lock = threading.Lock()


def _runner() -> _Runner:
    global _runner_instance
    with _runner_lock:
        if _runner_instance is None:
            _runner_instance = _Runner()
        return _runner_instance


def play(url: str | None, match_id: str, seat_address: str) -> None:
    """Play human match ``match_id`` with the referee (the person's seat dialled at
    ``seat_address``) and store it, unrated."""
    from arena.workers import live
    from arena.workers.live_table import table_bus
    from arena.workers.tasks import _record_for_storage
    from referee.match import MatchConfig, SeatSpec, run_match

    with session_scope(url) as s:
        match = s.get(Match, match_id)
        human = s.scalar(select(HumanSeat).where(HumanSeat.match_id == match_id))
        seats = []
        for seat in match.seats:
            if seat.seat == human.seat:
                seats.append(SeatSpec("a person", seat_address))
            else:
                seats.append(
                    SeatSpec(f"{seat.version.bot.name} v{seat.version.number}", seat.version.source)
                )
        config = MatchConfig(
            game=match.game,
            seats=seats,
            seed=match.seed,
            variant=match.variant,
            match_id=match_id,
            sandbox=match.sandbox,
            seat_time_controls={human.seat: TimeControl(int(decision_seconds() * 1000), 0)},
        )
        human_seat = human.seat
    bus = live.get_bus()
    if not isinstance(bus, live.RedisBus):
        from arena.db import database_url

        bus = table_bus(database_url(url), bus)
    feed = live.MatchFeed(match_id, _NotifyingBus(bus, match_id))
    try:
        record = run_match(config, on_event=feed.on_event, on_view=feed.on_view)
    except BaseException:
        feed.finish(end=False)
        raise
    record.seats[human_seat]["kind"] = HUMAN_KIND
    # Compact like a worker's match (arena.records.compact; the seats' kinds are in its header),
    # else today's JSON.
    small, engine = stored_records.for_storage(record)
    data, text = _record_for_storage(record, whole=small is None)
    store(url, match_id, data if text is None else orjson.loads(text), compact=small, engine_version=engine)
    stored_records.warm(small, record)  # the end page, its replay and record read it next
    feed.finish()


def store(url: str | None, match_id: str, record: dict[str, Any], compact: bytes | None = None,
          engine_version: str | None = None) -> None:
    """Finish a human match: done, with its result, seats' ranks and public record — and no
    rating (no ``rating_seq``, no TrueSkill update, no history row). With ``compact`` (the
    record in compact form, and the ``engine_version`` that made it) ``record`` needs only
    ``result`` and ``forfeits``, and no JSON is stored."""
    from arena.evaluation import ratings

    result = record["result"]
    forfeits = record.get("forfeits") or []
    forfeited = recording.forfeited_seats(record)
    reasons = {int(f["seat"]): str(f.get("reason", "forfeit")) for f in forfeits}
    ranks = ratings.effective_ranks(
        result["ranks"], forfeited, (result.get("details") or {}).get("automaton_rank")
    )
    automaton = ratings.automaton_table(result, len(result["ranks"]), forfeited)
    seat_ranks = automaton[0] if automaton is not None else ranks
    scores = result.get("scores") or []
    with session_scope(url) as s:
        match = s.get(Match, match_id)
        match.status, match.finished_at, match.lease_until = "done", utcnow(), None
        match.result, match.forfeits = result, forfeits
        match.record = None if compact is not None else record
        match.record_compact = compact
        match.engine_version = engine_version if compact is not None else None
        match.timings = record.get("timings")
        for seat in s.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)):
            seat.rank = seat_ranks[seat.seat]
            seat.score = float(scores[seat.seat]) if seat.seat < len(scores) else None
            seat.forfeit = reasons.get(seat.seat)
        s.execute(
            update(HumanSeat)
            .where(HumanSeat.match_id == match_id)
            .values(status="done", decision=None, options=None, observation=None, answer=None)
        )
