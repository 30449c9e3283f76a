"""Black Angel engine speed on one core: random-playout decisions/s, games/s, clone + determinise.

``arena bench engine black_angel`` calls :func:`bench`. The generic measurement of
``benchmarks.bench_engine`` runs on the base game with 2 and 4 players, the advanced rules with
4 players and the solo game (Hal's turns are played inside ``apply``, the most work per decision).
"""

from __future__ import annotations

from typing import Any

from benchmarks.bench_engine import bench as bench_game

_CONFIGS = ((2, "base"), (4, "base"), (4, "advanced"), (1, "solo"))


def bench(seconds: float = 5.0) -> dict[str, Any]:
    share = seconds / len(_CONFIGS)
    runs = [bench_game("black_angel", share, players=p, variant=v) for p, v in _CONFIGS]
    decisions = sum(r["decisions"] for r in runs)
    elapsed = sum(r["seconds"] for r in runs)
    return {
        "game": "black_angel",
        "decisions_per_s": round(decisions / elapsed),
        "games_per_s": round(sum(r["games"] for r in runs) / elapsed, 2),
        "clone_us": round(max(r["clone_us"] for r in runs), 1),
        "determinise_us": round(max(r["determinise_us"] for r in runs), 1),
        "clone_plus_determinise_us": round(max(r["clone_us"] + r["determinise_us"] for r in runs), 1),
        "configurations": runs,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=1))
