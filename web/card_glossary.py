"""Every card and tile of the three games, named as the board names it, with its rules text.

Issue #37 item 3: a card or tile shows its rules text (from the glossary) on hover or tap, and
item 2: an option names the card it plays. Both read this module, and so does the /glossary
page, so the words on a button, its tooltip and the glossary are one text.

Why generated from the engines' data and not written out: none of the rulebooks lists the
cards' contents (``/work/shared/rules/README.md``, "Known gaps"); the engines' data files fill
that gap, each entry marked ``rulebook`` or ``designed``. Writing the texts by hand would let a
tooltip drift from what the engine does. Orbital's cards carry names (rulebook or designed);
Black Angel's and Solenia's do not, so their glossary names the *kind* of card as the rulebook
does ("active mission", "Ravager", "day supply tile") and :func:`card_text` adds what one card
shows (its colour, reward, effect).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import referee
from web.labels import ba_boost, ba_effect, ba_ejection, ba_ravager, readable

#: What the rulebook calls each kind of Black Angel card or tile, and what it does.
BLACK_ANGEL_KINDS: dict[str, str] = {
    "active mission": "A mission card from your hand, placed in space when you command a ship "
    "(at the hex the ship stops on): it pays its reward at once; later a die of its colour "
    "activates it (when it is yours or your ship is on it) for its active effect.",
    "neutral mission": "A mission card from your hand, placed in space when you command a ship: "
    "it pays its reward at once, and scores its ejection reward when the Black Angel ejects it "
    "from space.",
    "Ravager": "A Ravager card: played from your hand instead of a mission, it activates every "
    "tile of the row or column it is placed by; on the action board it strikes whoever uses "
    "its action with its effect, or −1 VP if they cannot.",
    "technology tile": "A tile of your ship grid (orange, gray or green), taken at technology "
    "discovery: a mission card of its colour placed at the end of its row or column activates "
    "it for its effect; its boost side (advanced rules) gives a one-time bonus instead; a ⚡ "
    "lightning space takes a debris, which gives the tile's effect.",
    "starting tile": "One of the three tiles each player starts with on the ship grid; it works "
    "like a technology tile.",
    "advanced tile": "An advanced technology tile (black): at the end of the game it scores 1 VP "
    "for each component it counts, up to its cap.",
}

#: Solenia's kinds of card and tile, as its rulebook names them.
SOLENIA_KINDS: dict[str, str] = {
    "spaceship card": "A spaceship card <0>, <1> or <2>: played on an empty cell on or next to "
    "the supply ship, or next to one of your cards, it gives its value in the region's resource "
    "(on a city: that many stars, then you may complete a supply tile); a <0> card moves the "
    "ship 1 cell. When its board is detached the card comes back and gives what is printed "
    "under it (recovery). With no open cell: discard a card to advance the ship, or discard "
    "resources to place it farther away.",
    "day supply tile": "A day supply tile of the market: when your card lands on a day city, "
    "pay its resources (mostly stone and water) to complete it; it scores its points and goes "
    "into your day row.",
    "night supply tile": "A night supply tile of the market: when your card lands on a night "
    "city, pay its resources (mostly wood and wheat) to complete it; it scores its points and "
    "goes into your night row.",
    "technology tile": "Winter side with technology (advanced rule 2): a level 1 tile changes a "
    "rule for you from the start; a level 3 set is two tiles, one for your day row and one for "
    "your night row, scored as printed.",
}

def _data(game: str, name: str) -> Any:
    """One of an engine's data files (the engines' own source of the cards)."""
    return json.loads((Path(referee.__file__).parent / game / "data" / name).read_text())


@cache
def _ba() -> dict[str, dict[int, dict[str, Any]]]:
    tiles = {t["id"]: t for t in _data("black_angel", "tech_tiles.json")["tiles"]}
    tiles.update({t["id"]: t for t in _data("black_angel", "starting_tiles.json")["tiles"]})
    return {
        "mission": {c["id"]: c for c in _data("black_angel", "missions.json")["cards"]},
        "ravager": {c["id"]: c for c in _data("black_angel", "ravagers.json")["cards"]},
        "tile": tiles,
        "starting": {t["id"]: t for t in _data("black_angel", "starting_tiles.json")["tiles"]},
        "advanced": {t["id"]: t for t in _data("black_angel", "advanced_tiles.json")["tiles"]},
    }


@cache
def _sol() -> dict[str, dict[int, dict[str, Any]]]:
    return {
        "supply": {t["id"]: t for t in _data("solenia", "supply_tiles.json")["tiles"]},
        "tech": {t["id"]: t for t in _data("solenia", "tech_tiles.json")["tiles"]},
        "spaceship": {c["id"]: c for c in _data("solenia", "spaceship_cards.json")["cards"]},
    }


_ORBITAL_EFFECTS: dict[str, str] = {
    "mc": "gain {n} MC",
    "mc_draw": "gain {n} MC and draw 1 card",
    "crew": "gain {n} crew",
    "draw": "draw {n} card(s)",
    "observe": "look at the top {n} cards of the deck and keep 1 (the observatory)",
    "repair": "remove {n} damage token(s) from a module of yours",
    "salvage": "take the top card of the discard pile",
    "build": "build a module for 2 MC less",
    "build_military": "build a module for 2 MC less (a purple one 3 MC less)",
    "attack_end": "put {n} damage token(s) on an end module of another station",
    "attack_any": "put {n} damage token(s) on any module (not the core) of another station",
}
_ORBITAL_PASSIVES: dict[str, str] = {
    "build_discount": "always on: your builds cost 1 MC less",
    "repair_discount": "always on: your repairs cost 1 MC less",
    "hand_limit": "always on: hand limit +1",
    "income": "always on: +1 MC of income at the end of each year",
    "shield": "always on: stops the first damage to your station each year",
}
_EXIT_WORDS = {"S": "straight on", "L": "left", "R": "right", "B": "back"}


def orbital_module_text(card: dict[str, Any]) -> str:
    """A module card's rules in one line, from ``modules.json`` (all designed, as it says)."""
    colour = str(card.get("colour", ""))
    kind = {"red": "basic structure", "green": "bio", "yellow": "luxury", "orange": "support",
            "blue": "science", "purple": "military"}.get(colour, colour)
    parts = [f"{colour.capitalize()} {kind} module"]
    exits = [_EXIT_WORDS.get(e, e) for e in str(card.get("exits") or "")]
    parts.append("exits: " + ", ".join(exits) if exits else "no exits (always an end module)")
    if card.get("population"):
        parts.append(f"population {card['population']}")
    action = card.get("action")
    if isinstance(action, dict):
        cost = [f"{action['crew']} crew"] if action.get("crew") else []
        cost += [f"{action['mc']} MC"] if action.get("mc") else []
        what = _ORBITAL_EFFECTS.get(str(action.get("effect")), readable(action.get("effect")))
        parts.append(f"action ({' and '.join(cost) or 'free'}, once a year): "
                     + what.format(n=action.get("amount", 1)))
    if card.get("passive"):
        parts.append(_ORBITAL_PASSIVES.get(str(card["passive"]), readable(card["passive"])))
    return "; ".join(parts) + "."


