"""The Celery tasks, and the same work run in-process when there is no broker.

* ``play_match(match_id)`` — claim the match (lease) and read its configuration in one
  transaction, play it with the match runner while the process's lease keeper keeps the lease
  fresh, record the result and update the ratings in one serialised transaction
  (:func:`arena.records.recording.record_result`). Idempotent: a match already done is
  skipped, and recording counts a result at most once. A match held by another live worker is
  retried after its lease. Infrastructure errors release the match for another attempt.
* ``record_result(match_id, record)`` — recording alone (for results produced elsewhere).
* ``qualify_submission(sub_id, settings)`` — a new bot version's qualification match, sent by
  the API server so that only workers need root for the sandbox (:mod:`arena.intake.qualification`).
* ``schedule_tournament(tournament_id)`` — start a tournament and enqueue its pending matches.
* ``ladder_tick(game)`` / ``ladder_tick_all()`` — top up ladder queues (Celery beat, ``arena
  ladder``, ``arena serve``'s ticker), with the process's cache of each ladder's population
  (:data:`POPULATION`, :mod:`arena.competition.ladder_population`): a tick reads only what changed.
* ``sweep()`` — start tournaments whose start message was lost, re-send matches whose message
  was lost (a Redis restart without persistence) or whose worker died (lease expired). Run by
  beat (on the control queue, ahead of matches) and by ``arena tournament``/``resume`` while
  waiting; one sweep at a time in the whole deployment (a Redis lease, :func:`sweep_lease`).

A worker outlives the database too: a task that cannot reach it is retried with backoff, and a
match already played keeps its result in memory and retries recording it (with backoff, up to
``ARENA_DB_RETRY_SECONDS``) until the database is back; recording is idempotent, so a match that
was meanwhile played again elsewhere is still counted once.

:func:`enqueue` is the one way matches are handed out: to Redis when ``ARENA_BROKER_URL`` is
set, otherwise to a thread pool in this process (``set_local_workers``).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

import orjson
from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import DBAPIError, OperationalError

from arena.competition import ladder, tournaments
from arena.competition.ladder_population import PopulationCache
from arena.db import (
    Ladder,
    Match,
    Tournament,
    get_engine,
    session_scope,
    utcnow,
)
from arena.db.sql import statements
from arena.records import recording
from arena.records import stored as stored_records
from arena.workers import live
from arena.workers.celery_app import app, broker_url, has_broker, queue_name
from referee.engine import ConfigError, TimeControl

log = logging.getLogger(__name__)

#: A pending match re-sent when its message seems lost is given this long to be picked up first.
REQUEUE_GRACE = float(os.environ.get("ARENA_REQUEUE_GRACE", "10"))
#: A pending match whose message a worker has held unacknowledged for longer than this is taken
#: as stuck (the worker lost Redis, or died with the message delivered): it is re-sent. Legitimate
#: holds of a pending match's message are short: a claim, or a retry countdown of a few seconds.
UNACKED_STALE = max(60.0, 3 * recording.LEASE_SECONDS)
#: How long a worker keeps retrying to store a played match while the database is unreachable.
DB_RETRY_SECONDS = float(os.environ.get("ARENA_DB_RETRY_SECONDS", "600"))
#: Longest a sweep may hold the deployment-wide sweep lease (it is released when done).
SWEEP_LEASE_SECONDS = 120.0

T = TypeVar("T")


def db_unavailable(exc: BaseException) -> bool:
    """True for errors that mean "the database cannot be reached now" (worth retrying)."""
    if isinstance(exc, OperationalError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def retry_db(fn: Callable[[], T], what: str, budget: float = DB_RETRY_SECONDS) -> T:
    """``fn()``, retried with exponential backoff (0.5 s doubling to 15 s) while the database is
    unavailable, for at most ``budget`` seconds; other errors propagate at once."""
    delay, deadline = 0.5, time.monotonic() + budget
    while True:
        try:
            return fn()
        except Exception as exc:
            if not db_unavailable(exc) or time.monotonic() + delay > deadline:
                raise
            log.warning("database unavailable (%s); %s again in %.1f s",
                        type(exc).__name__, what, delay)
            time.sleep(delay)
            delay = min(2 * delay, 15.0)


@dataclass(frozen=True)
class Outcome:
    status: str  # recorded | duplicate | done | failed | missing | busy | pending
    retry_in: float | None = None


class _LeaseKeeper:
    """Renews the leases of every match this process is playing, from one long-lived thread.

    A thread per match used to be started and joined around every match (most matches end
    before their first renewal, so that was pure start-up cost, and on a loaded machine a
    thread start is a scheduling round trip). Here a match is just added to and removed from
    a dict; the one thread renews whatever is held every ``LEASE_SECONDS / 3``, each match in
    its own short transaction, so a match is renewed at least as often as before. A forked
    process (prefork pool) starts its own thread on first use.
    """

    def __init__(self) -> None:
        self._held: dict[str, str] = {}
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._wake = threading.Event()

    def hold(self, match_id: str, worker: str) -> None:
        with self._lock:
            self._held[match_id] = worker
            if self._pid != os.getpid():  # first use in this process
                self._pid = os.getpid()
                self._wake = threading.Event()
                threading.Thread(target=self._run, args=(self._wake,), daemon=True,
                                 name="arena-leases").start()

    def drop(self, match_id: str) -> None:
        with self._lock:
            self._held.pop(match_id, None)

    def held(self) -> dict[str, str]:
        with self._lock:
            return dict(self._held)

    def _run(self, wake: threading.Event) -> None:
        while not wake.wait(recording.LEASE_SECONDS / 3):
            for match_id, worker in self.held().items():
                try:
                    with session_scope() as s:
                        recording.renew(s, match_id, worker)
                except OperationalError as exc:  # the database is down: one line, retry follows
                    log.warning("database unavailable: could not renew the lease of match %s (%s)",
                                match_id, str(exc.orig).splitlines()[0] if exc.orig else exc)
                except Exception:  # noqa: BLE001 - a missed renewal only risks a duplicate play
                    log.warning("could not renew the lease of match %s", match_id, exc_info=True)


_leases = _LeaseKeeper()


# The match and its seats in one query: a row per seat, the match's columns on each (run on the
# driver's cursor when the shortcut is on, arena.db.sql: this runs once per match on every worker).
_SQL_CONFIG = (
    "SELECT m.game, m.seed, m.variant, m.decision_ms, m.bank_ms, m.sandbox,"
    " (SELECT t.live_comments FROM tournaments t WHERE t.id = m.tournament_id), m.voids, b.name, v.number,"
    " v.source FROM matches m JOIN match_seats s ON s.match_id = m.id"
    " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
    " WHERE m.id = :mid ORDER BY s.seat"
)
_SQL_CONFIG_MATCH = (
    "SELECT game, seed, variant, decision_ms, bank_ms, sandbox,"
    " (SELECT t.live_comments FROM tournaments t WHERE t.id = matches.tournament_id), voids"
    " FROM matches WHERE id = :mid"
)


def _config_from(conn, match_id: str):  # noqa: ANN001, ANN202 - Connection -> MatchConfig
    from referee.match import MatchConfig, SeatSpec

    db = statements(conn)
    rows = db.all(_SQL_CONFIG, {"mid": match_id})
    m = rows[0] if rows else db.first(_SQL_CONFIG_MATCH, {"mid": match_id})
    if m is None:
        raise LookupError(f"no match {match_id}")
    game, seed, variant, decision_ms, bank_ms, sandbox, live_comments, voids = m[:8]
    seats = [SeatSpec(f"{name} v{number}", source) for *_, name, number, source in rows]
    tc = TimeControl(decision_ms, bank_ms) if decision_ms else None
    return MatchConfig(
        game=game,
        seats=seats,
        seed=seed,
        variant=variant,
        match_id=match_id,
        time_control=tc,
        sandbox=bool(sandbox),
        pool=worker_bot_pool(),
        live_comments=bool(live_comments),  # the tournament's setting (NULL: not a tournament)
        earlier_voids=recording.read_voids(voids),  # earlier tries void at a seat's decisions
    )


def _claim_and_configure(match_id: str, worker: str):  # noqa: ANN202 - (Claim, MatchConfig|None)
    """Claim the match and read its configuration in one transaction (one commit, and on
    SQLite one write lock, per match start). A read that fails for another reason than the
    database falls back to a claim of its own, so the attempt is counted and released as any
    failed start is (the runner then gets no configuration and the match is released)."""
    try:
        with get_engine().begin() as conn:  # a Core transaction: no ORM session needed here
            claim = recording.claim_on(conn, match_id, worker)
            config = _config_from(conn, match_id) if claim.outcome == "claimed" else None
        return claim, config
    except Exception as exc:
        if db_unavailable(exc):
            raise
        log.exception("could not read the configuration of match %s", match_id)
    with session_scope() as s:
        return recording.claim(s, match_id, worker), None


#: ``ARENA_BOT_POOL=0`` turns the warm bot pool off (every bot launched and killed per match).
BOT_POOL_ENV = "ARENA_BOT_POOL"
_bot_pool = None
_bot_pool_pid: int | None = None
_bot_pool_lock = threading.Lock()


def worker_bot_pool():  # noqa: ANN201 - referee.bot_pool.BotPool | None
    """This process's warm bot pool, shared by its match threads (the pool is thread-safe).

    One per process: a prefork worker child builds its own rather than using processes its
    parent launched (they are not its children, and their gRPC channels do not survive fork).
    """
    global _bot_pool, _bot_pool_pid
    if os.environ.get(BOT_POOL_ENV, "1").strip().lower() in ("0", "no", "off", "false"):
        return None
    from referee.bot_pool import BotPool

    with _bot_pool_lock:
        if _bot_pool is None or _bot_pool_pid != os.getpid():
            _bot_pool, _bot_pool_pid = BotPool(), os.getpid()
        return _bot_pool


def close_worker_bot_pool() -> None:
    """Kill this process's idle pooled bots (tests, and anyone who wants them gone now)."""
    global _bot_pool
    with _bot_pool_lock:
        pool, _bot_pool = _bot_pool, None
    if pool is not None:
        pool.close()


