"""Live match events: in-process and through Redis, a watcher gets the backlog, then each new
event as it is published, in order, and stops at the end marker."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from arena.workers.live import (
    DELAY_ENV,
    InProcessBus,
    LiveBus,
    RedisBus,
    live_delay,
    publisher,
    viewer,
)
from tests.api.processes import REDIS_URL, redis_available


def _buses() -> list:
    params = [pytest.param(InProcessBus, id="in-process")]
    params.append(
        pytest.param(
            lambda: RedisBus(REDIS_URL), id="redis",
            marks=[pytest.mark.redis, pytest.mark.skipif(not redis_available(), reason="needs Redis")],
        )
    )
    return params


@pytest.mark.parametrize("make_bus", _buses())
def test_watcher_gets_backlog_then_live_events_then_stops(make_bus) -> None:  # noqa: ANN001
    bus: LiveBus = make_bus()
    match_id = uuid.uuid4().hex
    on_event, finish = publisher(match_id, bus)
    on_event({"type": "start"})
    on_event({"type": "decision", "n": 0})  # published before anyone watches: the backlog

    def play() -> None:
        for n in range(1, 6):
            time.sleep(0.05)
            on_event({"type": "decision", "n": n})
        on_event({"type": "end"})
        finish()

    got: list[tuple[float, dict]] = []
    t0 = time.monotonic()
    player = threading.Thread(target=play)
    player.start()
    for event in bus.watch(match_id, poll_s=0.02):
        if event is not None:
            got.append((time.monotonic() - t0, event))
    player.join()
    assert [e["seq"] for _, e in got] == list(range(8))
    assert [e.get("n") for _, e in got if e["type"] == "decision"] == list(range(6))
    # Live, not batched: the last decision arrived well after the first live one.
    assert got[-1][0] - got[2][0] > 0.15
    # A watcher arriving after the end gets everything at once and stops.
    late = [e for e in bus.watch(match_id, poll_s=0.02) if e is not None]
    assert [e["seq"] for e in late] == list(range(8))


@pytest.mark.parametrize("make_bus", _buses())
def test_watcher_of_a_quiet_match_gets_heartbeats(make_bus) -> None:  # noqa: ANN001
    bus: LiveBus = make_bus()
    stream = bus.watch(uuid.uuid4().hex, poll_s=0.01)
    assert [next(stream) for _ in range(3)] == [None, None, None]
    stream.close()


def test_a_broken_bus_never_breaks_the_match() -> None:
    class Down:
        def publish(self, match_id: str, event: dict) -> None:
            raise ConnectionError("broker is down")

    on_event, finish = publisher("m", Down())  # type: ignore[arg-type]
    on_event({"type": "decision"})
    finish()


def test_a_spectating_delay_holds_events_and_boards_back_until_the_end() -> None:
    bus = InProcessBus()
    match_id = uuid.uuid4().hex
    on_event, finish = publisher(match_id, bus, delay_s=0.4)
    on_view = viewer(match_id, bus, delay_s=0.4)
    t0 = time.monotonic()
    on_event({"type": "decision", "n": 0})
    on_view({"board": 0})
    t_board = time.monotonic()
    time.sleep(0.15)
    assert bus.snapshot(match_id) == ([], None)  # nothing yet: spectators are 0.4 s behind
    while not bus.snapshot(match_id)[0]:
        time.sleep(0.02)
    assert time.monotonic() - t0 >= 0.4
    # (The board came a moment after the event: make sure it is 0.4 s old too.)
    time.sleep(max(0.0, t_board + 0.41 - time.monotonic()))
    on_view({"board": 1})  # the first board is old enough now; this one is not
    assert bus.snapshot(match_id)[1] == {"board": 0}
    on_event({"type": "decision", "n": 1})
    finish()
    assert [e["n"] for e in bus.snapshot(match_id)[0]] == [0, 1]
    # The match is over, its record public: what is held goes out at once, however long the delay.
    slow_id = uuid.uuid4().hex
    on_event, finish = publisher(slow_id, bus, delay_s=60)
    on_event({"type": "decision", "n": 0})
    t1 = time.monotonic()
    finish()
    assert [e["n"] for e in bus.snapshot(slow_id)[0]] == [0] and time.monotonic() - t1 < 10


def test_a_delay_that_is_not_a_number_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DELAY_ENV, "two seconds")
    assert live_delay() == 0.0
    monkeypatch.setenv(DELAY_ENV, "2.5")
    assert live_delay() == 2.5
