"""Where on the board each option of a person's decision is played: the "targets" of ``/play``.

Why: a person should act on the board (click the card in hand, the market slot, the module and
the side, the hex), not read a wall of buttons. The engines name every option by a stable id
whose parts point at things the board draws (``build:45:0.1`` is card 45 of the hand built on
side E of module 0; ``to:12`` is hex 12 of the space map; ``cell:17`` is Solenia's map cell 17).
This module turns an option id into the sequence of board element keys a person clicks, one key
a part, in the order the rulebook has a player pick them ("which card, then where").

The board templates (``web/templates/boards/*.html``) mark the elements they draw with the same
keys in ``data-target`` (several keys separated by spaces, when one element stands for several
places). ``play.js`` highlights the elements of every remaining option's next part, narrows the
options as the person clicks and asks for Confirm when a choice took several clicks. The parts
of a payment (Solenia's ``pay``: which resources of the store) are clicked in any order
(:data:`ANY_ORDER`, ``data-any-order`` on the page). An option with no part here (pass, done, a
yes/no, paying nothing) has no board target: the page shows it as a button in the board's
action bar.

The keys name public positions only (a hand card by its id is only drawn in its owner's hand),
so the same keys on the replay and live boards give nothing away.
"""

from __future__ import annotations

import re
from typing import Any

from referee.solenia.data import RESOURCES
from referee.solenia.geometry import SHIP_ROW, pos_of
from web.option_words import option_words

#: Orbital's side numbers in a build id (``build:<card>:<module>.<side>``), as the engine counts.
ORBITAL_SIDES = ("N", "E", "S", "W")

_BUILD = re.compile(r"build:(\d+):(\d+)\.([0-3])")
_SOLENIA_TILE = re.compile(r"\b(day|night) tile\b")
_RECOLOUR = re.compile(r"rc[0-2](\w+:.+)")
_DAMAGED_DIE = re.compile(r"\bdamaged (\w+) die\b")
#: Solenia's winter levels, the spaces of a personal board's day and night rows in order.
SOLENIA_WINTER_LEVELS = ("1A", "1B", "2A", "2B", "3A", "3B")


def _hex_where(observation: dict[str, Any], match: Any) -> str | None:
    """The key of the first hex of Black Angel's space map for which ``match(hex)`` holds."""
    space = observation.get("space") if isinstance(observation, dict) else None
    for strip in (space or {}).get("strips") or []:
        for h in strip.get("hexes") or [] if isinstance(strip, dict) else []:
            if isinstance(h, dict) and isinstance(h.get("hex"), int) and match(h):
                return f"hex:{h['hex']}"
    return None


def _recolour_cell(observation: dict[str, Any], seat: int) -> str | None:
    """The key of the seat's grid tile whose boost side (up) recolours a die, if any."""
    seats = observation.get("seats") if isinstance(observation, dict) else None
    me = seats[seat] if isinstance(seats, list) and 0 <= seat < len(seats) else None
    for i, t in enumerate((me or {}).get("grid") or [] if isinstance(me, dict) else []):
        if isinstance(t, dict) and t.get("boost") == "recolour" and t.get("boost_side_up"):
            return f"grid:{seat}:{i}"
    return None


def _black_angel(option: str, seat: int, label: str, observation: dict[str, Any]) -> list[str]:
    recolour = _RECOLOUR.fullmatch(option)
    if recolour:
        # 1x: the boost tile recolours the die (click it), then the die's use as usual
        cell = _recolour_cell(observation, seat)
        then = _black_angel(recolour.group(1), seat, label, observation)
        return [cell, *then] if cell and then else []
    kind, _, rest = option.partition(":")
    if kind == "ship":
        # which ship: the one on the hex the label names; a new one starts at the Black Angel
        if rest == "new":
            key = _hex_where(observation, lambda h: h.get("black_angel"))
        else:
            at = label.rsplit(" at ", 1)[-1].strip()
            key = _hex_where(observation, lambda h: h.get("label") == at)
        return [key] if key else []
    if kind == "mis" and rest.isdigit():
        return [f"hex:{rest}"]
    if kind in ("place", "keep") and rest.isdigit():
        return [f"mission:{rest}"]
    if kind == "boost" and rest.isdigit():
        return [f"grid:{seat}:{rest}"]
    if kind in ("use", "flip", "reserve") and rest.isdigit():
        return [f"die:{seat}:{rest}"]
    if kind == "buy":
        owner, _, i = rest.partition(":")
        if owner.isdigit() and i.isdigit():
            return [f"die:{owner}:{i}"]
    if kind == "card" and rest.startswith("m") and rest[1:].isdigit():
        return [f"mission:{rest[1:]}"]
    if option == "card:r":
        return ["ravager"]
    if kind == "discard" and rest.isdigit():
        return [f"mission:{rest}"]
    if kind == "slot" and rest:
        return [f"slot:{seat}:{rest}"]
    if kind in ("act", "kill") and rest.isdigit():
        return [f"action:{rest}"]
    if kind == "fix" and rest.startswith("a") and rest[1:].isdigit():
        return [f"action:{rest[1:]}"]
    if kind == "fix" and rest.startswith("d"):
        # a damaged die of the supply, by its colour (the label names it: the board draws the
        # supply by colour name)
        found = _DAMAGED_DIE.search(label)
        return [f"sdmg:{found.group(1)}"] if found else []
    if option == "put:store":
        return [f"store:{seat}"]  # the seat's debris storage
    if kind == "take" and rest[:1] in ("d", "a") and rest[1:].isdigit():
        return [f"{'display' if rest[0] == 'd' else 'advanced'}:{rest[1:]}"]
    if kind in ("tile", "put") and rest.isdigit():
        return [f"grid:{seat}:{rest}"]
    if kind == "to" and rest.isdigit():
        return [f"hex:{rest}"]
    if kind == "arrow" and rest:
        return [f"arrow:{seat}:{rest}"]
    if kind == "eslot" and rest.isdigit():
        # the space for an ejected advanced tile beside one colour's ejected missions
        return [f"eslot:{seat}:{rest}"]
    return []