def _record_for_storage(record, whole: bool = True) -> tuple[dict, str | None]:  # noqa: ANN001 - referee.record.MatchRecord
    """What :func:`arena.records.recording.record_result` needs of a played match: the parts it rates
    from (``result``, ``forfeits``) as JSON data, and the whole record as the JSON text the
    database stores — encoded once, by orjson in C: the record is tens of kB, and decoding it
    to Python data only for the database layer to encode it again cost ~0.1 ms a match (and
    walking it in Python, ``to_dict``, several times more). The text is exactly what encoding
    ``to_dict()`` gives (the record's fields, then ``events``). None for the text when orjson
    refuses the record (an int past 64 bits): then the data is ``to_dict()``, the whole record,
    which the database layer encodes. A record of another kind brings its own ``to_json``.
    ``whole=False``: the record is stored compactly (:mod:`arena.records.compact`), so no text
    is made, and the data holds only ``result`` and ``forfeits``."""
    if not hasattr(record, "to_dict"):
        data = record.to_json()
        return (json.loads(data) if isinstance(data, str) else data), None
    if not whole:  # stored compactly: only the parts it rates from
        return orjson.loads(orjson.dumps({"result": record.result, "forfeits": record.forfeits},
                                         option=orjson.OPT_NON_STR_KEYS)), None
    try:
        head = orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)
        events = orjson.dumps(record.events())
        parts = orjson.loads(orjson.dumps({"result": record.result, "forfeits": record.forfeits},
                                          option=orjson.OPT_NON_STR_KEYS))
    except TypeError:
        return record.to_dict(), None
    return parts, (head[:-1] + b',"events":' + events + b"}").decode()


