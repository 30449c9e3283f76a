"""The search bot: ISMCTS iterations per second per game, and its win share against greedy bots.

Everything runs in this process on one core, with the bots' decision functions called directly
(no gRPC, no sandbox): the figures are the search's own. An iteration is one whole ISMCTS step:
re-sampling the hidden information, walking and growing the tree, the short playout, the leaf
evaluation and the backup.

The win share plays 2-player games of the game's default variant, seeds 0..N-1, the search bot
in seat 0 on even seeds and seat 1 on odd ones. Its per-decision budget is stated in the output:
either a time (``ms``: the share of the default time control's decision time the bot spends,
500 ms by default) or a fixed number of iterations (``iterations``: reproducible on a loaded
machine). With ``cpu`` the time is CPU time of this process (``process_time``): the default
time control as a dedicated core would give it, so other load on the machine slows the run but
does not weaken the bot. A tie counts half.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import orjson

from referee import registry
from referee.engine import GameState
from sample_bots.ismcts import bot as ismcts_bot
from sample_bots.ismcts.player import decide

GREEDY: dict[str, str] = {
    "black_angel": "sample_bots.black_angel_greedy.bot",
    "orbital": "sample_bots.orbital_greedy.bot",
    "solenia": "sample_bots.solenia_greedy.bot",
}


def _wire(obs: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(obs))


def _positions(game: str, count: int, seed: int = 1) -> list[GameState]:
    """Mid-game positions of 2-player games reached by random play, with a real choice to make."""
    cls = registry.get_game(game)
    r = random.Random(seed)
    out: list[GameState] = []
    g = 0
    while len(out) < count:
        st = cls.new(2, 1000 + g, None)
        g += 1
        stop = r.randrange(5, 40)
        for _ in range(stop):
            if st.is_over():
                break
            st.apply(r.choice(st.option_ids()))
        if not st.is_over() and len(st.option_ids()) > 1:
            out.append(st)
    return out


def iterations_per_second(game: str, iterations: int = 1000, positions: int = 8) -> dict[str, Any]:
    """ISMCTS iterations per CPU second (``process_time``: one core, whatever else the machine
    runs) over a few mid-game positions, ``iterations`` at each, from the observation on."""
    states = _positions(game, positions)
    done = 0
    spent = 0.0
    for i, st in enumerate(states):
        seat = st.to_move()
        obs = _wire(st.observation(seat))
        t0 = time.process_time()
        res = decide(game, obs, st.option_ids(), time.perf_counter() + 3600.0, seed=i, max_iterations=iterations)
        spent += time.process_time() - t0
        done += res.iterations
    return {"iterations": done, "cpu_seconds": round(spent, 2), "iterations_per_s": round(done / spent)}


def _greedy(game: str) -> Callable[[dict[str, Any], list[Any]], Any]:
    import importlib

    return importlib.import_module(GREEDY[game]).act


def play_one(game: str, seed: int, search_seat: int, ms: float | None, iterations: int | None,
             cpu: bool = False) -> dict[str, Any]:
    """One 2-player game, search bot against the greedy bot; returns its score (1, 0.5, 0).

    ``cpu``: ``ms`` is CPU time of this process (``process_time``) rather than wall time — the
    budget a dedicated core would give, whatever else the machine runs."""
    clock = time.process_time if cpu else time.perf_counter
    cls = registry.get_game(game)
    st = cls.new(2, seed, None)
    greedy = _greedy(game)
    think = 0.0
    decisions = searched = 0
    while not st.is_over():
        seat = st.to_move()
        options = st.legal_options()
        obs = _wire(st.observation(seat))
        if seat == search_seat:
            t0 = clock()
            deadline = t0 + (ms / 1000.0 if ms is not None else 3600.0)
            res = decide(game, obs, [o.id for o in options], deadline, seed * 1000 + decisions,
                         iterations if iterations is not None else 1_000_000, clock=clock)
            think += clock() - t0
            searched += res.iterations > 0
            oid = res.option_id
        else:
            answer = greedy(obs, options)
            oid = answer[0] if isinstance(answer, tuple) else answer
        st.apply(oid)
        decisions += 1
    ranks = st.result().ranks
    mine, theirs = ranks[search_seat], ranks[1 - search_seat]
    score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return {"score": score, "think_s": think, "searched": searched, "scores": list(st.result().scores)}


def win_share(game: str, seeds: int = 100, ms: float | None = None, iterations: int | None = None,
              first_seed: int = 0, progress: Callable[[str], None] | None = None,
              cpu: bool = False) -> dict[str, Any]:
    """The search bot's score share against the greedy bot over ``seeds`` games, seats alternated."""
    if ms is None and iterations is None:
        ms = registry.get_spec(game).time_control.decision_ms * ismcts_bot.SHARE
    total = 0.0
    wins = ties = 0
    think = 0.0
    searched = 0
    margins = []
    for seed in range(first_seed, first_seed + seeds):
        seat = seed % 2
        out = play_one(game, seed, seat, ms, iterations, cpu)
        if progress is not None:
            progress(f"{game} seed {seed}: search bot in seat {seat} scores {out['score']} "
                     f"({out['scores'][seat]:.0f} to {out['scores'][1 - seat]:.0f})")
        total += out["score"]
        wins += out["score"] == 1.0
        ties += out["score"] == 0.5
        think += out["think_s"]
        searched += out["searched"]
        margins.append(out["scores"][seat] - out["scores"][1 - seat])
    unit = "ms of CPU time" if cpu else "ms"
    budget = f"{ms:.0f} {unit} per decision" if ms is not None else f"{iterations} iterations per decision"
    if ms is not None and iterations is not None:
        budget = f"{iterations} iterations or {ms:.0f} {unit} per decision, whichever first"
    return {
        "game": game,
        "games": seeds,
        "seeds": f"{first_seed}..{first_seed + seeds - 1}",
        "budget": budget,
        "win_share": round(total / seeds, 3),
        "wins": wins,
        "ties": ties,
        "mean_margin": round(sum(margins) / seeds, 2),
        "mean_search_ms": round(1000 * think / max(1, searched), 1),
    }


def bench(games: tuple[str, ...] = ("black_angel", "orbital", "solenia"), seeds: int = 100,
          ms: float | None = None, iterations: int | None = None,
          progress: Callable[[str], None] | None = None, cpu: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for game in games:
        out[f"{game}_iterations_per_cpu_s"] = iterations_per_second(game)["iterations_per_s"]
    for game in games:
        if seeds > 0:
            out[f"{game}_vs_greedy"] = win_share(game, seeds, ms, iterations, progress=progress, cpu=cpu)
    return out
