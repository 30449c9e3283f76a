"""The game's printed contents, loaded once from the JSON files under ``data/``.

Why flat tables: rule code looks things up by small integer ids thousands of times per
second, so the JSON is turned into tuples/dicts indexed by id at import time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).parent / "data"

COLOURS = ("orange", "gray", "green")
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
FACES = (0, 1, 1, 2, 3, 3)  # a die's six faces; 0 is the star


def _load(name: str) -> Any:
    with open(_DIR / name, encoding="utf-8") as f:
        return json.load(f)


BOARD = _load("board.json")
PLAYER_BOARD = _load("player_board.json")
AIDS = _load("player_aids.json")["aids"]

ACTION_COLOUR = tuple(COLOUR_INDEX[a["colour"]] for a in BOARD["actions"])
ACTION_KIND = tuple(a["kind"] for a in BOARD["actions"])
DISPLAY_COST = tuple(BOARD["display"]["spaces"])
DISPLAY_SIZE = len(DISPLAY_COST)
ADV_SPACES = BOARD["advanced_spaces"]["count"]
DICE_PER_COLOUR = {int(k): v for k, v in BOARD["dice_per_colour"].items() if k != "source"}
STRIPS_USED = {int(k): v for k, v in BOARD["strips_used"].items() if k != "source"}
RAVAGERS_REMOVED = {int(k): v for k, v in BOARD["ravagers_removed"].items() if k != "source"}
MAX_DAMAGE = BOARD["max_damage_per_action"]["value"]
MAX_RAVAGERS = BOARD["max_ravagers_per_action"]["value"]
HAND_LIMIT = BOARD["hand_limit_missions"]["value"]

# --- player board geometry -----------------------------------------------------------------
SLOT_NAMES = tuple(s["id"] for s in PLAYER_BOARD["card_slots"])


def _line_cells(line: str, index: int) -> tuple[int, ...]:
    if line == "row":
        return tuple(index * 3 + c for c in range(3))
    return tuple(r * 3 + index for r in range(3))


SLOT_CELLS = tuple(_line_cells(s["line"], s["index"]) for s in PLAYER_BOARD["card_slots"])


def _arrow_path(a: dict[str, Any]) -> tuple[int, ...]:
    """Cells an inserted tile pushes along, entry cell first, exit cell last."""
    cells = _line_cells(a["line"], a["index"])
    return tuple(reversed(cells)) if a["from"] in ("right", "bottom") else cells


ARROW_IDS = tuple(a["id"] for a in PLAYER_BOARD["arrows"])
#: Where each arrow enters the player board, in words ("the left end of row 1"); rows count from
#: the top and columns from the left, 1 to 3, as a player reads the board.
ARROW_WORDS = tuple(
    f"the {a['from']} end of {'row' if a['line'] == 'row' else 'column'} {a['index'] + 1}"
    for a in PLAYER_BOARD["arrows"]
)
ARROW_BLACK = tuple(a["colour"] == "black" for a in PLAYER_BOARD["arrows"])
ARROW_PATH = tuple(_arrow_path(a) for a in PLAYER_BOARD["arrows"])
START_CELLS = tuple(PLAYER_BOARD["starting_cells"]["cells"])
START = PLAYER_BOARD["start"]

# --- tiles -------------------------------------------------------------------------------------
TILE: dict[int, dict[str, Any]] = {}
for _t in _load("tech_tiles.json")["tiles"] + _load("starting_tiles.json")["tiles"]:
    TILE[_t["id"]] = _t
TILE_COLOUR = {tid: COLOUR_INDEX[t["colour"]] for tid, t in TILE.items()}
TECH_BY_COLOUR = tuple(tuple(t for t in range(48) if TILE_COLOUR[t] == c) for c in range(3))
START_TILES = tuple(tuple(100 + p * 3 + c for c in range(3)) for p in range(4))
ADV: dict[int, dict[str, Any]] = {t["id"]: t for t in _load("advanced_tiles.json")["tiles"]}
for _t in ADV.values():
    TILE_COLOUR[_t["id"]] = -1


def is_advanced(tile: int) -> bool:
    return tile >= 200


# --- cards ---------------------------------------------------------------------------------------
MISSION: dict[int, dict[str, Any]] = {c["id"]: c for c in _load("missions.json")["cards"]}
MISSION_COLOUR = tuple(COLOUR_INDEX[MISSION[i]["colour"]] for i in range(60))
MISSIONS_BY_COLOUR = tuple(tuple(i for i in range(60) if MISSION_COLOUR[i] == c) for c in range(3))
MISSION_ICONS = tuple(tuple(COLOUR_INDEX[x] for x in MISSION[i]["icons"]) for i in range(60))
RAVAGER: dict[int, dict[str, Any]] = {c["id"]: c for c in _load("ravagers.json")["cards"]}
RAV_ACTION = {cid: c["action"] - 1 for cid, c in RAVAGER.items()}
RAV_EFFECT = {cid: c["effect"] for cid, c in RAVAGER.items()}
RAVAGER_IDS = tuple(sorted(RAVAGER))

# --- space strips ------------------------------------------------------------------------------
STRIPS = _load("strips.json")["strips"]
HEXES_PER_STRIP = 5
MIDDLE = 2
# HEX_TYPE[strip][side][row] -> "orange"|"gray"|"green"|"asteroid"|"ravager"
HEX_TYPE = tuple(tuple(tuple(h["type"] for h in side) for side in s["sides"]) for s in STRIPS)
HEX_ICONS = tuple(tuple(tuple(h["icons"] for h in side) for side in s["sides"]) for s in STRIPS)
HEX_COMET = tuple(tuple(tuple(h["comet"] for h in side) for side in s["sides"]) for s in STRIPS)

# --- Hal ---------------------------------------------------------------------------------------
HAL = _load("hal.json")
HAL_CARDS = HAL["cards"]
HAL_CONVERSION = HAL["conversion"]
