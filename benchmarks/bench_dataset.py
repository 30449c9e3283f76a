"""``arena bench dataset``: decisions per CPU second of ``arena export dataset`` on one core.

A fresh SQLite database is filled with finished matches of random legal play
(:mod:`benchmarks.random_records`, stored as the platform stores them: ``matches.record`` and
``match_seats`` with ratings), then the export runs in this process and its CPU time is measured
(``time.process_time``: other processes on the machine do not count, and the export is one
thread). The filling is not timed. The peak resident memory before and after the export tells
whether the export holds more than its part and its database page.
"""

from __future__ import annotations

import resource
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.random_records import played_record


def _fill(url: str, game: str, matches: int, players: int) -> int:
    from arena.db import init_db, session_scope
    from arena.db.models import Bot, BotVersion, Match, MatchSeat

    init_db(url)
    decisions = 0
    t0 = datetime(2026, 1, 1)
    with session_scope(url) as s:
        versions = []
        for i in range(players):
            bot = Bot(owner="bench", name=f"bench{i}", game=game)
            s.add(bot)
            s.flush()
            v = BotVersion(bot_id=bot.id, number=1, source="/x", initial_mu=25.0, initial_sigma=8.0)
            s.add(v)
            s.flush()
            versions.append(v.id)
        for n in range(matches):
            record = played_record(game, 1000 + n, players=players)
            decisions += len(record.decisions)
            s.add(Match(id=record.match_id, game=game, variant=record.variant, players=players, seed=record.seed,
                        status="done", record=record.to_dict(), result=record.result,
                        finished_at=t0 + timedelta(minutes=n)))
            for seat, vid in enumerate(versions):
                s.add(MatchSeat(match_id=record.match_id, seat=seat, bot_version_id=vid, mu_before=25.0,
                                sigma_before=3.0, rank=record.result["ranks"][seat],
                                score=record.result["scores"][seat]))
            if n % 50 == 49:
                s.commit()
        s.commit()
    return decisions


def bench(game: str = "solenia", matches: int = 100, players: int = 2, fmt: str = "parquet",
          whole: bool = False, vector: bool = True) -> dict[str, Any]:
    import os

    from arena.datasets import export
    from arena.db import dispose_all
    from arena.records import dataset

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        decisions = _fill(url, game, matches, players)
        before = os.environ.get("ARENA_DATABASE_URL")
        os.environ["ARENA_DATABASE_URL"] = url
        try:
            pa, pq = export._pyarrow() if fmt == "parquet" else (None, None)
            if pa is not None:  # pyarrow loads pandas on its first table: once a process, not timed
                pa.Table.from_pydict({"x": [1]}).to_pylist()
                export._envs()
            folder = export.Folder(Path(tmp) / "out", fmt, {"bench": True})
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            cpu, wall = time.process_time(), time.perf_counter()
            written, failed = export.export(folder, dataset.Filters(games=(game,)), export._envs(), whole,
                                            vector, None, pa, pq)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            size = sum(p.stat().st_size for p in (Path(tmp) / "out").glob("game=*/*"))
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            folder.close()
        finally:
            if before is None:
                os.environ.pop("ARENA_DATABASE_URL", None)
            else:
                os.environ["ARENA_DATABASE_URL"] = before
            dispose_all()
    return {
        "game": game, "players": players, "format": fmt, "whole_observation": whole, "vector": vector,
        "matches": written, "not_replayable": failed, "decisions": folder.rows,
        "decisions_per_cpu_s": round(folder.rows / cpu), "decisions_per_wall_s": round(folder.rows / wall),
        "cpu_s": round(cpu, 2), "bytes_per_decision": round(size / max(folder.rows, 1)),
        "peak_rss_mb_before": round(rss / 1024), "peak_rss_mb_after": round(peak / 1024),
        "expected_decisions": decisions,
    }
