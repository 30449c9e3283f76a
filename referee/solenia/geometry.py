"""Hex geometry of the row of five boards.

Each board side is one column of ``ROWS`` hex cells; the five boards side by side make a
5-column "odd-r" hex grid (odd rows sit half a cell to the right). A position is
``column * ROWS + row``, so detaching the leftmost board is dropping the first ``ROWS``
entries of every per-cell list. Adjacency depends only on positions, so it is computed once.
"""

from __future__ import annotations

from referee.solenia.data import BOARD_COUNT, ROWS, SHIP_ROW

COLUMNS = BOARD_COUNT
CELLS = COLUMNS * ROWS


def pos_of(col: int, row: int) -> int:
    return col * ROWS + row


def col_row(pos: int) -> tuple[int, int]:
    return divmod(pos, ROWS)


def _step(col: int, row: int, direction: int) -> tuple[int, int]:
    """The neighbour of (col,row) in ``direction`` 0..5 = E, SE, SW, W, NW, NE (clockwise)."""
    odd = row & 1
    if direction == 0:
        return col + 1, row
    if direction == 1:
        return col + odd, row + 1
    if direction == 2:
        return col - 1 + odd, row + 1
    if direction == 3:
        return col - 1, row
    if direction == 4:
        return col - 1 + odd, row - 1
    return col + odd, row - 1


def _inside(col: int, row: int) -> bool:
    return 0 <= col < COLUMNS and 0 <= row < ROWS


def _numbered(pos: int) -> tuple[int, ...]:
    col, row = col_row(pos)
    out = []
    for d in range(6):
        c, r = _step(col, row, d)
        out.append(pos_of(c, r) if _inside(c, r) else -1)
    return tuple(out)


#: NUMBERED[pos][k] = the neighbour numbered k+1 (1 = the ship's direction of travel, east,
#: then clockwise), or -1 off the boards.
NUMBERED: tuple[tuple[int, ...], ...] = tuple(_numbered(p) for p in range(CELLS))
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(n for n in NUMBERED[p] if n >= 0) for p in range(CELLS))


def _cube(pos: int) -> tuple[int, int, int]:
    col, row = col_row(pos)
    x = col - (row - (row & 1)) // 2
    return x, -x - row, row


def _distance(a: int, b: int) -> int:
    ax, ay, az = _cube(a)
    bx, by, bz = _cube(b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


#: DISTANCE[a][b] = hex steps between two positions.
DISTANCE: tuple[tuple[int, ...], ...] = tuple(tuple(_distance(a, b) for b in range(CELLS)) for a in range(CELLS))


def ship_pos(ship_col: int) -> int:
    return pos_of(ship_col, SHIP_ROW)
