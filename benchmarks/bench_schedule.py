"""Round-robin scheduler: time and balance (``arena bench schedule``).

* CPU time to schedule 16 bots at 4 seats over 1, 2 and 3 rounds (median and worst over seeds):
  the goal is well under one second.
* CPU time to schedule 64 bots at 3, 4 and 5 seats over 3 rounds (tabulated coverings: the
  goal is well under one second), and whether every shape 17 ≤ N ≤ 64 meets every pair with
  exact seats.
* CPU time to pair one Swiss round of 300 bots at 2-5 seats (:func:`arena.competition.swiss.pair_round`;
  worst round of a simulated 10-round Swiss with random results), and its repeats (should be 0).
* CPU time of the shapes served from designed data (:data:`arena.competition.round_robin.DESIGNED_SHAPES`:
  relabelling a table, then the König seat split), e.g. (13, 5, 3), (14, 5, 2), (16, 5, 3).
* Balance over every shape N 2..16, k 3..5, R 1..3 for ``seeds`` seeds each: the worst pair
  spread found, the shapes where some seed exceeds :data:`arena.competition.round_robin.PAIR_SPREAD_BOUND`
  (1; should be none), and whether every pair met in every schedule.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from itertools import combinations

from arena.competition.round_robin import (
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


def _swiss_300(k: int, rounds: int = 10, seed: int = 0) -> tuple[float, int]:
    """Worst CPU ms of a round's pairing over a simulated Swiss of 300 bots, and its repeats."""
    import random

    from arena.competition.swiss import Game, History, pair_round, standing_order, standings

    rng = random.Random(seed)
    strength = [rng.random() for _ in range(300)]
    history, games, byes, worst, repeats = History(k), [], [], 0.0, 0
    for r in range(rounds):
        order = standing_order(standings(list(range(300)), games, byes))
        start = time.process_time()
        pairing = pair_round(order, k, history, seed * 100 + r)
        worst = max(worst, time.process_time() - start)
        repeats += pairing.repeats
        history.add_round(pairing)
        for table in pairing.tables:
            perf = [strength[b] + rng.gauss(0, 0.3) for b in table]
            games.append(Game(table, tuple(1 + sum(p > q for p in perf) for q in perf)))
        byes += pairing.byes
    return round(1000 * worst, 1), repeats


def bench(seeds: int = 5, first_seed: int = 1000) -> dict:
    result: dict = {}
    for k in (2, 3, 4, 5):
        ms, repeats = _swiss_300(k)
        result[f"swiss_300_bots_{k}_seats_worst_round_cpu_ms"] = ms
        result[f"swiss_300_bots_{k}_seats_repeats_in_10_rounds"] = repeats
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
