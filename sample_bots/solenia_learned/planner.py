"""The learned Solenia bot's turn planner: the greedy bot's search with a learned evaluation.

Why this shape: the greedy bot (``sample_bots/solenia_greedy``) plans the rest of its own turn —
every card, cell, supply tile, payment and slot — and keeps the outcome its hand-written
``evaluate`` likes best. What it gets wrong is the *worth* of an outcome: resources, tiles in
reach and points are weighed by fixed rules of thumb. Here the same search asks a small network
instead (:mod:`features` turns an end-of-turn state into the numbers the network reads; the
network, ``model.onnx``, was fitted to how games really ended). So the bot is exactly as fast as
greedy plus one small batched inference per decision, and every difference in play comes from
what was learned. The bot folder holds its own copy of the search because the sandbox shows a
hosted bot only its own folder (and the ``arena``/``referee`` packages).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.solenia.data import CARD_VALUE, RES_INDEX, TILE_COST, TILE_POINTS
from referee.solenia.geometry import DISTANCE, ship_pos
from referee.solenia.observed import state_from_observation
from referee.solenia.state import P_CARD, P_DROP, P_GAIN, P_OVER, P_SPEND, P_VPCELL, SoleniaState

_MICRO = (P_GAIN, P_DROP, P_SPEND, P_VPCELL)
_MAX_LEAVES = 600

#: ``evaluate(leaves, seat) -> values``: the worth of each end-of-turn state for ``seat``.
Evaluator = Callable[[list[SoleniaState], int], list[float]]


def resource_need(st: SoleniaState, seat: int) -> list[float]:
    """How much each resource helps towards the supply tiles on show (the greedy bot's rule)."""
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


class _Search:
    """Enumerates the rest of the turn after each first option; collects the leaves."""

    def __init__(self, seat: int, start_used: int) -> None:
        self.seat = seat
        self.start_used = start_used
        self.leaves: list[SoleniaState] = []

    def turn_over(self, st: SoleniaState) -> bool:
        if st.phase == P_OVER or st.to_move() != self.seat:
            return True
        if st.cur != self.seat and st.phase != P_DROP:
            return True
        return st.phase == P_CARD and st.used[self.seat] > self.start_used

    def collect(self, st: SoleniaState) -> list[int]:
        """Indices (into :attr:`leaves`) of the end-of-turn states reachable from ``st``."""
        while not self.turn_over(st) and st.phase in _MICRO:
            st.apply(_micro_choice(st, self.seat, st.option_ids()))
        if self.turn_over(st) or len(self.leaves) > _MAX_LEAVES:
            self.leaves.append(st)
            return [len(self.leaves) - 1]
        out: list[int] = []
        for oid in st.option_ids():
            child = st.clone()
            child.apply(oid)
            out += self.collect(child)
        return out


def choose(obs: dict[str, Any], ids: list[str], evaluate: Evaluator) -> str:
    """The option whose best end of turn ``evaluate`` values most (ties: the first)."""
    if len(ids) == 1:
        return ids[0]
    seat = obs["seat"]
    st = state_from_observation(obs, seed=obs["raw"]["vp_used"] * 131 + sum(obs["raw"]["used"]))
    if st.phase in _MICRO:
        return _micro_choice(st, seat, ids)
    search = _Search(seat, st.used[seat])
    reach = []
    for oid in ids:
        child = st.clone()
        child.apply(oid)
        reach.append(search.collect(child))
    values = evaluate(search.leaves, seat)
    best_id, best_val = ids[0], float("-inf")
    for oid, leaves in zip(ids, reach, strict=True):
        v = max(values[i] for i in leaves)
        if oid.startswith("card:") and CARD_VALUE[int(oid.split(":")[1])] == 0:
            v -= 0.2  # a <0> card is better kept for when nothing else fits (greedy's rule)
        if v > best_val:
            best_id, best_val = oid, v
    return best_id
