"""The batched vector env: several sub-envs per worker process (arena/envs/vector.py).

Why these tests: the batched env exists for speed, so the danger is that it drifts from what a
trainer expects of a Gymnasium vector env. The reference is Gymnasium's own ``SyncVectorEnv``:
under the same seeds and actions every step's observations, masks, rewards, flags and infos
must be identical (dtypes included), through autoresets, an illegal action and a partial reset;
Gymnasium's vector wrappers and ``make_vec`` must take it as theirs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("gymnasium", reason='the envs extra is not installed: pip install -e ".[envs]"')

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import arena.envs.gymnasium  # noqa: E402,F401  (registers the ids)
from arena.envs.gymnasium import env  # noqa: E402
from arena.envs.registration import env_ids  # noqa: E402
from arena.envs.vector import BatchedVectorEnv  # noqa: E402


def _same(a, b) -> None:  # noqa: ANN001
    """Equal values *and* dtypes, recursively (Gymnasium's own exact comparison)."""
    assert data_equivalence(a, b, exact=True), (a, b)


def _actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])


@pytest.mark.parametrize(("game", "players", "steps"),
                         [("black_angel", 2, 500), ("solenia", 3, 300), ("orbital", 2, 500)])
def test_the_same_trajectories_as_sync_vector_env_through_episode_ends(
        game: str, players: int, steps: int) -> None:
    """5 sub-envs over 2 workers (3 + 2): every step equal to SyncVectorEnv's, an illegal action
    and a partial reset included, and autoreset after every episode end."""
    kwargs = {"game": game, "opponents": "random", "players": players}
    sync = SyncVectorEnv([lambda: env(**kwargs) for _ in range(5)])
    batched = BatchedVectorEnv(5, workers=2, **kwargs)
    try:
        assert batched.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"] \
            == AutoresetMode.NEXT_STEP
        assert batched.observation_space == sync.observation_space
        assert batched.action_space == sync.action_space
        out_s, out_b = sync.reset(seed=11), batched.reset(seed=11)
        _same(out_s, out_b)
        rng = np.random.default_rng(0)
        ended = 0
        for t in range(steps):
            obs = out_s[0]
            actions = _actions(rng, obs["action_mask"])
            if t == 7:  # an action the mask rules out: sub-env 4's episode ends at once
                actions[4] = int(np.flatnonzero(obs["action_mask"][4] == 0)[0])
            out_s, out_b = sync.step(actions), batched.step(actions)
            _same(out_s, out_b)
            assert np.array_equal(batched.action_masks(), out_b[0]["action_mask"].astype(bool))
            if t == 7:
                assert out_b[4]["illegal_action"][4] and out_b[2][4]
            ended += int(out_b[2].sum())
            if t == steps // 2:  # reset sub-envs 1 and 3 only, seeded
                options = {"reset_mask": np.array([False, True, False, True, False])}
                out_s = sync.reset(seed=[None, 5, None, 6, None], options=dict(options))
                out_b = batched.reset(seed=[None, 5, None, 6, None], options=dict(options))
                _same(out_s, out_b)
        assert ended >= 3  # the autoreset path ran, not only the first episodes
        # unseeded resets draw from each sub-env's own generator: still in step
        _same(sync.reset(), batched.reset())
        _same(sync.get_attr("seat"), batched.get_attr("seat"))
    finally:
        sync.close()
        batched.close()


def test_make_vec_builds_it_from_every_id_with_the_ids_keywords() -> None:
    for env_id in env_ids():
        spec = gymnasium.spec(env_id)
        assert spec.vector_entry_point == "arena.envs.vector:BatchedVectorEnv"
    vec = gymnasium.make_vec("tabletop_arena/Solenia-winter-v0", num_envs=3,
                             vectorization_mode="vector_entry_point", workers=2,
                             opponents="random")
    try:
        assert isinstance(vec, BatchedVectorEnv) and (vec.num_envs, vec.workers) == (3, 2)
        assert vec.get_attr("variant") == ("winter",) * 3
        assert vec.spec is not None and vec.spec.id == "tabletop_arena/Solenia-winter-v0"
        obs, info = vec.reset(seed=0)
        assert vec.observation_space.contains(obs)
        # the masks by the documented call: the same as each sub-env's own action_masks()
        assert np.array_equal(vec.action_masks(), np.stack(vec.call("action_masks")))
        vec.set_attr("seat", [0, 1, 0])
        assert vec.get_attr("seat") == (0, 1, 0)
    finally:
        vec.close()
    assert all(not p.is_alive() for p in vec._processes)
    # Gymnasium's rule: without a vectorization_mode, an id's vector entry point is used
    default = gymnasium.make_vec("tabletop_arena/BlackAngel-v0", num_envs=2, workers=1)
    try:
        assert isinstance(default, BatchedVectorEnv) and default.workers == 1
        obs, _ = default.reset(seed=1)
        assert obs["action_mask"].shape == (2, 605)
    finally:
        default.close()
    with pytest.raises(Exception, match="players"):
        BatchedVectorEnv(2, game="solenia", players=9)  # refused before any process starts
    with pytest.raises(ValueError, match="info_extras"):
        BatchedVectorEnv(2, game="solenia", info_extras=True)
    with pytest.raises(ValueError, match="workers"):
        BatchedVectorEnv(2, workers=3, game="solenia")


