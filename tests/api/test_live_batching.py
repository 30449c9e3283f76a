"""Live events of a running match go out in batches: a few round trips per match, not one per
decision, with the newest public board in the same round trip and the end marker in the last."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest

from arena.workers.live import RedisBus, match_feed
from tests.api.processes import REDIS_URL, redis_available


class _CountingBus:
    """Records every round trip the feed makes."""

    def __init__(self) -> None:
        self.trips: list[tuple[list[dict[str, Any]], dict[str, Any] | None]] = []
        self.lock = threading.Lock()

    def publish(self, match_id: str, event: dict[str, Any]) -> None:  # pragma: no cover - unused
        raise AssertionError("publish_batch is used when the bus has it")

    def publish_batch(self, match_id: str, events: list[dict[str, Any]],
                      view: dict[str, Any] | None) -> None:
        with self.lock:
            self.trips.append((list(events), view))


def test_a_fast_match_costs_a_few_round_trips_in_order_with_the_end_marker_last() -> None:
    bus = _CountingBus()
    feed = match_feed(uuid.uuid4().hex, bus, delay_s=0)  # type: ignore[arg-type]
    feed.on_view({"board": "start"})
    for n in range(50):  # a fast match: every decision within a few milliseconds
        feed.on_event({"type": "decision", "n": n})
    feed.on_view({"board": "end"})
    feed.finish()
    events = [e for batch, _ in bus.trips for e in batch]
    assert [e["seq"] for e in events] == list(range(51))
    assert events[-1] == {"end": True, "seq": 50}
    assert [e["n"] for e in events[:-1]] == list(range(50))
    assert len(bus.trips) <= 3  # was 51 (one per event) plus one per board
    assert [v for _, v in bus.trips if v is not None][-1] == {"board": "end"}


def test_events_of_a_longer_match_go_out_every_twentieth_of_a_second_not_every_decision() -> None:
    bus = _CountingBus()
    feed = match_feed(uuid.uuid4().hex, bus, delay_s=0)  # type: ignore[arg-type]
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < 0.5:
        feed.on_event({"type": "decision", "n": n})
        n += 1
        time.sleep(0.005)
    feed.finish()
    assert [e["seq"] for batch, _ in bus.trips for e in batch] == list(range(n + 1))
    # 0.5 s at most one round trip per 0.05 s (the first event goes at once): ~11, never ~n.
    assert n > 13 and len(bus.trips) <= 13


def test_a_match_that_did_not_finish_sends_no_end_marker() -> None:
    bus = _CountingBus()
    feed = match_feed(uuid.uuid4().hex, bus, delay_s=0)  # type: ignore[arg-type]
    feed.on_event({"type": "decision", "n": 0})
    feed.finish(end=False)
    assert [e for batch, _ in bus.trips for e in batch] == [{"type": "decision", "n": 0, "seq": 0}]


@pytest.mark.redis
@pytest.mark.skipif(not redis_available(), reason="needs Redis")
@pytest.mark.usefixtures("shortcut_setting")
def test_through_redis_the_batch_lands_as_backlog_board_and_end() -> None:
    bus = RedisBus(REDIS_URL)
    match_id = uuid.uuid4().hex
    feed = match_feed(match_id, bus, delay_s=0)
    feed.on_view({"board": [1, 2, 3], "names": {"1": "é"}})
    for n in range(10):
        feed.on_event({"type": "decision", "n": n})
    feed.finish()
    events, view = bus.snapshot(match_id)
    assert [e["n"] for e in events] == list(range(10))
    assert view == {"board": [1, 2, 3], "names": {"1": "é"}}
    assert [e for e in bus.watch(match_id, poll_s=0.01) if e is not None] == events


@pytest.mark.skipif(not redis_available(), reason="needs Redis")
@pytest.mark.usefixtures("shortcut_setting")
def test_through_redis_a_batch_still_lands_after_redis_forgot_the_script() -> None:
    # A batch is one server-side script (RedisBus.publish_batch); a restarted Redis has
    # forgotten it, and the next batch must load it again rather than be lost.
    bus = RedisBus(REDIS_URL)
    match_id = uuid.uuid4().hex
    bus.publish_batch(match_id, [{"n": 0}], None)
    bus._redis.script_flush()
    bus.publish_batch(match_id, [{"n": 1}, {"n": 2}], {"board": "b"})
    bus.publish_batch(match_id, [], {"board": "c"})  # a board alone
    events, view = bus.snapshot(match_id)
    assert [e["n"] for e in events] == [0, 1, 2] and view == {"board": "c"}
    assert bus._redis.ttl(f"arena:live:{match_id}:events") > 3600
