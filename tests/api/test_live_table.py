"""The live feed without Redis (arena.workers.live_table, issue 27): each batch a match's feed
sends goes to memory (WatchMatch in this process) and to the database (a website in another
process), the same content in both — delayed, public only — and the rows go at the match's end."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.db import LiveBoard, LiveEvent, dispose_all, get_engine
from arena.db.session import DATABASE_ENV
from arena.workers import live_table
from arena.workers.live import BROKER_ENV, InProcessBus, feed_bus, get_bus, match_feed
from arena.workers.live_table import TableBus, read_snapshot


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    get_engine(url)
    yield url
    dispose_all()


def _table(url: str, match_id: str) -> tuple[list[dict], dict | None]:
    with get_engine(url).connect() as conn:
        return read_snapshot(conn, match_id)


def _rows(url: str) -> tuple[int, int]:
    with get_engine(url).connect() as conn:
        return (conn.scalar(select(func.count()).select_from(LiveEvent)),
                conn.scalar(select(func.count()).select_from(LiveBoard)))


def test_without_a_broker_a_feed_writes_the_database_it_records_in(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BROKER_ENV, raising=False)
    monkeypatch.setenv(DATABASE_ENV, url)
    bus = feed_bus()
    assert isinstance(bus, TableBus) and bus.url == url and bus.memory is get_bus()
    monkeypatch.setenv(BROKER_ENV, "redis://127.0.0.1:1/0")
    assert feed_bus() is get_bus()  # with Redis: as before, no table


def test_the_table_holds_what_watchers_get_late_and_public_only(url: str) -> None:
    memory = InProcessBus()
    match_id = uuid.uuid4().hex
    feed = match_feed(match_id, TableBus(url, memory), delay_s=0.5)
    feed.on_event({"type": "ready", "ready_ms": [12, 7]})  # a number a bot chooses: withheld
    feed.on_event({"type": "decision", "n": 0, "seat": 0, "option": "a", "events": ["P1 plays"]})
    feed.on_event({"type": "forfeit", "seat": 1, "reason": "illegal", "message": "psst: seat 0 holds 3 aces"})
    feed.on_view({"board": 1})
    time.sleep(0.2)
    assert _table(url, match_id) == ([], None), "not before ARENA_LIVE_DELAY_S has passed"
    deadline = time.monotonic() + 10
    while len(_table(url, match_id)[0]) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    events, view = _table(url, match_id)
    assert (events, view) == memory.snapshot(match_id)  # exactly what WatchMatch streams
    assert [e["seq"] for e in events] == [0, 1, 2] and view == {"board": 1}
    assert "ready_ms" not in events[0] and "aces" not in str(events)
    feed.finish()
    assert _rows(url) == (0, 0), "pruned at the end: the record is public then"


def test_a_new_run_of_a_match_replaces_the_rows_of_the_one_that_died(url: str) -> None:
    match_id = uuid.uuid4().hex
    first = match_feed(match_id, TableBus(url, InProcessBus()), delay_s=0)
    for n in range(5):
        first.on_event({"type": "decision", "n": n})
    first.on_view({"board": "old"})
    first.finish(end=False)  # the worker failed: the match will be played again
    assert len(_table(url, match_id)[0]) == 5
    again = match_feed(match_id, TableBus(url, InProcessBus()), delay_s=0)
    again.on_event({"type": "start"})
    again.finish(end=False)
    assert _table(url, match_id) == ([{"type": "start", "seq": 0}], None)


def test_a_failed_write_is_kept_for_the_next_batch(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real, calls = live_table.write_batch, []

    def flaky(conn, match_id, events, view) -> None:  # noqa: ANN001
        calls.append(len(events))
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        real(conn, match_id, events, view)

    monkeypatch.setattr(live_table, "write_batch", flaky)
    bus, match_id = TableBus(url, InProcessBus()), uuid.uuid4().hex
    bus.publish_batch(match_id, [{"type": "start", "seq": 0}], {"board": 1})
    assert _table(url, match_id) == ([], None)
    bus.publish_batch(match_id, [{"type": "decision", "seq": 1}], None)
    assert calls == [1, 2]
    assert _table(url, match_id) == ([{"type": "start", "seq": 0}, {"type": "decision", "seq": 1}], {"board": 1})
