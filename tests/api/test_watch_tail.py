"""WatchMatch's last events: the worker stores the record *before* it sends the decisions it
still holds and the end marker (arena.workers.tasks: ``end_live()`` after the store), so a
watcher that stopped at the first database check saying "done" lost the match's last decisions
(seen in CI: a loaded host's stream ended at decision 10 of 12). The stream reads on for the end
marker after the status says the match is over, and gives up after END_GRACE_S when no marker
comes (a killed worker)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest

from arena.server import watch as watch_module
from arena.workers.live import InProcessBus, publisher
from referee._proto import arena_pb2 as pb


class _Context:
    def is_active(self) -> bool:
        return True


@pytest.fixture
def stored_early(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The match's status as the database would answer it (set by the test), without a
    database: only the stream's order of reads is under test here."""
    status: dict[str, Any] = {"now": "running"}
    asked = threading.Event()

    def answer(url: str | None, match_id: str) -> str:
        asked.set()
        return status["now"]

    monkeypatch.setattr(watch_module, "_status", answer)
    monkeypatch.setattr(watch_module, "_record_event", lambda url, match_id: pb.MatchEvent(
        kind=pb.MATCH_EVENT_KIND_RECORD, record_json="{}"))
    monkeypatch.setattr(watch_module.results, "resolve_match_id", lambda s, match_id: match_id)
    monkeypatch.setattr(watch_module, "STATUS_POLL_S", 0.05)
    status["asked"] = asked
    return status


def test_the_decisions_sent_after_the_record_was_stored_still_reach_the_watcher(stored_early) -> None:  # noqa: ANN001
    bus = InProcessBus()
    match_id = uuid.uuid4().hex
    on_event, finish = publisher(match_id, bus, delay_s=0.0)
    on_event({"type": "start"})

    def play() -> None:
        for n in range(3):
            on_event({"type": "decision", "n": n})
        stored_early["asked"].wait(30)  # the watcher is streaming (a loaded host starts it late)
        time.sleep(0.3)
        stored_early["now"] = "done"  # the record is stored ...
        time.sleep(0.6)  # ... and the watcher has checked the status since
        for n in range(3, 5):  # the decisions the feed still held, then the end marker
            on_event({"type": "decision", "n": n})
        on_event({"type": "end"})
        finish()

    player = threading.Thread(target=play)
    player.start()
    events = list(watch_module.watch(None, bus, match_id, _Context()))
    player.join()
    live = [json.loads(e.event_json) for e in events if e.kind == pb.MATCH_EVENT_KIND_LIVE]
    assert [e["n"] for e in live if e["type"] == "decision"] == [0, 1, 2, 3, 4]
    assert live[-1]["type"] == "end" and events[-1].kind == pb.MATCH_EVENT_KIND_RECORD


def test_a_match_whose_end_marker_never_comes_still_ends_in_its_record(stored_early, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(watch_module, "END_GRACE_S", 0.5)
    bus = InProcessBus()
    match_id = uuid.uuid4().hex
    on_event, _ = publisher(match_id, bus, delay_s=0.0)
    on_event({"type": "start"})
    stored_early["now"] = "done"  # a worker killed after storing: no end marker, ever
    started = time.monotonic()
    events = list(watch_module.watch(None, bus, match_id, _Context()))
    assert events[-1].kind == pb.MATCH_EVENT_KIND_RECORD
    assert time.monotonic() - started < 30  # ended by the grace, not by a client's deadline
