"""Paying the resources printed on a supply tile.

Summer payment is exact. Winter can waive one wheat/wood/stone per turn, and level-1
technology lets wood and wheat (or stone and water) stand in for each other any number of
times (Q&A 2), so a tile can have several ways to be paid; the player picks one.
"""

from __future__ import annotations

from referee.solenia.data import STONE, WATER, WHEAT, WOOD


def waived_cost(cost: tuple[int, ...], waivers: tuple[int, ...]) -> list[int]:
    need = list(cost)
    for r in waivers:
        if need[r] > 0:
            need[r] -= 1
    return need


def _splits(total: int, have_a: int, have_b: int) -> list[tuple[int, int]]:
    return [(x, total - x) for x in range(max(0, total - have_b), min(total, have_a) + 1)]


def payments(
    cost: tuple[int, ...],
    res: list[int],
    waivers: tuple[int, ...] = (),
    swap_wood_wheat: bool = False,
    swap_stone_water: bool = False,
) -> list[tuple[int, int, int, int]]:
    """Every way ``res`` can pay ``cost`` in full (an empty list when it cannot)."""
    need = waived_cost(cost, waivers)
    if swap_wood_wheat:
        ww = _splits(need[WOOD] + need[WHEAT], res[WOOD], res[WHEAT])
    elif need[WOOD] <= res[WOOD] and need[WHEAT] <= res[WHEAT]:
        ww = [(need[WOOD], need[WHEAT])]
    else:
        return []
    if swap_stone_water:
        sa = _splits(need[STONE] + need[WATER], res[STONE], res[WATER])
    elif need[STONE] <= res[STONE] and need[WATER] <= res[WATER]:
        sa = [(need[STONE], need[WATER])]
    else:
        return []
    return [(w, s, h, a) for w, h in ww for s, a in sa]


def can_pay(
    cost: tuple[int, ...],
    res: list[int],
    waivers: tuple[int, ...] = (),
    swap_wood_wheat: bool = False,
    swap_stone_water: bool = False,
    spare: int = 0,
) -> bool:
    """True when ``cost`` can be paid and ``spare`` more resources still remain afterwards."""
    total = sum(res)
    for p in payments(cost, res, waivers, swap_wood_wheat, swap_stone_water):
        if total - sum(p) >= spare:
            return True
    return False
