"""The game's printed content, loaded once from the JSON files under ``data/``.

Why flat tuples of ints: the turn loop and the random playouts that bots run look these up
millions of times, so every lookup is an index, never a dict walk or a string compare.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).parent / "data"


def _load(name: str) -> Any:
    with open(_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)


RESOURCES: tuple[str, ...] = ("wood", "stone", "wheat", "water")
RES_INDEX = {name: i for i, name in enumerate(RESOURCES)}
WOOD, STONE, WHEAT, WATER = range(4)
#: Cell types 0-3 are the resource regions of the same index; 4 and 5 are the cities.
DAY_CITY, NIGHT_CITY = 4, 5
CELL_NAMES: tuple[str, ...] = RESOURCES + ("day city", "night city")
_CELL_CODE = {"wood": 0, "stone": 1, "wheat": 2, "water": 3, "day": DAY_CITY, "night": NIGHT_CITY}
DAY, NIGHT = 0, 1  # supply tile kinds and the personal board rows (day row on top)
KIND_NAMES = ("day", "night")

# --- boards ------------------------------------------------------------------------------
_boards = _load("boards.json")
ROWS: int = _boards["geometry"]["rows"]
SHIP_ROW: int = _boards["geometry"]["ship_row"]
SHIP_HOME_COLUMN: int = _boards["geometry"]["ship_column"]
BOARD_COUNT = len(_boards["boards"])
#: BOARD_SIDES[board][side] = the 7 cell types of that side, top to bottom.
BOARD_SIDES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_CELL_CODE[c] for c in side["cells"]) for side in b["sides"]) for b in _boards["boards"]
)
SIDE_NAMES: tuple[tuple[str, ...], ...] = tuple(
    tuple(side["name"] for side in b["sides"]) for b in _boards["boards"]
)
#: The two set-ups of the rulebook: side index of each board in the starting row.
LAYOUTS: dict[str, tuple[int, ...]] = {
    key: tuple(SIDE_NAMES[b].index(name) for b, name in enumerate(_boards["layouts"][key]))
    for key in ("night_first", "day_first")
}

# --- spaceship cards -------------------------------------------------------------------------
REC_REGION, REC_RESOURCES, REC_REGION_STAR = 0, 1, 2
_cards = _load("spaceship_cards.json")["cards"]
DECK_SIZE = len(_cards)
CARD_VALUE: tuple[int, ...] = tuple(c["value"] for c in _cards)
#: CARD_RECOVERY[card] = (kind, n, resource indices) — the effect printed under the card.
_REC_KIND = {"region": REC_REGION, "resources": REC_RESOURCES, "region_star": REC_REGION_STAR}


def _recovery(rec: dict[str, Any]) -> tuple[int, int, tuple[int, ...]]:
    names = rec.get("resources") or ([rec["resource"]] if "resource" in rec else [])
    return _REC_KIND[rec["kind"]], rec.get("n", 1), tuple(RES_INDEX[r] for r in names)


CARD_RECOVERY: tuple[tuple[int, int, tuple[int, ...]], ...] = tuple(_recovery(c["recovery"]) for c in _cards)
#: Cards whose value and printed effect are the same are interchangeable in a hand.
CARD_FACE: tuple[tuple[int, Any], ...] = tuple((CARD_VALUE[i], CARD_RECOVERY[i]) for i in range(DECK_SIZE))


def plural(n: int, word: str) -> str:
    """'1 star', '2 stars', '1 cell', '3 cells' — event lines read as sentences."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def recovery_text(card: int) -> str:
    """What the card gives when its board leaves (우주선 카드 회수 효과), in player words."""
    kind, n, res = CARD_RECOVERY[card]
    if kind == REC_REGION:
        return f"{n} of its region's resource, or {plural(n, 'star')} on a city"
    if kind == REC_RESOURCES:
        return " and ".join(f"1 {RESOURCES[r]}" for r in res)
    return f"1 star if it is on a {RESOURCES[res[0]]} region"


def card_text(card: int) -> str:
    return f"<{CARD_VALUE[card]}> card (recovery: {recovery_text(card)})"


