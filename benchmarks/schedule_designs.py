"""Offline search for the designed data of :mod:`arena.competition.round_robin` (how each entry was found).

Why: for a few shapes the scheduler's own search (a fraction of a second per call) does not
reach pair spread ≤ 1 for every seed, so those shapes are tabulated once, found here with a
budget no scheduling call can afford, and relabelled per seed by :func:`arena.competition.round_robin._design`.

* ``cyclic N K R``: exhaustive search for a cyclic difference family — R base blocks of K
  residues mod N, each containing 0 (a translate can always be taken), whose ordered
  differences cover every non-zero residue exactly λ = R·K(K−1)/(N−1) times. Blocks are
  enumerated in lexicographic order and reduced to their difference vectors; the first
  combination (in that order) that sums to λ everywhere is printed. Seconds for N ≤ 16.
  This gives :data:`arena.competition.round_robin.DIFFERENCE_FAMILIES`: (13, 5, 3) and (16, 5, 3).
* ``anneal N K R [FIRST_SEED]``: for seeds FIRST_SEED, FIRST_SEED + 1, … until one reaches
  :func:`arena.competition.round_robin.pair_cost_bound` (spread ≤ 1): R greedy rounds, then
  :func:`arena.competition.round_robin._anneal` over all rounds with :data:`ANNEAL_STEPS` steps from
  temperature 3.0 down to 0.2 (hotter and ~40× longer than a scheduling call). Prints the
  schedule as a :data:`arena.competition.round_robin.DESIGNS` string. (14, 5, 2) succeeds for roughly one seed
  in seven, ~10 s of CPU per seed.

* ``covers [SEEDS] [STEPS]``: for every shape 17 ≤ N ≤ 64, 3 ≤ K ≤ 5, a cyclic *covering* —
  m base blocks of K residues mod N whose differences ±(a − b) reach every non-zero residue at
  least once — by annealing the block elements on the number of residues not reached
  (:func:`cyclic_cover`), SEEDS seeds of STEPS steps each; m is the least number of games per seat
  per round that can meet every rival (:func:`arena.competition.round_robin._m`), or one more where no seed
  found a covering with the least. Prints :data:`arena.competition.round_robin.COVERS`.

Run: ``python -m benchmarks.schedule_designs cyclic 13 5 3``,
``python -m benchmarks.schedule_designs anneal 14 5 2`` or
``python -m benchmarks.schedule_designs covers``.
"""

from __future__ import annotations

import math
import random
import sys
import time
from itertools import combinations

from arena.competition.round_robin import _anneal, _greedy_round, _m, _spread, pair_cost_bound

#: Annealing steps per seed for ``anneal`` and its start and end temperatures.
ANNEAL_STEPS = 3_000_000
ANNEAL_TEMPERATURES = (3.0, 0.2)


def difference_vector(block: tuple[int, ...], n: int) -> tuple[int, ...]:
    """How often each residue mod ``n`` is an ordered difference a − b of two block elements."""
    counts = [0] * n
    for a in block:
        for b in block:
            if a != b:
                counts[(a - b) % n] += 1
    return tuple(counts)


def cyclic_family(n: int, k: int, rounds: int) -> tuple[tuple[int, ...], ...] | None:
    """The first cyclic difference family of ``rounds`` base blocks of size ``k`` in Z_n, or None
    (none exists: the search is exhaustive over blocks containing 0)."""
    total = rounds * k * (k - 1)
    if total % (n - 1):
        return None
    lam = total // (n - 1)
    target = (0,) + (lam,) * (n - 1)
    first_block: dict[tuple[int, ...], tuple[int, ...]] = {}  # difference vector -> first block
    for rest in combinations(range(1, n), k - 1):
        block = (0, *rest)
        vec = difference_vector(block, n)
        if max(vec) <= lam:
            first_block.setdefault(vec, block)
    vectors = list(first_block)

    def extend(chosen: list[tuple[int, ...]], start: int, need: tuple[int, ...]) -> list | None:
        if len(chosen) == rounds - 1:
            return [*chosen, need] if need in first_block else None
        for i in range(start, len(vectors)):
            left = tuple(t - v for t, v in zip(need, vectors[i], strict=True))
            if min(left) >= 0:
                found = extend([*chosen, vectors[i]], i, left)
                if found is not None:
                    return found
        return None

    found = extend([], 0, target)
    return None if found is None else tuple(first_block[v] for v in found)


def anneal_design(n: int, k: int, rounds: int, first_seed: int = 0) -> tuple[int, list[list[list[int]]]]:
    """The first seed from ``first_seed`` whose long annealing run reaches spread ≤ 1, and its
    schedule (rounds of groups)."""
    m = _m(n, k)
    target = pair_cost_bound(n, k, rounds)
    seed = first_seed
    while True:
        rng = random.Random(seed)
        start = [_greedy_round(n, k, m, [[0] * n for _ in range(n)], rng) for _ in range(rounds)]
        found, cost = _anneal(start, n, k, rng, steps=ANNEAL_STEPS, temperatures=ANNEAL_TEMPERATURES)
        print(f"seed {seed}: cost above the bound {cost - target}", file=sys.stderr, flush=True)
        if cost <= target:
            return seed, found
        seed += 1


