"""The worker's per-match bookkeeping made cheaper keeps its guarantees: one lease keeper
renews every match a process plays (and stops with the match), and a match start claims and
reads the configuration in one transaction."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.db import Match, session_scope
from arena.intake import bots
from arena.records import recording
from arena.workers import tasks

GAME = "toy"


def _two_versions(tmp_path: Path) -> list[int]:
    ids = []
    with session_scope() as s:
        for i in range(2):
            folder = tmp_path / f"bot{i}"
            folder.mkdir()
            (folder / "bot.py").write_text(f"# {i}\n")
            ids.append(bots.register_version(s, GAME, str(folder), name=f"bot{i}").id)
    return ids


def _lease_until(mid: str) -> float:
    with session_scope() as s:
        return s.get(Match, mid).lease_until


def test_the_lease_keeper_renews_held_matches_and_stops_when_dropped(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording, "LEASE_SECONDS", 0.3)  # the keeper wakes every 0.1 s
    ids = _two_versions(tmp_path)
    with session_scope() as s:
        mid = recording.create_match(s, GAME, "base", ids, seed=1).id
    with session_scope() as s:
        assert recording.claim(s, mid, "w1", lease=0.3).outcome == "claimed"
    first = _lease_until(mid)
    keeper = tasks._LeaseKeeper()
    keeper.hold(mid, "w1")
    time.sleep(0.6)  # twice the claimed lease: without renewal it would have run out
    with session_scope() as s:
        assert recording.claim(s, mid, "w2", lease=30).outcome == "busy"
    assert _lease_until(mid) > first + 0.3
    keeper.drop(mid)
    time.sleep(0.15)  # a renewal under way when dropped has finished
    after = _lease_until(mid)
    time.sleep(0.4)
    assert _lease_until(mid) == after  # no longer renewed
    assert keeper.held() == {}


def test_a_match_start_claims_and_reads_its_configuration_at_once(db_url: str, tmp_path: Path) -> None:
    ids = _two_versions(tmp_path)
    with session_scope() as s:
        mid = recording.create_match(s, GAME, "base", ids, seed=7, decision_ms=900, bank_ms=5000).id
    claim, config = tasks._claim_and_configure(mid, "w1")
    assert claim.outcome == "claimed" and config is not None
    assert [seat.name for seat in config.seats] == ["bot0 v1", "bot1 v1"]
    assert (config.seed, config.time_control.decision_ms, config.time_control.bank_ms) == (7, 900, 5000)
    with session_scope() as s:  # the claim was committed with the read
        match = s.get(Match, mid)
        assert (match.status, match.worker, match.attempts) == ("running", "w1", 1)
    claim, config = tasks._claim_and_configure(mid, "w2")
    assert claim.outcome == "busy" and config is None


_SETTLE_SCRIPT = """
import gc, shutil, sys
from arena import bots, recording, tasks
from arena.db import session_scope
from benchmarks.bench_tournament import _variant

freezes = []
real_freeze = gc.freeze
gc.freeze = lambda: (freezes.append(1), real_freeze())
with session_scope() as s:
    ids = [bots.register_version(s, "black_angel", sys.argv[1], name=f"r{i}").id for i in range(2)]
    mids = [recording.create_match(s, "black_angel", _variant("black_angel"), ids, seed=i,
                                   sandbox=shutil.which("bwrap") is not None).id for i in range(2)]
calls, frozen = [len(freezes)], [gc.get_freeze_count()]
for mid in mids:
    assert tasks.play_match_now(mid).status == "recorded"
    calls.append(len(freezes))
    frozen.append(gc.get_freeze_count())
print(calls, frozen, len(gc.get_objects()))
"""


def test_a_worker_process_freezes_its_long_lived_heap_once(tmp_path: Path) -> None:
    """A full collection in a worker scanned every module, Celery and SQLAlchemy object again
    (~100 ms inside some match, every 60-70 matches): after its first match a process freezes
    what is alive then, once. A real process: freezing the test runner's own heap would prove
    nothing."""
    import json
    import os
    import subprocess
    import sys

    from tests.platform.conftest import RANDOM_BOT

    env = {**os.environ, "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'a.sqlite3'}"}
    env.pop("ARENA_BROKER_URL", None)
    out = subprocess.run([sys.executable, "-c", _SETTLE_SCRIPT, RANDOM_BOT], env=env,
                         cwd=Path(__file__).parents[2], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    calls, frozen, tracked = out.stdout.strip().replace("] ", "]|").split("|")
    assert json.loads(calls) == [0, 1, 1]  # after the first match, and only then
    frozen_counts = json.loads(frozen)
    assert frozen_counts[0] == 0 and frozen_counts[1] > 10_000  # modules, Celery, the engine
    assert int(tracked) < frozen_counts[2] / 4  # the collector now scans what matches left


def test_a_played_record_is_stored_as_the_text_its_data_encodes_to(db_url: str, tmp_path: Path) -> None:
    """A worker encodes a record once (tasks._record_for_storage) instead of decoding it to
    Python data for the database layer to encode again: the text must be exactly what
    encoding ``to_dict()`` gives, and the stored row what recording that data stores."""
    import orjson

    from arena.db.session import _json_dumps
    from referee.match import MatchConfig, SeatSpec, run_match
    from tests.platform.conftest import RANDOM_BOT

    config = MatchConfig(game="solenia", seats=[SeatSpec("a", RANDOM_BOT), SeatSpec("b", RANDOM_BOT)],
                         seed=5, sandbox=False)
    record = run_match(config)
    parts, text = tasks._record_for_storage(record)
    data = record.to_dict()
    assert text == _json_dumps(data) and orjson.loads(text) == orjson.loads(_json_dumps(data))
    assert parts == {"result": orjson.loads(orjson.dumps(data["result"])), "forfeits": data["forfeits"]}
    ids = _two_versions(tmp_path)
    with session_scope() as s:
        mids = [recording.create_match(s, GAME, "base", ids, seed=i).id for i in range(2)]
    with session_scope() as s:
        assert recording.record_result(s, mids[0], parts, record_text=text)
        assert recording.record_result(s, mids[1], data)
    with session_scope() as s:
        one, two = (s.get(Match, mid) for mid in mids)
        assert (one.record, one.result, one.forfeits) == (two.record, two.result, two.forfeits)
