"""Engine speed: random-playout decisions per second, games per second, clone + determinise cost.

One core, no bots, no gRPC: this is the ceiling a search bot or the referee can reach with the
engine. The same measurement serves every registered game.
"""

from __future__ import annotations

import time
from typing import Any

from referee import registry
from referee.rng import Rng


def bench_all(game: str, seconds: float = 5.0) -> dict[str, Any]:
    """Every configuration of ``game``, sharing ``seconds``; totals plus one row each."""
    configs = registry.get_spec(game).configurations
    runs = [bench(game, seconds / len(configs), players=p, variant=v) for p, v in configs]
    elapsed = sum(r["seconds"] for r in runs)
    return {
        "game": game,
        "configurations": len(runs),
        "decisions_per_s": round(sum(r["decisions"] for r in runs) / elapsed),
        "games_per_s": round(sum(r["games"] for r in runs) / elapsed, 2),
        "slowest": min(runs, key=lambda r: r["decisions_per_s"]),
        "clone_plus_determinise_us_max": round(max(r["clone_us"] + r["determinise_us"] for r in runs), 1),
        "rows": runs,
    }


def bench(game: str, seconds: float = 5.0, players: int | None = None, variant: str | None = None) -> dict[str, Any]:
    """One configuration (default: the largest player count, the default variant)."""
    cls = registry.get_game(game)
    spec = cls.spec
    if players is None:
        players = max(spec.player_counts)
    variant = spec.check(players, variant)

    decisions = games = 0
    options_time = 0.0
    pick = Rng(12345)
    seed = 1
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    sample_states = []
    while time.perf_counter() < deadline:
        state = cls.new(players, seed, variant)
        step = 0
        while not state.is_over():
            t0 = time.perf_counter()
            opts = state.legal_options()
            options_time += time.perf_counter() - t0
            state.apply(opts[pick.below(len(opts))].id)
            decisions += 1
            step += 1
            if step == 50 and len(sample_states) < 20:
                sample_states.append(state.clone())
        games += 1
        seed += 1
    elapsed = time.perf_counter() - start

    clone_n = det_n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < min(1.0, seconds / 4) and sample_states:
        for s in sample_states:
            s.clone()
            clone_n += 1
    clone_s = (time.perf_counter() - t0) / max(clone_n, 1)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < min(1.0, seconds / 4) and sample_states:
        for s in sample_states:
            seat = s.to_move() if s.to_move() is not None else 0
            s.determinise(seat, det_n)
            det_n += 1
    det_s = (time.perf_counter() - t0) / max(det_n, 1)

    return {
        "game": game,
        "players": players,
        "variant": variant,
        "games": games,
        "decisions": decisions,
        "seconds": round(elapsed, 2),
        "decisions_per_s": round(decisions / elapsed),
        "games_per_s": round(games / elapsed, 2),
        "mean_decisions_per_game": round(decisions / max(games, 1), 1),
        "legal_options_share": round(options_time / elapsed, 3),
        "clone_us": round(clone_s * 1e6, 1),
        "determinise_us": round(det_s * 1e6, 1),
    }
