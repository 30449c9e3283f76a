"""Train the learned Solenia bot: ``python -m sample_bots.solenia_learned.train [--seed 1]``.

What is learned, and how: the bot (``planner.look_ahead``) keeps the greedy bot's best few first
options, plays each on for two turns with greedy on both seats over samples of the hidden cards,
and judges where each one leads by a learned value: a linear model over 26 :mod:`features`
(points, resources, tiles in reach, the opponent's score, …) that predicts the final margin of
the seat (plus a bonus per win) from a position. It is fitted by ridge regression to every
decision of ``selfplay_games`` greedy-against-greedy games and how each game ended, exported to
ONNX (``model.onnx``) and run by ONNX Runtime in the bot. Why a value of how games ended is
enough here: two turns on, the futures of different options differ by more than the ends of
one turn do, enough for the overall trend such a regression learns to tell them apart (the
earlier bot, greedy's planner judging the ends of its turn by a learned evaluation, did not
beat greedy: docs/environments.md). The measurement plays the exported model against greedy
on held-out seeds, and beside it the same search judged by greedy's own rule of thumb instead of
the model (the baseline: what the learned value adds to the search). Games are independent, so
``--workers 2`` plays them on two cores; the result does not depend on the number of workers.

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
from sample_bots.solenia_learned.features import NAMES, SIZE, features, greedy_value  # noqa: E402
from sample_bots.solenia_learned.model import FEATURES_ID, LinearValue, OnnxValue  # noqa: E402
from sample_bots.solenia_learned.planner import WIN_BONUS, choose, look_ahead, margin_worth  # noqa: E402

GAME = "solenia"
#: Seeds: self-play games from TRAIN_SEED0 + 1_000_000 * seed on; the final measurement on
#: EVAL_SEED0.. (far from both the training games and the benchmarks' 0..N).
TRAIN_SEED0 = 3_000_000
EVAL_SEED0 = 500_000
MODEL = "model.onnx"
FIGURES = "training.json"


@dataclass
class Settings:
    """Everything that shapes a run (stored in training.json)."""

    seed: int = 1
    selfplay_games: int = 300  # greedy-vs-greedy games whose decisions the value is fitted to
    ridge: float = 1.0  # L2 penalty per 1,000 decisions, on features standardised to unit spread
    eval_games: int = 200
    workers: int = 1


def _greedy() -> Any:
    act = house_bots.in_process("greedy", GAME)
    return lambda st, seat: str(act(st.observation(seat), [Option(o.id, o.label) for o in st.legal_options()]))


def _learned(value: Any) -> Any:
    """The bot as it plays: the look-ahead judged by ``value``."""
    return lambda st, seat: look_ahead(st.observation(seat), st.option_ids(), value)


def _planner(value: Any) -> Any:
    """Greedy's planner with ``value`` judging the ends of the turn (no look-ahead)."""
    return lambda st, seat: choose(st.observation(seat), st.option_ids(), value)


def _greedy_margin(leaves: list, seat: int) -> list[float]:
    """The baseline judge of a future: greedy's rule of thumb for the seat minus the other's."""
    return [greedy_value(st, seat) - greedy_value(st, 1 - seat) for st in leaves]


def play_game(seed: int, bots: list[Any], states: list | None = None) -> tuple[tuple[int, ...], list[float]]:
    """One two-player game: (ranks, final scores); ``states`` collects (seat, features) at
    every decision."""
    st = registry.new_game(GAME, 2, seed, None)
    while not st.is_over():
        seat = st.to_move()
        if states is not None:
            states.append((seat, features(st, seat)))
        st.apply(bots[seat](st, seat))
    return tuple(st.result().ranks), [float(score_breakdown(st, s)["total"]) for s in range(2)]


def selfplay(seed: int) -> tuple[list[list[float]], list[float]]:
    """Greedy against greedy in game ``seed``: every decision's features for the seat to move,
    and what the game turned out to be worth to that seat (:func:`planner.margin_worth` of its
    final margin, as :func:`planner.final_worth` counts a finished future)."""
    greedy = _greedy()
    states: list = []
    _, scores = play_game(seed, [greedy, greedy], states)
    worth = [margin_worth(scores[s] - scores[1 - s]) for s in range(2)]
    return [f for _, f in states], [worth[seat] for seat, _ in states]


def outcome_vs_greedy(w: Any, b: float, seed: int) -> tuple[int, float]:
    """(1 win / 0 tie / -1 loss, final margin) of the bot with the value ``w, b`` (``w`` None:
    the baseline, judged by greedy's rule of thumb) against greedy in game ``seed``, the bot in
    seat ``seed % 2``. A plain function: the worker pool calls it."""
    me = seed % 2
    learned = _learned(_greedy_margin if w is None else LinearValue(w, b))
    greedy = _greedy()
    ranks, scores = play_game(seed, [learned, greedy] if me == 0 else [greedy, learned])
    result = 1 if ranks[me] < ranks[1 - me] else (0 if ranks[me] == ranks[1 - me] else -1)
    return result, scores[me] - scores[1 - me]


def _outcome(job: tuple[Any, float, int]) -> tuple[int, float]:
    return outcome_vs_greedy(*job)


