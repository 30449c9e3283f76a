"""Leaf evaluation per game: a state, over or not, scored as a value in [0, 1] for every seat.

A finished game is scored by its result; an unfinished one by points already won plus a rough
worth of what is still convertible into points, which is what the greedy sample bots judge by
too. Games without a dedicated heuristic fall back on their result (so every registered game
can be searched, only with whole playouts being more telling there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from referee.engine import GameState
from referee.rng import Rng

try:  # imported as a package (tests, benchmarks)
    from sample_bots.ismcts.search import Settings, final_values, reward_from_points
except ImportError:  # run from the bot's own folder: the sandbox shows only that folder
    from search import Settings, final_values, reward_from_points  # type: ignore[no-redef]

Values = Callable[[GameState], list[float]]


def _black_angel(root: GameState) -> Values:
    from referee.black_angel.scoring import advanced_tiles, advanced_vp, final_scores

    solo = root.players == 1
    scale = 4.0

    def points(s: GameState, p: int) -> float:
        # VP now, the end scoring so far, and rough worth of what turns into VP later: an
        # advanced tile keeps counting components (the greedy bot's favourite), stored
        # resources, ships and robots convert 2:1 or pay for actions, a mission in hand is a
        # reward to place, a Ravager in hand a card play.
        return (s.vp[p] + advanced_vp(s, p) + 1.5 * len(advanced_tiles(s, p))
                + 0.45 * (s.res[p] + s.shp[p] + s.rbreak[p]) + 0.25 * s.deb[p]
                + 0.7 * len(s.hand_m[p]) + 0.4 * len(s.hand_r[p]))

    def values(s: GameState) -> list[float]:
        if s.over:
            scores, _ = final_scores(s)
            if solo:
                return reward_from_points([float(scores[0])], scale / 2, float(s.hal_vp))
            result = s.result()
            return final_values([float(x) for x in scores], list(result.ranks), scale)
        est = [points(s, p) for p in range(s.players)]
        return reward_from_points(est, scale, float(s.hal_vp) if solo else None)

    return values


def black_angel_playout(s: GameState, ids: list[str], rng: Rng) -> str:
    """Random, except for the greedy bot's two surest rules, mostly kept: play sequence A while
    you can (B throws away the dice's value), and use the highest die (rulebook [4] A2)."""
    if rng.below(10) < 8:
        if s.phase == "turn" and "A" in ids:
            return "A"
        if s.phase == "a_die":
            uses = [i for i in ids if i.startswith("use:")]
            if uses:
                comp = s.comp[s.seat]
                return max(uses, key=lambda i: comp[int(i[4:])] & 3)
    return ids[rng.below(len(ids))]


def _solenia_points(st: GameState, seat: int) -> float:
    """Points now plus the worth of resources kept and of a tile affordable next turn (the
    greedy Solenia bot's judgement, repeated here so that this folder stands alone)."""
    from referee.solenia.data import TILE_COST, TILE_POINTS
    from referee.solenia.scoring import score_breakdown
    from referee.solenia.state import P_OVER

    b = score_breakdown(st, seat)
    if st.phase == P_OVER:
        return float(b["total"])
    frac = (len(st.hand[seat]) + len(st.deck[seat])) / 16.0
    res = st.res[seat]
    value = b["total"] - b["resources"] + sum(res) * (0.5 + 0.8 * frac)
    for kind in (0, 1):
        if not st.row_has_room(seat, kind):
            continue
        best = 0
        for t in st.market[kind]:
            if t >= 0 and TILE_POINTS[t] > best and all(res[r] >= TILE_COST[t][r] for r in range(4)):
                best = TILE_POINTS[t]
        value += 0.3 * best * frac
    return value


def _solenia(root: GameState) -> Values:
    from referee.solenia.state import P_OVER

    evaluate = _solenia_points
    solo = root.players == 1
    scale = 3.0
    baseline = evaluate(root, 0) if solo else None

    def values(s: GameState) -> list[float]:
        if s.phase == P_OVER:
            result = s.result()
            return final_values(list(result.scores), list(result.ranks), scale, baseline)
        return reward_from_points([evaluate(s, p) for p in range(s.players)], scale, baseline)

    return values


def _generic(root: GameState) -> Values:
    """Whole playouts' results: what any engine offers without game knowledge."""
    players = root.players

    def values(s: GameState) -> list[float]:
        if not s.is_over():
            return [0.5] * players
        result = s.result()
        return final_values(list(result.scores), list(result.ranks), 10.0, None)

    return values


_BY_GAME = {"black_angel": _black_angel, "solenia": _solenia}

#: Search knobs per game, tuned against the greedy bots (``arena bench search``): how far a
#: playout goes past the end of the current turn before the heuristic scores it, and UCB's
#: exploration constant. Games without a heuristic play out to the end.
SETTINGS = {
    "black_angel": Settings(exploration=0.4, rollout_depth=3, to_turn_end=True, policy=black_angel_playout),
    "solenia": Settings(exploration=0.4, rollout_depth=8, to_turn_end=True),
}
WHOLE_PLAYOUT = Settings(exploration=0.7, rollout_depth=10_000, to_turn_end=False)


def values_for(game: str, root: GameState) -> tuple[Values, Settings]:
    """The leaf evaluation for ``game`` at ``root`` and the search settings that go with it."""
    make = _BY_GAME.get(game)
    if make is None:
        return _generic(root), replace(WHOLE_PLAYOUT)
    return make(root), replace(SETTINGS[game])
