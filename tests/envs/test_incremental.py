"""The running-sum encoder (arena/envs/incremental.py) equals the encoding of the compact
observation on every decision, for the seat to move and for seats that look only now and then."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from arena.envs import core
from arena.envs.encoding import encode
from arena.envs.incremental import IncrementalEncoder, check_layout
from referee import registry

CONFIGURATIONS = [(g, p, v) for g in ("black_angel", "solenia", "orbital")
                  for p, v in core.configurations(g)]


@pytest.mark.parametrize(("game", "players", "variant"), CONFIGURATIONS)
def test_the_running_sum_equals_the_encoding_on_every_decision(game: str, players: int,
                                                               variant: str) -> None:
    rng = random.Random(players * 31 + len(variant))
    encoders = [IncrementalEncoder(game) for _ in range(players)]
    for seed in (1, 2) if players == 2 else (1,):  # a second game: diffed from the first's end
        state = registry.new_game(game, players, seed, variant)
        check_layout(game, state, 0)
        while (seat := state.to_move()) is not None:
            for looking in range(players):
                if looking == seat or rng.random() < 0.15:
                    got = encoders[looking].vector(state, looking)
                    want = encode(core.compact_observation(state, looking))
                    assert got.dtype == want.dtype and np.array_equal(got, want), (seed, looking)
            ids = state.option_ids()
            state.apply(ids[rng.randrange(len(ids))])
        for looking in range(players):  # the final state too
            assert np.array_equal(encoders[looking].vector(state, looking),
                                  encode(core.compact_observation(state, looking)))


def test_a_reset_encoder_starts_afresh_and_big_values_are_clipped_as_encode_clips() -> None:
    state = registry.new_game("solenia", 2, 5, None)
    encoder = IncrementalEncoder("solenia")
    first = encoder.vector(state, 0)
    encoder.reset()
    assert np.array_equal(encoder.vector(state, 0), first)
    encoder._add(encoder._pids[0], 5_000_000, 1.0)  # a bucket beyond LIMIT
    clipped = encoder.vector(state, 0)
    assert clipped.max() == 1.0e6


def test_an_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no incremental layout"):
        IncrementalEncoder("chess")


def test_a_deep_copied_environment_keeps_its_own_running_sum() -> None:
    from arena.envs.pettingzoo import env

    e = env("orbital", 2)
    e.reset(seed=3)
    e.observe(e.agent_selection)
    twin = copy.deepcopy(e)
    for _ in range(6):
        twin.step(int(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])[0]))
        seat = twin.game_state.to_move()
        assert np.array_equal(twin.observe(twin.agent_selection)["observation"],
                              encode(core.compact_observation(twin.game_state, seat)))
    seat = e.game_state.to_move()
    assert np.array_equal(e.observe(e.agent_selection)["observation"],
                          encode(core.compact_observation(e.game_state, seat)))


def test_a_deep_copied_gymnasium_environment_steps_on_its_own() -> None:
    from arena.envs.gymnasium import env

    e = env("solenia", "random")
    obs, _ = e.reset(seed=2)
    twin = copy.deepcopy(e)
    for _ in range(5):
        obs, _r, done, _t, info = twin.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not info["illegal_action"] and not done
        assert np.array_equal(obs["observation"], encode(core.compact_observation(twin.state, 0)))
        assert np.array_equal(twin.action_masks(), obs["action_mask"].astype(bool))
