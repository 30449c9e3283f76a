"""The sample greedy bot against the random bot (issue 3: >=90% of 2-player games, solo avg >=40).

The default run plays a short form; ``--full`` plays 200 seeds per variant.
"""

from __future__ import annotations

import random

import pytest

from referee.engine import Result
from referee.solenia.state import SoleniaState
from sample_bots.solenia_greedy.bot import choose


def play(players: int, variant: str, seed: int, greedy: set[int]) -> Result:
    st = SoleniaState.new(players, seed, variant)
    rnd = random.Random(seed * 7 + 1)
    while not st.is_over():
        seat = st.to_move()
        ids = st.option_ids()
        st.apply(choose(st.observation(seat), ids) if seat in greedy else rnd.choice(ids))
    return st.result()


@pytest.mark.parametrize("variant", ["summer", "winter", "winter-tech"])
def test_greedy_beats_random_in_two_player_games(variant: str, full_run: bool) -> None:
    seeds = 200 if full_run else 20
    wins = 0
    for seed in range(seeds):
        g = seed % 2  # the greedy bot plays first and second in turn
        result = play(2, variant, seed, {g})
        wins += result.scores[g] > result.scores[1 - g]
    assert wins >= 0.9 * seeds, f"{variant}: greedy won {wins}/{seeds}"


@pytest.mark.parametrize("variant", ["summer", "winter", "winter-tech"])
def test_greedy_solo_average_at_least_forty(variant: str, full_run: bool) -> None:
    seeds = 200 if full_run else 20
    scores = [play(1, variant, seed, {0}).scores[0] for seed in range(seeds)]
    assert sum(scores) / seeds >= 40, f"{variant}: solo average {sum(scores) / seeds:.1f}"
