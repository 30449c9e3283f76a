"""Solenia engine speed on one core: random-playout decisions/s, games/s, clone + determinise.

``arena bench engine solenia`` calls :func:`bench`. The generic measurement of
``benchmarks.bench_engine`` is run on the base game with 2 and 4 players and on the solo game
with technology (the configuration with the most work per decision: the virtual player).
"""

from __future__ import annotations

from typing import Any

from benchmarks.bench_engine import bench as bench_game

_CONFIGS = ((2, "summer"), (4, "summer"), (1, "winter-tech"))


def bench(seconds: float = 5.0) -> dict[str, Any]:
    share = seconds / len(_CONFIGS)
    runs = [bench_game("solenia", share, players=p, variant=v) for p, v in _CONFIGS]
    decisions = sum(r["decisions"] for r in runs)
    elapsed = sum(r["seconds"] for r in runs)
    return {
        "game": "solenia",
        "decisions_per_s": round(decisions / elapsed),
        "games_per_s": round(sum(r["games"] for r in runs) / elapsed, 2),
        "clone_plus_determinise_us": round(max(r["clone_us"] + r["determinise_us"] for r in runs), 1),
        "configurations": runs,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=1))
