"""The Orbital data files, loaded once into flat per-card tables.

Card ids: ``0 .. 82`` are the module cards, ``83 .. 118`` the event cards, in data-file order
(duplicates get consecutive ids). The core is not a card: it is module 0 of every station.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).parent / "data"


def _load(name: str) -> Any:
    return json.loads((_DIR / name).read_text(encoding="utf-8"))


COLOURS = ("red", "green", "yellow", "orange", "blue", "purple")
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
RED, GREEN, YELLOW, ORANGE, BLUE, PURPLE = range(6)

RULES: dict[str, int] = {k: v["value"] for k, v in _load("rules.json").items()}

_MODULES = _load("modules.json")
_EVENTS = _load("events.json")
_CORES = _load("cores.json")

#: relative exits: S straight on, L left, R right, B back (cores only); as turns of the heading.
_REL = {"S": 0, "R": 1, "B": 2, "L": 3}

CARD_NAME: list[str] = []
CARD_IS_EVENT: list[bool] = []
CARD_COLOUR: list[int] = []
CARD_EXITS: list[tuple[int, ...]] = []
CARD_POP: list[int] = []
#: (crew, mc, effect, amount) or None for modules without an arrow (always on, or nothing)
CARD_ACTION: list[tuple[int, int, str, int] | None] = []
CARD_PASSIVE: list[str] = []
EVENT_EFFECT: list[str] = []
CARD_TEXT: list[str] = []

for entry in _MODULES["cards"]:
    for _ in range(entry["count"]):
        CARD_NAME.append(entry["name"])
        CARD_IS_EVENT.append(False)
        CARD_COLOUR.append(COLOUR_INDEX[entry["colour"]])
        CARD_EXITS.append(tuple(sorted(_REL[c] for c in entry["exits"])))
        CARD_POP.append(entry["population"])
        a = entry.get("action")
        CARD_ACTION.append(None if a is None else (a["crew"], a["mc"], a["effect"], a["amount"]))
        CARD_PASSIVE.append(entry.get("passive", ""))
        EVENT_EFFECT.append("")
MODULE_COUNT = len(CARD_NAME)
for entry in _EVENTS["cards"]:
    for _ in range(entry["count"]):
        CARD_NAME.append(entry["name"])
        CARD_IS_EVENT.append(True)
        CARD_COLOUR.append(-1)
        CARD_EXITS.append(())
        CARD_POP.append(0)
        CARD_ACTION.append(None)
        CARD_PASSIVE.append("")
        EVENT_EFFECT.append(entry["effect"])
CARD_COUNT = len(CARD_NAME)
EVENT_IDS = tuple(range(MODULE_COUNT, CARD_COUNT))
EVENT_TEXT = {e["effect"]: e["text"] for e in _EVENTS["cards"]}

#: upgrade cores by colour index (green, blue, yellow, purple, orange are on display)
CORE_NAME: dict[int, str] = {RED: "Basic Core"}
CORE_POP: dict[int, int] = {RED: _CORES["basic_core"]["population"]}
CORE_EFFECT: dict[int, str] = {RED: ""}
CORE_ACTION: dict[int, tuple[int, int, str, int] | None] = {RED: None}
CORE_TEXT: dict[int, str] = {RED: "Population 1."}
for entry in _CORES["cards"]:
    c = COLOUR_INDEX[entry["colour"]]
    CORE_NAME[c] = entry["name"]
    CORE_POP[c] = entry["population"]
    CORE_EFFECT[c] = entry["effect"]
    a = entry.get("action")
    CORE_ACTION[c] = None if a is None else (a["crew"], a["mc"], a["effect"], a["amount"])
    CORE_TEXT[c] = entry["text"]
UPGRADE_COLOURS = tuple(COLOUR_INDEX[e["colour"]] for e in _CORES["cards"])

for _i in range(MODULE_COUNT):
    _a = CARD_ACTION[_i]
    parts = [f"{COLOURS[CARD_COLOUR[_i]]}", f"pop {CARD_POP[_i]}", f"exits {len(CARD_EXITS[_i])}"]
    if _a:
        parts.append(f"{_a[0]} crew {_a[1]} MC -> {_a[2]} {_a[3]}")
    if CARD_PASSIVE[_i]:
        parts.append(f"always: {CARD_PASSIVE[_i]}")
    CARD_TEXT.append(f"{CARD_NAME[_i]} ({', '.join(parts)})")
for _i in range(MODULE_COUNT, CARD_COUNT):
    CARD_TEXT.append(f"{CARD_NAME[_i]} (event: {EVENT_TEXT[EVENT_EFFECT[_i]]})")


def card_name(card: int) -> str:
    return CARD_NAME[card]


def card_json(card: int) -> dict[str, Any]:
    """A card as bots and the replay viewer see it."""
    if CARD_IS_EVENT[card]:
        return {"id": card, "kind": "event", "name": CARD_NAME[card], "effect": EVENT_EFFECT[card],
                "text": EVENT_TEXT[EVENT_EFFECT[card]]}
    a = CARD_ACTION[card]
    return {
        "id": card, "kind": "module", "name": CARD_NAME[card], "colour": COLOURS[CARD_COLOUR[card]],
        "exits": ["SRBL"[d] for d in CARD_EXITS[card]], "population": CARD_POP[card],
        "action": None if a is None else {"crew": a[0], "mc": a[1], "effect": a[2], "amount": a[3]},
        "passive": CARD_PASSIVE[card] or None,
    }