def cyclic_cover(n: int, k: int, m: int, rng: random.Random, steps: int) -> tuple[list[list[int]], int]:
    """``m`` blocks of ``k`` residues mod ``n`` (each starting at 0), annealed towards covering
    every difference class {d, −d}; returns the best blocks found and how many classes they miss."""
    classes = n // 2
    cls = [min(d % n, (-d) % n) for d in range(n)]
    blocks = [[0, *rng.sample(range(1, n), k - 1)] for _ in range(m)]
    count = [0] * (classes + 1)
    for b in blocks:
        for i in range(k):
            for j in range(i + 1, k):
                count[cls[b[i] - b[j]]] += 1
    missed = sum(1 for d in range(1, classes + 1) if count[d] == 0)
    best = (missed, [b[:] for b in blocks])
    for _step in range(steps):
        if missed == 0:
            break
        b = blocks[rng.randrange(m)]
        pos = rng.randrange(1, k)  # element 0 stays: a translate can always be taken
        old, new = b[pos], rng.randrange(1, n)
        if new in b:
            continue
        delta = 0
        for j in range(k):
            if j != pos:
                c = cls[old - b[j]]
                count[c] -= 1
                delta += count[c] == 0
        for j in range(k):
            if j != pos:
                c = cls[new - b[j]]
                delta -= count[c] == 0
                count[c] += 1
        if delta <= 0 or rng.random() < math.exp(-delta / 0.4):
            b[pos] = new
            missed += delta
            if missed < best[0]:
                best = (missed, [x[:] for x in blocks])
        else:
            for j in range(k):
                if j != pos:
                    count[cls[new - b[j]]] -= 1
                    count[cls[old - b[j]]] += 1
    return best[1], best[0]


def covers(seeds: int = 20, steps: int = 200_000) -> dict[tuple[int, int], list[list[int]]]:
    """A cyclic covering for every shape 17 ≤ N ≤ 64, 3 ≤ K ≤ 5 (see the module docstring)."""
    found: dict[tuple[int, int], list[list[int]]] = {}
    for k in (3, 4, 5):
        for n in range(17, 65):
            m = _m(n, k)
            while (n, k) not in found:
                for seed in range(seeds):
                    blocks, missed = cyclic_cover(n, k, m, random.Random(seed), steps)
                    if missed == 0:
                        found[n, k] = sorted(sorted(b) for b in blocks)
                        break
                else:
                    print(f"({n}, {k}): no covering with m = {m}; trying {m + 1}", file=sys.stderr, flush=True)
                    m += 1
    return found


def design_string(rounds: list[list[list[int]]]) -> str:
    """The :data:`arena.competition.round_robin.DESIGNS` form: tables joined by "|", rounds by "/"."""
    return "/".join("|".join(" ".join(map(str, g)) for g in groups) for groups in rounds)


def main(argv: list[str]) -> int:
    usage = "usage: python -m benchmarks.schedule_designs (cyclic N K R | anneal N K R [FIRST_SEED] | covers [SEEDS] [STEPS])"
    if argv[:1] == ["covers"]:
        numbers = [int(a) for a in argv[1:3]]
        for (n, k), blocks in covers(*numbers).items():
            print(f"    ({n}, {k}): \"{'|'.join(' '.join(map(str, b)) for b in blocks)}\",")
        return 0
    if len(argv) < 4 or argv[0] not in ("cyclic", "anneal") or not all(a.isdigit() for a in argv[1:]):
        print(usage, file=sys.stderr)
        return 2
    n, k, rounds = (int(a) for a in argv[1:4])
    if not 3 <= k <= n or rounds < 1:
        print("need 3 ≤ K ≤ N and R ≥ 1 (K = 2 is the double round-robin)", file=sys.stderr)
        return 2
    started = time.process_time()
    if argv[0] == "cyclic":
        if _m(n, k) != 1:
            print(f"a cyclic family gives one game per seat per round; ({n}, {k}) needs m = {_m(n, k)}",
                  file=sys.stderr)
            return 1
        family = cyclic_family(n, k, rounds)
        if family is None:
            print(f"no cyclic difference family for ({n}, {k}, {rounds})")
            return 1
        print(f"{(n, k, rounds)}: {family}")
    else:
        seed, found = anneal_design(n, k, rounds, int(argv[4]) if len(argv) > 4 else 0)
        print(f"{(n, k, rounds)} seed {seed}, spread {_spread(found, n)}:")
        print(design_string(found))
    print(f"{time.process_time() - started:.1f} s CPU", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
