"""Live match events: the match runner publishes each decision, watchers stream them.

A match may run in a Celery worker on another machine while the watcher's stream is served by
the Arena server, so with a broker (``ARENA_BROKER_URL=redis://...``) events go through Redis:
each event is appended to a per-match list (so a watcher who joins late gets the backlog) and
announced on a pub/sub channel (so it arrives as it happens; a batch of events is one message,
a JSON array). Without a broker the matches run in the process that asked for them (``arena
serve``): an in-memory feed serves its watchers, and :func:`feed_bus` also writes each batch to
the database for a website in another process (:mod:`arena.workers.live_table`).

An event is a JSON-ready dict with a ``seq`` number; the end of a match is a final
``{"end": true}`` marker, after which the watcher fetches the full record from the database.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from arena.workers import redis_script
from arena.workers.live_memory import (  # noqa: F401 - the feed's names, as before
    BACKLOG_TTL_S,
    END,
    InProcessBus,
    LiveBus,
    _dumps,
    _Feed,
)
from referee.faults import REASONS

log = logging.getLogger(__name__)

BROKER_ENV = "ARENA_BROKER_URL"
#: Spectators see a running match this many seconds late (see :func:`live_delay`).
DELAY_ENV = "ARENA_LIVE_DELAY_S"
# KEYS: the backlog list, the channel, the view key. ARGV: the view's JSON ('' for none), the
# keys' time to live in seconds, then each event. The batch's pub/sub message is the event when
# there is one, else the JSON array of them, joined here: sending it beside the events, as it
# was, sent every event's bytes twice (~8 kB of a match's last batch of ~25 kB). EVALSHA, and
# EVAL again after a Redis restart forgot the script (arena.workers.redis_script).
_PUBLISH_BATCH = """
if ARGV[1] ~= '' then redis.call('SET', KEYS[3], ARGV[1], 'EX', ARGV[2]) end
if #ARGV > 2 then
  redis.call('RPUSH', KEYS[1], unpack(ARGV, 3))
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  if #ARGV == 3 then
    redis.call('PUBLISH', KEYS[2], ARGV[3])
  else
    redis.call('PUBLISH', KEYS[2], '[' .. table.concat(ARGV, ',', 3) .. ']')
  end
