"""The live feed without Redis: public live events mirrored into the database.

On the embedded default (SQLite, no broker) matches run inside the ``arena serve`` process,
while ``arena web`` is another process: the in-process bus (:class:`arena.workers.live.
InProcessBus`) serves ``WatchMatch`` from memory, but the website cannot see that memory. So a
match's feed (:func:`arena.workers.live.feed_bus`) publishes each batch both to memory and, in
one short transaction, to the ``live_events`` / ``live_boards`` tables of the database the match
is recorded in; the site reads them (:func:`read_snapshot`). The same works with PostgreSQL and
no Redis, and with several processes running matches.

The tables carry exactly what the bus carries: the batches :class:`arena.workers.live.MatchFeed`
sends, which are already delayed by ``ARENA_LIVE_DELAY_S`` and hold public lines only (no bot
comments, no per-decision times, forfeit messages as their reason's standard words). A match's
rows go when its end marker is written (the record, seed included, is public then); a new run of
a match (``seq`` 0 again, after a worker died) replaces the old run's rows, and rows a crash left
behind are pruned after :data:`STALE_AFTER_S` when any match starts.

Publishing never breaks a match: a write that fails (the database busy past its timeout) is kept
and written with the match's next batch.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from arena.db import get_engine
from arena.db.live_tables import LiveBoard, LiveEvent
from arena.workers.live_memory import BACKLOG_TTL_S, InProcessBus, _dumps

log = logging.getLogger(__name__)

#: Rows older than this (unix seconds) belong to a match whose process died: pruned.
STALE_AFTER_S = BACKLOG_TTL_S
#: At most this many events wait for a database that keeps failing (then the oldest go).
PENDING_MAX = 5000

_events = LiveEvent.__table__
_boards = LiveBoard.__table__


class _Pending:
    __slots__ = ("events", "view")

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None


class TableBus:
    """The in-process bus, each batch also written to the database at ``url``."""

    def __init__(self, url: str, memory: InProcessBus) -> None:
        self.url = url
        self.memory = memory
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()

    def publish(self, match_id: str, event: dict[str, Any]) -> None:
        self.publish_batch(match_id, [event], None)

    def put_view(self, match_id: str, view: dict[str, Any]) -> None:
        self.publish_batch(match_id, [], view)

    def publish_batch(self, match_id: str, events: list[dict[str, Any]], view: dict[str, Any] | None) -> None:
        """Memory first (WatchMatch in this process), then the tables. One match's batches come
        in order (its :class:`MatchFeed` sends under its lock); matches write independently."""
        if view is not None:
            self.memory.put_view(match_id, view)
        for event in events:
            self.memory.publish(match_id, event)
        with self._lock:  # what an earlier batch of this match failed to write goes first
            held = self._pending.pop(match_id, None)
        if held is not None and not any(e.get("seq") == 0 for e in events):  # else a new run
            events = held.events + events
            view = view if view is not None else held.view
        if not events and view is None:
            return
        try:
            with get_engine(self.url).begin() as conn:
                write_batch(conn, match_id, events, view)
        except Exception:  # noqa: BLE001 - see the module docstring: kept for the next batch
            log.warning("live events of match %s not written yet", match_id, exc_info=True)
            kept = _Pending()
            kept.events, kept.view = events[-PENDING_MAX:], view
            with self._lock:
                self._pending[match_id] = kept

    def snapshot(self, match_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        return self.memory.snapshot(match_id)

    def watch(self, match_id: str, poll_s: float = 0.5) -> Iterator[dict[str, Any] | None]:
        return self.memory.watch(match_id, poll_s)


def write_batch(conn: Connection, match_id: str, events: list[dict[str, Any]], view: dict[str, Any] | None) -> None:
    """One batch of a match's feed, in the caller's transaction: the end marker removes the
    match's rows, a ``seq`` 0 event (a run starting) replaces them, others are appended."""
    if any(e.get("end") for e in events):
        conn.execute(delete(_events).where(_events.c.match_id == match_id))
        conn.execute(delete(_boards).where(_boards.c.match_id == match_id))
        return
    now = time.time()
    if any(e.get("seq") == 0 for e in events):
        conn.execute(delete(_events).where(_events.c.match_id == match_id))
        conn.execute(delete(_boards).where(_boards.c.match_id == match_id))
        stale = now - STALE_AFTER_S
        conn.execute(delete(_events).where(_events.c.written_at < stale))
        conn.execute(delete(_boards).where(_boards.c.written_at < stale))
    if events:
        conn.execute(insert(_events), [
            {"match_id": match_id, "seq": int(e["seq"]), "body": _text(e), "written_at": now} for e in events
        ])
    if view is not None:
        conn.execute(delete(_boards).where(_boards.c.match_id == match_id))
        conn.execute(insert(_boards), {"match_id": match_id, "body": _text(view), "written_at": now})


def read_snapshot(conn: Connection, match_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A running match's public events so far (in order) and its newest public board."""
    rows = conn.execute(select(_events.c.body).where(_events.c.match_id == match_id)
                        .order_by(_events.c.seq)).scalars().all()
    board = conn.execute(select(_boards.c.body).where(_boards.c.match_id == match_id)).scalar()
    return [json.loads(r) for r in rows], (json.loads(board) if board else None)


def _text(value: dict[str, Any]) -> str:
    raw = _dumps(value)
    return raw.decode() if isinstance(raw, bytes) else raw


_buses: dict[str, TableBus] = {}
_buses_lock = threading.Lock()


def table_bus(url: str, memory: InProcessBus) -> TableBus:
    """The process's table bus for the database at ``url``."""
    with _buses_lock:
        bus = _buses.get(url)
        if bus is None:
            bus = _buses[url] = TableBus(url, memory)
        return bus
