"""The personal board: where a completed supply tile goes and what that slot gives.

Summer (기본 규칙): each row (day on top, night below) fills from the left; the n-th tile
gives the bonus of level n. Winter (상급 규칙 1): three levels of two slots (A, B) per row,
with the placement prerequisites of the rulebook, and a printed effect per slot.
"""

from __future__ import annotations

from referee.solenia.data import DAY, NIGHT, STONE, WHEAT, WINTER_SLOTS, WOOD

#: Winter slot indices, left to right.
SLOT_1A, SLOT_1B, SLOT_2A, SLOT_2B, SLOT_3A, SLOT_3B = range(6)


def summer_slot(row: list[int]) -> int:
    """The leftmost empty slot of a summer row, or -1 when the row is full."""
    for i, t in enumerate(row):
        if t < 0:
            return i
    return -1


def winter_slots(row: list[int]) -> list[int]:
    """Empty winter slots a tile may go to now (겨울면 보급품 타일 배치 규칙).

    The first tile of a level needs the levels below (level 2: one tile at level 1; level 3:
    one at level 1 and one at level 2); the second tile of level 2 or 3 needs both slots of
    the level below filled. Level 1 is always open.
    """
    counts = [(row[0] >= 0) + (row[1] >= 0), (row[2] >= 0) + (row[3] >= 0), (row[4] >= 0) + (row[5] >= 0)]
    out = []
    for i in range(6):
        if row[i] >= 0:
            continue
        level = i >> 1
        if level == 0:
            out.append(i)
            continue
        first = counts[level] == 0
        if first:
            if level == 1 and counts[0] >= 1:
                out.append(i)
            elif level == 2 and counts[0] >= 1 and counts[1] >= 1:
                out.append(i)
        elif counts[level - 1] == 2:
            out.append(i)
    return out


def winter_waivers(rows: list[list[int]]) -> tuple[int, ...]:
    """Resources a winter board lets the player leave unpaid once per turn (levels 2-A, 3-A)."""
    out: list[int] = []
    for kind in (DAY, NIGHT):
        if rows[kind][SLOT_2A] >= 0:
            out.append(WHEAT)
        if rows[kind][SLOT_3A] >= 0:
            out.append(WOOD if kind == DAY else STONE)
    return tuple(out)


def winter_storage(rows: list[list[int]]) -> int:
    """Extra storage from tiles on the leftmost slots (level 1-A of each row)."""
    return (rows[DAY][SLOT_1A] >= 0) + (rows[NIGHT][SLOT_1A] >= 0)


def winter_slot_effect(kind: int, slot: int) -> dict:
    return WINTER_SLOTS[kind][slot]
