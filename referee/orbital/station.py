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

#: ``ABS_EXITS[card][heading]``: absolute exit directions, computed once at load (the hot loops
#: of option listing ask for them on every decision). The core's row is the last one, so
#: ``ABS_EXITS[CORE]`` (index -1) works unchanged.
ABS_EXITS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((h + r) & 3 for r in rel) for h in range(4)) for rel in CARD_EXITS
) + ((CORE_EXITS,) * 4,)
#: ``free_slots`` codes a cell as one int, ``x * 1024 + y`` (a set of ints is faster than a set
#: of tuples); exact while ``|y| < 512``, and a station of all 83 module cards stays within 83
#: cells of its core.
#: ``_EXIT_STEPS[card][heading]``: (direction, cell-code offset) per exit.
_EXIT_STEPS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(tuple((d, STEP[d][0] * 1024 + STEP[d][1]) for d in row) for row in card) for card in ABS_EXITS
)
#: population icons per card, the core's row last (as in ``ABS_EXITS``)
_POP: tuple[int, ...] = tuple(CARD_POP) + (0,)


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


#: target-module rank by cell code (``x * 1024 + y``, as :func:`free_slots` codes cells)
_RANK: dict[int, int] = {}


def _rank_ring(r: int) -> None:
    """Fill ``_RANK`` for ring ``r``: cells of inner rings come first, then by :func:`cell_key`."""
    cells = [(x, y) for x in range(-r, r + 1) for y in range(-r, r + 1) if max(abs(x), abs(y)) == r]
    cells.sort(key=lambda xy: cell_key(*xy))
    base = (2 * r - 1) ** 2 if r else 0
    for k, (x, y) in enumerate(cells):
        _RANK[x * 1024 + y] = base + k


def cell_rank(x: int, y: int) -> int:
    """The position of cell ``(x, y)`` in target-module order, as one integer.

    Sorting by it equals sorting by :func:`cell_key` (within a ring the angle differs from cell
    to cell, so the key never ties), but an int compares much faster than a tuple.
    """
    rank = _RANK.get(x * 1024 + y)
    if rank is None:
        _rank_ring(max(abs(x), abs(y)))
        rank = _RANK[x * 1024 + y]
    return rank


def code_rank(code: int) -> int:
    """:func:`cell_rank` of the cell with code ``x * 1024 + y``."""
    rank = _RANK.get(code)
    if rank is None:
        x, y = divmod(code + 512, 1024)
        rank = cell_rank(x, y - 512)
    return rank


for _r in range(8):
    _rank_ring(_r)


def exits(m: list[int]) -> tuple[int, ...]:
    """Absolute exit directions of module ``m``."""
    return ABS_EXITS[m[C]][m[H]]


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
    slots, cells, _ = indexed_free_slots(mods)
    if not ordered:
        return slots
    # one int per slot: the new cell's rank, then (module, direction)
    keyed = sorted([((code_rank(cell) << 16) | (i << 2) | d, i, d)
                    for (i, d), cell in zip(slots, cells, strict=True)])
    return [(i, d) for _, i, d in keyed]


def indexed_free_slots(mods: list[list[int]]) -> tuple[list[tuple[int, int]], list[int], set[int]]:
    """``free_slots(mods, ordered=False)``, with each slot's new cell (as a cell code) and the
    occupied cells: what :func:`free_slots_after_place` needs to update the list."""
    occ = {m[1] * 1024 + m[2] for m in mods}
    slots, cells = [], []
    for i, m in enumerate(mods):
        if m[5]:
            continue
        cell = m[1] * 1024 + m[2]
        for d, off in _EXIT_STEPS[m[0]][m[3]]:
            if cell + off not in occ:
                slots.append((i, d))
                cells.append(cell + off)
    return slots, cells, occ


def free_slots_after_place(mods: list[list[int]], slots: list[tuple[int, int]], cells: list[int],
                           occ: set[int]) -> tuple[list[tuple[int, int]], list[int], set[int]]:
    """:func:`indexed_free_slots` of ``mods`` whose last module, undamaged, was just placed and
    ``slots, cells, occ`` are of the station before: the exits into its cell are no longer free,
    and its own exits onto empty cells are added at the end (module order, as it is the last
    module). New lists: the old ones are left as they were."""
    new = mods[-1]
    cell = new[1] * 1024 + new[2]
    occ = occ | {cell}
    keep = [k for k, t in enumerate(cells) if t != cell]
    slots = [slots[k] for k in keep]
    cells = [cells[k] for k in keep]
    i = len(mods) - 1
    for d, off in _EXIT_STEPS[new[0]][new[3]]:
        if cell + off not in occ:
            slots.append((i, d))
            cells.append(cell + off)
    return slots, cells, occ


def target_order(mods: list[list[int]], include_core: bool = False) -> list[int]:
    """Module indices in the bot's target-module order (core first when included)."""
    # modules never share a cell, so the cell's rank alone orders them
    keyed = sorted([(cell_rank(m[1], m[2]), i) for i, m in enumerate(mods) if i])
    out = [0] if include_core else []
    out.extend([i for _, i in keyed])
    return out


def in_target_order(mods: list[list[int]], indices: list[int]) -> list[int]:
    """``indices`` (module 0, the core, may be one) sorted in target-module order: the same as
    filtering :func:`target_order` (core first), but only the few modules asked about are sorted."""
    if len(indices) < 2:
        return list(indices)
    keyed = sorted([(cell_rank(mods[i][1], mods[i][2]), i) for i in indices])
    return [i for _, i in keyed]


def first_in_target_order(mods: list[list[int]], indices: list[int]) -> int | None:
    """The first of ``indices`` in target-module order (core first), or None when empty."""
    if not indices:
        return None
    if len(indices) == 1:
        return indices[0]
    return min((cell_rank(mods[i][1], mods[i][2]), i) for i in indices)[1]


def population(mods: list[list[int]], core_colour: int) -> int:
    """Population icons of the undamaged modules (승무원 보충; the tie-breaker)."""
    total = CORE_POP[core_colour]
    for m in mods:
        if not m[5]:
            total += _POP[m[0]]
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
