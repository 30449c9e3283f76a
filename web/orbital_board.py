"""An Orbital station laid out as a grid of HTML tiles, for the replay board.

Why tiles and not a picture: the station used to be an SVG scaled to fit its box, so a wide
station shrank its module names to a few pixels and cut them at seven letters. As HTML each
module is a grid cell whose name wraps inside it, the grid stretches to fill the station's box,
and a very wide station scrolls inside its own box instead of shrinking.

The engine's view gives every module its cell (``x``, ``y``; ``y`` grows downwards), the module
it was built on (``parent``) and its exits (``N E S W``). From those this module works out where
each tile sits, on which side its *entrance* joins its parent (a connection is drawn on that
side) and which exits are still *free* (an undamaged module's exit whose neighbouring cell is
empty: where a new module could go, rulebook 모듈 건설).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Direction letters as the engine writes them, with their step on the grid.
STEPS: dict[str, tuple[int, int]] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
SIDE_OF_STEP: dict[tuple[int, int], str] = {v: k for k, v in STEPS.items()}

#: The rulebook's six module types by colour (게임 개요: 기본 구조, 바이오, 럭셔리, 지원, 과학, 군사).
COLOUR_TYPES: dict[str, str] = {
    "red": "basic structure",
    "green": "bio",
    "yellow": "luxury",
    "orange": "support",
    "blue": "science",
    "purple": "military",
}
#: What each type does, as the rulebook sums it up.
TYPE_ROLES: dict[str, str] = {
    "red": "general functions",
    "green": "crew",
    "yellow": "income",
    "orange": "building and repair",
    "blue": "drawing cards",
    "purple": "attack and defence",
}


@dataclass(frozen=True)
class Tile:
    """One module as the board draws it."""

    index: int
    name: str
    colour: str
    type_name: str
    column: int
    row: int
    core: bool
    end: bool
    damage: int
    crew: int
    #: the side (N E S W) where this module's entrance meets its parent's exit, if any
    entrance: str | None
    #: exits where a new module could still be built
    free_exits: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The tile in one sentence, for a screen reader and the tooltip."""
        parts = [f"{self.name}: {'core module' if self.core else self.type_name + ' module'}"]
        if self.damage:
            parts.append(f"{self.damage} damage token{'s' if self.damage != 1 else ''}")
        if self.crew:
            parts.append(f"{self.crew} crew placed")
        if self.end:
            parts.append("end module")
        if self.free_exits:
            parts.append("free exit " + " ".join(self.free_exits))
        return ", ".join(parts)


@dataclass(frozen=True)
class ExitCell:
    """An empty cell next to one or more free exits: where a new module can be built (on a
    person's own station at ``/play``, the place they click to build). ``exit_keys`` are the
    board keys of :mod:`web.targets` (``exit:<module>:<side>``), one per exit that reaches it."""

    column: int
    row: int
    exit_keys: tuple[str, ...]
    #: the modules whose exits reach this cell, for the tooltip
    name: str


@dataclass(frozen=True)
class StationGrid:
    """A station's tiles and the size of its grid."""

    columns: int
    rows: int
    tiles: list[Tile] = field(default_factory=list)
    exit_cells: list[ExitCell] = field(default_factory=list)

    @property
    def cells(self) -> list[list[Tile | ExitCell | None]]:
        """The grid row by row, ``None`` for an empty cell. The page's security policy allows no
        inline styles, so a tile cannot be placed by ``grid-column``: the board writes every
        row in full instead (equal flex cells line the columns up)."""
        out: list[list[Tile | ExitCell | None]] = [[None] * self.columns for _ in range(self.rows)]
        for e in self.exit_cells:
            out[e.row - 1][e.column - 1] = e
        for t in self.tiles:
            out[t.row - 1][t.column - 1] = t
        return out

    @property
    def width_class(self) -> str:
        """How much of a row of stations this one asks for (``span-1`` … ``span-7``, wider
        ones take a whole row and scroll inside it when the screen is narrower)."""
        return f"span-{min(self.columns, 7)}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def station_grid(station: Any, with_exits: bool = False) -> StationGrid:
    """The tiles of one station of Orbital's spectator view; tolerant of missing keys (an old
    record's view, a hand-made one in a test): a module without a cell is left out.

    ``with_exits``: the grid grows to hold the empty cells next to free exits (an
    :class:`ExitCell` each), so a person building on their own station clicks the place."""
    mods = station.get("modules") if isinstance(station, dict) else None
    placed = [m for m in (mods or []) if isinstance(m, dict) and _int(m.get("x")) is not None and _int(m.get("y")) is not None]
    if not placed:
        return StationGrid(columns=1, rows=1)
    xs = [m["x"] for m in placed]
    ys = [m["y"] for m in placed]
    reach: dict[tuple[int, int], list[tuple[str, str]]] = {}
    if with_exits:
        taken = {(m["x"], m["y"]) for m in placed}
        for i, m in enumerate(placed):
            if _int(m.get("damage")):
                continue
            index = _int(m.get("index"))
            card = m.get("card") if isinstance(m.get("card"), dict) else {}
            for d in ("N", "E", "S", "W"):
                cell = (m["x"] + STEPS[d][0], m["y"] + STEPS[d][1])
                if d in (m.get("exits") or []) and cell not in taken:
                    reach.setdefault(cell, []).append(
                        (f"exit:{i if index is None else index}:{d}", str(card.get("name") or "module")))
        xs += [c[0] for c in reach]
        ys += [c[1] for c in reach]
    x0, y0 = min(xs), min(ys)
    by_index = {m.get("index", i): m for i, m in enumerate(mods or []) if isinstance(m, dict)}
    cells = {(m["x"], m["y"]) for m in placed}
    tiles = []
    seen: set[tuple[int, int]] = set()
    for i, m in enumerate(placed):
        if (m["x"], m["y"]) in seen:  # modules never overlap; a malformed view must not hide one silently
            continue
        seen.add((m["x"], m["y"]))
        index = _int(m.get("index"))
        index = i if index is None else index
        card = m.get("card") if isinstance(m.get("card"), dict) else {}
        colour = str(m.get("colour") or card.get("colour") or "")
        core = index == 0
        damage = _int(m.get("damage")) or 0
        entrance = None
        parent = by_index.get(m.get("parent")) if _int(m.get("parent")) is not None else None
        if parent is not None and _int(parent.get("x")) is not None and _int(parent.get("y")) is not None:
            entrance = SIDE_OF_STEP.get((parent["x"] - m["x"], parent["y"] - m["y"]))
        free = tuple(
            d for d in ("N", "E", "S", "W")
            if d in (m.get("exits") or []) and not damage
            and (m["x"] + STEPS[d][0], m["y"] + STEPS[d][1]) not in cells
        )
        tiles.append(Tile(
            index=index,
            name=str(card.get("name") or ("Core" if core else "module")),
            colour=colour,
            type_name=COLOUR_TYPES.get(colour, colour or "unknown"),
            column=m["x"] - x0 + 1,
            row=m["y"] - y0 + 1,
            core=core,
            end=bool(m.get("end")),
            damage=damage,
            crew=_int(m.get("crew")) or 0,
            entrance=entrance,
            free_exits=free,
        ))
    exit_cells = [
        ExitCell(column=x - x0 + 1, row=y - y0 + 1, exit_keys=tuple(k for k, _ in ways),
                 name=" and ".join(sorted({n for _, n in ways})))
        for (x, y), ways in sorted(reach.items())
    ]
    return StationGrid(columns=max(xs) - x0 + 1, rows=max(ys) - y0 + 1, tiles=tiles,
                       exit_cells=exit_cells)
