"""The PettingZoo AEC environments pass PettingZoo's own checks and hide what a seat cannot see."""

from __future__ import annotations

import contextlib
import io

import pytest

pytest.importorskip("pettingzoo", reason='the envs extra is not installed: pip install -e ".[envs]"')

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from arena.envs import core  # noqa: E402
from arena.envs.core import configurations  # noqa: E402
from arena.envs.pettingzoo import StaleInfo, env  # noqa: E402
from arena.sdk import sample_state  # noqa: E402
from referee.engine import ConfigError  # noqa: E402

#: The short form checks one multiplayer and one solo configuration per game; --full checks
#: every configuration ``arena games`` lists.
SHORT = [("black_angel", 2, "base"), ("black_angel", 1, "solo"), ("solenia", 2, "summer"),
         ("solenia", 1, "winter-tech"), ("orbital", 2, "standard"), ("orbital", 1, "competitive")]
ALL = [(g, p, v) for g in ("black_angel", "solenia", "orbital") for p, v in configurations(g)]


def _check(game: str, players: int, variant: str, observation: str = "vector") -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(env(game, players, variant, render_mode="ansi", observation=observation), num_cycles=300)
        seed_test(lambda render_mode=None: env(game, players, variant, render_mode=render_mode,
                                               observation=observation), num_cycles=30)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_the_mask_only_mode_passes_the_checks_and_masks_alike(game: str) -> None:
    _check(game, 2, core.check_config(game, 2, None), observation="mask")
    a, b = env(game, 2), env(game, 2, observation="mask")
    a.reset(seed=8)
    b.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(60):
        if a.terminations[a.agent_selection]:
            break
        oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
        assert set(ob) == {"action_mask"} and b.observation_space(b.agent_selection).contains(ob)
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        action = int(rng.choice(np.flatnonzero(oa["action_mask"])))
        a.step(action)
        b.step(action)
    with pytest.raises(ValueError, match="observation must be one of"):
        env(game, 2, observation="pixels")


def test_infos_are_built_when_read_and_a_stale_read_is_an_error() -> None:
    e = env("orbital", 3)
    e.reset(seed=2)
    mover = e.agent_selection
    seat = e.possible_agents.index(mover)
    info = e.infos[mover]
    assert "observation" in info and "option_ids" in info  # before anything was built
    assert info["observation"] == e.game_state.observation(seat)
    assert info["option_ids"] == e.game_state.option_ids()
    other = e.infos[e.possible_agents[(seat + 1) % 3]]
    assert other == {}  # another seat's info holds nothing of its hidden state
    info["observation"]["mc"] = "mine"  # a copy: changing it changes nothing in the game
    assert e.game_state.observation(seat)["mc"] != "mine"
    e.step(int(np.flatnonzero(e.observe(mover)["action_mask"])[0]))
    stale = e.infos[e.agent_selection]
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    with pytest.raises(StaleInfo, match="earlier step"):
        stale["observation"]
    assert info["observation"]["mc"] == "mine"  # read in time, an info keeps what it showed


def test_assigning_a_state_drops_the_cached_views() -> None:
    e, f = env("solenia", 2), env("solenia", 2)
    e.reset(seed=1)
    f.reset(seed=2)
    agent = e.agent_selection
    before = e.observe(agent)["observation"]
    e.game_state = f.game_state
    after = e.observe(agent)["observation"]
    assert not np.array_equal(before, after)
    assert np.array_equal(after, f.observe(agent)["observation"])


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "players", "variant"), SHORT)
def test_api_and_seed_tests_pass(game: str, players: int, variant: str) -> None:
    _check(game, players, variant)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "players", "variant"), [c for c in ALL if c not in SHORT])
def test_api_and_seed_tests_pass_for_every_configuration(game: str, players: int, variant: str) -> None:
    _check(game, players, variant)


def _play(e, seed: int, steps: int) -> list[int]:  # noqa: ANN001
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(steps):
        mask = e.observe(e.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        e.step(action)
    return actions


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_vector_is_identical_for_states_that_differ_only_in_hidden_information(game: str) -> None:
    e = env(game, 3)
    _play(e, seed=5, steps=12)
    agent = e.agent_selection
    seat = e.possible_agents.index(agent)
    real = e.game_state
    seen = real.observation(seat)
    before = e.observe(agent)
    other = sample_state(game, seen, seed=99)  # another world consistent with what the seat saw
    assert other.observation(seat) == seen
    assert other.to_json() != real.to_json()  # it really differs somewhere the seat cannot see
    e.game_state = other
    after = e.observe(agent)
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    # ... while another seat's vector is not the same as this seat's (the encoder sees the seat)
    other_agent = e.possible_agents[(seat + 1) % 3]
    assert not np.array_equal(e.observe(other_agent)["observation"], after["observation"])


def test_reset_with_a_seed_reproduces_the_game_and_render_shows_the_board() -> None:
    a, b = env("solenia", 2, render_mode="ansi"), env("solenia", 2, render_mode="ansi")
    moves = _play(a, seed=3, steps=40)
    b.reset(seed=3)
    for m in moves:
        b.step(m)
    assert a.game_state.to_json() == b.game_state.to_json()
    mover = a.agent_selection
    assert a.infos[mover]["observation"] == a.game_state.observation(a.possible_agents.index(mover))
    text = a.render()
    assert text.startswith("Solenia (2 players, summer)\n") and "seed" not in text
    assert "options:" in text


def test_a_finished_game_pays_plus_one_to_the_winner_and_minus_one_to_the_last() -> None:
    e = env("orbital", 2)
    e.reset(seed=1)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        e.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    ranks = e.game_state.result().ranks
    expected = {a: (1.0 if r == 1 else -1.0) if ranks[0] != ranks[1] else 1.0
                for a, r in zip(e.possible_agents, ranks, strict=True)}
    assert totals == expected


def test_bad_configuration_and_illegal_action_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="not 9"):
        env("solenia", 9)
    e = env("black_angel", 2)
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="is not legal now"):
        e.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="outside the catalogue"):
        e.step(10**9)
