"""The example learned bot against the random bot: win share over many seeds, with a 95% interval.

``arena bench learned`` (or ``python -m benchmarks.bench_learned``). Two players, the learned
policy in seat ``seed % 2`` (seats alternate), one game per seed 0..N-1, the opponent the house
random bot. A win is an outright first place; a shared first place is a tie, counted apart.

In-process through the Gymnasium environment: the same encoder, catalogue and weights the bot
folder serves (``sample_bots/learned_<game>/bot.py``), so the figure is the bot's, at a
fraction of the cost of a referee match per game. ``referee_games`` adds real referee matches
(the bot folder and ``sample_bots/random_bot`` as processes over gRPC, seats alternating) as a
check that the served bot plays as well as the in-process one. Beside it, the same seeds with a
uniformly random policy in the learner's seat: what 50% looks like on these seeds.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


class _Uniform:
    """A uniformly random legal action, seeded (the baseline)."""

    def __init__(self, seed: int) -> None:
        import numpy as np

        self.np = np
        self.rng = np.random.default_rng(seed)

    def __call__(self, vec: Any, mask: Any) -> int:
        return int(self.rng.choice(self.np.flatnonzero(mask)))


def _share(outcomes: list[tuple[int, int]]) -> dict[str, Any]:
    from arena.envs.train_example import wilson, wins

    n = len(outcomes)
    k = wins(outcomes)
    ties = sum(1 for mine, theirs in outcomes if mine == theirs)
    lo, hi = wilson(k, n)
    return {
        "games": n,
        "wins": k,
        "ties": ties,
        "losses": n - k - ties,
        "win_share": round(k / n, 3) if n else None,
        "interval_95": [round(lo, 3), round(hi, 3)],
    }


def _referee(folder: Path, game: str, seeds: list[int]) -> list[tuple[int, int]]:
    """Real matches: the bot folder against the random bot, no sandbox, seats alternating."""
    from referee.match import MatchConfig, SeatSpec, run_match

    out = []
    for seed in seeds:
        me = seed % 2
        seats = [SeatSpec("random", str(SAMPLES / "random_bot"))] * 2
        seats[me] = SeatSpec("learned", str(folder))
        record = run_match(MatchConfig(game=game, seats=seats, seed=seed, sandbox=False))
        if record.forfeit_of(me) is not None:  # a fault of the served bot: never a win
            raise RuntimeError(
                f"the learned bot forfeited match {record.match_id} (seed {seed}): "
                f"{record.forfeit_of(me).message}"
            )
        ranks = record.result["ranks"]
        out.append((ranks[me], ranks[1 - me]))
    return out


def bench(
    game: str = "solenia", seeds: int = 200, referee_games: int = 0, weights: str | None = None
) -> dict[str, Any]:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from arena.envs.mlp import MaskedMLP
    from arena.envs.train_example import play

    folder = SAMPLES / f"learned_{game}"
    path = Path(weights) if weights else folder / "weights.npz"
    if not path.is_file():
        raise FileNotFoundError(
            f"no weights at {path}: train them with python -m arena.envs.train_example --game {game}"
        )
    policy = MaskedMLP.load(path)
    if policy.game != game:
        raise ValueError(f"{path} holds a {policy.game} policy, not {game}")
    result: dict[str, Any] = {
        "game": game,
        "players": 2,
        "seeds": f"0..{seeds - 1}",
        "weights": str(path),
        "weights_bytes": path.stat().st_size,
    }
    t0 = time.process_time()
    result["learned_vs_random"] = _share(play(policy, game, list(range(seeds))))
    result["cpu_s"] = round(time.process_time() - t0, 1)
    result["uniform_vs_random"] = _share(play(_Uniform(0), game, list(range(seeds))))
    if referee_games:
        t0 = time.perf_counter()
        result["learned_vs_random_referee"] = _share(
            _referee(folder, game, list(range(referee_games)))
        )
        result["referee_wall_s"] = round(time.perf_counter() - t0, 1)
    log = path.with_name("training.json")
    if log.is_file():
        figures = json.loads(log.read_text())
        result["training_cpu_s"] = figures.get("cpu_seconds")
        result["training_games"] = figures.get("games_played")
    return result


if __name__ == "__main__":
    import sys

    print(json.dumps(bench(*(sys.argv[1:2] or ["solenia"])), indent=1))
