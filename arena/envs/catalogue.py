"""A fixed action catalogue per game: every option id the game can ever offer, each with an index.

Why: toolkits want a fixed ``Discrete(n)`` action space in which index ``i`` means the same
option in every state (a policy network's output ``i`` must always mean one thing). The engines
instead offer short string ids per decision. The ids follow a grammar that each game documents
in ``x-option-ids`` of ``referee/<game>/schema/observation.schema.json``; this module enumerates,
pattern by pattern, every id that pattern can produce within the bounds of the game's data (card
ids, grid cells, action spaces, seats), so the catalogue is the same for every configuration of a
game. :func:`catalogue` checks that the enumeration covers every pattern of the schema, and the
tests check that every id offered in real games is in it.

Numbering is frozen: a trained policy's output ``i`` is tied to ``ids[i]``. Ids found missing
after a catalogue shipped are therefore never inserted in pattern order but appended at the end
(:data:`_APPENDED`), so every earlier id keeps its number and only the action count grows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

from referee.engine import ConfigError

_REFEREE = Path(__file__).resolve().parents[2] / "referee"


class UnknownOption(ValueError):
    """An option id outside the catalogue (an engine offered something the grammar lacks)."""


@dataclass(frozen=True)
class Catalogue:
    """The option ids of one game in a fixed order; ``index[id]`` is its action number."""

    game: str
    ids: tuple[str, ...]
    index: dict[str, int]

    def __len__(self) -> int:
        return len(self.ids)

    def action_of(self, option_id: str) -> int:
        try:
            return self.index[option_id]
        except KeyError:
            raise UnknownOption(f"{self.game} offered option {option_id[:80]!r}, which is not in "
                                "its action catalogue (arena/envs/catalogue.py)") from None

    def mask(self, option_ids: Iterable[str]) -> list[int]:
        """The action numbers of ``option_ids`` (legal now), sorted."""
        return sorted(self.action_of(o) for o in option_ids)


def _fmt(template: str, *ranges: Iterable[object]) -> Iterator[str]:
    for values in product(*ranges):
        yield template.format(*values)


def _black_angel() -> dict[str, list[str]]:
    from referee.black_angel import data as d

    actions = range(1, len(d.BOARD["actions"]) + 1)  # action spaces are 1-based
    colours = range(len(d.COLOURS))
    cells = range(9)  # the 3x3 grid of a player board
    hexes = range(len(d.STRIPS) * d.HEXES_PER_STRIP)
    missions = range(len(d.MISSION))
    dice = range(max(d.DICE_PER_COLOUR.values()))  # a seat never holds more dice than a colour has
    owners = range(max(d.DICE_PER_COLOUR) + 1)  # every seat and the neutral player
    ships = range(len(d.STRIPS) * d.HEXES_PER_STRIP)
    return {
        "^A$": ["A"], "^B$": ["B"], "^pass$": ["pass"], "^done$": ["done"], "^none$": ["none"],
        "^nocard$": ["nocard"], "^noboost$": ["noboost"], "^noplace$": ["noplace"],
        "^act:[0-9]+$": list(_fmt("act:{}", actions)),
        "^rc[0-9]+act:[0-9]+$": list(_fmt("rc{}act:{}", colours, actions)),
        "^rc[0-9]+mis:[0-9]+$": list(_fmt("rc{}mis:{}", colours, hexes)),
        "^arrow:[a-z0-9-]+$": [f"arrow:{a}" for a in d.ARROW_IDS],
        "^boost:[0-9]+$": list(_fmt("boost:{}", cells)),
        "^buy:[0-9]+:[0-9]+$": list(_fmt("buy:{}:{}", owners, dice)),
        "^card:m[0-9]+$": list(_fmt("card:m{}", missions)),
        "^card:r$": ["card:r"],
        "^discard:[0-9]+$": list(_fmt("discard:{}", missions)),
        "^eslot:[0-9]+$": list(_fmt("eslot:{}", colours)),
        "^fix:a[0-9]+$": list(_fmt("fix:a{}", actions)),
        "^fix:d[0-9]+$": list(_fmt("fix:d{}", colours)),
        "^flip:[0-9]+$": list(_fmt("flip:{}", cells)),
        "^keep:[0-9]+$": list(_fmt("keep:{}", missions)),
        "^kill:[0-9]+$": list(_fmt("kill:{}", actions)),
        "^mis:[0-9]+$": list(_fmt("mis:{}", hexes)),
        "^place:[0-9]+$": list(_fmt("place:{}", missions)),
        "^put:([0-9]+|store)$": [*_fmt("put:{}", cells), "put:store"],
        "^reserve:[0-9]+$": list(_fmt("reserve:{}", dice)),
        "^ship:([0-9]+|new)$": [*_fmt("ship:{}", ships), "ship:new"],
        "^slot:[A-Za-z0-9]+$": [f"slot:{s}" for s in d.SLOT_NAMES],
        "^take:a[0-9]+$": list(_fmt("take:a{}", range(d.ADV_SPACES))),
        "^take:d[0-9]+$": list(_fmt("take:d{}", range(2 * len(d.COLOURS)))),
        "^tile:[0-9]+$": list(_fmt("tile:{}", cells)),
        "^to:[0-9]+$": list(_fmt("to:{}", hexes)),
        "^use:[0-9]+$": list(_fmt("use:{}", dice)),
    }


def _solenia() -> dict[str, list[str]]:
    from referee.solenia import data as s
    from referee.solenia import geometry as g

    cards = range(s.DECK_SIZE)
    cells = range(g.CELLS)
    res = s.RESOURCES
    top = max(max(c) for c in s.TILE_COST) + 1
    return {
        "^card:[0-9]+$": list(_fmt("card:{}", cards)),
        "^cell:[0-9]+$": list(_fmt("cell:{}", cells)),
        "^discard:[0-9]+$": list(_fmt("discard:{}", cards)),
        "^drop:(stone|water|wheat|wood)$": [f"drop:{r}" for r in res],
        "^gain:(stone|water|wheat|wood)$": [f"gain:{r}" for r in res],
        "^pay:[0-9]+-[0-9]+-[0-9]+-[0-9]+$": list(_fmt("pay:{}-{}-{}-{}", *[range(top)] * 4)),
        "^ship:[12]$": ["ship:1", "ship:2"],
        "^slot:[A-Za-z0-9]+$": [f"slot:{n}" for n in s.WINTER_SLOT_NAMES],
        "^spend:(stone|water|wheat|wood)$": [f"spend:{r}" for r in res],
        "^tech1:[0-9]+$": [f"tech1:{t}" for t in s.TECH_LEVEL1],
        "^tech3:[0-9]+$": list(_fmt("tech3:{}", range(len(s.TECH_LEVEL3[0])))),
        "^tile:[0-9]+$": list(_fmt("tile:{}", range(max(s.REVEALED_TILES.values())))),
        "^vpcell:[0-9]+$": list(_fmt("vpcell:{}", cells)),
    }


def _solenia_payment_ids() -> list[str]:
    """Every ``pay:`` id Solenia's engine can offer, found by running the engine's own generator.

    Why derived: the first catalogue bounded each resource of a payment by the largest printed
    cost (0-3), but level-1 technology lets wood and wheat (or stone and water) stand in for
    each other, so a split can put a pair's whole cost on one resource (``pay:0-0-1-4``).
    The engine offers ``payments(TILE_COST[tile], res, *payment_rules(seat))``
    (referee/solenia/state.py). Resources only bound the splits: holding ``sum(cost)`` of each
    allows every split, fewer only removes some, and mid-turn a store may exceed its limit, so
    no smaller bound holds. ``payment_rules`` depends on the season, on which board slots hold a
    tile and on the level-1 technology tile: all of them are enumerated on a real state of
    every variant.
    """
    from referee import registry
    from referee.solenia import data as s
    from referee.solenia.payment import payments

    rules: set[tuple[tuple[int, ...], bool, bool]] = set()
    for variant in dict.fromkeys(v for _, v in registry.get_spec("solenia").configurations):
        st: Any = registry.new_game("solenia", 1, 0, variant)
        slots = [len(row) for row in st.rows[0]]
        for fill in range(1 << sum(slots)):
            bits = iter(range(sum(slots)))
            st.rows[0] = [[0 if fill >> next(bits) & 1 else -1 for _ in range(n)] for n in slots]
            for tech in (-1, *s.TECH_LEVEL1):
                st.tech1[0] = tech
                rules.add(st.payment_rules(0))
    found: set[tuple[int, ...]] = set()
    for cost in set(s.TILE_COST):
        holding = [sum(cost)] * len(cost)
        for waivers, swap_wood_wheat, swap_stone_water in rules:
            found.update(payments(cost, holding, waivers, swap_wood_wheat, swap_stone_water))
    return ["pay:" + "-".join(map(str, p)) for p in sorted(found)]


#: Per game, the ids added after its catalogue first shipped, appended after every pattern's
#: block in this order (see the module docstring). Solenia: the ``pay:`` ids whose amounts exceed
#: the first catalogue's 0-3 block (found by PettingZoo's api_test in winter-tech).
_APPENDED: dict[str, Any] = {"solenia": _solenia_payment_ids}


#: Orbital's station grows one module per build; no game reaches this many (rules: the card count
#: bounds it, but 24 modules is far beyond the longest 5-player game the tests ever saw, 14).
ORBITAL_STATION_SLOTS = 24
ORBITAL_MARKET = 5
ORBITAL_MAX_CREW = 12


def _orbital() -> dict[str, list[str]]:
    from referee.orbital import data as o

    slots = range(ORBITAL_STATION_SLOTS)
    cards = range(o.CARD_COUNT)
    stations = range(5)  # up to five actors (seats and bot players)
    return {
        "^act:[0-9]+$": list(_fmt("act:{}", slots)),
        "^build:[0-9]+:[0-9]+\\.[0-3]$": list(_fmt("build:{}:{}.{}", range(o.MODULE_COUNT), slots, range(4))),
        "^buy:[0-9]+$": list(_fmt("buy:{}", range(ORBITAL_MARKET))),
        "^crew:[0-9]+$": list(_fmt("crew:{}", range(1, ORBITAL_MAX_CREW + 1))),
        "^discard:[0-9]+$": list(_fmt("discard:{}", cards)),
        "^event:[0-9]+$": [f"event:{e}" for e in o.EVENT_IDS],
        "^income:(blue|green|orange|purple|red|yellow)$": [f"income:{c}" for c in o.COLOURS],
        "^keep:[0-9]+$": list(_fmt("keep:{}", cards)),
        "^pass$": ["pass"],
        "^pick:[0-9]+$": list(_fmt("pick:{}", range(ORBITAL_MARKET))),
        "^repair:[0-9]+$": list(_fmt("repair:{}", slots)),
        "^return:[0-9]+$": list(_fmt("return:{}", cards)),
        "^tgt:[0-9]+(:[0-9]+)?$": [*_fmt("tgt:{}", stations), *_fmt("tgt:{}:{}", stations, slots)],
        "^upgrade:(blue|green|orange|purple|red|yellow)$": [f"upgrade:{c}" for c in o.COLOURS],
    }


_BUILDERS = {"black_angel": _black_angel, "solenia": _solenia, "orbital": _orbital}
GAMES = tuple(_BUILDERS)


def schema_patterns(game: str) -> list[str]:
    """The ``x-option-ids`` patterns of ``game``'s observation schema, in schema order."""
    schema = json.loads((_REFEREE / game / "schema" / "observation.schema.json").read_text())
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "x-option-ids":
                    found.extend(p["pattern"] for p in value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


@cache
def catalogue(game: str) -> Catalogue:
    """The action catalogue of ``game``; ids in schema-pattern order, then enumeration order."""
    if game not in _BUILDERS:
        raise ConfigError(f"no environment for game {game[:80]!r}; games: {', '.join(GAMES)}")
    by_pattern = _BUILDERS[game]()
    patterns = schema_patterns(game)
    missing = set(patterns) ^ set(by_pattern)
    if missing:  # the schema and this module disagree: a new pattern needs its enumeration here
        raise RuntimeError(f"{game}: action catalogue and schema patterns differ: {sorted(missing)}")
    ids: dict[str, None] = {}
    for pattern in patterns:
        rx = re.compile(pattern)
        for oid in by_pattern[pattern]:
            if not rx.match(oid):
                raise RuntimeError(f"{game}: catalogue id {oid!r} does not match {pattern!r}")
            ids.setdefault(oid, None)
    if game in _APPENDED:
        rxs = [re.compile(p) for p in patterns]
        for oid in _APPENDED[game]():
            if not any(rx.match(oid) for rx in rxs):
                raise RuntimeError(f"{game}: appended catalogue id {oid!r} matches no schema pattern")
            ids.setdefault(oid, None)
    ordered = tuple(ids)
    return Catalogue(game, ordered, {oid: i for i, oid in enumerate(ordered)})