#: ``ARENA_MATCH_COSTS=DIR``: every process playing matches appends one JSON line per match to
#: ``DIR/<pid>.jsonl`` with the wall and CPU time of each part (``arena bench tournament``).
COSTS_ENV = "ARENA_MATCH_COSTS"


class MatchCosts:
    """Where one match's time goes in the process that plays it, part by part.

    Each part is timed in wall seconds and in CPU seconds of the calling thread (what a loaded
    machine cannot inflate by keeping the thread off a core). Parts: ``claim`` (claim and read
    the configuration, one transaction), ``leases`` (registering with the lease keeper),
    ``live`` (setting up, feeding and flushing the live events: the platform's callbacks inside
    the match loop), ``runner`` (the match runner *without* those callbacks: engine, protocol
    and waiting for the bots), ``convert`` (record to JSON data), ``record`` (result, ratings,
    history: the locked transaction), ``warm`` (the stored record's text where its first read looks,
    :func:`arena.records.stored.warm`: the shared cache with a Redis broker, else this
    process's own).
    ``lock_wait`` is the part of ``record`` spent getting the per-game rating lock,
    ``bots_wall`` the runner's time waiting for the bots' answers,
    ``bots_cpu`` the CPU the bots' own processes used for their decisions (the seats' totals), and
    ``process_cpu`` the whole process's CPU over the match (every thread: the live sender,
    gRPC's own threads). ``start``/``end``, ``cpu_start``/``cpu_end`` (process) and
    ``thread_cpu_start``/``thread_cpu_end`` (the playing thread, which in a solo worker is also
    Celery's) let a reader see what happens between matches (Celery acknowledging the task and
    receiving the next).
    """

    def __init__(self) -> None:
        self.parts: dict[str, list[float]] = {}
        self.start, self.cpu_start = time.time(), time.process_time()
        self.thread_cpu_start = time.thread_time()

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            acc = self.parts.setdefault(name, [0.0, 0.0])
            acc[0] += time.perf_counter() - wall
            acc[1] += time.thread_time() - cpu

    def wrap(self, name: str, fn: Callable[..., T]) -> Callable[..., T]:
        acc = self.parts.setdefault(name, [0.0, 0.0])
        perf, cpu = time.perf_counter, time.thread_time

        def timed(*args: object) -> T:
            wall0, cpu0 = perf(), cpu()
            try:
                return fn(*args)
            finally:
                acc[0] += perf() - wall0
                acc[1] += cpu() - cpu0

        return timed

    def add(self, name: str, wall: float, cpu: float = 0.0) -> None:
        acc = self.parts.setdefault(name, [0.0, 0.0])
        acc[0] += wall
        acc[1] += cpu

    def finish(self, match_id: str, status: str) -> dict:
        live = self.parts.get("live", [0.0, 0.0])
        runner = self.parts.get("runner")
        if runner is not None:  # the live callbacks ran inside the runner: count them once
            runner[0] -= self.parts.get("live_in_runner", [0.0, 0.0])[0]
            runner[1] -= self.parts.get("live_in_runner", [0.0, 0.0])[1]
            inner = self.parts.pop("live_in_runner", [0.0, 0.0])
            live[0] += inner[0]
            live[1] += inner[1]
            self.parts["live"] = live
        return {"match": match_id, "status": status, "pid": os.getpid(),
                "start": self.start, "end": time.time(), "cpu_start": self.cpu_start,
                "cpu_end": time.process_time(), "thread_cpu_start": self.thread_cpu_start,
                "thread_cpu_end": time.thread_time(), "thread": threading.get_ident(),
                "parts": {k: [round(w, 7), round(c, 7)] for k, (w, c) in self.parts.items()}}