def _orbital(option: str, seat: int, label: str, observation: dict[str, Any]) -> list[str]:
    build = _BUILD.fullmatch(option)
    if build:
        card, module, side = build.groups()
        return [f"card:{card}", f"exit:{module}:{ORBITAL_SIDES[int(side)]}"]
    kind, _, rest = option.partition(":")
    if kind in ("return", "discard", "event", "keep") and rest.isdigit():
        return [f"card:{rest}"]
    if kind in ("buy", "pick") and rest.isdigit():
        return [f"market:{rest}"]
    if kind == "upgrade" and rest:
        return [f"core:{rest}"]
    if kind in ("act", "repair") and rest.isdigit():
        return [f"module:{seat}:{rest}"]
    if kind == "tgt":
        station, _, module = rest.partition(":")
        if station.isdigit() and module.isdigit():
            return [f"module:{station}:{module}"]
        if station.isdigit() and not module:
            return [f"station:{station}"]
    if kind == "income" and rest:
        return [f"colour:{seat}:{rest}"]
    if kind == "crew" and rest.isdigit() and int(rest) > 0:
        # High-Risk Project: k crew in is the k-th unused crew token of the seat's station
        return [f"crew:{seat}:{rest}"]
    return []


def _solenia(option: str, seat: int, label: str, observation: dict[str, Any]) -> list[str]:
    kind, _, rest = option.partition(":")
    if kind in ("card", "discard") and rest.isdigit():
        # a card to play or to discard (and advance the ship): the card in hand either way; a
        # card that can be both asks which one in the action bar
        return [f"card:{rest}"]
    if kind == "pay":
        # a payment (``pay:<wood>-<stone>-<wheat>-<water>``): one click a resource of the seat's
        # store, in any order (ANY_ORDER); paying nothing names nothing and stays a button
        counts = rest.split("-")
        if len(counts) == len(RESOURCES) and all(n.isdigit() for n in counts):
            return [f"res:{seat}:{RESOURCES[r]}" for r, n in enumerate(counts) for _ in range(int(n))]
        return []
    if kind == "ship" and rest in ("1", "2"):
        # the map cell the supply ship would sail to
        ship = (observation.get("ship") or {}) if isinstance(observation, dict) else {}
        col = ship.get("col") if isinstance(ship, dict) else None
        if isinstance(col, int):
            return [f"cell:{pos_of(col + int(rest), SHIP_ROW)}"]
        return []
    if kind in ("cell", "vpcell") and rest.isdigit():
        return [f"cell:{rest}"]
    if kind in ("drop", "gain", "spend") and rest:
        return [f"res:{seat}:{rest}"]
    if kind == "tile" and rest.isdigit():
        found = _SOLENIA_TILE.search(label)
        if found:
            return [f"tile:{found.group(1)}:{rest}"]
    if kind in ("tech1", "tech3") and rest.isdigit():
        return [f"{kind}:{rest}"]
    if kind == "slot" and rest in SOLENIA_WINTER_LEVELS:
        # the winter level of the row the bought tile goes to (day or night: the tile's kind)
        tile = ((observation.get("pending") or {}).get("tile") or {}) if isinstance(observation, dict) else {}
        row = tile.get("kind") if isinstance(tile, dict) else None
        if row in ("day", "night"):
            return [f"row:{seat}:{row}:{SOLENIA_WINTER_LEVELS.index(rest)}"]
    return []


#: Option kinds whose parts are clicked in any order (a multiset: which resources, not in which
#: order), by game; the page reads ``any_order`` (``data-any-order``).
ANY_ORDER = {"solenia": {"pay"}}

_BY_GAME = {"black_angel": _black_angel, "orbital": _orbital, "solenia": _solenia}


def option_targets(game: str, seat: int, option: str, label: str = "",
                   observation: dict[str, Any] | None = None) -> list[str]:
    """The board keys a person clicks, in order, to choose ``option`` (``[]``: it has no place
    on the board and stays a button). ``seat`` is the person's seat (their dice, their station);
    ``label`` is the engine's own label, read only where the id alone does not say which row of
    a market it means (Solenia's supply tiles are numbered within the day or night row) or
    which of a seat's ships (Black Angel: by the hex it names, found in the ``observation``)."""
    parts = _BY_GAME.get(game)
    return parts(option, seat, label, observation or {}) if parts is not None else []


def choices(game: str, seat: int, options: list[tuple[str, str]],
            observation: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The decision's options with their board parts, for the page (``data-parts``), in the
    board's words (:func:`web.option_words.option_words`: ``words``, and the card's ``rules``
    text for the button's hover or long-press)."""
    words = {w.id: w for w in option_words(game, observation, options)}
    return [{"id": oid, "label": label, "words": words[oid].words, "rules": words[oid].rules,
             "parts": option_targets(game, seat, oid, label, observation),
             "any_order": any_order(game, oid)}
            for oid, label in options]


def any_order(game: str, option: str) -> bool:
    """Whether the parts of ``option`` are clicked in any order (a payment: which resources)."""
    return option.partition(":")[0] in ANY_ORDER.get(game, set())
