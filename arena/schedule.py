"""Round-robin schedules for N bots at k-seat tables, R rounds.

What a *round* is, and the balance it guarantees (checked by tests/platform/test_schedule.py):

* **k = 2** — one round is the classic **double round-robin**: the circle method (Berger
  tables) pairs everyone once, then the same pairings again with colours swapped. Every ordered
  pair meets exactly once per round, so every pair meets exactly ``2R`` times and every bot sits
  in each seat exactly ``R(N−1)`` times.
* **k ≥ 3** — one round gives every bot ``k·m`` games, exactly ``m`` in each seat, where
  ``m = ceil((N−1) / (k(k−1)))`` is the least number that lets a bot meet each of its ``N−1``
  rivals at least once per round (each game shows it ``k−1`` rivals). That is ``N·m`` tables per
  round. Tables are built greedily (fewest games first) and then improved by local search
  (swapping two bots between tables, which keeps game counts) to make pair meetings as even as
  possible, counting earlier rounds too. Seats are then assigned exactly: each bot's ``k·m``
  games are split into ``m`` groups of ``k``, which with the tables forms a k-regular bipartite
  multigraph; by König's theorem it splits into ``k`` perfect matchings, matching ``j`` being
  seat ``j``. So seat balance is exact; pair meetings over all rounds differ by at most
  :data:`PAIR_SPREAD_BOUND` between the most and least frequent pair.

Everything is deterministic for a given ``seed``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import combinations

#: Bound on (most − least) meetings of any two bots over the whole schedule, k ≥ 3.
PAIR_SPREAD_BOUND = 2


class ScheduleError(ValueError):
    """A schedule that cannot be made (fewer bots than seats, …)."""


@dataclass(frozen=True, slots=True)
class Table:
    """One match of the schedule: ``seats[i]`` is the index of the bot in seat ``i``."""

    round: int
    index: int
    seats: tuple[int, ...]


def games_per_round(n: int, k: int) -> int:
    """How many games each bot plays in one round (see the module docstring)."""
    if k == 2:
        return 2 * (n - 1)
    return k * _m(n, k)


def _m(n: int, k: int) -> int:
    return max(1, math.ceil((n - 1) / (k * (k - 1))))


def round_robin(n: int, k: int, rounds: int = 1, seed: int = 0) -> list[Table]:
    """The full schedule: ``rounds`` rounds of tables for ``n`` bots at ``k``-seat tables."""
    if k < 2:
        raise ScheduleError("a round-robin needs tables of at least 2 seats")
    if n < k:
        raise ScheduleError(f"{k}-seat tables need at least {k} bots; got {n}")
    if rounds < 1:
        raise ScheduleError("the number of rounds must be at least 1")
    rng = random.Random(seed)
    if k == 2:
        one = _double_round_robin(n)
        return [Table(r, i, seats) for r in range(rounds) for i, seats in enumerate(one)]
    pairs = [[0] * n for _ in range(n)]
    tables: list[Table] = []
    for r in range(rounds):
        groups = _balanced_groups(n, k, _m(n, k), pairs, rng)
        for group in groups:
            for a, b in combinations(group, 2):
                pairs[a][b] += 1
                pairs[b][a] += 1
        seated = _assign_seats(n, k, groups, rng)
        tables.extend(Table(r, i, seats) for i, seats in enumerate(seated))
    return tables


# --- k = 2: Berger tables -------------------------------------------------------------------


def _double_round_robin(n: int) -> list[tuple[int, int]]:
    """Circle method: each pair once (colours alternating), then again with colours swapped."""
    players = list(range(n)) + ([None] if n % 2 else [])
    size = len(players)
    first: list[tuple[int, int]] = []
    rotating = players[:-1]
    fixed = players[-1]
    for r in range(size - 1):
        order = rotating[r:] + rotating[:r]
        pairings = [(order[0], fixed)] + [(order[i], order[-i]) for i in range(1, size // 2)]
        for i, (a, b) in enumerate(pairings):
            if a is None or b is None:
                continue
            # Alternate colours by round (for the fixed player) and by board (for the rest).
            flip = (r % 2 == 1) if i == 0 else (i % 2 == 1)
            first.append((b, a) if flip else (a, b))
    return first + [(b, a) for a, b in first]


# --- k >= 3: balanced groups, then exact seats ---------------------------------------------


def _balanced_groups(
    n: int, k: int, m: int, pairs: list[list[int]], rng: random.Random
) -> list[list[int]]:
    """``n·m`` groups of ``k`` distinct bots, each bot in ``k·m`` groups, pairs spread evenly."""
    total = n * m
    counts = [0] * n
    local = [row[:] for row in pairs]
    groups: list[list[int]] = []
    for _ in range(total):
        group: list[int] = []
        for _slot in range(k):
            best = min(
                (b for b in range(n) if b not in group),
                key=lambda b: (counts[b], sum(local[b][c] for c in group), rng.random()),
            )
            group.append(best)
        for b in group:
            counts[b] += 1
        for a, b in combinations(group, 2):
            local[a][b] += 1
            local[b][a] += 1
        groups.append(group)
    _improve_pairs(groups, local, rng)
    return groups


def _improve_pairs(groups: list[list[int]], pairs: list[list[int]], rng: random.Random) -> None:
    """Simulated annealing on Σ meetings²: swap two bots between two groups.

    Swapping keeps every bot's number of games; the squared sum is lowest exactly when meetings
    are as even as they can be. Plain hill-climbing gets stuck (a pair meeting 3 times while
    another never meets), so worse swaps are accepted with a probability that cools down, and
    the best grouping seen is kept. ``pairs`` (cumulative, including this round) is updated.
    """
    g = len(groups)
    if g < 2:
        return
    steps = 1500 * g
    t_start, t_end = 2.0, 0.05
    cost = 0
    best_cost = 0
    best = [grp[:] for grp in groups]
    for step in range(steps):
        x, y = rng.sample(range(g), 2)
        gx, gy = groups[x], groups[y]
        a = rng.choice(gx)
        b = rng.choice(gy)
        if a == b or a in gy or b in gx:
            continue
        # Bots in both groups keep meeting a and b either way: only the others change.
        rest_x = [c for c in gx if c != a and c not in gy]
        rest_y = [c for c in gy if c != b and c not in gx]
        # Change of Σ p² when a leaves x for y and b leaves y for x (p -> p-1 or p+1).
        delta = 0
        for c in rest_x:
            delta += (1 - 2 * pairs[a][c]) + (1 + 2 * pairs[b][c])
        for c in rest_y:
            delta += (1 - 2 * pairs[b][c]) + (1 + 2 * pairs[a][c])
        temp = t_start * (t_end / t_start) ** (step / steps)
        if delta > 0 and rng.random() >= math.exp(-delta / temp):
            continue
        for c in rest_x:
            pairs[a][c] -= 1
            pairs[c][a] -= 1
            pairs[b][c] += 1
            pairs[c][b] += 1
        for c in rest_y:
            pairs[b][c] -= 1
            pairs[c][b] -= 1
            pairs[a][c] += 1
            pairs[c][a] += 1
        gx[gx.index(a)] = b
        gy[gy.index(b)] = a
        cost += delta
        if cost < best_cost:
            best_cost = cost
            best = [grp[:] for grp in groups]
    # Restore the best grouping (and the pair counts that go with it).
    for grp in groups:
        for i, j in combinations(grp, 2):
            pairs[i][j] -= 1
            pairs[j][i] -= 1
    for grp, keep in zip(groups, best, strict=True):
        grp[:] = keep
        for i, j in combinations(grp, 2):
            pairs[i][j] += 1
            pairs[j][i] += 1


def _assign_seats(
    n: int, k: int, groups: list[list[int]], rng: random.Random
) -> list[tuple[int, ...]]:
    """Seat every group so each bot takes each seat equally often (k perfect matchings)."""
    # Split each bot's games into blocks of k: left node (bot, block) -> k groups.
    per_bot: list[list[int]] = [[] for _ in range(n)]
    for gi, group in enumerate(groups):
        for b in group:
            per_bot[b].append(gi)
    left: list[tuple[int, list[int]]] = []  # (bot, group indices)
    for b in range(n):
        games = per_bot[b][:]
        rng.shuffle(games)
        for start in range(0, len(games), k):
            left.append((b, games[start : start + k]))
    adj = [set(block) for _, block in left]
    seats: list[list[int | None]] = [[None] * k for _ in groups]
    for seat in range(k):
        match_right = _perfect_matching(adj, len(groups))
        for group_index, left_index in enumerate(match_right):
            seats[group_index][seat] = left[left_index][0]
            adj[left_index].discard(group_index)
    return [tuple(s) for s in seats]  # type: ignore[arg-type]


def _perfect_matching(adj: list[set[int]], n_right: int) -> list[int]:
    """Kuhn's augmenting paths: right node -> left node, for a regular bipartite graph."""
    match_right = [-1] * n_right

    def augment(u: int, seen: set[int]) -> bool:
        for v in sorted(adj[u]):
            if v in seen:
                continue
            seen.add(v)
            if match_right[v] == -1 or augment(match_right[v], seen):
                match_right[v] = u
                return True
        return False

    for u in range(len(adj)):
        if not augment(u, set()):
            raise ScheduleError("internal: no perfect matching in a regular bipartite graph")
    return match_right
