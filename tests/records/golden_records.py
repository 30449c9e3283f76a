"""The golden records (tests/records/golden/): one match of each game and player count, stored
compactly, with the SHA-256 of its full JSON. ``python -m tests.records.golden_records`` writes
them — only when a game's engine version was bumped on purpose (arena.records.compact)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from arena.records import compact
from benchmarks.random_records import played_record

HERE = Path(__file__).parent / "golden"
#: (game, players): every game, at its smallest and largest table.
CASES = [("black_angel", 2), ("black_angel", 4), ("solenia", 2), ("solenia", 4), ("orbital", 2), ("orbital", 4)]


def make(game: str, players: int):  # noqa: ANN201 - a MatchRecord with everything the layout keeps
    record = played_record(game, 4242 + players, players=players)
    record.decisions[1].comment = "thinking… ✓"
    record.decisions[2].cpu_ms = None
    record.decisions[3].forced = True
    record.started_at, record.ended_at = "2026-12-06T23:00:00+00:00", "2026-12-06T23:00:09+00:00"
    return record


def write() -> None:
    HERE.mkdir(exist_ok=True)
    index = {}
    for game, players in CASES:
        record = make(game, players)
        name = f"{game}-{players}"
        (HERE / f"{name}.bin").write_bytes(compact.encode(record))
        index[name] = {"engine": compact.engine_version(game),
                       "json_sha256": hashlib.sha256(compact.stored_json(record)).hexdigest(),
                       "json_bytes": len(compact.stored_json(record))}
    (HERE / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    write()
