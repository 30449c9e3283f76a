"""Train the learned Solenia bot: ``python -m sample_bots.solenia_learned.train [--seed 1]``.

What is learned, and how: the bot is the greedy bot's turn planner (``planner.py``) judging
end-of-turn states with a linear model over 26 :mod:`features` (points, resources, tiles in
reach, the opponent's score, …), exported to ONNX (``model.onnx``) and run by ONNX Runtime.
Training starts from greedy's own evaluation (:data:`features.GREEDY_WEIGHTS`: the first model
*is* greedy) and improves it by evolution strategies against the greedy bot: each generation
draws ``pairs`` random directions in the (standardised) weight space, plays the model moved
``+sigma`` and ``-sigma`` along each one against greedy on the same fresh seeds, seats
alternating (common random numbers: the two sides of a pair differ only by their choices), and
steps along the directions in proportion to how much better the ``+`` side did (antithetic ES,
Salimans et al. 2017). The objective is the game's own: the final score margin, plus a bonus per
win. Why this and not a value fitted to outcomes: a regression on how games ended (tried first)
learns the global trend but not the small differences between the ends of one turn that a
planner compares, and played worse than greedy (30 % against it); the search here measures
exactly what it optimises. The games are independent, so ``--workers 2`` plays them on two
cores; the result does not depend on the number of workers.

Writes ``model.onnx`` and ``training.json`` into ``--dir`` (default
``$ARENA_HOME/trained/solenia_learned``), never over files git tracks unless
``--replace-tracked`` (to retrain the committed bot: ``--dir sample_bots/solenia_learned
--replace-tracked``). Seeded: the same seed and settings give the same model, byte for byte.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from arena.envs.onnx_model import export_value_mlp  # noqa: E402
from arena.envs.train_example import default_dir, tracked_files, wilson  # noqa: E402
from arena.intake import house_bots  # noqa: E402
from arena.sdk import Option  # noqa: E402
from referee import registry  # noqa: E402
from referee.solenia.scoring import score_breakdown  # noqa: E402
from sample_bots.solenia_learned.features import NAMES, SIZE, features  # noqa: E402
from sample_bots.solenia_learned.model import FEATURES_ID, LinearValue, OnnxValue, greedy_weights  # noqa: E402
from sample_bots.solenia_learned.planner import choose  # noqa: E402

GAME = "solenia"
#: Seeds: training games from TRAIN_SEED0 + 1_000_000 * seed on; the final measurement on
#: EVAL_SEED0.. (far from both the training games and the benchmarks' 0..N).
TRAIN_SEED0 = 3_000_000
EVAL_SEED0 = 500_000
MODEL = "model.onnx"
FIGURES = "training.json"
#: Points a win is worth on top of the margin, in the objective.
WIN_BONUS = 5.0


@dataclass
class Settings:
    """Everything that shapes a run (stored in training.json)."""

    seed: int = 1
    generations: int = 4
    pairs: int = 4  # antithetic pairs of directions per generation
    games: int = 30  # games per model per generation (the same seeds for all of them)
    sigma: float = 0.15  # step of a direction, in points per standard deviation of a feature
    lr: float = 0.5
    scale_games: int = 20  # greedy-vs-greedy games whose states set each feature's spread
    eval_games: int = 200
    workers: int = 1


def _greedy() -> Any:
    act = house_bots.in_process("greedy", GAME)
    return lambda st, seat: str(act(st.observation(seat), [Option(o.id, o.label) for o in st.legal_options()]))


def _learned(value: Any) -> Any:
    return lambda st, seat: choose(st.observation(seat), st.option_ids(), value)


def play_game(seed: int, bots: list[Any], states: list | None = None) -> tuple[tuple[int, ...], list[float]]:
    """One two-player game: (ranks, final scores); ``states`` collects each seat's features at
    every decision."""
    st = registry.new_game(GAME, 2, seed, None)
    while not st.is_over():
        seat = st.to_move()
        if states is not None:
            states.append(features(st, seat))
        st.apply(bots[seat](st, seat))
    return tuple(st.result().ranks), [float(score_breakdown(st, s)["total"]) for s in range(2)]


def outcome_vs_greedy(w: Any, b: float, seed: int) -> tuple[int, float]:
    """(1 win / 0 tie / -1 loss, final margin) of the model ``w, b`` against greedy in game
    ``seed``, the model in seat ``seed % 2``. A plain function: the worker pool calls it."""
    me = seed % 2
    learned, greedy = _learned(LinearValue(w, b)), _greedy()
    ranks, scores = play_game(seed, [learned, greedy] if me == 0 else [greedy, learned])
    result = 1 if ranks[me] < ranks[1 - me] else (0 if ranks[me] == ranks[1 - me] else -1)
    return result, scores[me] - scores[1 - me]


def _outcome(job: tuple[Any, float, int]) -> tuple[int, float]:
    return outcome_vs_greedy(*job)


class Games:
    """Plays batches of games vs greedy, in this process or on a pool of ``workers``."""

    def __init__(self, workers: int) -> None:
        self.pool = None
        if workers > 1:
            import multiprocessing

            self.pool = multiprocessing.get_context("fork").Pool(workers)

    def run(self, jobs: list[tuple[Any, float, int]]) -> list[tuple[int, float]]:
        if self.pool is None:
            return [_outcome(j) for j in jobs]
        return self.pool.map(_outcome, jobs, chunksize=max(1, len(jobs) // 16))

    def close(self, finished: bool = True) -> None:
        """Wait for the workers (``finished``) or stop them now (an error, Ctrl-C, SIGTERM)."""
        if self.pool is not None:
            if finished:
                self.pool.close()
            else:
                self.pool.terminate()
            self.pool.join()


def objective(outcomes: list[tuple[int, float]]) -> float:
    """Mean final margin plus :data:`WIN_BONUS` per win (minus per loss), in points."""
    return float(np.mean([margin + WIN_BONUS * r for r, margin in outcomes]))


def train(s: Settings, folder: Path | None, log: Any = print) -> dict[str, Any]:
    """Train per ``s``; with ``folder``, write the ONNX model and the figures there, and measure
    the exported model against greedy on ``eval_games`` held-out seeds."""
    rng = np.random.default_rng(s.seed)
    start, wall = time.process_time(), time.perf_counter()
    games = Games(s.workers)
    try:
        states: list[list[float]] = []
        greedy = _greedy()
        for seed in range(TRAIN_SEED0 - s.scale_games, TRAIN_SEED0):
            play_game(seed, [greedy, greedy], states)
        x = np.array(states, np.float32)
        sd = np.where(x.std(axis=0) > 1e-3, x.std(axis=0), 1.0).astype(np.float32)
        base = greedy_weights()
        theta = np.zeros(SIZE, np.float32)  # the learned change, per standard deviation
        next_seed = TRAIN_SEED0 + 1_000_000 * s.seed
        history = []
        for g in range(s.generations):
            seeds = list(range(next_seed, next_seed + s.games))
            next_seed += s.games
            eps = rng.normal(0.0, 1.0, (s.pairs, SIZE)).astype(np.float32)
            models = [theta + sign * s.sigma * e for e in eps for sign in (1, -1)]
            jobs = [((base + m / sd).astype(np.float32), 0.0, seed) for m in models for seed in seeds]
            results = games.run(jobs)
            scores = [objective(results[i * s.games:(i + 1) * s.games]) for i in range(len(models))]
            diffs = np.array([scores[2 * i] - scores[2 * i + 1] for i in range(s.pairs)], np.float32)
            spread = float(np.std(scores)) or 1.0
            theta = (theta + s.lr * s.sigma * (diffs / spread) @ eps / s.pairs).astype(np.float32)
            won = sum(1 for r, _ in results if r == 1)
            history.append({"generation": g, "objective_mean": round(float(np.mean(scores)), 3),
                            "win_share": round(won / len(results), 3), "games": len(results),
                            "step": round(float(np.linalg.norm(theta)), 4),
                            "cpu_s": round(time.process_time() - start, 1)})
            log(f"generation {g}: {len(results)} games, win share {won / len(results):.3f}, "
                f"objective {np.mean(scores):+.2f}, |theta| {np.linalg.norm(theta):.3f}, "
                f"wall {time.perf_counter() - wall:.0f} s")
        w = (base + theta / sd).astype(np.float32)
        figures: dict[str, Any] = {
            "command": "python -m sample_bots.solenia_learned.train " + " ".join(
                f"--{k.replace('_', '-')} {v}" for k, v in asdict(s).items()),
            "settings": asdict(s), "generations": history,
            "weights": {name: round(float(v), 5) for name, v in zip(NAMES, w, strict=True)},
            "train_wall_s": round(time.perf_counter() - wall, 1),
        }
        if folder is not None:
            meta = {"game": GAME, "features": FEATURES_ID,
                    "training": json.dumps({"settings": asdict(s)}, sort_keys=True)}
            path = export_value_mlp(folder / MODEL, np.zeros(SIZE), np.ones(SIZE),
                                    [(w[:, None], np.zeros(1))], meta)
            log(f"ONNX model: {path} ({path.stat().st_size:,} bytes)")
            if s.eval_games:
                seeds = list(range(EVAL_SEED0, EVAL_SEED0 + s.eval_games))
                exported = OnnxValue(path)  # the file is what is measured, as the bot loads it
                got = exported.values(np.eye(SIZE, dtype=np.float32))
                assert np.allclose(got, w, atol=1e-6), "the exported model is not the trained one"
                results = games.run([(w, 0.0, seed) for seed in seeds])
                won = sum(1 for r, _ in results if r == 1)
                tied = sum(1 for r, _ in results if r == 0)
                lo, hi = wilson(won, len(seeds))
                figures["eval_vs_greedy"] = {
                    "seeds": f"{seeds[0]}..{seeds[-1]}", "wins": won, "ties": tied,
                    "losses": len(seeds) - won - tied, "win_share": round(won / len(seeds), 3),
                    "wilson95": [round(lo, 3), round(hi, 3)]}
                log(f"model.onnx vs greedy, {len(seeds)} held-out games: {won} won, {tied} tied "
                    f"= {won / len(seeds):.3f} [{lo:.3f}, {hi:.3f}]")
            figures["cpu_s_main_process"] = round(time.process_time() - start, 1)
            figures["wall_s"] = round(time.perf_counter() - wall, 1)
            (folder / FIGURES).write_text(json.dumps(figures, indent=1) + "\n")
    except BaseException:
        games.close(finished=False)
        raise
    games.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    d = Settings()
    p = argparse.ArgumentParser(prog="python -m sample_bots.solenia_learned.train",
                                description=__doc__.split("\n\n")[0])
    for name in ("seed", "generations", "pairs", "games", "scale_games", "eval_games", "workers"):
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(d, name),
                       help=f"(default {getattr(d, name)})")
    for name in ("sigma", "lr"):
        p.add_argument(f"--{name}", type=float, default=getattr(d, name), help=f"(default {getattr(d, name)})")
    p.add_argument("--dir", type=Path, help="output folder (default $ARENA_HOME/trained/solenia_learned)")
    p.add_argument("--replace-tracked", action="store_true",
                   help="allow replacing files git tracks (retraining the committed bot)")
    args = p.parse_args(argv)
    s = Settings(**{k: getattr(args, k) for k in asdict(d)})
    if min(s.generations, s.pairs, s.games, s.scale_games, s.workers) < 1 or s.eval_games < 0 or s.sigma <= 0:
        p.error("generations, pairs, games, scale-games and workers must be 1 or more, "
                "eval-games 0 or more, sigma above 0")
    folder = args.dir or default_dir(GAME).with_name("solenia_learned")
    tracked = [] if args.replace_tracked else tracked_files([folder / MODEL, folder / FIGURES])
    if tracked:
        p.error("would replace files the repository tracks: " + ", ".join(map(str, tracked))
                + "; choose another --dir, or pass --replace-tracked to retrain them")
    folder.mkdir(parents=True, exist_ok=True)
    # SIGTERM as an exception: the worker pool is stopped with the run, never left behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    train(s, folder, log=lambda line: print(line, file=sys.stderr, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