end
return 0
"""


_PUBLISH_BATCH_SCRIPT = redis_script.Script(_PUBLISH_BATCH)


class RedisBus:
    """Events through Redis: a list per match for the backlog (one entry per event), a channel
    for new events (one message per batch: an event, or a JSON array of events)."""

    def __init__(self, url: str) -> None:
        import redis

        self._redis = redis.Redis.from_url(url)
        self._own = threading.local()  # each publishing thread's connection (publish_batch)

    @staticmethod
    def _keys(match_id: str) -> tuple[str, str]:
        return f"arena:live:{match_id}:events", f"arena:live:{match_id}"

    @staticmethod
    def _view_key(match_id: str) -> str:
        return f"arena:live:{match_id}:view"

    def put_view(self, match_id: str, view: dict[str, Any]) -> None:
        """Keep the newest public board of the match (one key, overwritten)."""
        self._redis.set(self._view_key(match_id), json.dumps(view, separators=(",", ":")),
                        ex=BACKLOG_TTL_S)

    def snapshot(self, match_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The events so far and the newest public board, without waiting."""
        backlog, _ = self._keys(match_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.lrange(backlog, 0, -1)
        pipe.get(self._view_key(match_id))
        raw_events, raw_view = pipe.execute()
        events = [e for e in (json.loads(r) for r in raw_events) if not e.get("end")]
        return events, (json.loads(raw_view) if raw_view else None)

    def publish(self, match_id: str, event: dict[str, Any]) -> None:
        self.publish_many(match_id, [event])

    def publish_many(self, match_id: str, events: list[dict[str, Any]]) -> None:
        """Several events in one round trip (the backlog first, then one message for them all)."""
        self.publish_batch(match_id, events, None)

    def publish_batch(
        self, match_id: str, events: list[dict[str, Any]], view: dict[str, Any] | None
    ) -> None:
        """Events and the newest public board in one command (:data:`_PUBLISH_BATCH`, a
        server-side script): as a pipeline of its four commands it cost the worker ~1.8 times
        the CPU (redis-py packs, sends and parses each command in Python): ~157 µs a batch
        against ~86 µs, measured in one process."""
        backlog, channel = self._keys(match_id)
        # One message for the batch (a JSON array when there are several, joined by the
        # script): a command per event cost the worker more CPU than the events themselves.
        self._run_publish_batch((backlog, channel, self._view_key(match_id)),
                                (b"" if view is None else _dumps(view), BACKLOG_TTL_S,
                                 *[_dumps(event) for event in events]))

    def _run_publish_batch(self, keys: tuple, args: tuple) -> None:
        """:data:`_PUBLISH_BATCH` on this thread's own connection to Redis, sent and read
        directly (:func:`arena.workers.redis_script.run_script`): through redis-py's client the same
        command cost ~1.7× the CPU (a connection checked out of its pool and back, its command
        wrapper, metrics hooks and argument checks, per batch)."""
        if not redis_script.direct():  # the public path: redis-py's Script, through the client
            redis_script.call(self._redis, _PUBLISH_BATCH_SCRIPT, keys, args)
            return
        own = self._own
        conn = getattr(own, "conn", None)
        if conn is None or own.pid != os.getpid():  # first use in this thread, or a forked child
            conn = own.conn = redis_script.new_connection(self._redis.connection_pool)
            own.pid = os.getpid()
        redis_script.run_script(conn, _PUBLISH_BATCH_SCRIPT, keys, args)

    def watch(self, match_id: str, poll_s: float = 0.5) -> Iterator[dict[str, Any] | None]:
        backlog, channel = self._keys(match_id)
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        # Subscribe before reading the backlog so nothing published in between is lost;
        # duplicates are dropped by sequence number.
        pubsub.subscribe(channel)
        try:
            next_seq = 0
            for raw in self._redis.lrange(backlog, 0, -1):
                event = json.loads(raw)
                if event.get("end"):
                    return
                if event.get("seq", next_seq) >= next_seq:
                    next_seq = int(event.get("seq", next_seq)) + 1
                    yield event
            while True:
                message = pubsub.get_message(timeout=poll_s)
                if message is None:
                    yield None
                    continue
                data = json.loads(message["data"])
                for event in data if isinstance(data, list) else (data,):
                    if event.get("end"):
                        return
                    seq = int(event.get("seq", next_seq))
                    if seq < next_seq:
                        continue
                    if seq > next_seq:
                        # Missed some (a reconnect): catch up from the backlog.
                        for raw in self._redis.lrange(backlog, next_seq, seq - 1):
                            yield json.loads(raw)
                    next_seq = seq + 1
                    yield event
        finally:
            pubsub.close()


_in_process = InProcessBus()
_buses: dict[str, RedisBus] = {}
_buses_lock = threading.Lock()


def get_bus(url: str | None = None) -> LiveBus:
    """The bus for this deployment: Redis when the broker URL is a Redis URL, else in-process."""
    url = url if url is not None else os.environ.get(BROKER_ENV, "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        with _buses_lock:
            if url not in _buses:
                _buses[url] = RedisBus(url)
            return _buses[url]
    return _in_process


def feed_bus() -> LiveBus:
    """The bus a match's feed publishes to: Redis with a broker; else this process's memory
    (``WatchMatch`` here) mirrored into the tables of the match's database, which a website in
    another process reads (:mod:`arena.workers.live_table`: the embedded default runs matches in
    ``arena serve`` and the site in ``arena web``)."""
    bus = get_bus()
    if bus is not _in_process:
        return bus
    from arena.db import database_url
    from arena.workers.live_table import table_bus

    return table_bus(database_url(), _in_process)


def live_delay() -> float:
    """Seconds by which spectators see a running match late (``ARENA_LIVE_DELAY_S``, default 0).

    Live events carry public information only, so the delay is not what keeps hands hidden; it
    keeps a human watcher from relaying the play to a bot in real time. A value that is not a
    number of seconds is ignored with a warning (a typo must not stop the workers).
    """
    raw = os.environ.get(DELAY_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else 0.0
    except ValueError:
        log.warning("%s=%r is not a number of seconds; live events are not delayed", DELAY_ENV, raw)
        return 0.0


def publisher(
    match_id: str, bus: LiveBus | None = None, delay_s: float | None = None
) -> tuple[Callable[[dict[str, Any]], None], Callable[..., None]]:
    """An ``on_event`` callback for ``run_match`` that numbers events, and a ``finish`` to call
    at the end (:func:`match_feed` without the board)."""
    feed = match_feed(match_id, bus, delay_s)
    return feed.on_event, feed.finish


#: What the referee's live events carry for its local caller (``arena play`` prints it) but a
#: platform's watchers get only with the record: each seat's start-up time is a number the bot
#: chooses, so a message to a colluding seat still playing. For the same reason a forfeit's
#: message, which may quote the bot's own words (an illegal answer, its error text), goes out
#: as its reason's standard words (``referee.faults.REASONS``). Decision events already leave
#: out times and, unless the tournament allows them, comments (referee.match.live_decision).
_WITHHELD: dict[Any, tuple[str, ...]] = {"ready": ("ready_ms",)}


class MatchFeed:
    """A running match's live events and public board (``on_event``, ``on_view`` for
    ``run_match``; ``finish`` at the end), published by the process's one sender thread.

    The sender publishes whatever a match has queued up — events, and the newest board — in
    one round trip, at most every :data:`_SEND_EVERY_S` (0.05 s) per match: the match loop
    never waits on the broker, and a fast match costs a few round trips rather than one per
    decision and one per board (each decision used to wake a sender and cost the worker
    ~0.3 ms of CPU beside the match, and each board a round trip inside the match loop: on a
    busy machine that is a core's share another worker could have had). One sender thread
    serves every match of the process, so a match neither starts nor joins a thread (each a
    wait for the scheduler on a loaded machine). Watchers see each decision within 0.05 s — or
    ``delay_s`` (default :func:`live_delay`) later — without what :data:`_WITHHELD` names. ``finish`` sends whatever is held at once
    from the caller's thread, with the end marker in the same round trip, since the full
    record is public then. Publishing must never break a match: a broker hiccup loses live
    events (the record is still stored), it does not forfeit anyone.
    """

    def __init__(self, match_id: str, bus: LiveBus | None = None, delay_s: float | None = None) -> None:
        self.match_id = match_id
        self.bus = bus or feed_bus()
        self.delay = live_delay() if delay_s is None else delay_s
        self.seq = 0
        self.incoming: deque[tuple[bool, float, dict[str, Any]]] = deque()  # (is_view, when, item)
        self.events: deque[tuple[float, dict[str, Any]]] = deque()
        self.views: deque[tuple[float, dict[str, Any]]] = deque()
        self.last_send = float("-inf")
        self.closed = False
        # Held while taking items and sending them: batches leave in order, and the final
        # flush waits for a send under way (never for a thread to be scheduled).
        self.send_lock = threading.Lock()
        _sender.add(self)

    def on_event(self, event: dict[str, Any]) -> None:
        idle = self._idle()
        public = {**event, "seq": self.seq}
        kind = event.get("type")
        if kind == "forfeit":  # the reason's standard words, not the bot's (see _WITHHELD)
            public["message"] = REASONS.get(str(event.get("reason")), str(event.get("reason")))
        for key in _WITHHELD.get(kind, ()):
            public.pop(key, None)
        self.incoming.append((False, time.monotonic(), public))
        self.seq += 1
        if idle:
            _sender.wake()

    def on_view(self, view: dict[str, Any]) -> None:
        idle = self._idle()
        self.incoming.append((True, time.monotonic(), view))
        if idle:
            _sender.wake()

    def finish(self, end: bool = True) -> None:
        """Send what is held and stop; ``end=False`` when the match did not finish (it will be
        played again), so watchers keep waiting instead of seeing an end marker."""
        with self.send_lock:
            self.closed = True
            self._take()
            batch = [e for _, e in self.events]
            if end:
                batch.append({**END, "seq": self.seq})
            view = self.views[-1][1] if self.views else None
            self.events.clear()
            self.views.clear()
            if batch or view is not None:
                self._send(batch, view)
        _sender.remove(self)

    def pump(self, now: float) -> float | None:
        """Send what is due (sender thread); when the next item falls due, None if none held."""
        with self.send_lock:
            if self.closed:
                return None
            self._take()
            if not self.events and not self.views:
                return None
            oldest = min(q[0][0] for q in (self.events, self.views) if q)
            due_at = max(oldest + self.delay, self.last_send + _SEND_EVERY_S)
            if due_at > now:
                return due_at
            batch = []
            while self.events and self.events[0][0] + self.delay <= now:
                batch.append(self.events.popleft()[1])
            view = None
            while self.views and self.views[0][0] + self.delay <= now:
                view = self.views.popleft()[1]  # only the newest board that is old enough
            self._send(batch, view)
            self.last_send = time.monotonic()
            held = [q[0][0] for q in (self.events, self.views) if q]
            return max(min(held) + self.delay, self.last_send + _SEND_EVERY_S) if held else None

    def _idle(self) -> bool:
        """Nothing held: the sender is not timing a send of this feed, so a new item wakes it
        (otherwise it is sent with the batch already due — no wake-up per event)."""
        return not self.incoming and not self.events and not self.views

    def _take(self) -> None:
        while self.incoming:
            is_view, when, item = self.incoming.popleft()
            (self.views if is_view else self.events).append((when, item))

    def _send(self, events: list[dict[str, Any]], view: dict[str, Any] | None) -> None:
        bus = self.bus
        try:
            batch = getattr(bus, "publish_batch", None)
            if batch is not None:
                for start in range(0, max(1, len(events)), _BATCH_MAX):
                    batch(self.match_id, events[start:start + _BATCH_MAX], view)
                    view = None
                return
            if view is not None:
                put = getattr(bus, "put_view", None)
                if put is not None:
                    put(self.match_id, view)
            many = getattr(bus, "publish_many", None)
            for start in range(0, len(events), _BATCH_MAX):
                if many is not None:
                    many(self.match_id, events[start:start + _BATCH_MAX])
                else:
                    for event in events[start:start + _BATCH_MAX]:
                        bus.publish(self.match_id, event)
        except Exception:  # noqa: BLE001 - see the class docstring
            pass


class _Sender:
    """The process's one live sender thread: sends each open feed's due items, sleeps until
    the next falls due (or until an idle feed gets an item). A forked process starts its own."""

    def __init__(self) -> None:
        self._feeds: set[MatchFeed] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._pid: int | None = None

    def add(self, feed: MatchFeed) -> None:
        with self._lock:
            self._feeds.add(feed)
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._wake = threading.Event()
                threading.Thread(target=self._run, args=(self._wake,), daemon=True,
                                 name="arena-live").start()

    def remove(self, feed: MatchFeed) -> None:
        with self._lock:
            self._feeds.discard(feed)

    def wake(self) -> None:
        self._wake.set()

    def _run(self, wake: threading.Event) -> None:
        while True:
            with self._lock:
                feeds = list(self._feeds)
            now = time.monotonic()
            next_due: float | None = None
            for feed in feeds:
                try:
                    due = feed.pump(now)
                except Exception:  # noqa: BLE001 - one feed's trouble never stops the others
                    log.warning("live feed of match %s failed", feed.match_id, exc_info=True)
                    due = None
                if due is not None and (next_due is None or due < next_due):
                    next_due = due
            timeout = None if next_due is None else max(0.001, next_due - time.monotonic())
            wake.wait(timeout)
            wake.clear()


_sender = _Sender()


def match_feed(match_id: str, bus: LiveBus | None = None, delay_s: float | None = None) -> MatchFeed:
    """The live feed of one match (see :class:`MatchFeed`): what a worker hands ``run_match``."""
    return MatchFeed(match_id, bus, delay_s)


def viewer(match_id: str, bus: LiveBus | None = None, delay_s: float | None = None) -> Callable[[dict[str, Any]], None]:
    """An ``on_view`` callback for ``run_match``: keeps the match's newest public board on the
    bus for live pages (the runner calls it a few times a second at most), ``delay_s`` (default
    :func:`live_delay`) late: each call publishes the newest board that is old enough."""
    bus = bus or feed_bus()
    delay = live_delay() if delay_s is None else delay_s
    held: deque[tuple[float, dict[str, Any]]] = deque()

    def on_view(view: dict[str, Any]) -> None:
        put = getattr(bus, "put_view", None)
        if put is None:
            return
        now = time.monotonic()
        held.append((now, view))
        due = None
        while held and held[0][0] + delay <= now:
            due = held.popleft()[1]
        if due is not None:
            put(match_id, due)

    return on_view


#: How often a sender holding delayed events looks at the clock (and at new events).
_DELAY_TICK_S = 0.05
#: At most this many events per round trip, so a watcher never waits on a huge batch.
_BATCH_MAX = 64
#: The sender publishes at most this often while a match runs (its events are batched).
_SEND_EVERY_S = 0.05
#: How long ``finish`` waits for queued events to go out before sending the end marker.
_FLUSH_TIMEOUT_S = 10.0
