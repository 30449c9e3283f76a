"""Round-robin schedule properties (arena/competition/round_robin.py): N in 2..16 (pair spread ≤ 1) and every
shape N ≤ 64 (every pair meets, seats exact), k in 2..5, R in 1..3."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.competition.round_robin import (
    COVERED_UP_TO,
    COVERS,
    DESIGNED_SHAPES,
    DIFFERENCE_FAMILIES,
    PAIR_SPREAD_BOUND,
    ScheduleError,
    designed_rounds,
    games_per_round,
    guarantees,
    least_m,
    pair_cost_bound,
    round_robin,
)


def _tally(tables, n, k):
    games, seats, pairs, ordered = Counter(), Counter(), Counter(), Counter()
    for t in tables:
        assert len(t.seats) == k
        assert len(set(t.seats)) == k, "a bot sits twice at one table"
        assert all(0 <= b < n for b in t.seats)
        for seat, bot in enumerate(t.seats):
            games[bot] += 1
            seats[bot, seat] += 1
        for a, b in combinations(sorted(t.seats), 2):
            pairs[a, b] += 1
        if k == 2:
            ordered[t.seats] += 1
    return games, seats, pairs, ordered


def _achievable_spread(n: int, k: int, rounds: int) -> int:
    """The pair spread a schedule of this shape can have.

    * k = 2: 0 — the double round-robin meets every ordered pair once per round.
    * k ≥ 3: 1 (:data:`arena.competition.round_robin.PAIR_SPREAD_BOUND`) for every shape here. No schedule does
      better unless the meetings total divides evenly over the pairs, and for every shape a
      schedule with exact seat balance and spread ≤ 1 exists: the search finds it (for many
      seeds: `arena bench schedule`), or designed data has it — including (13, 5, 3), (14, 5, 2)
      and (16, 5, 3), which were held to spread 2 before the designs were found.
    """
    return 0 if k == 2 else PAIR_SPREAD_BOUND


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    n=st.integers(2, 16),
    k=st.integers(2, 5),
    rounds=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_seat_and_pair_balance(n: int, k: int, rounds: int, seed: int) -> None:
    assume(n >= k)
    tables = round_robin(n, k, rounds, seed)
    games, seats, pairs, ordered = _tally(tables, n, k)
    per_bot = games_per_round(n, k) * rounds
    # Every bot plays the same number of games, and takes every seat exactly equally often.
    assert all(games[b] == per_bot for b in range(n))
    assert {seats[b, s] for b in range(n) for s in range(k)} == {per_bot // k}
    meetings = [pairs[p] for p in combinations(range(n), 2)]
    # Every pair meets: one round always has enough tables for it (m is chosen so; k = 2 too).
    assert min(meetings) >= 1
    assert max(meetings) - min(meetings) <= _achievable_spread(n, k, rounds)
    if k == 2:
        # Classic double round-robin: every ordered pair (colours) exactly once per round.
        assert all(ordered[p] == rounds for p in permutations(range(n), 2))


# The shapes of issue 12: some seeds used to leave a pair that never met (11 or 12 bots at 4
# seats, one round), or spread meetings by 2 where an even schedule exists.
@pytest.mark.parametrize(
    ("n", "k", "rounds", "spread"),
    [(11, 4, 1, 1), (12, 4, 1, 1), (9, 4, 2, 0), (10, 4, 3, 0), (9, 5, 2, 0), (13, 4, 1, 0),
     (13, 4, 2, 0), (11, 5, 2, 0), (16, 4, 3, 1), (13, 5, 3, 0), (14, 5, 2, 1), (16, 5, 3, 0)],
)
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_reported_shapes_are_balanced_for_every_seed(
    n: int, k: int, rounds: int, spread: int, seed: int
) -> None:
    _, _, pairs, _ = _tally(round_robin(n, k, rounds, seed), n, k)
    meetings = [pairs[p] for p in combinations(range(n), 2)]
    assert min(meetings) >= 1 and max(meetings) - min(meetings) <= spread


def test_a_seed_whose_three_restarts_all_missed_now_meets_every_pair() -> None:
    """12 bots at 4 seats, one round, seed 1018: with three annealing restarts (one run misses
    the bound ~37% of the time) a pair never met and the spread was 2 (`arena bench schedule
    --seeds 20`); restarts now continue while the bound is not reached (RESTARTS_IN_RANGE)."""
    _, _, pairs, _ = _tally(round_robin(12, 4, 1, 1018), 12, 4)
    meetings = [pairs[p] for p in combinations(range(12), 2)]
    assert min(meetings) >= 1 and max(meetings) - min(meetings) <= 1


@pytest.mark.parametrize("shape", sorted(DESIGNED_SHAPES))
def test_designed_schedules_are_valid_for_every_relabelling(shape: tuple[int, int, int]) -> None:
    """The designed schedules: exact games per round, exact seats, spread ≤ 1 (0 for the
    difference families), for several relabellings."""
    n, k, rounds = shape
    even = shape in DIFFERENCE_FAMILIES
    for seed in range(4):
        tables = round_robin(n, k, rounds, seed)
        games, seats, pairs, _ = _tally(tables, n, k)
        per_round = Counter((t.round, b) for t in tables for b in t.seats)
        assert set(per_round.values()) == {games_per_round(n, k)}
        assert len(per_round) == n * rounds
        per_bot = games_per_round(n, k) * rounds
        assert all(games[b] == per_bot for b in range(n))
        assert {seats[b, s] for b in range(n) for s in range(k)} == {per_bot // k}
        meetings = [pairs[p] for p in combinations(range(n), 2)]
        assert min(meetings) >= 1 and max(meetings) - min(meetings) <= (0 if even else 1)
    assert round_robin(n, k, rounds, 0) != round_robin(n, k, rounds, 1)  # relabelled per seed


@pytest.mark.parametrize("shape", sorted(DIFFERENCE_FAMILIES))
def test_difference_families_cover_every_difference_equally(shape: tuple[int, int, int]) -> None:
    """The algebraic designs: the ordered differences of the base blocks cover every non-zero
    residue mod N equally often, so each pair meets exactly λ = R·k(k−1)/(N−1) times."""
    n, k, rounds = shape
    differences = Counter(
        (a - b) % n for block in DIFFERENCE_FAMILIES[shape] for a in block for b in block if a != b
    )
    lam = rounds * k * (k - 1) // (n - 1)
    assert lam * (n - 1) == rounds * k * (k - 1)
    assert sorted(differences) == list(range(1, n)) and set(differences.values()) == {lam}
    # Each round is one base block's n translates: every bot in exactly k of them.
    for groups in designed_rounds(n, k, rounds):
        assert len(groups) == n
        assert Counter(b for g in groups for b in g) == dict.fromkeys(range(n), k)


def test_the_cost_bound_is_reached_exactly_at_spread_one() -> None:
    """pair_cost_bound is the stopping rule of the search: check it against a real schedule."""
    from arena.competition.round_robin import _f

    for n, k, rounds in [(9, 4, 2), (12, 4, 1), (7, 3, 1)]:
        _, _, pairs, _ = _tally(round_robin(n, k, rounds, 5), n, k)
        cost = sum(_f(pairs[p], k) for p in combinations(range(n), 2))
        assert cost == pair_cost_bound(n, k, rounds)


def test_two_player_round_is_a_double_round_robin_with_colours_swapped() -> None:
    tables = round_robin(6, 2, 1, seed=3)
    half = len(tables) // 2
    assert half == 15
    first, second = [t.seats for t in tables[:half]], [t.seats for t in tables[half:]]
    assert second == [(b, a) for a, b in first]
    assert len({frozenset(p) for p in first}) == 15  # the first half meets every pair once


def test_odd_number_of_bots_gets_byes_not_gaps() -> None:
    games, _, pairs, _ = _tally(round_robin(5, 2, 1), 5, 2)
    assert set(games.values()) == {8} and set(pairs.values()) == {2}


def test_deterministic_for_a_seed() -> None:
    assert round_robin(9, 4, 2, seed=7) == round_robin(9, 4, 2, seed=7)


@pytest.mark.parametrize(("n", "k", "rounds"), [(3, 4, 1), (5, 1, 1), (4, 2, 0)])
def test_impossible_schedules_are_refused_clearly(n: int, k: int, rounds: int) -> None:
    with pytest.raises(ScheduleError):
        round_robin(n, k, rounds)


def test_twelve_bots_four_seats() -> None:
    tables = round_robin(12, 4, 1)
    games, seats, pairs, _ = _tally(tables, 12, 4)
    assert len(tables) == 12 and set(games.values()) == {4}
    assert max(pairs.values()) - min(pairs[p] for p in combinations(range(12), 2)) <= 1


@pytest.mark.parametrize("shape", sorted(DIFFERENCE_FAMILIES))
def test_difference_families_are_what_the_offline_search_finds(shape: tuple[int, int, int]) -> None:
    """Provenance of the designed data: the exhaustive search in benchmarks/schedule_designs.py
    (well under a second for these shapes) returns exactly the stored base blocks."""
    from benchmarks.schedule_designs import cyclic_family

    assert cyclic_family(*shape) == DIFFERENCE_FAMILIES[shape]


# --- every shape N ≤ 64 (issue 30): every pair meets, seats exact ---------------------------


def _check_promise(n: int, k: int, rounds: int, seed: int) -> None:
    """Every bot plays games_per_round games a round, as often in each seat, and meets every
    rival at least once (from the coverings, N > 16: at least once a round); guarantees()
    reports exactly that."""
    tables = round_robin(n, k, rounds, seed)
    games, seats, pairs, _ = _tally(tables, n, k)
    per_bot = games_per_round(n, k) * rounds
    assert all(games[b] == per_bot for b in range(n)), (n, k, rounds, seed)
    assert {seats[b, s] for b in range(n) for s in range(k)} == {per_bot // k}, (n, k, rounds, seed)
    assert all(pairs[p] >= 1 for p in combinations(range(n), 2)), f"a pair never meets in {(n, k, rounds, seed)}"
    if (n, k) in COVERS:
        per_round = Counter((t.round, a, b) for t in tables for a, b in combinations(sorted(t.seats), 2))
        assert all(per_round[r, a, b] >= 1 for r in range(rounds) for a, b in combinations(range(n), 2))
    promise = guarantees(tables, n, k)
    assert promise.every_pair_meets and promise.seats_exact
    assert promise.games_per_bot == per_bot


SHAPES_UP_TO_64 = [(n, k, r) for k in (2, 3, 4, 5) for n in range(k, COVERED_UP_TO + 1) for r in (1, 2, 3)]


def test_every_shape_up_to_64_keeps_its_promise() -> None:
    """All 744 shapes N ≤ 64, k 2..5, R 1..3, seed 0 (~8 s; up to 45 s on a loaded host, so
    the other seeds are the slow test's): every pair meets in every round and seats are exact.
    The issue's shapes failed this before: N=24, 4 seats, 1 round (seeds 0, 1, 2: up to 4 pairs
    never met) and N=23 (bots 11 and 12 never met with seed 0)."""
    for n, k, rounds in SHAPES_UP_TO_64:
        _check_promise(n, k, rounds, 0)


@pytest.mark.slow
def test_every_shape_up_to_64_keeps_its_promise_for_many_seeds() -> None:
    for n, k, rounds in SHAPES_UP_TO_64:
        for seed in range(1, 12):
            _check_promise(n, k, rounds, seed)


@pytest.mark.parametrize(("n", "k"), sorted(COVERS))
def test_each_tabulated_covering_reaches_every_difference(n: int, k: int) -> None:
    """The covering data itself: blocks of k distinct residues whose differences ±(a − b) reach
    every non-zero residue mod N — what makes every pair meet in a round."""
    blocks = [[int(x) for x in part.split()] for part in COVERS[n, k].split("|")]
    assert all(len(set(b)) == k == len(b) and all(0 <= a < n for a in b) for b in blocks)
    reached = {(a - b) % n for block in blocks for a in block for b in block if a != b}
    assert reached == set(range(1, n))
    assert len(blocks) in (least_m(n, k), least_m(n, k) + 1)


def test_the_issue_shapes_now_meet_every_pair() -> None:
    """Issue 30: N=24 at 4 seats, one round, seeds 0-2 left pairs that never met; N=23 seed 0
    never paired bots 11 and 12."""
    for seed in (0, 1, 2):
        assert guarantees(round_robin(24, 4, 1, seed), 24, 4).every_pair_meets
    _, _, pairs, _ = _tally(round_robin(23, 4, 1, 0), 23, 4)
    assert pairs[11, 12] >= 1


def test_guarantees_reports_a_pair_that_never_meets() -> None:
    """The check the command prints before starting is a real check: a schedule with a pair
    removed from every table it shares is reported."""
    from arena.competition.round_robin import Table

    tables = [Table(0, 0, (0, 1)), Table(0, 1, (1, 0)), Table(0, 2, (1, 2)), Table(0, 3, (2, 1))]
    promise = guarantees(tables, 3, 2)
    assert not promise.every_pair_meets and promise.pairs_never_meeting == 1
    assert "never meet" in promise.summary()
