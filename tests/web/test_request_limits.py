"""web.request_limits: one visitor cannot hold the replay endpoints (which run the engine on a
posted record) against everyone else — per-client buckets, and a process-wide slot count."""

from __future__ import annotations

import copy
import threading

import pytest
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from arena.db import Match, session_scope
from web.request_limits import ReplayLimits

BURST = 5


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_refuses_with_retry_after() -> None:
    clock = FakeClock()
    limits = ReplayLimits(at_once=2, per_minute=60, burst=3, clock=clock)
    for _ in range(3):
        with limits.replay("addr:198.51.100.7"):
            pass
    with pytest.raises(TooManyRequests) as refused, limits.replay("addr:198.51.100.7"):
        pass
    assert refused.value.retry_after == 1
    # another client is not charged for the first one's requests
    with limits.replay("addr:198.51.100.8"):
        pass
    clock.now += 1.0  # one token a second
    with limits.replay("addr:198.51.100.7"):
        pass


def test_slots_are_shared_by_every_client(monkeypatch) -> None:
    monkeypatch.setattr("web.request_limits.WAIT_FOR_A_SLOT_S", 0.05)
    limits = ReplayLimits(at_once=1, per_minute=600, burst=10)
    inside, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with limits.replay("addr:203.0.113.1"):
            inside.set()
            leave.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(5)
        with pytest.raises(ServiceUnavailable), limits.replay("addr:203.0.113.2"):
            pass
    finally:
        leave.set()
        holder.join()
    with limits.replay("addr:203.0.113.2"):
        pass


def test_the_endpoint_answers_429_with_retry_after_past_the_burst(client, site, monkeypatch) -> None:
    # A slow refill, so the refusal does not depend on how fast this machine answers.
    monkeypatch.setattr("web.local_replay.REPLAYS", ReplayLimits(at_once=2, per_minute=1, burst=BURST))
    url, seeded = site
    with session_scope(url) as s:
        record = copy.deepcopy(s.get(Match, seeded.match_ids[0]).record)
    codes = []
    for _ in range(BURST + 1):
        response = client.post("/replay/step", json={"record": record, "step": 0})
        codes.append(response.status_code)
    assert codes[:BURST] == [200] * BURST
    assert codes[-1] == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert "too many replay requests" in response.get_json()["message"]
    # another address (as a trusted proxy would name it) is not refused
    other = client.post("/replay/step", json={"record": record, "step": 0},
                        environ_base={"REMOTE_ADDR": "192.0.2.44"})
    assert other.status_code == 200
