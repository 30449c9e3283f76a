"""Round-robin scheduler: time and balance (``arena bench schedule``).

* CPU time to schedule 16 bots at 4 seats over 1, 2 and 3 rounds (median and worst over seeds):
  the goal is well under one second.
* Balance over every shape N 2..16, k 3..5, R 1..3 for ``seeds`` seeds each: the worst pair
  spread found per shape, the shapes where some seed exceeds 1 (should be exactly
  :data:`arena.schedule.OPEN_SHAPES`), and whether every pair met in every schedule.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from itertools import combinations

from arena.schedule import OPEN_SHAPES, round_robin


def _spread(n: int, k: int, rounds: int, seed: int) -> tuple[int, int]:
    pairs: Counter = Counter()
    for table in round_robin(n, k, rounds, seed):
        for a, b in combinations(sorted(table.seats), 2):
            pairs[a, b] += 1
    meetings = [pairs[p] for p in combinations(range(n), 2)]
    return max(meetings) - min(meetings), min(meetings)


def bench(seeds: int = 5, first_seed: int = 1000) -> dict:
    result: dict = {}
    for rounds in (1, 2, 3):
        times = []
        for seed in range(first_seed, first_seed + seeds):
            start = time.process_time()
            round_robin(16, 4, rounds, seed)
            times.append(time.process_time() - start)
        result[f"schedule_16_bots_4_seats_{rounds}_rounds_cpu_ms"] = {
            "median": round(1000 * statistics.median(times), 1), "worst": round(1000 * max(times), 1)}
    above_one, never_met, worst = [], 0, 0
    for k in (3, 4, 5):
        for n in range(k, 17):
            for rounds in (1, 2, 3):
                spreads = [_spread(n, k, rounds, s) for s in range(first_seed, first_seed + seeds)]
                shape_worst = max(sp for sp, _ in spreads)
                never_met += sum(1 for _, low in spreads if low == 0)
                worst = max(worst, shape_worst)
                if shape_worst > 1:
                    above_one.append([n, k, rounds, shape_worst])
    result["shapes_checked"] = sum(1 for k in (3, 4, 5) for n in range(k, 17)) * 3
    result["seeds_per_shape"] = seeds
    result["schedules_with_a_pair_never_meeting"] = never_met
    result["shapes_with_spread_above_1"] = above_one
    result["open_shapes"] = sorted(list(s) for s in OPEN_SHAPES)
    result["worst_spread"] = worst
    return result
