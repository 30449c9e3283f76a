"""What a ladder tick costs with many active bots (`arena bench ladder --bots N`).

A database (a throw-away SQLite file unless ``database`` names an empty one) is filled with
``bots`` active bots of one game, each with one version and a rating spread like a ladder that has
run a while (μ around 25, σ from settled to brand new, a few games and opponents each). Then the
real code path is timed: :func:`arena.competition.ladder.tick` in a transaction, as beat's ``ladder_tick``
runs it, queueing ``queue`` matches per tick; the queued matches are then rated with made-up
results through :func:`arena.records.recording.record_result` (not timed), so every tick fills the whole
queue again and finds the ratings of the bots just played changed, as on a running ladder.

Per pairing rule (:data:`arena.competition.ladder.RULES`), two ways:

* uncached — every tick reads the whole population (:func:`arena.competition.ladder.load_candidates`):
  wall and CPU ms per tick and per match chosen (median of ``ticks``; CPU is what a machine
  shared with other work cannot inflate), the wall time of that read alone, the tick's peak
  Python allocation (tracemalloc, one extra tick);
* ``cached`` — with the process's population cache (:mod:`arena.competition.ladder_population`, what
  ``arena.workers.tasks.ladder_tick`` uses): the first tick with an empty cache (it reads everything),
  then the steady ticks (median of ``ticks``), the rating rows a steady tick read, the tick's
  peak allocation, and the cache's own size (``cache_mb``: its entries measured object by object).

And the process's peak RSS.
"""

from __future__ import annotations

import random
import resource
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import update

from arena.competition.ladder_population import PopulationCache

GAME = "solenia"


def _fill(url: str, bots: int, seed: int = 1) -> None:
    from arena.competition import ladder
    from arena.db import Bot, BotVersion, Rating, get_engine, session_scope, utcnow
    from benchmarks.bench_db import load

    rng = random.Random(seed)
    engine = get_engine(url)
    now = utcnow()
    # one author each: the ladder never seats two bots of one author together (arena.intake.authors)
    load(engine, Bot, ({"id": i, "owner": f"author{i}", "name": f"bot{i}", "game": GAME, "active": True,
                        "created_at": now} for i in range(1, bots + 1)))
    load(engine, BotVersion, ({"id": i, "bot_id": i, "number": 1, "kind": "hosted", "source": f"/bots/bot{i}",
                               "digest": "", "initial_mu": 25.0, "initial_sigma": 25 / 3, "held": False,
                               "created_at": now} for i in range(1, bots + 1)))
    rows = []
    for i in range(1, bots + 1):
        games = rng.randrange(0, 60)
        opponents = {str(rng.randrange(1, bots + 1)): 1 for _ in range(min(games, 20))}
        rows.append({"bot_version_id": i, "game": GAME, "mu": rng.gauss(25, 6),
                     "sigma": max(0.8, 25 / 3 - games * 0.15), "provisional": games < 20,
                     "games_played": games, "distinct_opponents": len(opponents), "opponent_counts": opponents,
                     "seat_counts": {"2": {"0": games // 2, "1": games - games // 2}}, "player_counts": {},
                     "updated_at": now})
    load(engine, Rating, rows)
    with session_scope(url) as s:
        ladder.ensure_ladder(s, GAME, queue_target=1, sandbox=False)


def _tick_once(url: str, queue: int, rule: str, rng: random.Random,
               population: PopulationCache | None = None) -> tuple[float, float, int]:
    from arena.competition import ladder
    from arena.db import Ladder, Match, session_scope
    from arena.records import recording

    with session_scope(url) as s:
        s.execute(update(Ladder).where(Ladder.game == GAME).values(queue_target=queue))
    wall, cpu = time.perf_counter(), time.process_time()
    with session_scope(url) as s:
        ids = ladder.tick(s, GAME, rng, rule=rule, population=population)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    with session_scope(url) as s:  # played and rated: the next tick fills the whole queue again
        for mid in ids:
            players = s.get(Match, mid).players
            scores = [rng.random() for _ in range(players)]
            recording.record_result(s, mid, {"result": {
                "scores": scores, "ranks": [1 + sum(o > x for o in scores) for x in scores]}})
    return wall, cpu, len(ids)


def _figures(samples: list[tuple[float, float, int]]) -> dict:
    made = samples[0][2]
    wall = statistics.median(w for w, _, _ in samples)
    cpu = statistics.median(c for _, c, _ in samples)
    return {"tick_ms": round(wall * 1000, 1), "tick_cpu_ms": round(cpu * 1000, 1), "matches_per_tick": made,
            "ms_per_match": round(wall / max(1, made) * 1000, 2),
            "cpu_ms_per_match": round(cpu / max(1, made) * 1000, 2)}


def _peak_alloc_mb(tick: Callable[[], object]) -> float:
    tracemalloc.start()
    tick()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return round(peak / 2**20, 1)


def _load_only(url: str) -> float:
    """Wall seconds of the tick's first part alone: the active bots and their ratings."""
    from arena.competition import ladder
    from arena.db import session_scope

    wall = time.perf_counter()
    with session_scope(url) as s:
        ladder.load_candidates(s, GAME)
    return time.perf_counter() - wall


def bench(bots: int = 10_000, ticks: int = 5, queue: int = 20, database: str | None = None,
          progress: Callable[[str], None] | None = None) -> dict:
    from arena.competition import ladder
    from arena.db import dispose_all

    say = progress or (lambda _line: None)
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as folder:
        url = database or f"sqlite:///{Path(folder) / 'ladder.sqlite3'}"
        fill = time.perf_counter()
        _fill(url, bots)
        say(f"{bots} bots loaded in {time.perf_counter() - fill:.1f} s")
        result: dict = {"bots": bots, "game": GAME, "queue": queue, "ticks": ticks,
                        "database": url.split(":", 1)[0], "default_rule": ladder.DEFAULT_RULE}
        for rule in ladder.RULES:
            rng = random.Random(7)
            _tick_once(url, queue, rule, rng)  # warm: imports, statement caches
            figures = _figures([_tick_once(url, queue, rule, rng) for _ in range(ticks)])
            figures["load_ms"] = round(statistics.median(_load_only(url) for _ in range(3)) * 1000, 1)
            figures["tick_peak_alloc_mb"] = _peak_alloc_mb(lambda r=rule, g=rng: _tick_once(url, queue, r, g))
            population = PopulationCache()
            first = _figures([_tick_once(url, queue, rule, rng, population)])
            before = population.stats.rows_read
            cached = _figures([_tick_once(url, queue, rule, rng, population) for _ in range(ticks)])
            cached["first_tick_cpu_ms"] = first["tick_cpu_ms"]
            cached["first_tick_ms"] = first["tick_ms"]
            cached["rows_read_per_tick"] = round((population.stats.rows_read - before) / ticks, 1)
            cached["tick_peak_alloc_mb"] = _peak_alloc_mb(
                lambda r=rule, g=rng, p=population: _tick_once(url, queue, r, g, p))
            cached["cache_mb"] = round(population.memory_bytes() / 2**20, 1)
            cached["cache_entries"] = population.entries()
            cached["full_reloads"] = population.stats.full
            figures["cached"] = cached
            result[rule] = figures
            say(f"{rule}: {figures}")
        result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        result["goal_ms_per_match"] = 50
        dispose_all()
    return result