# --- supply tiles ------------------------------------------------------------------------------
_tiles = _load("supply_tiles.json")["tiles"]
TILE_KIND: tuple[int, ...] = tuple(KIND_NAMES.index(t["kind"]) for t in _tiles)
TILE_COST: tuple[tuple[int, int, int, int], ...] = tuple(
    tuple(t["cost"][r] for r in RESOURCES) for t in _tiles  # type: ignore[misc]
)
TILE_POINTS: tuple[int, ...] = tuple(t["points"] for t in _tiles)
TILES_OF_KIND: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(i for i, k in enumerate(TILE_KIND) if k == DAY),
    tuple(i for i, k in enumerate(TILE_KIND) if k == NIGHT),
)


def tile_text(tile: int) -> str:
    cost = TILE_COST[tile]
    parts = [f"{n} {RESOURCES[r]}" for r, n in enumerate(cost) if n]
    return f"{KIND_NAMES[TILE_KIND[tile]]} tile #{tile} ({', '.join(parts)}; {TILE_POINTS[tile]} pts)"


# --- technology tiles -----------------------------------------------------------------------------
_tech = _load("tech_tiles.json")
TECH_CAP: int = _tech["cap_per_level3_tile"]
TECH_LEVEL: tuple[int, ...] = tuple(t["level"] for t in _tech["tiles"])
TECH_SIDE: tuple[int, ...] = tuple(
    -1 if t["side"] is None else KIND_NAMES.index(t["side"]) for t in _tech["tiles"]
)
TECH_EFFECT: tuple[str, ...] = tuple(t["effect"] for t in _tech["tiles"])
TECH_TEXT: tuple[str, ...] = tuple(t["text"] for t in _tech["tiles"])
TECH_IDENTICAL: frozenset[str] = frozenset(_tech["identical_pairs"])
TECH_LEVEL1: tuple[int, ...] = tuple(i for i, lv in enumerate(TECH_LEVEL) if lv == 1)
TECH_LEVEL3: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(i for i, lv in enumerate(TECH_LEVEL) if lv == 3 and TECH_SIDE[i] == DAY),
    tuple(i for i, lv in enumerate(TECH_LEVEL) if lv == 3 and TECH_SIDE[i] == NIGHT),
)

# --- personal boards and set-up ----------------------------------------------------------------------
_rules = _load("rules.json")
SUMMER_LIMIT: int = _rules["summer"]["resource_limit"]
SUMMER_SLOTS: int = _rules["summer"]["slots_per_row"]
SUMMER_BONUS: tuple[int, ...] = tuple(b["gain_any"] for b in _rules["summer"]["bonus_track"])
SET_BONUS: tuple[int, ...] = tuple(_rules["summer"]["set_bonus"]["per_set"])
SET_BONUS_CAP: int = _rules["summer"]["set_bonus"]["cap"]
WINTER_LIMIT: int = _rules["winter"]["resource_limit"]
#: Winter slots in board order (left to right): 1A 1B 2A 2B 3A 3B.
WINTER_SLOT_NAMES: tuple[str, ...] = ("1A", "1B", "2A", "2B", "3A", "3B")
WINTER_SLOTS: tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] = (
    tuple(s for s in _rules["winter"]["slots"] if s["row"] == "day"),
    tuple(s for s in _rules["winter"]["slots"] if s["row"] == "night"),
)
SOLO_BANDS: tuple[tuple[int, str], ...] = tuple((b[0], b[1]) for b in _rules["solo"]["bands"])
STARTING_RESOURCES: dict[int, dict[int, int]] = {
    int(p): {int(seat): RES_INDEX[r] for seat, r in v.items()}
    for p, v in _rules["starting_resources"].items()
    if p != "source"
}
REVEALED_TILES: dict[int, int] = {
    int(p): n for p, n in _rules["revealed_tiles"].items() if p != "source"
}
HAND_SIZE: int = _rules["hand_size"]["value"]


def solo_message(score: int) -> str:
    """The rulebook's closing line for a solo score."""
    message = SOLO_BANDS[0][1]
    for threshold, text in SOLO_BANDS:
        if score >= threshold:
            message = text
    return message