def test_gymnasiums_vector_wrappers_take_it_as_a_vector_env() -> None:
    """RecordEpisodeStatistics reads the autoreset mode and the flags: the same episode
    statistics as over SyncVectorEnv."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    make = lambda: env("black_angel", "random")  # noqa: E731
    sync = RecordEpisodeStatistics(SyncVectorEnv([make for _ in range(4)]))
    batched = RecordEpisodeStatistics(BatchedVectorEnv(4, workers=2, game="black_angel",
                                                       opponents="random"))
    try:
        obs, _ = sync.reset(seed=3)
        batched.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(300):
            actions = _actions(rng, obs["action_mask"])
            obs, *_, info_s = sync.step(actions)
            *_, info_b = batched.step(actions)
            for info in (info_s, info_b):  # the episodes' wall times differ, of course
                info.get("episode", {}).pop("t", None)
            _same(info_s, info_b)
        assert len(batched.return_queue) >= 1
        assert list(sync.return_queue) == list(batched.return_queue)
    finally:
        sync.close()
        batched.close()


def test_an_error_in_a_worker_is_raised_in_main_and_the_env_goes_on() -> None:
    vec = BatchedVectorEnv(2, workers=2, game="solenia", opponents="random")
    try:
        vec.reset(seed=0)
        with pytest.raises(AttributeError, match="no_such_attribute"):
            vec.get_attr("no_such_attribute")
        obs, reward, *_ = vec.step(_actions(np.random.default_rng(0), vec.action_masks()))
        assert reward.shape == (2,)
    finally:
        vec.close()


def test_a_worker_that_died_is_a_clear_error_not_a_hang() -> None:
    vec = BatchedVectorEnv(4, workers=2, game="black_angel", opponents="random")
    try:
        vec.reset(seed=0)
        vec._processes[1].kill()
        with pytest.raises(RuntimeError, match=r"worker BatchedVectorEnv-worker-1 ended \(exit code -9\)"):
            vec.step(np.zeros(4, dtype=np.int64))
    finally:
        vec.close()
    assert vec.closed and not any(p.is_alive() for p in vec._processes)


def test_step_async_and_step_wait_split_a_step_as_in_async_vector_env() -> None:
    """The trainer's work can overlap the workers': the same results as step()."""
    from gymnasium.error import AlreadyPendingCallError, NoAsyncCallError

    one = BatchedVectorEnv(4, workers=2, game="solenia", opponents="random")
    two = BatchedVectorEnv(4, workers=2, game="solenia", opponents="random")
    try:
        obs, _ = one.reset(seed=8)
        two.reset(seed=8)
        rng = np.random.default_rng(8)
        for _ in range(60):
            actions = _actions(rng, obs["action_mask"])
            two.step_async(actions)
            with pytest.raises(AlreadyPendingCallError):
                two.get_attr("seat")  # nothing else while a step is out
            out = one.step(actions)
            _same(out, two.step_wait())
            obs = out[0]
        with pytest.raises(NoAsyncCallError):
            two.step_wait()
        two.step_async(_actions(rng, obs["action_mask"]))  # closed with a step pending
    finally:
        one.close()
        two.close()
    assert not any(p.is_alive() for p in two._processes)


def test_the_spawn_start_method_works_too() -> None:
    """``context="spawn"``: the workers import everything afresh (no fork of this process)."""
    sync = SyncVectorEnv([lambda: env("solenia", "random") for _ in range(2)])
    batched = BatchedVectorEnv(2, workers=2, game="solenia", opponents="random",
                               context="spawn")
    try:
        out_s, out_b = sync.reset(seed=4), batched.reset(seed=4)
        _same(out_s, out_b)
        rng = np.random.default_rng(4)
        for _ in range(20):
            actions = _actions(rng, out_s[0]["action_mask"])
            out_s, out_b = sync.step(actions), batched.step(actions)
            _same(out_s, out_b)
    finally:
        sync.close()
        batched.close()


def test_a_spawned_worker_of_an_unguarded_script_is_a_clear_error(tmp_path) -> None:  # noqa: ANN001
    """The spawn start method re-imports the main script in each worker: a script that makes the
    env at its top level gets an error that says what to change, and ends (no hang)."""
    script = tmp_path / "train.py"
    script.write_text("from arena.envs.vector import BatchedVectorEnv\n"
                      "BatchedVectorEnv(2, workers=2, game='solenia', context='spawn')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: BatchedVectorEnv worker BatchedVectorEnv-worker-")
    assert "if __name__ == \"__main__\":" in last, last
