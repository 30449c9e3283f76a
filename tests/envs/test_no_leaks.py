"""Nothing reaches an agent that its seat cannot see, through any API surface (issue #38, item 3).

The style of the vector's hidden-information check (test_pettingzoo.py), widened to every
surface an agent loop can read: mid-game, re-sample everything the seat to move cannot see
(``sample_state`` on its observation), confirm the world really differs, assign it, and assert
that everything the seat can read — its observation and mask, *every* agent's info, the
rendered board, whose turn it is — is identical; then change something public (one more move)
and assert that it is not. Rendering is read as the seat to move reads it (``render()`` shows
the public board and that seat's options). OpenSpiel's re-sampler must keep only the player's
own recall.
"""

from __future__ import annotations

import copy
import random

import pytest

pytest.importorskip("pettingzoo", reason='the envs extra is not installed: pip install -e ".[envs]"')

import numpy as np  # noqa: E402

from arena.envs import core  # noqa: E402
from arena.envs import gymnasium as gym_envs  # noqa: E402
from arena.envs import pettingzoo as pz  # noqa: E402
from arena.sdk import sample_state  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")


def _surfaces(e) -> dict:  # noqa: ANN001
    """Everything the agent to move can read now (its view of the AEC environment)."""
    agent = e.agent_selection
    obs, reward, terminated, truncated, info = e.last()
    return {
        "agent": agent,
        "vector": obs["observation"].tobytes(),
        "mask": obs["action_mask"].tobytes(),
        "last": (reward, terminated, truncated),
        "infos": {a: copy.deepcopy(dict(i)) for a, i in e.infos.items()},
        "render": e.render(),
        "picture": core.render(e.game_state, "rgb_array").tobytes(),  # render_mode="rgb_array"
        "agents": list(e.agents),
        "terminations": dict(e.terminations),
        "rewards": dict(e.rewards),
    }


def _mid_game(e, seed: int, steps: int) -> None:  # noqa: ANN001
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("steps", [7, 23])
def test_pettingzoo_infos_render_and_state_assignment_show_nothing_hidden(game: str, steps: int) -> None:
    e = pz.env(game, 3, render_mode="ansi")
    _mid_game(e, seed=steps, steps=steps)
    real = e.game_state.clone()
    seat = real.to_move()
    e.game_state = real.clone()
    seen = _surfaces(e)
    for sample_seed in (1, 2):
        other = sample_state(game, real.observation(seat), seed=sample_seed)
        assert other.to_json() != real.to_json()  # it really differs where the seat cannot see
        e.game_state = other
        assert _surfaces(e) == seen
    # something public changes: one more move, and the surfaces show it
    moved = real.clone()
    moved.apply(moved.option_ids()[0])
    e.game_state = moved
    assert _surfaces(e) != seen
    assert "seed" not in seen["render"]


def test_other_agents_infos_are_empty_and_the_end_shows_only_the_result() -> None:
    e = pz.env("solenia", 3)
    e.reset(seed=4)
    for agent in e.agent_iter():
        obs, _r, terminated, truncated, info = e.last()
        for other, other_info in e.infos.items():
            if not (terminated or truncated) and other != agent:
                assert other_info == {}
        if terminated or truncated:
            assert set(info) == {"result"}
            e.step(None)
        else:
            assert set(info) == {"observation", "option_ids"}
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_assigning_a_state_restarts_the_agent_cycle_and_infos() -> None:
    """Before: agent_selection and the infos of the old state stayed, and the next step was
    applied for the wrong seat."""
    e, f = pz.env("orbital", 3), pz.env("orbital", 3)
    _mid_game(e, seed=1, steps=5)
    _mid_game(f, seed=2, steps=9)
    e.game_state = f.game_state.clone()
    assert e.agent_selection == f.agent_selection
    assert e.agents == f.agents and not any(e.terminations.values())
    mover = e.agent_selection
    assert e.infos[mover]["option_ids"] == f.game_state.option_ids()
    assert all(i == {} for a, i in e.infos.items() if a != mover)
    # a finished game assigned: every agent terminated, the rank rewards paid
    done = f.game_state.clone()
    rng = random.Random(0)
    while not done.is_over():
        done.apply(rng.choice(done.option_ids()))
    e.game_state = done
    assert all(e.terminations.values())
    assert sorted(e.rewards.values())[-1] == 1.0
    assert all(set(i) == {"result"} for i in e.infos.values())


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_observation_info_and_render_show_nothing_hidden(game: str) -> None:
    e = gym_envs.env(game, "random", players=3, render_mode="ansi", info_extras=True)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(6):
        obs, *_ = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
    real = e.state.clone()

    def surfaces() -> tuple:
        o = e._obs()  # what reset/step hand out now
        return (o["observation"].tobytes(), o["action_mask"].tobytes(), e._info(), e.render())

    e.state = real.clone()
    seen = surfaces()
    other = sample_state(game, real.observation(e.seat), seed=5)
    assert other.to_json() != real.to_json()
    e.state = other
    assert surfaces() == seen and "seed" not in seen[3]


def test_openspiel_resampling_keeps_only_the_players_own_recall() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import arena.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("tabletop_solenia", {"players": 3, "variant": ""})
    state = game.new_initial_state()
    state.apply_action(77)
    rng = random.Random(3)
    for _ in range(10):
        state.apply_action(rng.choice(state.legal_actions()))
    p = state.current_player()
    out = state.resample_from_infostate(p, rng.random)
    assert out.information_state_string(p) == state.information_state_string(p)
    assert out.legal_actions() == state.legal_actions()
    for q in range(3):
        if q != p:  # the other seats' digests are not copied from the real world
            assert (out.information_state_string(q).rsplit("#", 1)[1]
                    != state.information_state_string(q).rsplit("#", 1)[1])
    assert "seed" not in str(state)