class _NoCosts:
    """What :func:`play_match_now` times with when nobody collects costs: nothing, at no cost."""

    _null = nullcontext()

    def part(self, name: str) -> nullcontext:  # noqa: ARG002
        return self._null

    def wrap(self, name: str, fn: Callable[..., T]) -> Callable[..., T]:  # noqa: ARG002
        return fn

    def add(self, name: str, wall: float, cpu: float = 0.0) -> None:
        pass


_costs_sink: Callable[[dict], None] | None = None
_costs_file: tuple[int, object] | None = None


def collect_costs(sink: Callable[[dict], None] | None) -> None:
    """Hand every match's :class:`MatchCosts` line to ``sink`` (None: stop). Benchmarks."""
    global _costs_sink
    _costs_sink = sink


def _costs_for_env() -> Callable[[dict], None] | None:
    """The sink ``ARENA_MATCH_COSTS`` asks for (a file per process), or None."""
    global _costs_file
    folder = os.environ.get(COSTS_ENV)
    if not folder:
        return None
    if _costs_file is None or _costs_file[0] != os.getpid():
        os.makedirs(folder, exist_ok=True)
        handle = open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", buffering=1)  # noqa: SIM115
        _costs_file = (os.getpid(), handle)
    handle = _costs_file[1]
    return lambda line: handle.write(json.dumps(line) + "\n")  # type: ignore[attr-defined]


def play_match_now(match_id: str) -> Outcome:
    """Play and record one match in this process (the body of the ``play_match`` task)."""
    sink = _costs_sink or _costs_for_env()
    if sink is None:
        outcome = _play(match_id, _NoCosts())
    else:
        costs = MatchCosts()
        outcome = _play(match_id, costs)
        sink(costs.finish(match_id, outcome.status))
    if outcome.status in ("recorded", "failed"):
        next_swiss_round(match_id)
    _settle_heap()
    return outcome


def next_swiss_round(match_id: str) -> int:
    """Tournament progress: when ``match_id`` finished a Swiss round, pair and send the next one
    (:func:`arena.competition.tournaments.pair_next_round`, exactly once however many workers call it).
    Returns how many matches were sent. Never raises: a round left unpaired (database or broker
    down, worker killed) is paired by the next sweep, whose matches wait in the database."""
    try:
        with session_scope() as s:
            tournament_id = s.scalar(
                select(Match.tournament_id).join(Tournament, Tournament.id == Match.tournament_id)
                .where(Match.id == match_id, Tournament.format == "swiss"))
        if tournament_id is None:
            return 0
        ids = tournaments.pair_next_round(tournament_id)
        enqueue(ids)
        return len(ids)
    except Exception:  # noqa: BLE001 - the sweep pairs it later
        log.warning("could not pair the next Swiss round after match %s", match_id, exc_info=True)
        return 0


def _pair_stalled_swiss(tournament_id: int | None) -> int:
    """Pair the next round of every running Swiss whose rounds so far are all finished (the
    worker that recorded the last result died before pairing); returns matches sent."""
    sent = 0
    for tid in tournaments.stalled_swiss(tournament_id):
        ids = tournaments.pair_next_round(tid)
        if ids:
            log.info("tournament %s: paired a Swiss round left unpaired", tid)
            enqueue(ids)
            sent += len(ids)
    return sent


_heap_settled_pid: int | None = None


def _settle_heap() -> None:
    """Once per process, after its first match: collect, then freeze what survives.

    What is alive then lives as long as the process: imported modules, Celery, SQLAlchemy's
    compiled statements, the game engine's data, the bot pool. Left to the cyclic collector,
    it is scanned again by every full collection — a worker holds ~140,000 such objects, and
    each full collection (every 60-70 matches) took ~100 ms inside whichever match it hit,
    ~1.5 ms a match on average, a quarter of the platform's own cost per match. Frozen
    (``gc.freeze``), they are still freed by reference counting; only cyclic garbage among
    them would be kept, and that is bounded by this one moment.
    """
    global _heap_settled_pid
    if _heap_settled_pid == os.getpid():
        return
    _heap_settled_pid = os.getpid()
    gc.collect()
    gc.freeze()


