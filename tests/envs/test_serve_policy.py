"""From training to the ladder: a policy over the toolkit spaces served as a bot, the example
learned bot qualifying, and the training script in a short form (docs/environments.md)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

np = pytest.importorskip(
    "numpy", reason='the envs extra is not installed: pip install -e ".[envs]"'
)

from arena.envs import core  # noqa: E402
from arena.envs.catalogue import catalogue  # noqa: E402
from arena.envs.mlp import EncodingMismatch, MaskedMLP  # noqa: E402
from arena.envs.serve import IllegalChoice, policy_act  # noqa: E402
from arena.envs.train_example import Settings, play, train, wins  # noqa: E402
from arena.sdk import Option, make_server  # noqa: E402
from referee import sandbox  # noqa: E402
from referee.engine import TimeControl  # noqa: E402
from referee.match import MatchConfig, SeatSpec, run_match  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"
LEARNED = ROOT / "sample_bots" / "learned_solenia"
GAME = "solenia"


def highest_legal(vec, mask) -> int:
    return int(np.flatnonzero(mask)[-1])


def replay(record, seat: int):
    """``seat``'s decisions in ``record`` replayed in the PettingZoo environment: (its vector, its
    mask, the legal ids, the option played) at each — what training saw in that position."""
    from arena.envs.pettingzoo import env

    cat = catalogue(record.game)
    e = env(record.game, players=record.players, variant=record.variant)
    e.reset(seed=record.seed)
    out = []
    for d in record.decisions:
        assert e.agent_selection == f"player_{d.seat}"
        if d.seat == seat:
            obs, _reward, _term, _trunc, info = e.last()
            out.append((obs["observation"], obs["action_mask"], info["option_ids"], d.option))
        e.step(cat.action_of(d.option))
    assert all(e.terminations.values())
    return out


def test_a_served_policy_sees_what_the_environments_show_in_a_real_match() -> None:
    cat = catalogue(GAME)
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def policy(vec, mask) -> int:
        seen.append((vec.copy(), mask.copy()))
        return highest_legal(vec, mask)

    server, port = make_server(policy_act(policy, GAME), "127.0.0.1:0", name="policy")
    server.start()
    try:
        seats = [SeatSpec("policy", f"127.0.0.1:{port}"), SeatSpec("random", str(RANDOM_BOT))]
        record = run_match(
            MatchConfig(
                game=GAME,
                seats=seats,
                seed=17,
                sandbox=False,
                startup_ms=20000,
                time_control=TimeControl(decision_ms=5000, bank_ms=20000),
            )
        )
    finally:
        server.stop(0)
    assert record.forfeits == []
    mine = replay(record, 0)
    assert len(mine) == len(seen) > 10
    for (env_vec, env_mask, legal, played), (vec, mask) in zip(mine, seen, strict=True):
        # The very vector and mask the environment showed in this position during training.
        assert np.array_equal(vec, env_vec) and vec.dtype == env_vec.dtype == np.float32
        assert np.array_equal(mask, env_mask) and mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == cat.mask(legal)
        assert played == cat.ids[cat.mask(legal)[-1]]


def test_serve_policy_runs_a_bot_folder_the_referee_starts(tmp_path: Path) -> None:
    bot = tmp_path / "policy_bot"
    bot.mkdir()
    (bot / "bot.py").write_text(
        textwrap.dedent("""
        import numpy as np
        from arena.sdk import serve_policy

        if __name__ == "__main__":
            serve_policy(lambda vec, mask: int(np.flatnonzero(mask)[-1]), "solenia")
    """)
    )
    seats = [SeatSpec("random", str(RANDOM_BOT)), SeatSpec("policy", str(bot))]
    record = run_match(MatchConfig(game=GAME, seats=seats, seed=5, sandbox=False, startup_ms=20000))
    assert record.forfeits == []
    cat = catalogue(GAME)
    for _vec, _mask, legal, played in replay(record, 1):
        assert played == cat.ids[cat.mask(legal)[-1]]


def test_structured_policies_and_illegal_choices() -> None:
    cat = catalogue(GAME)
    state = core.new_state(GAME, 2, core.check_config(GAME, 2, None), 3)
    seat = state.to_move()
    observation = core.fresh_observation(state, seat)
    options = [Option(o.id, o.label) for o in state.legal_options()]
    got = {}

    def structured(obs, mask) -> int:
        got["obs"] = obs
        return int(np.flatnonzero(mask)[0])

    assert (
        policy_act(structured, GAME, "structured")(observation, options)
        == cat.ids[cat.mask(state.option_ids())[0]]
    )
    assert got["obs"] == state.observation(seat)
    illegal = next(i for i in range(len(cat)) if cat.ids[i] not in state.option_ids())
    with pytest.raises(
        IllegalChoice, match=rf"action {illegal} \('.*'\), which the mask rules out"
    ):
        policy_act(lambda v, m: illegal, GAME)(observation, options)
    with pytest.raises(IllegalChoice, match="outside the catalogue"):
        policy_act(lambda v, m: len(cat), GAME)(observation, options)
    with pytest.raises(IllegalChoice, match="not an action index"):
        policy_act(lambda v, m: "cell:3", GAME)(observation, options)
    with pytest.raises(ValueError, match="observation must be one of vector, structured"):
        policy_act(structured, GAME, "pixels")


def test_the_training_script_runs_a_few_iterations(tmp_path: Path) -> None:
    # The short form of `python -m arena.envs.train_example`: every phase, a handful of games.
    s = Settings(
        hidden=4, rounds=2, games_per_round=2, epochs=1, rl_iterations=2, rl_games=2, eval_games=2
    )
    net, figures = train(s, tmp_path / "weights.npz", tmp_path / "curve.png", log=lambda line: None)
    assert figures["curve"]["phase"] == [
        "untrained",
        "dagger 0",
        "dagger 1",
        "reinforce 1",
        "reinforce 2",
    ]
    assert figures["games_played"] == 2 * 2 + 2 * 2
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "training.json").is_file()
    loaded = MaskedMLP.load(tmp_path / "weights.npz")
    assert loaded.game == GAME and loaded.w1.shape == (2048, 4)
    assert all(np.array_equal(a, b) for a, b in zip(loaded.params, net.params, strict=True))
    # What was saved plays legal moves to the end of a game.
    assert len(play(loaded, GAME, [7, 8])) == 2


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game", "orbital"], "invalid choice: 'orbital'"),
        (["--rounds", "0"], "argument --rounds: must be 1 or more, not 0"),
        (["--hidden", "many"], "argument --hidden: 'many' is not a whole number"),
    ],
)
def test_the_command_line_refuses_bad_settings_in_one_line(args: list[str], says: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "arena.envs.train_example", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2 and says in run.stderr and "Traceback" not in run.stderr


def test_the_learned_bot_beats_random_in_a_20_game_smoke_run() -> None:
    # Deterministic (seeded games, argmax policy): the benchmark's first 20 seeds.
    policy = MaskedMLP.load(LEARNED / "weights.npz")
    assert policy.game == GAME
    assert wins(play(policy, GAME, list(range(20)))) >= 14


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")
def test_the_learned_bot_qualifies_like_any_other() -> None:
    from arena.intake.qualification import qualify

    outcome = qualify(GAME, str(LEARNED), seed=random.randrange(2**31))
    assert outcome.passed, (outcome.kind, outcome.message, outcome.log_tail)


def test_weights_of_another_encoding_are_refused_on_load(tmp_path: Path) -> None:
    net = MaskedMLP.initial(2048, 2, len(catalogue(GAME)), 0, GAME)
    net.save(tmp_path / "w.npz")
    assert MaskedMLP.load(tmp_path / "w.npz").game == GAME
    with np.load(tmp_path / "w.npz") as f:
        arrays = {k: f[k] for k in f.files}
    arrays["encoding"] = np.array("2048:00000000")  # as if trained before a change of the encoder
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(EncodingMismatch, match=r"another observation encoding .* retrain it"):
        MaskedMLP.load(tmp_path / "old.npz")


def test_a_served_policy_that_ignores_the_mask_forfeits_with_a_clear_log(tmp_path: Path) -> None:
    bot = tmp_path / "maskless"
    bot.mkdir()
    (bot / "bot.py").write_text(
        "from arena.sdk import serve_policy\n\n"
        'if __name__ == "__main__":\n'
        '    serve_policy(lambda vec, mask: 70, "solenia")  # drop:water, never legal at the start\n'
    )
    seats = [SeatSpec("maskless", str(bot)), SeatSpec("random", str(RANDOM_BOT))]
    record = run_match(MatchConfig(game=GAME, seats=seats, seed=5, sandbox=False, startup_ms=20000))
    forfeit = record.forfeit_of(0)
    assert forfeit is not None and forfeit.reason == "bot_error"
    assert "the policy chose action 70 ('drop:water'), which the mask rules out" in forfeit.log_tail


def test_the_command_writes_under_arena_home_never_over_the_tracked_example(tmp_path: Path) -> None:
    tracked = [LEARNED / "weights.npz", LEARNED / "training.json"]
    before = [f.read_bytes() for f in tracked]
    env = {**os.environ, "ARENA_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "arena.envs.train_example", "--hidden", "2", "--rounds", "1",
         "--games-per-round", "1", "--epochs", "1", "--rl-iterations", "0", "--eval-games", "1",
         "--no-curve"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, env=env,
    )
    assert run.returncode == 0, run.stderr
    folder = tmp_path / "trained" / "learned_solenia"
    assert (folder / "weights.npz").is_file() and (folder / "training.json").is_file()
    assert [f.read_bytes() for f in tracked] == before
