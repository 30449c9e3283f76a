"""A station's geometry: modules on a square grid, joined exit to entrance.

Why a grid: the rulebook's rules on placement are about arrows and overlap (a new module's
entrance sits on a free exit; modules never overlap or cover each other). On a grid each module
is one cell, its *heading* is the direction from the module it was built on, and its exits are
turns of that heading (straight on, left, right). An exit is free when its module is undamaged
and the neighbouring cell is empty, so two branches that run into each other block each other.

A module is a small list ``[card, x, y, heading, parent, damage, crew, used]``; module 0 is the
core (card ``CORE``), which has an exit on every side. Directions: 0 north (up), 1 east, 2
south, 3 west; ``y`` grows downwards, as on the table and in the replay picture.
"""

from __future__ import annotations

import math
from functools import lru_cache

from referee.orbital.data import CARD_EXITS, CARD_POP, CORE_POP

CORE = -1
C, X, Y, H, P, D, W, U = range(8)
STEP = ((0, -1), (1, 0), (0, 1), (-1, 0))
CORE_EXITS = (0, 1, 2, 3)


def new_core() -> list[int]:
    return [CORE, 0, 0, 0, -1, 0, 0, 0]


@lru_cache(maxsize=4096)
def cell_key(x: int, y: int) -> tuple[int, float, int]:
    """Target-module order (1인 규칙, 봇 알고리즘 그림): inside out, then clockwise from the left.

    Rings are squares around the core (Chebyshev distance); within a ring the angle is measured
    clockwise from due west of the core (the core's left side on the table).
    """
    ring = max(abs(x), abs(y))
    angle = (math.atan2(y, x) - math.pi) % (2 * math.pi)
    return ring, round(angle, 9), abs(x) + abs(y)


def exits(m: list[int]) -> tuple[int, ...]:
    """Absolute exit directions of module ``m``."""
    if m[C] == CORE:
        return CORE_EXITS
    h = m[H]
    return tuple((h + r) & 3 for r in CARD_EXITS[m[C]])


def is_damaged(m: list[int]) -> bool:
    return m[D] > 0


def is_end(mods: list[list[int]], i: int) -> bool:
    """게임의 주요 개념 » 말단 모듈: no module has been built on any of its exits."""
    for m in mods:
        if m[P] == i:
            return False
    return True


def free_slots(mods: list[list[int]], ordered: bool = True) -> list[tuple[int, int]]:
    """Every (module, direction) where a new module may go; ``ordered``: in target-module order
    of the new cell (the bot's placement order), else in module order (cheaper).

    모듈 건설: a new module's entrance goes on a free exit; damaged modules take no new
    connections (게임의 주요 개념 » 손상); modules never overlap.
    """
    occ = {(m[1], m[2]) for m in mods}
    out = []
    for i, m in enumerate(mods):
        if m[5]:
            continue
        x, y = m[1], m[2]
        for d in exits(m):
            dx, dy = STEP[d]
            if (x + dx, y + dy) not in occ:
                out.append((i, d))
    if ordered:
        out.sort(key=lambda s: (cell_key(mods[s[0]][1] + STEP[s[1]][0], mods[s[0]][2] + STEP[s[1]][1]), s))
    return out


def target_order(mods: list[list[int]], include_core: bool = False) -> list[int]:
    """Module indices in the bot's target-module order (core first when included)."""
    order = sorted(range(1, len(mods)), key=lambda i: (cell_key(mods[i][X], mods[i][Y]), i))
    return ([0] if include_core else []) + order


def population(mods: list[list[int]], core_colour: int) -> int:
    """Population icons of the undamaged modules (승무원 보충; the tie-breaker)."""
    total = CORE_POP[core_colour]
    for m in mods[1:]:
        if not m[D]:
            total += CARD_POP[m[C]]
    return total


def place(mods: list[list[int]], card: int, parent: int, d: int) -> int:
    """Add ``card`` on exit ``d`` of module ``parent``; returns the new module's index."""
    dx, dy = STEP[d]
    p = mods[parent]
    mods.append([card, p[X] + dx, p[Y] + dy, d, parent, 0, 0, 0])
    return len(mods) - 1


def remove(mods: list[list[int]], i: int) -> int:
    """제거: take end module ``i`` out of the station; returns its card (the caller discards it)."""
    card = mods[i][C]
    del mods[i]
    for m in mods:
        if m[P] > i:
            m[P] -= 1
    return card
