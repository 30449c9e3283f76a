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
    from sample_bots.ismcts.search import Settings, _logistic, final_values, reward_from_points
except ImportError:  # run from the bot's own folder: the sandbox shows only that folder
    from search import Settings, _logistic, final_values, reward_from_points  # type: ignore[no-redef]

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


def _orbital(root: GameState) -> Values:
    """The greedy Orbital bot's station value (``sample_bots/orbital_greedy``), in VP and without
    its look-ahead terms: VP now; the majorities held (한 해의 끝 1. 승점 획득), worth more while
    years are left to score them and double in year 5; before the last year, modules built, money,
    crew, modules in hand, population and what money modules still pay each later year, less the
    damage on the station. Against every other station, bot players and the peaceful game's colour
    tracks included; the peaceful solo scores against its 22 VP goal."""
    from referee.orbital.data import (
        CARD_ACTION,
        CARD_COLOUR,
        CARD_IS_EVENT,
        CARD_PASSIVE,
        CARD_POP,
        RULES,
    )
    from referee.orbital.state import P_OVER
    from referee.orbital.station import CORE, D

    years = RULES["years"]
    goal = float(RULES["peaceful_win_vp"]) if root.peaceful else None
    scale = 3.0
    #: what a money module nets per activation (MC out less MC in), 0 for the others
    pays = [max(0, a[3] - a[1]) if a is not None and a[2] == "mc" else 0 for a in CARD_ACTION]
    income = [1 if p == "income" else 0 for p in CARD_PASSIVE]

    def estimate(s: GameState) -> list[float]:
        actors = s.actors
        if s.phase == P_OVER:
            return [float(v) for v in s.vp]
        year = s.year
        left = years - year + 1
        counts = []
        for a in range(actors):
            row = [0] * 6
            core = s.core[a]
            for m in s.mods[a]:
                if not m[D]:  # undamaged
                    row[core if m[0] == CORE else CARD_COLOUR[m[0]]] += 1
            counts.append(row)
        tracks = s.track
        weight = (0.6 + 0.25 * left) * (2 if year >= years else 1)
        est = [float(v) for v in s.vp]
        for c in range(6):
            col = [row[c] for row in counts]
            for a in range(actors):
                mine = col[a]
                if not mine:
                    continue
                best = max([col[b] for b in range(actors) if b != a] + [t[c] for t in tracks] + [0])
                if mine > best:
                    est[a] += weight * (1.0 + 0.35 * min(mine - best, 3))
                elif mine == best:
                    est[a] += weight * 0.9
        if year < years:
            later = left - 1
            for a in range(actors):
                mods = s.mods[a]
                hand = s.hands[a]
                modules = sum(1 for card in hand if not CARD_IS_EVENT[card])
                value = 0.06 * s.mc[a] + 0.05 * s.crew[a]
                value += 0.15 * min(modules, 3) + 0.1 * min(len(hand) - modules, 2)
                value += (0.25 + 0.05 * later) * (len(mods) - 1)
                pop = damage = 0
                for m in mods[1:]:
                    card = m[0]
                    pop += CARD_POP[card]
                    damage += m[D]
                    value += 0.12 * (pays[card] + income[card]) * later
                value += 0.03 * pop * later - 0.2 * damage
                est[a] += value
        return est

    def values(s: GameState) -> list[float]:
        players = s.players
        if s.phase == P_OVER and players > 1:  # the result: mostly the win (게임 종료's tie-breakers)
            result = s.result()
            return final_values(list(result.scores), list(result.ranks), scale)
        est = estimate(s)
        if players == 1:
            base = goal if goal is not None else max(est[1:])
            return [_logistic((est[0] - base) / scale)]
        return [_logistic((est[p] - max(est[o] for o in range(len(est)) if o != p)) / scale)
                for p in range(players)]

    return values


_BY_GAME = {"black_angel": _black_angel, "orbital": _orbital, "solenia": _solenia}

#: Search knobs per game, tuned against the greedy bots (``arena bench search``): how far a
#: playout goes past the end of the current turn before the heuristic scores it, and UCB's
#: exploration constant. Games without a heuristic play out to the end.
SETTINGS = {
    "black_angel": Settings(exploration=0.4, rollout_depth=3, to_turn_end=True, policy=black_angel_playout),
    "solenia": Settings(exploration=0.4, rollout_depth=8, to_turn_end=True),
    "orbital": Settings(exploration=0.4, rollout_depth=4, to_turn_end=True),
}
WHOLE_PLAYOUT = Settings(exploration=0.7, rollout_depth=10_000, to_turn_end=False)


def values_for(game: str, root: GameState) -> tuple[Values, Settings]:
    """The leaf evaluation for ``game`` at ``root`` and the search settings that go with it."""
    make = _BY_GAME.get(game)
    if make is None:
        return _generic(root), replace(WHOLE_PLAYOUT)
    return make(root), replace(SETTINGS[game])
