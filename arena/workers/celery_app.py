"""The Celery application: Redis from ``ARENA_BROKER_URL``, or in-process without it.

* ``ARENA_BROKER_URL`` (e.g. ``redis://redis:6379/0``) is both the broker and the result
  backend. Without it, :func:`has_broker` is False and :mod:`arena.workers.tasks` runs the very same
  task functions in a thread pool of this process (``task_always_eager`` is set too, so a stray
  ``.delay()`` never tries to reach a broker that is not there).
* At-least-once: ``task_acks_late`` + ``task_reject_on_worker_lost`` — a task is acknowledged
  only after it finished, so a worker killed mid-match leaves its message unacknowledged; Redis
  hands it out again after ``visibility_timeout`` (``ARENA_VISIBILITY_TIMEOUT``, default 1800 s,
  longer than any match, so a slow match is never handed out twice). Much sooner, the match's
  lease runs out and the sweeper re-sends it (:mod:`arena.records.recording`, :func:`arena.workers.tasks.sweep`).
  ``worker_prefetch_multiplier = 1`` so a busy worker does not sit on queued matches that an
  idle one could play.
* Redis restarts: the worker retries the broker connection forever; messages lost with a
  non-persistent Redis are re-sent from the database by the sweeper (``arena.workers.tasks.sweep``,
  run by beat, and by ``arena tournament`` while it waits).
* Beat: ``ladder-tick`` every ``ARENA_LADDER_TICK`` seconds (default 10) and ``sweep`` every
  ``ARENA_SWEEP_EVERY`` seconds (default 15).
* ``ARENA_QUEUE`` names the queue (default ``arena``): deployments or test runs sharing one
  Redis database keep their matches apart. Sweeps and beat's ladder ticks go to a second queue,
  ``<queue>.control`` (:func:`control_queue_name`), which ``arena worker`` consumes *first*
  (``queue_order_strategy = "priority"``, control queue listed first): a free worker takes a
  sweep before any queued match, so recovery never waits behind a long match queue. Every
  worker must consume both queues (``arena worker`` does).
* Two patches of kombu, each a shortcut behind ``ARENA_SHORTCUTS`` with a version gate
  (:mod:`arena.shortcuts`, docs/shortcuts.md; :func:`install_kombu_shortcuts` puts them in
  place, or kombu's own methods back):
  :func:`_patch_kombu_unacked_scripts` (``kombu_unacked_scripts``): kombu books a delivered
  message, and its acknowledgement, in one Redis command each instead of a MULTI/EXEC pipeline;
  :func:`_patch_kombu_restore` (``kombu_restore_fix``, a bug work-around): kombu no longer
  crashes when a worker loses Redis while holding unacknowledged (e.g. countdown) messages.
* Broker failures: ``arena worker`` exits non-zero whenever Celery stops on an unrecoverable
  error (so its supervisor restarts it).
* ``ARENA_EXTRA_GAMES`` (``module:Class,…``) registers extra engines in every process that
  loads this app — the tests use it to give real worker processes the toy game.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from pathlib import Path

from celery import Celery
from celery.signals import worker_process_init, worker_ready, worker_shutdown

from arena import shortcuts

BROKER_ENV = "ARENA_BROKER_URL"
#: The file a worker touches every few seconds while it is connected to the broker: its health
#: check (``celery inspect ping`` fails while a solo worker plays a match; this does not).
HEALTH_FILE_ENV = "ARENA_WORKER_HEALTH_FILE"
DEFAULT_HEALTH_FILE = "/tmp/arena-worker.alive"  # noqa: S108 - a liveness marker, no data
HEALTH_EVERY = 5.0
QUEUE_ENV = "ARENA_QUEUE"
EXTRA_GAMES_ENV = "ARENA_EXTRA_GAMES"


def queue_name() -> str:
    """The Redis queue of this deployment (tests give each run its own, so runs never mix)."""
    return os.environ.get(QUEUE_ENV) or "arena"


def control_queue_name() -> str:
    """The queue of sweeps and ladder ticks, consumed before the match queue."""
    return f"{queue_name()}.control"


def broker_url() -> str | None:
    return os.environ.get(BROKER_ENV) or None


def has_broker() -> bool:
    return broker_url() is not None


def register_extra_games() -> None:
    from referee import registry

    for target in filter(None, (os.environ.get(EXTRA_GAMES_ENV) or "").split(",")):
        module_name, _, attr = target.strip().partition(":")
        registry.register(getattr(importlib.import_module(module_name), attr))


def make_app() -> Celery:
    url = broker_url()
    app = Celery("arena", include=["arena.workers.tasks"])
    app.conf.update(
        broker_url=url or "memory://",
        result_backend=url,
        task_always_eager=url is None,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=queue_name(),
        task_routes={
            "arena.tasks.sweep": {"queue": control_queue_name()},
            "arena.tasks.ladder_tick_all": {"queue": control_queue_name()},
        },
        result_expires=3600,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_transport_options={
            "visibility_timeout": int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", "1800")),
            # Queues are polled in the order the worker lists them (control queue first).
            "queue_order_strategy": "priority",
        },
        worker_hijack_root_logger=False,
        beat_schedule={
            "ladder-tick": {
                "task": "arena.tasks.ladder_tick_all",
                "schedule": float(os.environ.get("ARENA_LADDER_TICK", "10")),
            },
            "sweep": {
                "task": "arena.tasks.sweep",
                "schedule": float(os.environ.get("ARENA_SWEEP_EVERY", "15")),
                "kwargs": {"wait": 0},  # a sweep already running covers this one
                # A sweep not run by then is superseded by the next one: do not pile them up.
                "options": {"expires": float(os.environ.get("ARENA_SWEEP_EVERY", "15"))},
            },
        },
    )
    return app


def _patch_kombu_restore() -> None:
    """Keep a worker alive when Redis dies while it holds unacknowledged messages.

    kombu 5.x (reproduced with 5.7.0): after a lost connection Celery's consumer first
    *collects* the connection (which detaches the transport from it, ``transport.client =
    None``) and then closes it; closing the channel restores the unacknowledged messages
    (countdown/ETA tasks held by the worker), which needs a new Redis client built from
    ``transport.client`` → ``AttributeError: 'NoneType' object has no attribute 'hostname'``.
    That is not a connection error, so it escapes ``ignore_errors`` and Celery stops with
    "Unrecoverable error".

    Upstream: https://github.com/celery/kombu/issues/970 (the same traceback, restore_unacked →
    conn_or_acquire → the connection's hostname; closed for kombu 4.2) and
    https://github.com/celery/kombu/issues/582 (the same AttributeError from a channel closed
    after its connection was detached). Still there in kombu 5.7.0:
    tests/platform/test_resilience.py reproduces it with the work-around off. The shortcut
    ``kombu_restore_fix`` (:mod:`arena.shortcuts`); off, kombu's own method runs, with that
    bug: the worker stops and its supervisor has to restart it.

    The work-around skips the restore when the channel has no connection left, or when Redis
    cannot be reached (it is down: nothing can be written to it anyway), and logs it. Nothing is
    lost: the messages stay in Redis' ``unacked`` hash if Redis kept them (Redis re-delivers
    them after the visibility timeout), and the sweeper re-sends every match whose message is
    gone or stuck (:func:`arena.workers.tasks.sweep`).
    """
    import logging

    import redis
    from kombu.transport import redis as kombu_redis

    original = _kombu_original(kombu_redis.QoS, "restore_unacked")
    log = logging.getLogger("arena.workers.celery_app")

    def restore_unacked(self, client=None):  # noqa: ANN001, ANN202 - kombu's signature
        transport = getattr(self.channel, "connection", None)
        if client is None and (transport is None or getattr(transport, "client", None) is None):
            log.warning("broker connection gone: %d unacknowledged message(s) left to Redis "
                        "and the sweeper", len(self._delivered))
            self._delivered.clear()
            return None
        try:
            return original(self, client)
        except (AttributeError, OSError, redis.exceptions.RedisError) as exc:
            log.warning("could not restore %d unacknowledged message(s) (%r); left to Redis "
                        "and the sweeper", len(self._delivered), exc)
            self._delivered.clear()
            return None

    kombu_redis.QoS.restore_unacked = restore_unacked


# kombu's bookkeeping of a delivered message in one command each (QoS.append, QoS.ack): the
# same keys and values as its MULTI/EXEC pipelines, as atomic. KEYS: the unacked index (a
# sorted set), the unacked hash. ARGV: the delivery tag, then for a delivery its time and the
# message as kombu stores it.
_UNACKED_APPEND = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 0
"""
_UNACKED_ACK = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 0
"""


def _patch_kombu_unacked_scripts() -> None:
    """Book a delivered message and its acknowledgement in one Redis command each.

    With late acknowledgements (a match's message stays "unacked" until it is recorded, so a
    killed worker's match is delivered again) kombu writes each delivery to its ``unacked``
    sorted set and hash, and removes it on ack, each as a MULTI/EXEC pipeline of two commands:
    redis-py packs, sends and parses four commands in Python for each. A server-side script (EVALSHA; EVAL again after a Redis restart
    forgot it) does the same writes, as atomically, in one command. The stored entries are
    kombu's own (its ``restore_unacked`` and visibility-timeout restore read them unchanged).
    Measured between two matches in a worker (A/B, three pairs): 1.09-1.16 → 0.98-1.08 ms of CPU;
    with the direct sends (``redis_direct_scripts``) it saves ~11 % of the platform cost per
    match (docs/shortcuts.md). Off (``kombu_unacked_scripts``), kombu's own methods run.
    """
    from time import time

    from kombu.transport import redis as kombu_redis
    from kombu.transport import virtual
    from kombu.utils.json import dumps

    from arena.workers import redis_script

    _kombu_original(kombu_redis.QoS, "append")
    _kombu_original(kombu_redis.QoS, "ack")
    append_script, ack_script = redis_script.Script(_UNACKED_APPEND), redis_script.Script(_UNACKED_ACK)
    direct = redis_script.direct()

    def _run(self, script, args):  # noqa: ANN001, ANN202 - on the channel's own connection
        keys = (self.unacked_index_key, self.unacked_key)
        if not direct:  # redis-py's own Script object, through the channel's client
            with self.channel.conn_or_acquire() as client:
                return redis_script.call(client, script, keys, args)
        # The script is sent and read directly (arena.workers.redis_script) on a connection of this
        # channel's own, with the settings of its pool (a new one with a new pool, after a
        # reconnection): through the redis-py client each call also checked a connection out of
        # the pool and back and went through the client's wrappers (~50 µs of CPU each).
        pool = self.channel.pool
        kept = self.__dict__.get("_arena_conn")
        if kept is None or kept[0] is not pool:
            if kept is not None:
                kept[1].disconnect()
            kept = self.__dict__["_arena_conn"] = (pool, redis_script.new_connection(pool),
                                                   threading.Lock())
        with kept[2]:
            return redis_script.run_script(kept[1], script, keys, args)

    def append(self, message, delivery_tag):  # noqa: ANN001, ANN202 - kombu's signature
        delivery = message.delivery_info
        stored = dumps([message._raw, delivery["exchange"], delivery["routing_key"]])
        _run(self, append_script, (delivery_tag, time(), stored))
        virtual.QoS.append(self, message, delivery_tag)

    def ack(self, delivery_tag):  # noqa: ANN001, ANN202 - kombu's signature
        _run(self, ack_script, (delivery_tag,))
        virtual.QoS.ack(self, delivery_tag)

    kombu_redis.QoS.append = append
    kombu_redis.QoS.ack = ack


#: kombu's own methods, kept the first time one is replaced (so they can be put back).
_KOMBU_ORIGINALS: dict[tuple[type, str], object] = {}


def _kombu_original(owner: type, name: str) -> object:
    """kombu's own ``owner.name``, remembered before a shortcut replaces it."""
    return _KOMBU_ORIGINALS.setdefault((owner, name), owner.__dict__[name])


def install_kombu_shortcuts() -> None:
    """Replace kombu's methods for the kombu shortcuts that are on, and put kombu's own back
    for those that are off (``ARENA_SHORTCUTS`` and the version gates, :mod:`arena.shortcuts`).
    Run when this module is imported; tests that change the setting run it again. With every
    kombu shortcut off, kombu is left exactly as it is (nothing of it is even imported here)."""
    wanted = {
        _patch_kombu_restore: shortcuts.enabled(shortcuts.KOMBU_RESTORE),
        _patch_kombu_unacked_scripts: shortcuts.enabled(shortcuts.KOMBU_UNACKED_SCRIPTS),
    }
    for (owner, name), original in _KOMBU_ORIGINALS.items():  # kombu's own first
        setattr(owner, name, original)
    for patch, on in wanted.items():
        if on:
            patch()


register_extra_games()
install_kombu_shortcuts()
app = make_app()


@worker_process_init.connect
def _fresh_connections(**_: object) -> None:
    """A forked pool process must not share the parent's database connections."""
    from arena.db import dispose_all

    dispose_all()


def health_file() -> Path:
    return Path(os.environ.get(HEALTH_FILE_ENV) or DEFAULT_HEALTH_FILE)


def worker_healthy(path: Path | None = None, max_age: float = 6 * HEALTH_EVERY) -> bool:
    """The worker's health check: its heartbeat file was touched within ``max_age`` seconds."""
    try:
        return time.time() - (path or health_file()).stat().st_mtime <= max_age
    except OSError:
        return False


class _HealthBeat(threading.Thread):
    """Touches :func:`health_file` every :data:`HEALTH_EVERY` seconds while the worker's
    consumer holds a broker connection — from a thread of its own, so it goes on while the
    (solo) pool plays a match, and stops when the broker is lost or the worker stops."""

    def __init__(self, consumer: object) -> None:
        super().__init__(daemon=True, name="arena-health")
        self.consumer, self.stopped, self.path = consumer, threading.Event(), health_file()

    def run(self) -> None:
        while not self.stopped.is_set():
            connection = getattr(self.consumer, "connection", None)
            if connection is not None and getattr(connection, "connected", False):
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self.path.touch()
                except OSError:
                    pass  # an unwritable path simply makes the check fail
            self.stopped.wait(HEALTH_EVERY)


_health: _HealthBeat | None = None


@worker_ready.connect
def _start_health(sender: object = None, **_: object) -> None:
    global _health
    if _health is None:
        _health = _HealthBeat(sender)
        _health.start()


@worker_shutdown.connect
def _stop_health(**_: object) -> None:
    if _health is not None:
        _health.stopped.set()
        try:
            _health.path.unlink()
        except OSError:
            pass
