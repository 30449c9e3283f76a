"""Gymnasium vector environments and registered ids (issue #38, item 1).

Why these tests: every modern trainer steps a vector of environments, and Gymnasium's vector
envs merge the sub-environments' infos key by key — a structured observation of changing shape
in ``info`` crashed them with two or more sub-envs. Here each game runs, with autoreset across
episode ends, in SyncVectorEnv, AsyncVectorEnv (real worker processes) and ``make_vec``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason='the envs extra is not installed: pip install -e ".[envs]"')

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv  # noqa: E402

import arena.envs.gymnasium  # noqa: E402,F401  (registers the ids)
from arena.envs.gymnasium import TabletopEnv, env  # noqa: E402
from arena.envs.registration import env_ids  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _run(vec, steps: int, seed: int) -> tuple[int, list[dict]]:  # noqa: ANN001
    """Random legal actions for ``steps`` steps; returns the episodes finished and the infos."""
    rng = np.random.default_rng(seed)
    obs, info = vec.reset(seed=seed)
    done, infos = 0, [info]
    for _ in range(steps):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0
                            for m in obs["action_mask"]])
        obs, reward, terminated, truncated, info = vec.step(actions)
        assert vec.observation_space.contains(obs)
        assert reward.shape == (vec.num_envs,) and not truncated.any()
        assert set(info) <= {"illegal_action", "_illegal_action", "rank", "_rank"}
        assert not info["illegal_action"].any()
        # a finished episode reports its rank; a running one 0
        assert ((info["rank"] >= 1) == terminated).all()
        done += int(terminated.sum())
        infos.append(info)
    return done, infos


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_sync_vector_env_with_three_sub_envs_runs_through_episode_ends(game: str) -> None:
    vec = SyncVectorEnv([lambda: env(game, "random") for _ in range(3)])
    done, _ = _run(vec, 700 if game != "solenia" else 400, seed=1)
    vec.close()
    assert done >= 1  # autoreset across at least one episode end


def test_async_vector_env_with_two_worker_processes() -> None:
    vec = AsyncVectorEnv([lambda: env("solenia", "random", players=3) for _ in range(2)])
    try:
        done, _ = _run(vec, 300, seed=2)
    finally:
        vec.close()
    assert done >= 1


def test_one_sub_env_and_a_vector_env_see_the_same_game() -> None:
    single = env("black_angel", "random")
    vec = SyncVectorEnv([lambda: env("black_angel", "random")])
    obs1, _ = single.reset(seed=5)
    obsv, _ = vec.reset(seed=5)
    assert np.array_equal(obs1["observation"], obsv["observation"][0])
    assert np.array_equal(obs1["action_mask"], obsv["action_mask"][0])


def test_every_game_and_variant_has_an_id_and_make_and_make_vec_take_arguments() -> None:
    ids = env_ids()
    assert {"tabletop_arena/BlackAngel-v0", "tabletop_arena/Solenia-v0",
            "tabletop_arena/Orbital-v0", "tabletop_arena/Solenia-winter-tech-v0",
            "tabletop_arena/BlackAngel-solo-advanced-d15-v0",
            "tabletop_arena/Orbital-bots-3-v0"} <= set(ids)
    for env_id, kwargs in ids.items():
        assert env_id in gymnasium.registry
        e = gymnasium.make(env_id)
        inner = e.unwrapped
        assert isinstance(inner, TabletopEnv) and inner.game == kwargs["game"]
        assert inner.variant == kwargs.get("variant", inner.variant)
        e.close()
    e = gymnasium.make("tabletop_arena/Solenia-v0", players=3, variant="winter", opponents="random")
    assert (e.unwrapped.players, e.unwrapped.variant) == (3, "winter")
    e.reset(seed=0)
    vec = gymnasium.make_vec("tabletop_arena/Orbital-v0", num_envs=2, vectorization_mode="sync",
                             opponents="random")
    done, _ = _run(vec, 20, seed=3)
    vec.close()
    with pytest.raises(Exception, match="players"):
        gymnasium.make("tabletop_arena/Solenia-v0", players=9)


def test_the_ids_are_found_by_a_fresh_interpreter_and_declared_as_a_plugin() -> None:
    """Gymnasium 1.x imports the module named before the colon; 0.29 loads the entry point."""
    code = ("import gymnasium; e = gymnasium.make('arena.envs.gymnasium:tabletop_arena/Solenia-v0',"
            " players=3); print(e.unwrapped.players)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, check=True)
    assert out.stdout.strip() == "3"
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    point = meta["project"]["entry-points"]["gymnasium.envs"]["tabletop_arena"]
    assert point == "arena.envs.registration:register_envs"
    # What 0.29's loader does with it: call it under the entry point's namespace.
    from gymnasium.envs import registration

    before = registration.current_namespace
    registration.current_namespace = "tabletop_arena"
    try:
        from arena.envs.registration import register_envs

        register_envs()  # every id already there: nothing registered twice, no warning
    finally:
        registration.current_namespace = before


def test_info_extras_are_an_option_and_the_default_info_is_fixed() -> None:
    e = env("solenia", "random", info_extras=True)
    obs, info = e.reset(seed=4)
    assert info["option_ids"] and info["observation"]["seat"] == 0
    plain = env("solenia", "random")
    _, info = plain.reset(seed=4)
    assert info == {"illegal_action": False, "rank": 0}


def test_a_policy_fills_the_other_seats_in_a_vector_env_for_self_play() -> None:
    """The multi-seat vector path: a frozen copy of the learner as the opponents."""
    seen: list[tuple] = []

    def last_legal(vector, mask):  # noqa: ANN001, ANN202
        seen.append((vector.shape, mask.dtype))
        return int(np.flatnonzero(mask)[-1])

    vec = SyncVectorEnv([lambda: env("orbital", last_legal, players=3) for _ in range(2)])
    done, _ = _run(vec, 40, seed=6)
    vec.close()
    assert seen and set(seen) == {((2048,), np.dtype(np.int8))}

    def illegal(vector, mask):  # noqa: ANN001, ANN202
        return int(np.flatnonzero(mask == 0)[0])

    e = env("solenia", illegal, players=2, seat=1)
    with pytest.raises(ValueError, match="opponent policy chose action"):
        e.reset(seed=0)


def test_pettingzoo_parallel_api_is_refused_as_for_the_classic_games() -> None:
    """The engine says who moves (a seat may move twice): an AEC cycle is not a parallel step."""
    from pettingzoo.utils.conversions import aec_to_parallel

    from arena.envs import pettingzoo as pz

    assert pz.env("solenia").metadata["is_parallelizable"] is False
    assert not hasattr(pz, "parallel_env")
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(pz.env("solenia"))
