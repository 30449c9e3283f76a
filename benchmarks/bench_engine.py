"""Engine speed: random-playout decisions per second, games per second, clone + determinise cost.

One core, no bots, no gRPC: this is the ceiling a search bot or the referee can reach with the
engine. The same measurement serves every registered game.

Why CPU time and a reference engine: the build machines are shared, and under load the wall
clock counts the time other processes ran. Decisions per second are therefore per CPU second of
this process (``time.process_time``), and :func:`bench_all` measures a *reference* engine in
the same run, interleaved with the game in several rounds so both see the same load; the ratio
of the two is the figure that means something on a busy machine (a loaded core also runs
slower per CPU second: shared caches, hyper-threads). The load average is reported beside them.
"""

from __future__ import annotations

import os
import time
from typing import Any

from referee import registry
from referee.rng import Rng

#: the engine measured beside each game when none is named (another game's, so ratios compare)
REFERENCE = {"solenia": "black_angel"}
DEFAULT_REFERENCE = "solenia"


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not every platform has a load average
        return None


class _Run:
    """Random playouts of one configuration, continued slice by slice (seeds go on counting)."""

    def __init__(self, game: str, players: int, variant: str) -> None:
        self.cls = registry.get_game(game)
        self.game, self.players, self.variant = game, players, variant
        self.decisions = self.games = 0
        self.cpu = self.wall = self.options_cpu = 0.0
        self.pick = Rng(12345)
        self.seed = 1
        self.samples: list[Any] = []

    def play(self, cpu_seconds: float) -> None:
        """Play whole games until ``cpu_seconds`` of CPU time are spent (at least one game)."""
        cls, pick, players, variant = self.cls, self.pick, self.players, self.variant
        clock = time.process_time
        start, wall0 = clock(), time.perf_counter()
        options = 0.0
        decisions = games = 0
        while True:
            state = cls.new(players, self.seed, variant)
            step = 0
            while not state.is_over():
                t0 = clock()
                opts = state.legal_options()
                options += clock() - t0
                state.apply(opts[pick.below(len(opts))].id)
                decisions += 1
                step += 1
                if step == 50 and len(self.samples) < 20:
                    self.samples.append(state.clone())
            games += 1
            self.seed += 1
            if clock() - start >= cpu_seconds:
                break
        self.cpu += clock() - start
        self.wall += time.perf_counter() - wall0
        self.options_cpu += options
        self.decisions += decisions
        self.games += games

    def figures(self, seconds: float) -> dict[str, Any]:
        clone_s, det_s = _copy_cost(self.samples, min(1.0, seconds / 4))
        cpu = max(self.cpu, 1e-9)
        return {
            "game": self.game,
            "players": self.players,
            "variant": self.variant,
            "games": self.games,
            "decisions": self.decisions,
            "cpu_seconds": round(self.cpu, 2),
            "seconds": round(self.wall, 2),
            "decisions_per_s": round(self.decisions / cpu),
            "wall_decisions_per_s": round(self.decisions / max(self.wall, 1e-9)),
            "games_per_s": round(self.games / cpu, 2),
            "mean_decisions_per_game": round(self.decisions / max(self.games, 1), 1),
            "legal_options_share": round(self.options_cpu / cpu, 3),
            "clone_us": round(clone_s * 1e6, 1),
            "determinise_us": round(det_s * 1e6, 1),
        }


def _copy_cost(samples: list[Any], budget: float) -> tuple[float, float]:
    """CPU seconds per clone and per determinise over the sampled mid-game states."""
    clock = time.process_time
    clone_n = det_n = 0
    t0 = clock()
    while clock() - t0 < budget and samples:
        for s in samples:
            s.clone()
            clone_n += 1
    clone_s = (clock() - t0) / max(clone_n, 1)
    t0 = clock()
    while clock() - t0 < budget and samples:
        for s in samples:
            seat = s.to_move() if s.to_move() is not None else 0
            s.determinise(seat, det_n)
            det_n += 1
    det_s = (clock() - t0) / max(det_n, 1)
    return clone_s, det_s


def bench_all(game: str, seconds: float = 5.0, reference: str | None = "", rounds: int = 3) -> dict[str, Any]:
    """Every configuration of ``game``, sharing ``seconds`` of CPU time; totals plus one row each.

    ``reference`` (default: Solenia, or Black Angel for Solenia itself; ``None``: none) is
    measured for as long again, interleaved with ``game`` over ``rounds`` rounds, and
    ``ratio_to_reference`` is game decisions/s over reference decisions/s.
    """
    if reference == "":
        reference = REFERENCE.get(game, DEFAULT_REFERENCE)
    load_before = _load()
    configs = registry.get_spec(game).configurations
    runs = [_Run(game, p, v) for p, v in configs]
    ref_runs = [] if not reference else [_Run(reference, p, v) for p, v in registry.get_spec(reference).configurations]
    for _ in range(max(1, rounds)):
        for r in runs:
            r.play(seconds / len(runs) / rounds)
        for r in ref_runs:
            r.play(seconds / len(ref_runs) / rounds)
    rows = [r.figures(seconds / len(runs)) for r in runs]
    cpu = sum(r.cpu for r in runs)
    out: dict[str, Any] = {
        "game": game,
        "configurations": len(rows),
        "decisions_per_s": round(sum(r.decisions for r in runs) / cpu),
        "games_per_s": round(sum(r.games for r in runs) / cpu, 2),
        "clock": "CPU time of this process (time.process_time)",
    }
    if ref_runs:
        ref_dps = sum(r.decisions for r in ref_runs) / sum(r.cpu for r in ref_runs)
        out["reference"] = reference
        out["reference_decisions_per_s"] = round(ref_dps)
        out["ratio_to_reference"] = round(out["decisions_per_s"] / ref_dps, 2)
    out["load_average"] = [load_before, _load()]
    out["slowest"] = min(rows, key=lambda r: r["decisions_per_s"])
    out["clone_plus_determinise_us_max"] = round(max(r["clone_us"] + r["determinise_us"] for r in rows), 1)
    out["rows"] = rows
    return out


def bench(game: str, seconds: float = 5.0, players: int | None = None, variant: str | None = None) -> dict[str, Any]:
    """One configuration (default: the largest player count, the default variant)."""
    spec = registry.get_spec(game)
    if players is None:
        players = max(spec.player_counts)
    variant = spec.check(players, variant)
    run = _Run(game, players, variant)
    run.play(seconds)
    out = run.figures(seconds)
    out["load_average"] = _load()
    return out