def _play(match_id: str, costs: MatchCosts | _NoCosts) -> Outcome:
    from referee.match import HostOverloaded, run_match

    worker = f"{recording.worker_name()}:{threading.get_ident()}"
    with costs.part("claim"):
        claim, config = _claim_and_configure(match_id, worker)
    if claim.outcome == "busy":
        return Outcome("busy", max(1.0, (claim.lease_until or 0) - time.time() + 1))
    if claim.outcome != "claimed":
        return Outcome(claim.outcome)
    with costs.part("leases"):
        _leases.hold(match_id, worker)
    with costs.part("live"):
        # Live events for WatchMatch (Redis pub/sub with a broker, in-process otherwise).
        feed = live.match_feed(match_id)
        end_live = feed.finish
    try:
        try:
            if config is None:
                raise RuntimeError(f"the configuration of match {match_id} could not be read")
            with costs.part("runner"):
                record = run_match(config, on_event=costs.wrap("live_in_runner", feed.on_event),
                                   on_view=costs.wrap("live_in_runner", feed.on_view))
        except ConfigError as exc:  # the match can never be played as configured
            end_live()
            with session_scope() as s:
                recording.fail(s, match_id, f"{type(exc).__name__}: {exc}")
            return Outcome("failed")
        except Exception as exc:  # noqa: BLE001 - infrastructure trouble: let it be tried again
            end_live(end=False)
            if isinstance(exc, HostOverloaded):  # expected under load: one line, no traceback
                log.warning("match %s was void (the host was too busy to judge a clock): %s",
                            match_id, exc)
            else:
                log.exception("match %s failed to run", match_id)
            with session_scope() as s:
                status = recording.release(s, match_id, worker, f"{type(exc).__name__}: {exc}",
                                           exc.seat if isinstance(exc, HostOverloaded) else None)
            return Outcome(status, 5.0 if status == "pending" else None)
        costs.add("bots_wall", sum(d.wall_ms for d in record.decisions) / 1000.0)
        costs.add("bots_cpu", sum(t.cpu_ms or 0.0 for t in record.totals or []) / 1000.0)
        with costs.part("convert"):
            # Compact (arena.records.compact: what cannot be recomputed), else today's JSON.
            small, engine = stored_records.for_storage(record)
            data, text = _record_for_storage(record, whole=small is None)

        def store() -> bool:
            # A Core transaction, as the claim's: no ORM session around the statements.
            with get_engine().begin() as conn:
                return recording.record_result_on(conn, match_id, data, game=config.game,
                                                  record_text=text, record_compact=small,
                                                  engine_version=engine)

        try:
            # The lease keeper keeps renewing once the database is back, so the match is not
            # handed to another worker while this one still holds its result.
            with costs.part("record"):
                counted = retry_db(store, f"recording match {match_id}")
            costs.add("lock_wait", recording.last_lock_wait())
        except BaseException:
            end_live(end=False)  # not stored: the match will be played again
            raise
    finally:
        with costs.part("leases"):
            _leases.drop(match_id)
    if small is not None and counted:  # stored by this worker (a duplicate's may be another's)
        with costs.part("warm"):
            try:  # the stored record's text where the first read looks (arena.records.stored.warm)
                stored_records.warm(small, record)
            except Exception:  # noqa: BLE001 - a cache: warming never fails a match
                log.exception("match %s: warming the record cache failed", match_id)
    with costs.part("live"):
        end_live()  # after the record is stored: a watcher then finds it in the database
    return Outcome("recorded" if counted else "duplicate")


@app.task(
    name="arena.tasks.play_match",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    ignore_result=True,
)
def play_match(self, match_id: str) -> str:  # noqa: ANN001
    try:
        outcome = play_match_now(match_id)
    except Exception as exc:
        if not db_unavailable(exc):
            raise
        # The database is down (e.g. restarting): try again later rather than drop the message.
        delay = min(60.0, 2.0 * 2 ** min(self.request.retries, 5))
        log.warning("database unavailable for match %s; retrying in %.0f s", match_id, delay)
        raise self.retry(countdown=delay) from None
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.status