@cache
def orbital_cards() -> dict[str, str]:
    """Every Orbital card name (modules, events, cores) → its rules text."""
    out: dict[str, str] = {
        "Basic Core": "The core module every station starts with (basic structure, red): population 1, "
        "an exit on each side. An upgrade (4 MC) gives it an upgrade core's colour and ability.",
    }
    for card in _data("orbital", "modules.json")["cards"]:
        out[card["name"]] = orbital_module_text(card)
    for card in _data("orbital", "events.json")["cards"]:
        out[card["name"]] = f"Event card: {card['text']}"
    for card in _data("orbital", "cores.json")["cards"]:
        out[card["name"]] = f"Upgrade core ({card['colour']}): {card['text']}"
    return out


def _mission_text(card: dict[str, Any]) -> str:
    text = f"{card['colour'].capitalize()} {card['kind']} mission: reward {ba_effect(card['reward'])}"
    if card.get("effect"):
        text += f"; active effect {ba_effect(card['effect'])}"
    if card.get("ejection"):
        text += f"; when ejected {ba_ejection(card['ejection'])}"
    return text + "."


def _tile_text(tile: dict[str, Any]) -> str:
    effect = tile.get("standard", tile.get("effect"))
    text = f"{str(tile.get('colour', '')).capitalize()} tile: {ba_effect(effect)}"
    if tile.get("lightning"):
        text += "; ⚡ lightning space"
    if tile.get("boost"):
        text += f"; boost side (1x): {ba_boost(tile['boost'])}"
    return text + "."


def ba_mission_name(card: dict[str, Any]) -> str:
    """The glossary name of a mission card: its kind."""
    return f"{card.get('kind', 'active')} mission"


