"""Round-robin schedule properties (arena/schedule.py) for N in 2..12 and k in 2..5."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.schedule import PAIR_SPREAD_BOUND, ScheduleError, games_per_round, round_robin


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


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(2, 12),
    k=st.integers(2, 5),
    rounds=st.integers(1, 2),
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
    if k == 2:
        # Classic double round-robin: every ordered pair (colours) exactly once per round.
        assert all(ordered[p] == rounds for p in permutations(range(n), 2))
    else:
        assert max(meetings) - min(meetings) <= PAIR_SPREAD_BOUND


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