# Nobody reads these tasks' results (progress is in the database): ignore_result also keeps a
# sender from subscribing to the result backend, which with Redis down costs ~25 s of retries
# before the send fails.
@app.task(name="arena.tasks.record_result", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def record_result(match_id: str, record: dict) -> bool:
    with session_scope() as s:
        return recording.record_result(s, match_id, record)


@app.task(
    name="arena.tasks.qualify_submission", bind=True, acks_late=True, reject_on_worker_lost=True,
    max_retries=None, ignore_result=True,
)
def qualify_submission(self, sub_id: int, settings: dict) -> str:  # noqa: ANN001
    """Qualify a stored submission (the server's settings in ``settings``); decided at most once."""
    from arena.intake import qualification

    try:
        verdict = qualification.qualify_submission(sub_id, qualification.Settings(**settings))
    except Exception as exc:
        if not db_unavailable(exc):
            raise
        delay = min(60.0, 2.0 * 2 ** min(self.request.retries, 5))
        log.warning("database unavailable for submission %s; retrying in %.0f s", sub_id, delay)
        raise self.retry(countdown=delay) from None
    if verdict == "qualified":
        _play_sprt_of(sub_id, qualification.Settings(**settings).startup_ms, settings.get("sandbox", True))
    return verdict


def _play_sprt_of(sub_id: int, startup_ms: int, sandbox: bool) -> None:
    """Play the SPRT the verdict started, here where it was recorded (held back until then);
    its end changes which version plays, which the servers' leaderboard caches see through their
    token (the count of held versions)."""
    from arena.intake import qualification, sprt_runner

    test_id = qualification.running_sprt_of(sub_id)
    if test_id is not None:
        sprt_runner.run_test(None, test_id, sandbox=sandbox, startup_ms=startup_ms)


@app.task(name="arena.tasks.schedule_tournament", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def schedule_tournament(tournament_id: int) -> int:
    """Mark the tournament running and enqueue every match not yet played.

    Only the call that moves it from ``scheduled`` to ``running`` enqueues (an atomic
    conditional UPDATE): if the sweeper already started it (this message came late), or this
    message is delivered twice, nothing is sent again.
    """
    if not tournaments.start_if_scheduled(tournament_id):
        return 0
    with session_scope() as s:
        ids = list(
            s.scalars(
                select(Match.id)
                .where(Match.tournament_id == tournament_id, Match.status == "pending")
                .order_by(Match.round, Match.table)
            )
        )
    enqueue(ids)
    return len(ids)


#: The ladders' populations between this process's ticks (every tick of every game goes
#: through :func:`ladder_tick`); each tick still sees every other process's changes.
POPULATION = PopulationCache()


@app.task(name="arena.tasks.ladder_tick", acks_late=True, ignore_result=True)
def ladder_tick(game: str) -> int:
    with session_scope() as s:
        ids = ladder.tick(s, game, population=POPULATION)
    enqueue(ids)
    return len(ids)


@app.task(name="arena.tasks.ladder_tick_all", acks_late=True, ignore_result=True)
def ladder_tick_all() -> int:
    with session_scope() as s:
        games = list(s.scalars(select(Ladder.game).where(Ladder.enabled.is_(True))))
    return sum(ladder_tick(game) for game in games)


@contextmanager
def sweep_lease(wait: float = 10.0) -> Iterator[bool]:
    """One sweep at a time in the whole deployment: a lease in Redis (``SET NX PX`` with a
    random token, released only by its holder) — beat, every ``arena tournament`` and
    ``arena resume`` may sweep at once and would otherwise re-send the same matches. Yields
    whether the lease was obtained within ``wait`` seconds. Without a broker, a process lock.
    """
    if not has_broker():
        got = _local_sweep_lock.acquire(timeout=wait)
        try:
            yield got
        finally:
            if got:
                _local_sweep_lock.release()
        return
    import redis

    client = redis.Redis.from_url(broker_url(), socket_timeout=5, socket_connect_timeout=5)
    lock = client.lock(f"arena:sweep-lease:{queue_name()}", timeout=SWEEP_LEASE_SECONDS,
                       blocking_timeout=wait)
    try:
        got = bool(lock.acquire())
    except redis.RedisError:
        got = False  # broker down: nothing can be sent now anyway
    try:
        yield got
    finally:
        if got:
            try:
                lock.release()
            except redis.RedisError:
                pass  # expired or unreachable: it times out by itself
        client.close()


_local_sweep_lock = threading.Lock()


@app.task(name="arena.tasks.sweep", acks_late=True, ignore_result=True)
def sweep(
    tournament_id: int | None = None, game: str | None = None, kind: str | None = None,
    wait: float = 10.0,
) -> int:
    """Re-send matches that would otherwise never be played (optionally only one tournament, or
    one game's matches of one kind). Returns how many were re-sent.

    * A tournament still ``scheduled`` well after it was created (its start message was lost,
      e.g. Redis was down when it was submitted) is started.
    * ``running`` with an expired lease: its worker died; send it again — unless Redis holds a
      copy sent since (:func:`_copy_in_broker`), so sweeps with no worker to take the copy
      never pile up messages.
    * ``pending`` for longer than the grace period and not in the broker — neither waiting in
      the queue nor held by a worker (Redis' ``unacked`` hash; or held there for longer than
      :data:`UNACKED_STALE`): its message was lost, e.g. with a Redis restart. Without a broker:
      pending and not in this process's pool.

    Runs under :func:`sweep_lease`; a sweep that cannot get it within ``wait`` seconds returns
    0 (the sweep holding it covers the same matches).
    """
    with sweep_lease(wait) as held:
        if not held:
            log.info("another sweep is running; skipped")
            return 0
        return _sweep(tournament_id, game, kind)


def _start_lost_tournaments(tournament_id: int | None, game: str | None) -> list[int]:
    """Start tournaments left ``scheduled`` for longer than the grace period."""
    grace = utcnow() - timedelta(seconds=REQUEUE_GRACE)
    with session_scope() as s:
        query = select(Tournament.id).where(Tournament.status == "scheduled")
        if tournament_id is not None:
            query = query.where(Tournament.id == tournament_id)
        else:
            query = query.where(Tournament.created_at < grace)
        if game is not None:
            query = query.where(Tournament.game == game)
        ids = list(s.scalars(query))
    started = [tid for tid in ids if tournaments.start_if_scheduled(tid)]
    if started:
        log.info("started tournament(s) %s whose start message was lost", started)
    return started


def enforce_deadlines() -> int:
    """Round deadlines of running events (:func:`arena.competition.lifecycle.enforce_deadlines`):
    a stuck match sent again once, then scored as a double forfeit; a round that finished so
    is paired. Returns how many matches were sent. Never raises (the next sweep tries again)."""
    from arena.competition import lifecycle

    try:
        with session_scope() as s:
            steps, resend = lifecycle.enforce_deadlines(s)
        said = {"deadline_retry": "sent again after its round deadline",
                "deadline_forfeit": "scored as a double forfeit after its second deadline",
                "late_result": "recorded after its double forfeit: the result stands"}
        for step in steps:
            log.warning("tournament %s: match %s %s", step.tournament_id, step.match_id, said[step.action])
        enqueue(resend)
        sent = len(resend)
        if any(step.action == "deadline_forfeit" for step in steps):
            sent += _pair_stalled_swiss(None)
        return sent
    except Exception:  # noqa: BLE001 - the next sweep tries again
        log.warning("could not apply the round deadlines", exc_info=True)
        return 0


def sweep_events() -> int:
    """Without a broker, ``arena serve``'s ticker plays the events the website runs (it plays no
    match itself, arena.play.events): every scheduled or running tournament with an audit log
    (one run through arena.play.events) is started and swept — lost matches sent again, a
    stalled Swiss paired — and every round deadline applied. Returns matches sent."""
    from sqlalchemy import exists

    from arena.db import TournamentAudit

    sent = enforce_deadlines()
    with session_scope() as s:
        ids = list(s.scalars(select(Tournament.id).where(
            Tournament.status.in_(("scheduled", "running")),
            exists().where(TournamentAudit.tournament_id == Tournament.id))))
    for tid in ids:
        sent += sweep(tid, wait=0)
    return sent


def _sweep(tournament_id: int | None, game: str | None, kind: str | None) -> int:
    if kind in (None, "tournament") and (has_broker() or tournament_id is not None):
        _start_lost_tournaments(tournament_id, game)
    if kind in (None, "tournament"):
        enforce_deadlines()
        _pair_stalled_swiss(tournament_id)
    now = time.time()
    grace = utcnow() - timedelta(seconds=REQUEUE_GRACE)
    # The broker is read first: a match sent after this snapshot has a fresh queued_at (within
    # the grace period), so it is never taken for lost.
    snapshot = broker_snapshot() if has_broker() else None
    if has_broker() and snapshot is None:
        return 0  # broker unreachable: nothing can be sent now anyway
    with session_scope() as s:
        scope = [
            or_(
                Match.tournament_id.is_(None),
                Match.tournament_id.in_(select(Tournament.id).where(Tournament.status == "running")),
            )
        ]
        # A person's game is played only by the process holding the seat (arena.play.human).
        scope.append(Match.kind != "human")
        if tournament_id is not None:
            scope.append(Match.tournament_id == tournament_id)
        if game is not None:
            scope.append(Match.game == game)
        if kind is not None:
            scope.append(Match.kind == kind)
        expired = s.execute(
            select(Match.id, Match.queued_at, Match.lease_until).where(
                *scope,
                Match.status == "running",
                or_(Match.lease_until.is_(None), Match.lease_until < now),
            )
        ).all()
        pending = s.execute(
            select(Match.id, Match.queued_at).where(*scope, Match.status == "pending")
        ).all()
    if snapshot is not None:
        queued, unacked = snapshot
        stale = now - UNACKED_STALE
        known = queued | {mid for mid, since in unacked.items() if since >= stale}
        resend = [
            mid for mid, queued_at in pending
            if mid not in known and (queued_at is None or queued_at < grace)
        ]
        orphaned = [
            mid for mid, queued_at, lease_until in expired
            if not _copy_in_broker(mid, lease_until, queued, unacked, stale)
            and (queued_at is None or queued_at < grace)
        ]
    else:
        resend = [mid for mid, _ in pending if mid not in _local_submitted]
        orphaned = [mid for mid, _, _ in expired]
    ids = orphaned + resend
    if ids:
        log.info("re-sending %d matches (%d with an expired lease)", len(ids), len(orphaned))
        enqueue(ids)
    return len(ids)


def _copy_in_broker(
    match_id: str, lease_until: float | None, queued: set[str], unacked: dict[str, float], stale: float
) -> bool:
    """Whether Redis still holds a live copy of a running match whose lease expired, so a sweep
    must not send another: one waiting in the queue, or one delivered *after* the expired lease
    was last granted or renewed (a worker is about to claim it, or waits out a retry countdown).
    The copy its dead player was delivered came before that lease: it is no copy, and neither is
    one held for longer than :data:`UNACKED_STALE`."""
    if match_id in queued:
        return True
    since = unacked.get(match_id)
    if since is None or since < stale:
        return False
    granted = float("-inf") if lease_until is None else lease_until - recording.LEASE_SECONDS
    return since > granted


PLAY_TASK_PREFIX = "play-"


def _task_id_of(raw: bytes | str) -> str | None:
    try:
        message = json.loads(raw)
        if isinstance(message, list):  # the unacked hash stores [message, exchange, routing key]
            message = message[0]
        task_id = message["headers"]["id"]
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return task_id if isinstance(task_id, str) else None


def _match_of_message(raw: bytes | str) -> str | None:
    task_id = _task_id_of(raw)
    if task_id is not None and task_id.startswith(PLAY_TASK_PREFIX):
        return task_id[len(PLAY_TASK_PREFIX) : len(PLAY_TASK_PREFIX) + 32]
    return None


def broker_snapshot() -> tuple[set[str], dict[str, float]] | None:
    """The matches with a play task in Redis, read in one MULTI transaction (a retry moving a
    message from ``unacked`` back to the queue is never missed in between): ids waiting in the
    queue, and ids delivered to a worker and not yet acknowledged with the time of delivery.
    None when the broker cannot be reached."""
    try:
        with app.connection_for_write() as conn:
            client = conn.default_channel.client
            pipe = client.pipeline(transaction=True)
            pipe.lrange(app.conf.task_default_queue, 0, -1)
            pipe.hgetall("unacked")
            pipe.zrange("unacked_index", 0, -1, withscores=True)
            queue_raws, unacked_raws, index = pipe.execute()
    except Exception:  # noqa: BLE001 - broker unreachable now: decide on the next sweep
        return None
    queued = {mid for mid in map(_match_of_message, queue_raws) if mid}
    since = {(tag.decode() if isinstance(tag, bytes) else tag): score for tag, score in index}
    unacked: dict[str, float] = {}
    for tag, raw in unacked_raws.items():
        mid = _match_of_message(raw)
        if mid:
            key = tag.decode() if isinstance(tag, bytes) else tag
            unacked[mid] = max(unacked.get(mid, 0.0), since.get(key, time.time()))
    return queued, unacked


QUALIFY_TASK_PREFIX = "qualify-"


def submissions_in_broker() -> set[int] | None:
    """Ids of the submissions with a qualification message in Redis (queued, or delivered and
    not yet acknowledged: a worker is playing it). None when the broker cannot be reached."""
    try:
        with app.connection_for_write() as conn:
            pipe = conn.default_channel.client.pipeline(transaction=True)
            pipe.lrange(app.conf.task_default_queue, 0, -1)
            pipe.hvals("unacked")
            queue_raws, unacked_raws = pipe.execute()
    except Exception:  # noqa: BLE001 - broker unreachable now: look again later
        return None
    held: set[int] = set()
    for raw in [*queue_raws, *unacked_raws]:
        task_id = _task_id_of(raw) or ""
        number = task_id[len(QUALIFY_TASK_PREFIX):].split("-", 1)[0]
        if task_id.startswith(QUALIFY_TASK_PREFIX) and number.isdigit():
            held.add(int(number))
    return held


def match_ids_in_broker() -> set[str] | None:
    """Ids of the matches with a play task in Redis: queued, or delivered and not yet
    acknowledged. None when the broker cannot be reached."""
    snapshot = broker_snapshot()
    if snapshot is None:
        return None
    queued, unacked = snapshot
    return queued | set(unacked)


# --- handing matches out ----------------------------------------------------------------------

_local_pool: ThreadPoolExecutor | None = None
_local_workers = max(1, os.cpu_count() or 1)
_local_submitted: set[str] = set()
_local_lock = threading.Lock()


def set_local_workers(n: int) -> None:
    """How many matches this process plays at once when there is no broker."""
    global _local_pool, _local_workers
    with _local_lock:
        if _local_pool is not None and n != _local_workers:
            _local_pool.shutdown(wait=True)
            _local_pool = None
        _local_workers = max(1, n)


def _run_local(match_id: str) -> None:
    try:
        while True:
            outcome = play_match_now(match_id)
            if outcome.retry_in is None:
                return
            time.sleep(min(outcome.retry_in, 5.0))
    except Exception:  # noqa: BLE001 - keep the pool alive; the sweeper will try again
        log.exception("in-process match %s crashed", match_id)
    finally:
        with _local_lock:
            _local_submitted.discard(match_id)


def enqueue(match_ids: list[str]) -> None:
    """Hand matches to the workers (Redis) or to this process's pool (no broker)."""
    if not match_ids:
        return
    with session_scope() as s:
        s.execute(
            update(Match)
            .where(and_(Match.id.in_(match_ids), Match.status.in_(("pending", "running"))))
            .values(queued_at=utcnow())
            .execution_options(synchronize_session=False)
        )
    if has_broker():
        for mid in match_ids:
            # The task id names the match, so the sweeper can see which matches Redis holds.
            play_match.apply_async(args=[mid], task_id=f"{PLAY_TASK_PREFIX}{mid}-{uuid.uuid4().hex[:8]}")
        return
    global _local_pool
    with _local_lock:
        if _local_pool is None:
            _local_pool = ThreadPoolExecutor(_local_workers, thread_name_prefix="arena-match")
        for mid in match_ids:
            if mid in _local_submitted:
                continue
            _local_submitted.add(mid)
            _local_pool.submit(_run_local, mid)


def cancel_local() -> None:
    """Drop the matches queued in this process (Ctrl+C); the ones being played finish."""
    global _local_pool
    with _local_lock:
        if _local_pool is not None:
            _local_pool.shutdown(wait=False, cancel_futures=True)
            _local_pool = None
        _local_submitted.clear()


def wait_local() -> None:
    """Block until the in-process pool is idle (used by the CLI without a broker)."""
    while True:
        with _local_lock:
            if not _local_submitted:
                return
        time.sleep(0.1)
