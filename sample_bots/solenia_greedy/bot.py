"""A greedy Solenia bot: plans the rest of its own turn and keeps the best-looking outcome.

It rebuilds a playable state from the observation (hidden cards sampled), tries every card,
cell, supply tile, payment and slot of its turn, finishes small resource choices with a
"what do the visible supply tiles need" rule, and scores the end of the turn by points now
plus the worth of the resources kept (worth more early, when they can still buy tiles).
"""

from __future__ import annotations

from typing import Any

from arena.sdk import serve_bot
from referee.solenia.data import CARD_VALUE, RES_INDEX, TILE_COST, TILE_POINTS
from referee.solenia.geometry import DISTANCE, ship_pos
from referee.solenia.observed import state_from_observation
from referee.solenia.scoring import score_breakdown
from referee.solenia.state import (
    P_CARD,
    P_DROP,
    P_GAIN,
    P_OVER,
    P_SPEND,
    P_VPCELL,
    SoleniaState,
)

_MICRO = (P_GAIN, P_DROP, P_SPEND, P_VPCELL)
_MAX_LEAVES = 600


def resource_need(st: SoleniaState, seat: int) -> list[float]:
    """How much each resource helps towards the supply tiles on show (nearly-paid tiles count more)."""
    res = st.res[seat]
    need = [0.0, 0.0, 0.0, 0.0]
    for kind in (0, 1):
        if not st.row_has_room(seat, kind):
            continue
        for t in st.market[kind]:
            if t < 0:
                continue
            cost = TILE_COST[t]
            missing = sum(max(0, cost[r] - res[r]) for r in range(4))
            weight = TILE_POINTS[t] / (1.0 + missing)
            for r in range(4):
                if cost[r] > res[r]:
                    need[r] += weight
    return need


def _micro_choice(st: SoleniaState, seat: int, ids: list[str]) -> str:
    if st.phase == P_VPCELL:
        ship = ship_pos(st.ship_col)
        return max(ids, key=lambda i: (DISTANCE[int(i.split(":")[1])][ship], i))
    need = resource_need(st, seat)
    res = st.res[seat]

    def keep_value(i: str) -> float:
        r = RES_INDEX[i.split(":")[1]]
        return need[r] - 0.4 * res[r]

    if st.phase == P_GAIN:
        return max(ids, key=keep_value)
    return min(ids, key=keep_value)


def evaluate(st: SoleniaState, seat: int) -> float:
    b = score_breakdown(st, seat)
    if st.phase == P_OVER:
        return float(b["total"])
    left = len(st.hand[seat]) + len(st.deck[seat])
    frac = left / 16.0
    res = st.res[seat]
    value = b["total"] - b["resources"] + sum(res) * (0.5 + 0.8 * frac)
    # Tiles that could be bought next turn are worth part of their points.
    for kind in (0, 1):
        if not st.row_has_room(seat, kind):
            continue
        best = 0
        for t in st.market[kind]:
            if t >= 0 and all(res[r] >= TILE_COST[t][r] for r in range(4)):
                best = max(best, TILE_POINTS[t])
        value += 0.3 * best * frac
    return value


class _Search:
    def __init__(self, seat: int, start_used: int) -> None:
        self.seat = seat
        self.start_used = start_used
        self.leaves = 0

    def turn_over(self, st: SoleniaState) -> bool:
        if st.phase == P_OVER or st.to_move() != self.seat:
            return True
        if st.cur != self.seat and st.phase != P_DROP:
            return True
        return st.phase == P_CARD and st.used[self.seat] > self.start_used

    def value(self, st: SoleniaState) -> float:
        while not self.turn_over(st) and st.phase in _MICRO:
            st.apply(_micro_choice(st, self.seat, st.option_ids()))
        if self.turn_over(st) or self.leaves > _MAX_LEAVES:
            self.leaves += 1
            return evaluate(st, self.seat)
        best = float("-inf")
        for oid in st.option_ids():
            child = st.clone()
            child.apply(oid)
            best = max(best, self.value(child))
        return best


def choose(obs: dict[str, Any], ids: list[str]) -> str:
    if len(ids) == 1:
        return ids[0]
    seat = obs["seat"]
    st = state_from_observation(obs, seed=obs["raw"]["vp_used"] * 131 + sum(obs["raw"]["used"]))
    if st.phase in _MICRO:
        return _micro_choice(st, seat, ids)
    search = _Search(seat, st.used[seat])
    best_id, best_val = ids[0], float("-inf")
    for oid in ids:
        child = st.clone()
        child.apply(oid)
        v = search.value(child)
        if oid.startswith("card:") and CARD_VALUE[int(oid.split(":")[1])] == 0:
            v -= 0.2  # a <0> card is better kept for when nothing else fits
        if v > best_val:
            best_id, best_val = oid, v
    return best_id


def act(observation: dict, legal_options: list) -> str:
    return choose(observation, [o.id for o in legal_options])


if __name__ == "__main__":
    serve_bot(act)