def ba_tile_name(tile_id: int) -> str:
    """The glossary name of a technology, starting or advanced tile, by its data id."""
    if tile_id in _ba()["advanced"]:
        return "advanced tile"
    if tile_id in _ba()["starting"]:
        return "starting tile"
    return "technology tile"


def card_text(game: str, kind: str, card_id: Any) -> str | None:
    """What one card or tile of Black Angel or Solenia shows, as a sentence (None: unknown id).

    ``kind`` is ``mission``, ``ravager``, ``tile`` (Black Angel), ``supply``, ``spaceship``,
    ``tech`` (Solenia)."""
    try:
        if game == "black_angel":
            if kind == "mission":
                return _mission_text(_ba()["mission"][int(card_id)])
            if kind == "ravager":
                rav = _ba()["ravager"][int(card_id)]
                return f"Ravager (action {rav['action']}): {ba_ravager(rav['effect'])}, or −1 VP."
            if kind == "tile":
                tid = int(card_id)
                if tid in _ba()["advanced"]:
                    adv = _ba()["advanced"][tid]
                    return f"Advanced tile: {adv.get('vp_each', 1)} VP per {readable(adv['counts'])} at the end."
                return _tile_text(_ba()["tile"][tid])
        if game == "solenia":
            if kind == "supply":
                tile = _sol()["supply"][int(card_id)]
                cost = ", ".join(f"{n} {r}" for r, n in tile["cost"].items() if n)
                return f"{tile['kind'].capitalize()} supply tile: costs {cost}; scores {tile['points']} VP."
            if kind == "tech":
                tile = _sol()["tech"][int(card_id)]
                return f"Level {tile['level']} technology tile: {tile['text']}."
    except (KeyError, ValueError, TypeError):
        return None
    return None


@cache
def game_cards(game: str) -> dict[str, str]:
    """Every card or tile name a game's options use → its glossary text."""
    if game == "orbital":
        return orbital_cards()
    if game == "black_angel":
        return dict(BLACK_ANGEL_KINDS)
    if game == "solenia":
        return dict(SOLENIA_KINDS)
    return {}


def card_rules(game: str, name: str) -> str | None:
    """The glossary text of a card or tile ``name`` of ``game`` (as the board names it), or None."""
    return game_cards(game).get(name)


def mission(mid: int) -> dict[str, Any] | None:
    """A Black Angel mission card's data by id, or None."""
    return _ba()["mission"].get(int(mid))


def ba_tile(tid: int) -> dict[str, Any] | None:
    """A Black Angel technology, starting or advanced tile's data by id, or None."""
    return _ba()["advanced"].get(int(tid)) or _ba()["tile"].get(int(tid))


def rules_of(game: str, card: Any) -> str:
    """The rules text of a card or tile *as a board view carries it* (the dict the template
    draws: an Orbital card, a Black Angel mission, tile or Ravager, a Solenia supply tile,
    technology tile or spaceship card), for its hover/tap text; "" for anything else.

    Why from the view's dict: a template has the card in hand, not its glossary name, and the
    shapes differ by game (the engines' ``views.py``)."""
    if isinstance(card, str):
        return SOLENIA_KINDS["spaceship card"] if game == "solenia" and card.startswith("<") else ""
    if not isinstance(card, dict):
        return ""
    if game == "orbital":
        return card_rules(game, str(card.get("name") or "")) or ""
    cid = card.get("id")
    if game == "black_angel" and isinstance(cid, int):
        if "reward" in card:
            kind = f"{card.get('kind', 'active')} mission"
            return f"{card_text(game, 'mission', cid)} ({kind}: {BLACK_ANGEL_KINDS[kind]})"
        if "effect_text" in card or ("action" in card and "effect" in card and "colour" not in card):
            return f"{card_text(game, 'ravager', cid)} ({BLACK_ANGEL_KINDS['Ravager']})"
        if "colour" in card:
            name = ba_tile_name(cid)
            text = card_text(game, "tile", cid)
            return f"{text} ({name}: {BLACK_ANGEL_KINDS[name]})" if text else ""
    if game == "solenia":
        if "points" in card and "cost" in card and isinstance(cid, int):
            return card_text(game, "supply", cid) or ""
        if "level" in card and isinstance(cid, int):
            return card_text(game, "tech", cid) or ""
        if str(card.get("text", "")).startswith("<"):
            return f"{card['text']}. {SOLENIA_KINDS['spaceship card']}"
    return ""
