"""Round-robin scheduler: time and balance (``arena bench schedule``).

* CPU time to schedule 16 bots at 4 seats over 1, 2 and 3 rounds (median and worst over seeds):
  the goal is well under one second.
* CPU time to schedule 64 bots at 3, 4 and 5 seats over 3 rounds (tabulated coverings: the
  goal is well under one second), and whether every shape 17 ≤ N ≤ 64 meets every pair with
  exact seats.
* CPU time of the shapes served from designed data (:data:`arena.schedule.DESIGNED_SHAPES`:
  relabelling a table, then the König seat split), e.g. (13, 5, 3), (14, 5, 2), (16, 5, 3).
* Balance over every shape N 2..16, k 3..5, R 1..3 for ``seeds`` seeds each: the worst pair
  spread found, the shapes where some seed exceeds :data:`arena.schedule.PAIR_SPREAD_BOUND`
  (1; should be none), and whether every pair met in every schedule.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from itertools import combinations

from arena.schedule import (
    COVERED_UP_TO,
    DESIGNED_SHAPES,
    PAIR_SPREAD_BOUND,
    guarantees,
    round_robin,
)


def _spread(n: int, k: int, rounds: int, seed: int) -> tuple[int, int]:
    pairs: Counter = Counter()
    for table in round_robin(n, k, rounds, seed):
        for a, b in combinations(sorted(table.seats), 2):
            pairs[a, b] += 1
    meetings = [pairs[p] for p in combinations(range(n), 2)]
    return max(meetings) - min(meetings), min(meetings)


def _cpu_ms(n: int, k: int, rounds: int, seeds: range) -> dict[str, float]:
    times = []
    for seed in seeds:
        start = time.process_time()
        round_robin(n, k, rounds, seed)
        times.append(time.process_time() - start)
    return {"median": round(1000 * statistics.median(times), 1), "worst": round(1000 * max(times), 1)}


def bench(seeds: int = 5, first_seed: int = 1000) -> dict:
    result: dict = {}
    seed_range = range(first_seed, first_seed + seeds)
    for rounds in (1, 2, 3):
        result[f"schedule_16_bots_4_seats_{rounds}_rounds_cpu_ms"] = _cpu_ms(16, 4, rounds, seed_range)
    for k in (3, 4, 5):
        result[f"schedule_64_bots_{k}_seats_3_rounds_cpu_ms"] = _cpu_ms(64, k, 3, seed_range)
    broken = [
        [n, k, rounds] for k in (2, 3, 4, 5) for n in range(17, COVERED_UP_TO + 1) for rounds in (1, 3)
        if not (g := guarantees(round_robin(n, k, rounds, first_seed), n, k)).every_pair_meets
        or not g.seats_exact
    ]
    result["shapes_17_to_64_breaking_the_promise"] = broken
    result["designed_shapes_cpu_ms"] = {
        f"{n}_bots_{k}_seats_{rounds}_rounds": _cpu_ms(n, k, rounds, seed_range)
        for n, k, rounds in sorted(DESIGNED_SHAPES)
    }
    above_bound, never_met, worst = [], 0, 0
    for k in (3, 4, 5):
        for n in range(k, 17):
            for rounds in (1, 2, 3):
                spreads = [_spread(n, k, rounds, s) for s in range(first_seed, first_seed + seeds)]
                shape_worst = max(sp for sp, _ in spreads)
                never_met += sum(1 for _, low in spreads if low == 0)
                worst = max(worst, shape_worst)
                if shape_worst > PAIR_SPREAD_BOUND:
                    above_bound.append([n, k, rounds, shape_worst])
    result["shapes_checked"] = sum(1 for k in (3, 4, 5) for n in range(k, 17)) * 3
    result["seeds_per_shape"] = seeds
    result["schedules_with_a_pair_never_meeting"] = never_met
    result["shapes_with_spread_above_1"] = above_bound
    result["worst_spread"] = worst
    return result
