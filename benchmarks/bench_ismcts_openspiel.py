"""The project's search bot against OpenSpiel's MCTS over determinised states, equal CPU per decision.

Why this pairing: ``pyspiel.ISMCTSBot`` crashes the interpreter on these Python games
(docs/environments.md), so OpenSpiel's side is its Python ``MCTSBot`` searching worlds
re-sampled by ``resample_from_infostate`` (:func:`arena.envs.openspiel.mcts_move` with a
budget): determinised MCTS, the usual stand-in for IS-MCTS. Ours is ``sample_bots/ismcts``.

Both play the same OpenSpiel state (``tabletop_<game>``, 2 players, the default variant) in this
process. Each decision with a choice gets ``budget`` seconds of CPU time of this process
(``process_time``), so other load on the machine slows the run but weakens neither bot; a
decision with one legal action is played at once. The engine seed of game ``i`` is
``first_seed + i``; our bot sits in seat 0 on even seeds and seat 1 on odd ones. A tie counts
half; the 95% interval is Wilson's score interval on the score share over the games.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import orjson

from arena.envs import openspiel as osp
from referee import registry
from sample_bots.ismcts.player import decide

pyspiel = osp.pyspiel

#: OpenSpiel's simulations per determinisation (the last one of a decision is cut to fit).
SIMULATIONS = 25


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% score interval for a proportion ``share`` observed over ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_one(game: str, seed: int, our_seat: int, budget: float) -> dict[str, Any]:
    """One 2-player game; our score (1, 0.5, 0) and the CPU each side spent per searched decision."""
    clock = time.process_time
    state = pyspiel.load_game(f"tabletop_{game}", {"players": 2, "variant": ""}).new_initial_state()
    state.apply_action(seed)
    cat = state.catalogue
    spent = [0.0, 0.0]  # ours, theirs
    searched = [0, 0]
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_action(legal[0])
            decisions += 1
            continue
        side = 0 if player == our_seat else 1
        t0 = clock()
        if side == 0:
            obs = orjson.loads(orjson.dumps(state.engine.observation(player)))
            res = decide(
                game,
                obs,
                [cat.ids[a] for a in legal],
                t0 + budget,
                seed * 10_000 + decisions,
                clock=clock,
            )
            action = cat.index[res.option_id]
        else:
            action = osp.mcts_move(
                state,
                simulations=SIMULATIONS,
                seed=seed * 10_000 + decisions,
                budget=budget,
                clock=clock,
            )
        spent[side] += clock() - t0
        searched[side] += 1
        state.apply_action(action)
        decisions += 1
    returns = state.returns()
    mine, theirs = returns[our_seat], returns[1 - our_seat]
    score = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return {
        "score": score,
        "spent": spent,
        "searched": searched,
        "decisions": decisions,
        "scores": list(state.engine.result().scores),
    }


def match(
    game: str,
    games: int,
    budget: float,
    first_seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """``games`` games of ``game``, seats alternated; our score share with its Wilson interval."""
    total = 0.0
    wins = ties = 0
    spent = [0.0, 0.0]
    searched = [0, 0]
    t0 = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        seat = seed % 2
        out = play_one(game, seed, seat, budget)
        total += out["score"]
        wins += out["score"] == 1.0
        ties += out["score"] == 0.5
        for i in (0, 1):
            spent[i] += out["spent"][i]
            searched[i] += out["searched"][i]
        if progress is not None:
            progress(
                f"{game} seed {seed}: ours in seat {seat} scores {out['score']} "
                f"({out['scores'][seat]:.0f} to {out['scores'][1 - seat]:.0f}); "
                f"running share {total / (seed - first_seed + 1):.3f}"
            )
    share = total / games
    low, high = wilson(share, games)
    return {
        "game": game,
        "games": games,
        "seeds": f"{first_seed}..{first_seed + games - 1}",
        "budget_cpu_ms": round(budget * 1000, 1),
        "ours_win_share": round(share, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "wins": wins,
        "ties": ties,
        "losses": games - wins - ties,
        "ours_cpu_ms_per_decision": round(1000 * spent[0] / max(1, searched[0]), 1),
        "openspiel_cpu_ms_per_decision": round(1000 * spent[1] / max(1, searched[1]), 1),
        "wall_s": round(time.perf_counter() - t0, 1),
    }


def bench(
    games: tuple[str, ...] = ("black_angel", "solenia", "orbital"),
    count: int = 50,
    budget: float = 0.1,
    first_seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    for game in games:
        registry.get_spec(game)  # an unknown game fails before any game is played
    return {game: match(game, count, budget, first_seed, progress) for game in games}
