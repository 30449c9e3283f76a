"""Calibrate the house-bot anchors (`python -m benchmarks.anchor_calibration GAME ... [--games N]`).

The rating scale of every game has one fixed point: ``house-random`` at μ = 25 (``MU0``), σ =
:data:`arena.evaluation.ratings.ANCHOR_SIGMA`. Every other house bot is placed against it by
playing it against the random bot, seats alternated, ``N`` two-seat matches on fresh seeds
(unsandboxed: the house bots are the platform's own code), and reading its score *s* (a win 1,
a draw ½) through TrueSkill's own performance model: between two near-certain players
``P(win) = Φ((μ_a − μ_b) / (√2·β))`` with β = σ₀/2, so its equivalent at the fixed point is
``μ = 25 + √2·β·Φ⁻¹(s)``, *s* clamped to [1/(2N), 1 − 1/(2N)] (a clean sweep places the bot
where one more game could have moved it, not at infinity). The figures go to
``arena/evaluation/anchors.json``, which :func:`arena.evaluation.ratings.anchor_skill` reads.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from pathlib import Path

from arena.evaluation import ratings
from arena.intake import house_bots
from referee.match import MatchConfig, SeatSpec, run_match


def score_against_random(game: str, bot: str, games: int, seed: int = 1) -> tuple[float, int, int, int]:
    """(score, wins, draws, losses) of built-in ``bot`` against the random bot over ``games``
    two-seat matches, seats alternated."""
    mine, rnd = house_bots.resolve(bot, game), house_bots.resolve("random", game)
    wins = draws = losses = 0
    for i in range(games):
        first = i % 2 == 0
        seats = [SeatSpec(bot, mine), SeatSpec("random", rnd)] if first else \
            [SeatSpec("random", rnd), SeatSpec(bot, mine)]
        record = run_match(MatchConfig(game=game, seats=seats, seed=seed * 100_003 + i, sandbox=False))
        ranks = record.result["ranks"]
        me, other = (ranks[0], ranks[1]) if first else (ranks[1], ranks[0])
        wins += me < other
        draws += me == other
        losses += me > other
    return (wins + draws / 2) / games, wins, draws, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", help="games to calibrate")
    parser.add_argument("--games-per-bot", type=int, default=200)
    parser.add_argument("--bots", default="greedy,ismcts")
    args = parser.parse_args()
    path = ratings.ANCHORS_FILE
    data = json.loads(path.read_text())
    for game in args.games:
        entry = data["games"].setdefault(game, {})
        for bot in args.bots.split(","):
            try:
                house_bots.resolve(bot, game)
            except house_bots.UnknownBuiltin:
                continue
            start = time.perf_counter()
            score, w, d, lo = score_against_random(game, bot, args.games_per_bot)
            mu = ratings.mu_from_score(score, args.games_per_bot)
            entry[f"house-{bot}"] = {
                "mu": round(mu, 3), "score": round(score, 4), "wins": w, "draws": d, "losses": lo,
                "games": args.games_per_bot,
                "measured": datetime.now(UTC).strftime("%Y-%m-%d"),
            }
            print(f"{game} house-{bot}: {w}-{d}-{lo} score {score:.3f} -> mu {mu:.2f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
            Path(path).write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