class Games:
    """Plays batches of games, in this process or on a pool of ``workers``."""

    def __init__(self, workers: int) -> None:
        self.pool = None
        if workers > 1:
            import multiprocessing

            self.pool = multiprocessing.get_context("fork").Pool(workers)

    def map(self, fn: Any, jobs: list) -> list:
        if self.pool is None:
            return [fn(j) for j in jobs]
        return self.pool.map(fn, jobs, chunksize=max(1, len(jobs) // 32))

    def run(self, jobs: list[tuple[Any, float, int]]) -> list[tuple[int, float]]:
        return self.map(_outcome, jobs)

    def close(self, finished: bool = True) -> None:
        """Wait for the workers (``finished``) or stop them now (an error, Ctrl-C, SIGTERM)."""
        if self.pool is not None:
            if finished:
                self.pool.close()
            else:
                self.pool.terminate()
            self.pool.join()


def fit_value(x: Any, y: Any, ridge: float) -> tuple[Any, float]:
    """Ridge regression of ``y`` on ``x`` with standardised features, returned in the raw
    features' units (``value = x · w + b``): what the ONNX file holds."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    mu = x.mean(axis=0)
    sd = np.where(x.std(axis=0) > 1e-6, x.std(axis=0), 1.0)
    z = (x - mu) / sd
    coef = np.linalg.solve(z.T @ z + ridge * len(z) / 1000.0 * np.eye(z.shape[1]), z.T @ (y - y.mean()))
    w = coef / sd
    return w.astype(np.float32), float(y.mean() - mu @ w)


def _measure(results: list[tuple[int, float]], seeds: list[int]) -> dict[str, Any]:
    won = sum(1 for r, _ in results if r == 1)
    tied = sum(1 for r, _ in results if r == 0)
    lo, hi = wilson(won, len(seeds))
    return {"seeds": f"{seeds[0]}..{seeds[-1]}", "wins": won, "ties": tied,
            "losses": len(seeds) - won - tied, "win_share": round(won / len(seeds), 3),
            "wilson95": [round(lo, 3), round(hi, 3)]}


def train(s: Settings, folder: Path | None, log: Any = print) -> dict[str, Any]:
    """Train per ``s``; with ``folder``, write the ONNX model and the figures there, and measure
    the exported model (and the greedy-judged baseline) against greedy on ``eval_games``
    held-out seeds."""
    start, wall = time.process_time(), time.perf_counter()
    games = Games(s.workers)
    try:
        first = TRAIN_SEED0 + 1_000_000 * s.seed
        log(f"self-play: {s.selfplay_games} greedy-against-greedy games on {s.workers} worker(s)…")
        played = games.map(selfplay, list(range(first, first + s.selfplay_games)))
        x = np.array([f for xs, _ in played for f in xs], np.float64)
        y = np.array([v for _, ys in played for v in ys], np.float64)
        w, b = fit_value(x, y, s.ridge)
        pred = x @ w + b
        r2 = 1.0 - float(((y - pred) ** 2).mean() / max(y.var(), 1e-9))
        log(f"value fitted to {len(y):,} decisions of {s.selfplay_games} greedy games: "
            f"R² {r2:.3f}, wall {time.perf_counter() - wall:.0f} s")
        figures: dict[str, Any] = {
            "command": "python -m sample_bots.solenia_learned.train " + " ".join(
                f"--{k.replace('_', '-')} {v}" for k, v in asdict(s).items()),
            "settings": asdict(s), "decisions": len(y), "r2": round(r2, 4),
            "weights": {name: round(float(v), 5) for name, v in zip(NAMES, w, strict=True)},
            "bias": round(b, 5), "win_bonus": WIN_BONUS,
            "train_wall_s": round(time.perf_counter() - wall, 1),
        }
        if folder is not None:
            meta = {"game": GAME, "features": FEATURES_ID,
                    "training": json.dumps({"settings": asdict(s)}, sort_keys=True)}
            path = export_value_mlp(folder / MODEL, np.zeros(SIZE), np.ones(SIZE),
                                    [(w[:, None], np.array([b], np.float32))], meta)
            log(f"ONNX model: {path} ({path.stat().st_size:,} bytes)")
            if s.eval_games:
                seeds = list(range(EVAL_SEED0, EVAL_SEED0 + s.eval_games))
                exported = OnnxValue(path)  # the file is what is measured, as the bot loads it
                w_file, b_file = exported.linear()
                assert np.allclose(w_file, w, atol=1e-4) and abs(b_file - b) < 1e-3, \
                    "the exported model is not the trained one"
                log(f"measuring model.onnx against greedy: {len(seeds)} held-out games (about 1.3 CPU s each)…")
                figures["eval_vs_greedy"] = _measure(games.run([(w_file, b_file, seed) for seed in seeds]), seeds)
                m = figures["eval_vs_greedy"]
                log(f"model.onnx vs greedy, {len(seeds)} held-out games: {m['wins']} won, {m['ties']} tied "
                    f"= {m['win_share']:.3f} {m['wilson95']}")
                log(f"measuring the baseline against greedy: the same {len(seeds)} games…")
                figures["baseline_vs_greedy"] = _measure(games.run([(None, 0.0, seed) for seed in seeds]), seeds)
                m = figures["baseline_vs_greedy"]
                log(f"the same search judged by greedy's rule of thumb: {m['wins']} won, {m['ties']} tied "
                    f"= {m['win_share']:.3f} {m['wilson95']}")
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
    for name in ("seed", "selfplay_games", "eval_games", "workers"):
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(d, name),
                       help=f"(default {getattr(d, name)})")
    p.add_argument("--ridge", type=float, default=d.ridge, help=f"(default {d.ridge})")
    p.add_argument("--dir", type=Path, help="output folder (default $ARENA_HOME/trained/solenia_learned)")
    p.add_argument("--replace-tracked", action="store_true",
                   help="allow replacing files git tracks (retraining the committed bot)")
    args = p.parse_args(argv)
    s = Settings(**{k: getattr(args, k) for k in asdict(d)})
    if min(s.selfplay_games, s.workers) < 1 or s.eval_games < 0 or s.ridge < 0:
        p.error("selfplay-games and workers must be 1 or more, eval-games and ridge 0 or more")
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
