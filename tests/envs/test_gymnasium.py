"""The Gymnasium environments pass Gymnasium's env checker and play whole games against house bots."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason='the envs extra is not installed: pip install -e ".[envs]"')

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from arena.envs.gymnasium import env  # noqa: E402
from arena.envs.rewards import rank_rewards  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")


def _episode(e, seed: int) -> tuple[float, list[int]]:  # noqa: ANN001
    obs, info = e.reset(seed=seed)
    total, actions, done = 0.0, [], False
    rng = np.random.default_rng(seed)
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        obs, reward, done, truncated, info = e.step(action)
        assert not truncated
        total += reward
    assert info["rank"] == e.state.result().ranks[e.seat] >= 1
    return total, actions


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_check_env_passes_and_the_reward_is_the_rank_reward(game: str, opponents: str) -> None:
    e = env(game, opponents, players=2, render_mode="ansi")
    check_env(e)
    total, _ = _episode(e, seed=4)
    assert total == rank_rewards(e.state.result().ranks)[0]
    assert e.render().startswith(e.state.spec.title)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_ismcts_opponents_and_a_solo_variant() -> None:
    e = env("solenia", "ismcts", players=2, ismcts_iterations=20)
    check_env(e)
    _episode(e, seed=2)
    solo = env("black_angel", "random", players=1, variant="solo")  # the automaton plays inside
    check_env(solo)
    total, _ = _episode(solo, seed=1)
    assert total == (1.0 if solo.state.result().ranks[0] == 1 else -1.0)


def test_a_seed_reproduces_the_episode_against_the_same_bots() -> None:
    a, b = env("orbital", "random", players=3, seat=1), env("orbital", "random", players=3, seat=1)
    _, moves = _episode(a, seed=8)
    b.reset(seed=8)
    for m in moves:
        b.step(m)
    assert a.state.to_json() == b.state.to_json()


def test_an_illegal_action_ends_the_episode_with_minus_one_and_bad_input_is_a_clear_error() -> None:
    e = env("black_angel", "random")
    obs, _ = e.reset(seed=0)
    _, reward, done, _, info = e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert (reward, done, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="call reset"):
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="unknown opponent"):
        env("black_angel", "alphazero")
    with pytest.raises(ValueError, match="seat must be"):
        env("black_angel", "random", seat=5)


def test_action_masks_is_the_steps_mask_cached_not_re_encoded() -> None:
    e = env("orbital", "random")
    obs, _ = e.reset(seed=3)
    calls = []
    encoder = e._encoder

    class Counting:  # the env's encoder, counting the vectors it is asked for
        def vector(self, state, seat):  # noqa: ANN001, ANN202
            calls.append(seat)
            return encoder.vector(state, seat)

    e._encoder = Counting()
    mask = e.action_masks()
    assert mask.dtype == bool and np.array_equal(mask, obs["action_mask"].astype(bool))
    assert calls == []  # no second encoding of the same state
    obs["action_mask"][:] = 0  # the caller's copy is the caller's
    assert e.action_masks().any()
    e.state = e.state.clone()  # an assigned state: its own mask, listed afresh (no vector)
    assert np.array_equal(e.action_masks(), mask) and calls == []
    later = env("orbital", "random")
    obs, _ = later.reset(seed=3)
    obs, *_ = later.step(int(np.flatnonzero(obs["action_mask"])[0]))
    e.state = later.state.clone()  # another position: its mask, not the last step's
    assert np.array_equal(e.action_masks(), obs["action_mask"].astype(bool))
    assert not np.array_equal(e.action_masks(), mask) and calls == []
