"""The match runner keeps each choice's index beside the record (``record._choices``), so a
worker stores a real match compactly without replaying it: the indexes must be the engine's —
for bots' choices, the fallback's moves of a forfeited seat, and a fork's re-applied prefix."""

from __future__ import annotations

import orjson

from arena.records import compact
from arena.records.fork import Original, plan
from referee.match import MatchConfig, SeatSpec, run_match
from referee.record import MatchRecord
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap

pytestmark = needs_bwrap


def _check(record: MatchRecord) -> None:
    assert record._choices is not None and len(record._choices) == len(record.decisions)
    assert b"_choices" not in orjson.dumps(record) and "_choices" not in record.to_dict()
    data = compact.encode(record)  # no replay: the runner's indexes
    assert compact.stored_json(compact.regenerate(data)) == compact.stored_json(record)
    read_back = MatchRecord.from_json(record.to_json())
    assert compact.encode(read_back) == data  # the replay finds the same indexes


def test_a_real_match_with_a_forfeit_and_its_fork_store_compactly() -> None:
    config = MatchConfig(game="solenia", seats=[SeatSpec("a", str(RANDOM_BOT)),
                                                SeatSpec("b", str(HOSTILE / "crash_at_start"))],
                         seed=21, record_sources=True)
    original = run_match(config)
    assert [f.seat for f in original.forfeits] == [1] and any(d.forced for d in original.decisions)
    _check(original)
    fork = run_match(plan(Original(original, [str(RANDOM_BOT), None]), 12, 0, str(RANDOM_BOT), str(RANDOM_BOT)))
    assert fork.origin is not None
    _check(fork)
