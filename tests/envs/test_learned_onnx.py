"""Learned bots through ONNX: the export is the network, the pipelines run end to end on a tiny
budget and reproduce byte for byte, runs never replace tracked files unless told, and the
committed learned Solenia bot beats greedy (the long measurement is marked slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from arena.envs.catalogue import catalogue  # noqa: E402
from arena.envs.mlp import EncodingMismatch, MaskedMLP  # noqa: E402
from arena.envs.onnx_model import ILLEGAL, OnnxPolicy, export  # noqa: E402
from arena.envs.train_example import wilson  # noqa: E402
from referee import sandbox  # noqa: E402
from referee.engine import TimeControl  # noqa: E402
from referee.match import MatchConfig, SeatSpec, run_match  # noqa: E402
from sample_bots.solenia_learned import train as learned_train  # noqa: E402
from sample_bots.solenia_learned.features import NAMES  # noqa: E402
from sample_bots.solenia_learned.model import LinearValue, OnnxValue, greedy_weights  # noqa: E402
from sample_bots.solenia_learned.planner import WIN_BONUS, greedy_move, look_ahead  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "sample_bots" / "solenia_learned"
GREEDY = ROOT / "sample_bots" / "solenia_greedy"


def test_the_onnx_export_computes_what_the_numpy_network_does(tmp_path: Path) -> None:
    cat = catalogue("solenia")
    rng = np.random.default_rng(3)
    net = MaskedMLP.initial(2048, 8, len(cat), 3, "solenia")
    net.w2 = rng.normal(0, 1, net.w2.shape).astype(np.float32)
    x = rng.normal(0, 3, (5, 2048)).astype(np.float32)
    net.normalise_on(x)
    masks = (rng.random((5, len(cat))) < 0.1).astype(np.float32)
    masks[:, 0] = 1
    export(net, tmp_path / "m.onnx", {"why": "test"})
    policy = OnnxPolicy(tmp_path / "m.onnx")
    assert policy.game == "solenia"
    got = policy.logits(x, masks)
    _, want = net.forward(x)
    legal = masks > 0
    assert np.allclose(got[legal], want[legal], atol=1e-4)
    assert (got[~legal] == ILLEGAL).all()
    assert [policy(x[i], masks[i]) for i in range(5)] == [net(x[i], masks[i]) for i in range(5)]


def test_an_onnx_policy_of_another_encoding_is_refused(tmp_path: Path) -> None:
    import onnx

    net = MaskedMLP.initial(2048, 2, len(catalogue("solenia")), 0, "solenia")
    path = export(net, tmp_path / "m.onnx")
    model = onnx.load(str(path))
    for prop in model.metadata_props:
        if prop.key == "encoding":
            prop.value = "2048:00000000"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(EncodingMismatch, match="retrain it"):
        OnnxPolicy(path)


def test_the_learned_pipeline_runs_end_to_end_and_reproduces(tmp_path: Path) -> None:
    # The short form of `python -m sample_bots.solenia_learned.train`: self-play, the fit, the
    # export and the measurements of the exported bot and of the baseline, a handful of games.
    s = learned_train.Settings(selfplay_games=2, eval_games=2)
    figures = [learned_train.train(s, tmp_path / name, log=lambda line: None) for name in "ab"]
    assert (tmp_path / "a" / "model.onnx").read_bytes() == (tmp_path / "b" / "model.onnx").read_bytes()
    assert figures[0]["weights"] == figures[1]["weights"] and figures[0]["decisions"] > 50
    saved = json.loads((tmp_path / "a" / "training.json").read_text())
    for measured in (saved["eval_vs_greedy"], saved["baseline_vs_greedy"]):
        assert measured["wins"] + measured["ties"] + measured["losses"] == 2
    assert saved["command"].startswith("python -m sample_bots.solenia_learned.train --seed 1 ")
    # The file holds the fitted value: the bias, and each weight, read back through ONNX Runtime.
    w, b = OnnxValue(tmp_path / "a" / "model.onnx").linear()
    assert abs(b - saved["bias"]) < 1e-3
    assert np.allclose(w, [saved["weights"][n] for n in NAMES], atol=1e-3)


def test_the_value_is_fitted_to_how_the_games_ended() -> None:
    # A target that is a known linear mix of the features comes back as that mix.
    rng = np.random.default_rng(5)
    x = rng.normal(3, 2, (2000, len(NAMES)))
    w_true = rng.normal(0, 1, len(NAMES))
    w, b = learned_train.fit_value(x, x @ w_true + 4.0, ridge=0.0)
    assert np.allclose(w, w_true, atol=1e-3) and abs(b - 4.0) < 1e-2
    # Each self-play decision is labelled with its own seat's final worth: the two seats' labels
    # are opposite, and a finished game's margin is the scores' difference plus the win bonus.
    xs, ys = learned_train.selfplay(3)
    assert len(xs) == len(ys) > 50 and set(ys) == {ys[0], -ys[0]} and abs(ys[0]) >= WIN_BONUS


def test_the_playouts_are_the_greedy_bots_play() -> None:
    # The look-ahead plays its futures with greedy on both seats, and greedy's planner with
    # greedy's own weights as the evaluation is greedy: same choices, so the same game.
    from referee import registry

    value = LinearValue(greedy_weights())
    greedy = learned_train._greedy()
    for seed in (2, 3):
        st = registry.new_game("solenia", 2, seed, None)
        while not st.is_over():
            seat = st.to_move()
            choice = greedy(st, seat)
            assert greedy_move(st) == choice
            assert learned_train._planner(value)(st, seat) == choice
            st.apply(choice)


def test_the_look_ahead_keeps_greedys_choice_unless_a_future_is_better() -> None:
    # With one candidate it is greedy; with more, it leaves greedy's first choice only for an
    # option whose futures the value prefers, and never plays an option that is not legal.
    from referee import registry

    st = registry.new_game("solenia", 2, 9, None)
    greedy = learned_train._greedy()
    seen_other = 0
    flat = lambda leaves, seat: [0.0] * len(leaves)  # noqa: E731 - every future alike
    while not st.is_over():
        seat = st.to_move()
        obs, ids = st.observation(seat), st.option_ids()
        choice = greedy(st, seat)
        assert look_ahead(obs, ids, LinearValue(greedy_weights()), candidates=1) == choice
        if sum(st.used) < 8:  # no future ends the game yet: all alike, ties go to greedy's order
            assert look_ahead(obs, ids, flat) == choice
        mine = look_ahead(obs, ids, LinearValue(greedy_weights()))
        assert mine in ids
        seen_other += mine != choice
        st.apply(choice)
    assert seen_other > 0


def test_the_exported_value_is_the_trained_one(tmp_path: Path) -> None:
    from arena.envs.onnx_model import export_value_mlp
    from referee import registry
    from sample_bots.solenia_learned.features import SIZE
    from sample_bots.solenia_learned.model import FEATURES_ID

    w = np.random.default_rng(0).normal(0, 1, SIZE).astype(np.float32)
    export_value_mlp(tmp_path / "v.onnx", np.zeros(SIZE), np.ones(SIZE), [(w[:, None], np.zeros(1))],
                     {"features": FEATURES_ID})
    states = [registry.new_game("solenia", 2, seed, None) for seed in range(4)]
    assert np.allclose(OnnxValue(tmp_path / "v.onnx")(states, 0), LinearValue(w)(states, 0), atol=1e-3)
    export_value_mlp(tmp_path / "other.onnx", np.zeros(SIZE), np.ones(SIZE), [(w[:, None], np.zeros(1))],
                     {"features": "something else"})
    with pytest.raises(ValueError, match="other features"):
        OnnxValue(tmp_path / "other.onnx")


@pytest.mark.parametrize("command", [
    ["arena.envs.train_example", "--dir", "sample_bots/learned_solenia", "--no-curve"],
    ["sample_bots.solenia_learned.train", "--dir", "sample_bots/solenia_learned"],
])
def test_training_never_replaces_tracked_files_unless_told(command: list[str]) -> None:
    if subprocess.run(["git", "ls-files", "--error-unmatch", "sample_bots/learned_solenia/weights.npz"],
                      cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git work tree with the committed bot")
    run = subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and "would replace files the repository tracks" in run.stderr, run.stderr
    assert "--replace-tracked" in run.stderr and "Traceback" not in run.stderr


def test_the_committed_learned_bot_plays_a_game_with_its_onnx_model() -> None:
    bots = [learned_train._learned(OnnxValue(BOT / "model.onnx")), learned_train._greedy()]
    ranks, scores = learned_train.play_game(11, bots)
    assert sorted(ranks) in ([1, 2], [1, 1]) and min(scores) > 0
    assert (BOT / "requirements.txt").read_text().split() == ["numpy>=1.24", "onnxruntime>=1.16"]


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")
def test_the_learned_bot_plays_sandboxed_inside_the_default_time_control() -> None:
    record = run_match(MatchConfig(game="solenia", seed=4, sandbox=True,
                                   seats=[SeatSpec("learned", str(BOT)), SeatSpec("greedy", str(GREEDY))]))
    assert record.forfeits == [], [(f.reason, f.message, f.log_tail) for f in record.forfeits]
    assert record.result is not None
    mine = [d for d in record.decisions if d.seat == 0 and not d.forced]
    assert mine and not any(d.forced for d in record.decisions)
    # Inside the default time control (1 s a decision) with room to spare, even on a loaded machine.
    assert max(d.cpu_ms if d.cpu_ms is not None else d.wall_ms for d in mine) < TimeControl().decision_ms


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")
def test_the_learned_bot_qualifies_like_any_other() -> None:
    from arena.intake.qualification import qualify

    outcome = qualify("solenia", str(BOT), seed=7)
    assert outcome.passed, (outcome.kind, outcome.message, outcome.log_tail)


@pytest.mark.slow
def test_the_committed_bots_measurement_against_greedy_reproduces() -> None:
    # The measurement training.json and docs/environments.md report, played again from the
    # committed model.onnx: 200 held-out seeds, seats alternating, the same counts exactly.
    saved = json.loads((BOT / "training.json").read_text())["eval_vs_greedy"]
    first, last = (int(x) for x in saved["seeds"].split(".."))
    seeds = list(range(first, last + 1))
    assert len(seeds) >= 200
    games = learned_train.Games(2)
    try:
        w, b = OnnxValue(BOT / "model.onnx").linear()
        results = games.run([(w, b, seed) for seed in seeds])
    finally:
        games.close()
    won = sum(1 for r, _ in results if r == 1)
    tied = sum(1 for r, _ in results if r == 0)
    assert (won, tied) == (saved["wins"], saved["ties"])
    lo, hi = wilson(won, len(seeds))
    assert [round(lo, 3), round(hi, 3)] == saved["wilson95"]
    assert lo > 0.5  # the bar: the 95 % interval above one half
    docs = (ROOT / "docs" / "environments.md").read_text()
    assert f"| solenia_learned (model.onnx) | greedy | {won} | {tied} |" in docs
