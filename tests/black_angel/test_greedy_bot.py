"""The sample greedy bot against the random bot (in-process; the bot's ``act`` is called directly).

Issue 4: the heuristic bot beats random in >= 90% of 2- and 4-player games over 200 seeds
(--full; 20 seeds by default) and beats Hal at normal difficulty more often than random does.
"""

from __future__ import annotations

import random

import pytest

from arena.sdk import Option
from referee.black_angel.state import BlackAngelState
from sample_bots.black_angel_greedy.bot import act


def _play(players: int, seed: int, greedy: set[int], variant: str = "base") -> BlackAngelState:
    s = BlackAngelState.new(players, seed, variant)
    rng = random.Random(seed)
    while not s.is_over():
        seat = s.to_move()
        assert seat is not None
        opts = [Option(o.id, o.label) for o in s.legal_options()]
        s.apply(act(s.observation(seat), opts) if seat in greedy else rng.choice(opts).id)
    return s


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_beats_random(players: int, full_run: bool) -> None:
    seeds = 200 if full_run else 20
    wins = 0
    for seed in range(seeds):
        me = seed % players
        wins += _play(players, seed, {me}).result().ranks[me] == 1
    assert wins >= 0.9 * seeds


def test_greedy_beats_hal_more_often_than_random(full_run: bool) -> None:
    seeds = 200 if full_run else 40
    greedy = sum(_play(1, seed, {0}, "solo").result().details["beat_hal"] for seed in range(seeds))
    rand = sum(_play(1, seed, set(), "solo").result().details["beat_hal"] for seed in range(seeds))
    assert greedy > rand
