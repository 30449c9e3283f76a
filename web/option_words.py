"""An option's words as the board draws them (issue #37 item 2), with its card's rules (item 3).

The engines label their options for bots and logs ("build Crew Quarters on module 0 side N for
6 MC", "play mission 31 (gray)", "day city at (0, 4)"): module indices, card ids and coordinates
the board never shows. A person choosing from the option list must read the same things the
board draws: the module's name and where it is ("north of Core"), the card as it looks ("the gray
active mission (2 VP · +1 robot)"), the cell as the board labels it. This module rewrites each
label from the option id, the engine's label and the seat's observation (the same dict the board
template draws), in the web layer: no engine output, record or bot sees a change.

Each option becomes an :class:`OptionWords`: ``words`` (the button's text), ``card`` (the
glossary name of the card or tile it names, if any) and ``rules`` (that card's rules text from
the glossary, for a ``title``/``data-rules`` attribute: hover or long-press shows it). Words are
unique within a decision: options that would read the same (two copies of one card) get "1st of
2", "2nd of 2" in the order the board draws them.

How places are named, so the board can label them the same way:

* Orbital: a module by its card name; when a station has two modules of that name, by where it
  is from a neighbour with a unique name ("Corridor (east of Hub)"), else counted in cells from
  the core ("Corridor (2 east, 1 south of Core)"); a side as north/east/south/west (north up, as the
  station grid is drawn). A station by its player ("player 2") or bot name ("Bot A").
* Black Angel: a ship-grid cell as "row R, column C" (1-3, top to bottom, left to right: the
  rows and columns the arrows' labels already number); a card slot as "the end of row R" /
  "the end of column C"; a space hex by its label in the view ("strip 2 hex 4").
* Solenia: a map cell as "column C, row R" (1-based, the board's columns left to right).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flask import Flask

from web import card_glossary as cards
from web.labels import ba_effect, plain, readable

#: A button's words stay within this many characters (about three lines on a 390 px phone);
#: a longer engine text keeps its whole wording in ``rules``.
MAX_WORDS = 100


@dataclass(frozen=True)
class OptionWords:
    """One option as the person reads it."""

    id: str
    words: str
    #: the glossary name of the card or tile the option names (None: it names none)
    card: str | None = None
    #: that card's rules text (glossary text, plus what this one card shows); "" when none
    rules: str = ""


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _rules(game: str, card: str | None, detail: str | None = None) -> str:
    base = cards.card_rules(game, card) if card else None
    if detail and base and detail not in base:
        return f"{detail} ({card}: {base})" if len(base) < 200 else f"{detail} {base}"
    return detail or base or ""


# --- Orbital ----------------------------------------------------------------------------------

_SIDES = {"N": "north", "E": "east", "S": "south", "W": "west"}
_STEP_SIDE = {(0, -1): "north", (1, 0): "east", (0, 1): "south", (-1, 0): "west"}


def _station(obs: dict[str, Any], actor: Any) -> dict[str, Any] | None:
    for i, st in enumerate(obs.get("stations") or []):
        if isinstance(st, dict) and (st.get("actor") if isinstance(st.get("actor"), int) else i) == actor:
            return st
    return None


def _module_name(m: dict[str, Any]) -> str:
    """The name the board prints on a module tile (web/orbital_board.py's Tile.name)."""
    card = m.get("card") if isinstance(m.get("card"), dict) else {}
    return str(card.get("name") or ("Core" if m.get("index") == 0 else "module"))


def module_words(station: dict[str, Any] | None, index: int) -> str:
    """A module as a person finds it on the station drawing: its name, and where it is when the
    name alone is not enough: next to a module whose name is unique ("Corridor (east of Hub)"),
    else counted in modules from the core ("Corridor (2 east, 1 south of Core)")."""
    mods = {m.get("index", i): m for i, m in enumerate((station or {}).get("modules") or [])
            if isinstance(m, dict)}
    m = mods.get(index)
    if m is None:
        return "a module"
    name = _module_name(m)
    names = Counter(_module_name(x) for x in mods.values())
    if names[name] == 1 or not all(isinstance(m.get(k), int) for k in ("x", "y")):
        return name
    at = {(x.get("x"), x.get("y")): x for x in mods.values()}
    parent = mods.get(m.get("parent"))
    around = ([parent] if parent is not None else []) + [
        at.get((m["x"] - dx, m["y"] - dy)) for dx, dy in _STEP_SIDE]
    for n in around:
        if n is not None and names[_module_name(n)] == 1 and isinstance(n.get("x"), int):
            side = _STEP_SIDE.get((m["x"] - n["x"], m["y"] - n["y"]))
            if side:
                return f"{name} ({side} of {_module_name(n)})"
    core = mods.get(0) or {}
    dx, dy = m["x"] - int(core.get("x") or 0), m["y"] - int(core.get("y") or 0)
    steps = [f"{abs(dx)} {'east' if dx > 0 else 'west'}" if dx else "",
             f"{abs(dy)} {'south' if dy > 0 else 'north'}" if dy else ""]
    return f"{name} ({', '.join(s for s in steps if s)} of {_module_name(core) if core else 'Core'})"


def _station_name(st: dict[str, Any] | None, fallback: str) -> str:
    name = str((st or {}).get("name") or fallback)
    return re.sub(r"^P(\d+)$", r"player \1", name)


def _orbital(obs: dict[str, Any], oid: str, label: str) -> OptionWords:
    own = _station(obs, obs.get("actor_to_move", obs.get("to_move")))
    kind, _, rest = oid.partition(":")
    if kind == "build" and (m := re.match(r"build (.+) on module \d+ side ([NESW]) for (\d+) MC$", label)):
        card, side, cost = m.groups()
        parent = int(rest.split(":")[1].split(".")[0])
        where = f" {_SIDES[side]} of {module_words(own, parent)}" if own else ""
        return OptionWords(oid, f"build {card}{where} for {cost} MC", card, _rules("orbital", card))
    if kind in ("act", "repair") and rest.isdigit() and own:
        mod = next((x for x in (own or {}).get("modules") or [] if x.get("index") == int(rest)), None)
        name = _module_name(mod) if mod else None
        cost = re.search(r"\(\d+ MC\)$", label)
        verb = "activate" if kind == "act" else "repair"
        words = f"{verb} {module_words(own, int(rest))}" + (f" {cost.group(0)}" if cost else "")
        return OptionWords(oid, words, name, _rules("orbital", name))
    if kind == "tgt":
        parts = rest.split(":")
        st = _station(obs, int(parts[0])) if parts[0].isdigit() else None
        if st is None:  # no view (a log line): the engine's words, its players numbered 1..N
            return OptionWords(oid, plain(re.sub(r"\bP(\d+)\b", r"player \1", label)))
        who = _station_name(st, "another station")
        if len(parts) == 1:
            return OptionWords(oid, f"target {who}")
        mod = next((x for x in (st or {}).get("modules") or [] if x.get("index") == int(parts[1])), None)
        name = _module_name(mod) if mod else None
        where = module_words(st, int(parts[1]))
        if label.startswith("repair "):
            return OptionWords(oid, f"repair {where}", name, _rules("orbital", name))
        return OptionWords(oid, f"target {who}'s {where}", name, _rules("orbital", name))
    if kind == "upgrade" and (m := re.search(r"the (\w+ Core)", label)):
        return OptionWords(oid, plain(label), m.group(1), _rules("orbital", m.group(1)))
    if (m := re.match(r"(buy|play|return|discard|keep|take|activate|repair) (.+?)( for \d+ MC| \(\d+ MC\))?$", label)) and m.group(2) in cards.orbital_cards():
        return OptionWords(oid, plain(label), m.group(2), _rules("orbital", m.group(2)))
    return OptionWords(oid, plain(label))


# --- Black Angel --------------------------------------------------------------------------------

_ROW_WORDS = ("top", "middle", "bottom")
_COL_WORDS = ("left", "middle", "right")


def grid_cell(cell: int) -> str:
    """A cell of the 3×3 ship grid (0-8, row by row) as "row R, column C"."""
    return f"row {cell // 3 + 1}, column {cell % 3 + 1}"


def _mission_words(mid: int) -> tuple[str, str, str]:
    """(words, glossary name, rules) of a mission card as its face shows it."""
    card = cards.mission(mid)
    if card is None:
        return "a mission", "active mission", ""
    name = cards.ba_mission_name(card)
    words = f"the {card['colour']} {name} ({ba_effect(card['reward'])})"
    return words, name, _rules("black_angel", name, cards.card_text("black_angel", "mission", mid))


def _tile_words(tid: int) -> tuple[str, str, str]:
    tile = cards.ba_tile(tid)
    name = cards.ba_tile_name(tid)
    if tile is None:
        return "a tile", name, ""
    if name == "advanced tile":
        words = f"the advanced tile scoring {readable(tile.get('counts'))}"
    else:
        words = f"the {tile.get('colour')} tile “{ba_effect(tile.get('standard'))}”"
    return words, name, _rules("black_angel", name, cards.card_text("black_angel", "tile", tid))


def _ba_grid_tile(obs: dict[str, Any], cell: int) -> int | None:
    seat = obs.get("to_move")
    for i, p in enumerate(obs.get("seats") or []):
        if isinstance(p, dict) and (p.get("seat") if isinstance(p.get("seat"), int) else i) == seat:
            grid = p.get("grid") or []
            t = grid[cell] if 0 <= cell < len(grid) else None
            return t.get("id") if isinstance(t, dict) else None
    return None


def _black_angel(obs: dict[str, Any], oid: str, label: str) -> OptionWords:
    if (m := re.match(r"(1x: [^;]+; )(.+)$", label)) and (inner := re.match(r"rc\d(.+)$", oid)):
        # the advanced rules' recolour boost: "1x: the die counts as gray; <the option>"
        o = _black_angel(obs, inner.group(1), m.group(2))
        return OptionWords(oid, m.group(1) + o.words, o.card, o.rules)
    if m := re.match(r"(play|discard) mission (\d+) \(\w+\)$", label):
        words, name, rules = _mission_words(int(m.group(2)))
        return OptionWords(oid, f"{m.group(1)} {words}", name, rules)
    if m := re.match(r"keep mission (\d+), discard (\d+)$", label):
        keep, name, rules = _mission_words(int(m.group(1)))
        drop, _, _ = _mission_words(int(m.group(2)))
        return OptionWords(oid, f"keep {keep}", name, f"Discards {drop}. {rules}")
    if m := re.match(r"place mission (\d+) \(", label):
        words, name, rules = _mission_words(int(m.group(1)))
        return OptionWords(oid, f"place {words} here", name, rules)
    if m := re.match(r"activate mission (\d+) at (.+)$", label):
        words, name, rules = _mission_words(int(m.group(1)))
        return OptionWords(oid, f"activate {words} at {m.group(2)}", name, rules)
    if m := re.match(r"take (?:\w+ |advanced )tile (\d+) \(.*cost (\d+)\)$", label):
        words, name, rules = _tile_words(int(m.group(1)))
        return OptionWords(oid, f"take {words} (cost {m.group(2)})", name, rules)
    if m := re.match(r"activate tile (\d+) at cell (\d)$", label):
        words, name, rules = _tile_words(int(m.group(1)))
        return OptionWords(oid, f"activate {words} ({grid_cell(int(m.group(2)))})", name, rules)
    if m := re.match(r"put it on the lightning of tile (\d+)", label):
        words, name, rules = _tile_words(int(m.group(1)))
        cell = oid.partition(":")[2]
        where = f" ({grid_cell(int(cell))})" if cell.isdigit() else ""
        return OptionWords(oid, f"put it on the ⚡ of {words}{where}", name, rules)
    if m := re.match(r"(flip boost tile|1x: flip the tile) at cell (\d)(.*)$", label):
        cell = int(m.group(2))
        tid = _ba_grid_tile(obs, cell)
        name, rules = (None, "") if tid is None else _tile_words(tid)[1:]
        return OptionWords(oid, f"{m.group(1).replace(' boost tile', ' the boost tile')} in {grid_cell(cell)}{m.group(3)}",
                           name, rules)
    if m := re.match(r"place it at ([RC])(\d)$", label):
        n = int(m.group(2))
        words = (f"the end of row {n} ({_ROW_WORDS[n - 1]})" if m.group(1) == "R"
                 else f"the end of column {n} ({_COL_WORDS[n - 1]})") if 1 <= n <= 3 else m.group(0)
        return OptionWords(oid, f"place it at {words}")
    if label.startswith("play a Ravager card"):
        return OptionWords(oid, plain(label), "Ravager", _rules("black_angel", "Ravager"))
    return OptionWords(oid, plain(label))


# --- Solenia ------------------------------------------------------------------------------------

_COORDS = re.compile(r"\bat \((\d+), (\d+)\)")


def map_cell(col: int, row: int) -> str:
    """A cell of Solenia's map as "column C, row R" (1-based)."""
    return f"column {col + 1}, row {row + 1}"


def _solenia(obs: dict[str, Any], oid: str, label: str) -> OptionWords:
    if m := re.match(r"(day|night) tile #(\d+) \((.+); (\d+) pts\)$", label):
        kind, tid, cost, pts = m.groups()
        name = f"{kind} supply tile"
        return OptionWords(oid, f"{kind} supply tile: {pts} VP for {cost}", name,
                           _rules("solenia", name, cards.card_text("solenia", "supply", tid)))
    if _COORDS.search(label):
        words = _COORDS.sub(lambda m: "in " + map_cell(int(m.group(1)), int(m.group(2))), label)
        return OptionWords(oid, plain(words))
    if re.match(r"(play|discard) <\d> card", label):
        words = plain(label).replace("(recovery: ", "(").replace(" and advance the ship", " to advance the ship")
        return OptionWords(oid, words, "spaceship card", _rules("solenia", "spaceship card"))
    if oid.startswith("tech3:") and oid[6:].isdigit():
        full = plain(label)
        words = f"take the {_ordinal(int(oid[6:]) + 1)} level 3 set of the draft"
        return OptionWords(oid, words, "technology tile", _rules("solenia", "technology tile", full))
    if m := re.match(r"level (\d): (.+)$", label):
        return OptionWords(oid, plain(label), "technology tile", _rules("solenia", "technology tile", plain(label)))
    return OptionWords(oid, plain(label))


# --- all games ----------------------------------------------------------------------------------

_GAMES = {"orbital": _orbital, "black_angel": _black_angel, "solenia": _solenia}


def _shorten(o: OptionWords) -> OptionWords:
    """Words over :data:`MAX_WORDS`: drop the last parenthesis (kept in ``rules``), then cut."""
    if len(o.words) <= MAX_WORDS:
        return o
    rules = o.rules if o.words in o.rules else (f"{o.words}. {o.rules}" if o.rules else o.words)
    words = re.sub(r"\s*\([^()]*\)$", "", o.words)
    if len(words) > MAX_WORDS:
        words = words[: MAX_WORDS - 1].rsplit(" ", 1)[0] + "…"
    return OptionWords(o.id, words, o.card, rules)


def option_words(game: str, observation: dict[str, Any] | None,
                 options: Iterable[Any]) -> list[OptionWords]:
    """Every option of a decision in the board's words, unique, short enough for a button.

    ``options`` are engine :class:`~referee.engine.Option` objects or ``(id, label)`` pairs
    (what :class:`arena.play.human.SeatView` holds); ``observation`` is the seat's own view,
    which the board draws. An option this module does not know still reads as
    :func:`web.labels.plain` words."""
    pairs: list[tuple[str, str]] = [
        (o.id, o.label) if hasattr(o, "id") else (str(o[0]), str(o[1])) for o in options]
    make = _GAMES.get(game)
    obs = observation if isinstance(observation, dict) else {}
    out = []
    for oid, label in pairs:
        try:
            o = make(obs, oid, label) if make else OptionWords(oid, plain(label))
        except (KeyError, ValueError, IndexError, TypeError, AttributeError):
            o = OptionWords(oid, plain(label))  # a view this code does not know: the plain words
        out.append(_shorten(o))
    return _unique(out)


#: Options whose words need the seat's view to name a place (a module's neighbours, a grid
#: tile): a replay builds that view only for these.
_NEEDS_VIEW = {"orbital": ("build:", "act:", "repair:", "tgt:"), "black_angel": ("flip:", "boost:", "rc")}


def needs_view(game: str, option_id: str) -> bool:
    """Whether :func:`choice_words` reads the seat's view for this option (else None will do)."""
    return option_id.startswith(_NEEDS_VIEW.get(game, ()))


def choice_words(game: str, option_id: str, label: str, view: dict[str, Any] | None = None) -> str:
    """One chosen option in the board's words, for a move log or a replay: with the view the
    choice was made in, as :func:`option_words` reads it; without one (a log line), the card
    names and players still read as on the board, and a place the words cannot find is left
    out rather than given as a number ("build Airlock for 6 MC")."""
    return option_words(game, view, [(option_id, label)])[0].words


def _unique(words: Sequence[OptionWords]) -> list[OptionWords]:
    counts = Counter(o.words for o in words)
    seen: Counter[str] = Counter()
    out = []
    for o in words:
        if counts[o.words] > 1:
            seen[o.words] += 1
            o = OptionWords(o.id, f"{o.words} ({_ordinal(seen[o.words])} of {counts[o.words]})", o.card, o.rules)
        out.append(o)
    return out


def register(app: Flask) -> None:
    """Templates may call ``option_words(game, view, options)``, ``card_rules(game, name)`` and
    ``rules_of(game, card)`` (a card dict of the board view → its hover/tap text)."""
    app.jinja_env.globals["option_words"] = option_words
    app.jinja_env.globals["card_rules"] = cards.card_rules
    app.jinja_env.globals["rules_of"] = cards.rules_of
