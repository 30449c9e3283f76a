"""Player language for the values the board renderers print.

The engines' spectator views carry the rules' own data: phase names (``setup_reserve``), boost
codes (``plus1:command``), effect dicts (``{"vp": 2, "draw": "orange"}``). Those are the right
shape for bots and for the rule code, but a person reading a replay should see "setup: reserve a
die for free", "+1 when you command" and "2 VP · draw an orange mission". The tables below live
in the web layer on purpose: they change no rule and no engine output, and anything they do not
know (a new phase, a new effect key) still reads as words, never as an identifier, through
:func:`readable`.
"""

from __future__ import annotations

import re

from flask import Flask
from markupsafe import Markup, escape

#: What a game is doing while it waits in a phase, as a player would say it.
PHASES: dict[str, dict[str, str]] = {
    "black_angel": {
        "setup_reserve": "setup: 3rd/4th player reserves a die for free",
        "turn": "start of a turn: sequence A or B",
        "a_card": "sequence A, step 1: play a card",
        "a_slot": "sequence A, step 1: place the card",
        "a_tiles": "sequence A, step 1: activate technology tiles",
        "a_die": "sequence A, step 2: use a die",
        "a_use": "sequence A, step 2: use a die",
        "a_boost": "sequence A, step 2: boost the action",
        "rav_discard": "a Ravager's effect",
        "discover": "technology discovery",
        "insert": "technology discovery: insert the tile",
        "eject_slot": "technology discovery: place the ejected advanced tile",
        "repair": "repairing the Black Angel",
        "debris": "placing debris",
        "destroy": "destroying Ravagers",
        "cmd_ship": "commanding a ship",
        "cmd_move": "commanding a ship",
        "cmd_card": "commanding a ship: place a mission",
        "a_endflip": "sequence A, step 3: draw a card",
        "draw_keep": "sequence A, step 3: keep a card",
        "b_reserve": "sequence B: reserve a die",
        "hand_limit": "hand limit: discard a mission",
        "over": "game over",
    },
    "solenia": {
        "draft": "technology draft",
        "card": "play a spaceship card",
        "cell": "place the card",
        "spend": "pay for the distance",
        "ship": "move the supply ship",
        "tile": "complete a supply tile",
        "pay": "pay for the supply tile",
        "slot": "place the supply tile",
        "gain": "take a bonus resource",
        "drop": "store over its limit: throw a resource away",
        "vp_cell": "the virtual player places its card",
        "over": "game over",
    },
    "orbital": {
        "keep": "setup: return dealt cards (keep 5 of 8)",
        "main": "a turn: build, upgrade, buy, activate, play an event, repair or pass",
        "target": "choose the target",
        "crew_count": "High-Risk Project: how much crew to put in",
        "market_pick": "Insider Contact: take a market card",
        "observatory": "the observatory: keep one card",
        "build_via": "build with the command module's discount",
        "income": "end of the year: choose the income colour",
        "discard": "end of the year: discard down to the hand limit",
        "over": "game over",
    },
}

_ACTION_WORDS = {
    "discover": "technology discovery",
    "command": "command",
    "repair": "repair",
    "destroy": "destroying Ravagers",
    "mission": "a mission",
}


def readable(value: object) -> str:
    """Any identifier as words: ``lose_resource`` → "lose resource", ``a:b`` → "a b"."""
    return re.sub(r"\s+", " ", re.sub(r"[_:]+", " ", str(value))).strip()


def phase_name(game: str | None, phase: object) -> str:
    """A phase as the player would name it; unknown phases still read as words."""
    if phase in (None, ""):
        return "—"
    return PHASES.get(game or "", {}).get(str(phase)) or readable(phase)


def _plural(n: object, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _article(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def ba_effect(effect: object) -> str:
    """A Black Angel effect dict (tile, mission reward, activation) as one short line."""
    if not isinstance(effect, dict):
        return "—" if effect in (None, "") else readable(effect)
    parts = []
    for key, val in effect.items():
        if key == "vp":
            parts.append(f"{val} VP")
        elif key in ("resource", "robot", "ship"):
            parts.append("+" + _plural(val, key))
        elif key == "debris":
            parts.append(f"+{val} debris")
        elif key == "worker":
            parts.append(f"a robot to the {readable(val)} workstation")
        elif key == "draw":
            parts.append(f"draw {_article(readable(val))} mission")
        else:
            parts.append(f"{readable(key)} {readable(val)}")
    return " · ".join(parts) or "—"


RAVAGER_EFFECTS = {
    "lose_resource": "lose a resource",
    "lose_debris": "lose a debris",
    "lose_ship": "lose a stored ship",
    "lose_robot": "lose a break-room robot",
    "discard_mission": "discard a mission",
}


def ba_ravager(effect: object) -> str:
    """A Ravager card's effect, short enough for an action space."""
    return RAVAGER_EFFECTS.get(str(effect), readable(effect))


#: Identifiers that engine texts (event lines, option labels) sometimes carry verbatim.
TOKENS: dict[str, str] = {
    **RAVAGER_EFFECTS,
    "ejected_missions": "ejected missions",
    "winter_board": "winter board",
}


def ba_boost(code: object) -> str:
    """A boost side's one-time ('1x') effect."""
    text = str(code or "")
    if text.startswith("plus1:"):
        what = text.split(":", 1)[1]
        return f"+1 on {_ACTION_WORDS.get(what, readable(what))}"
    if text == "recolour":
        return "use a die as another colour"
    return readable(text)


def ba_counts(counts: object) -> str:
    """What an advanced tile scores: ``orange_tiles`` → "orange tiles"."""
    return readable(counts)


def ba_ejection(ejection: object) -> str:
    """A neutral mission's ejection reward, e.g. "2 VP per gray mission in space (max 8)"."""
    if not isinstance(ejection, dict):
        return ba_effect(ejection)
    per = ejection.get("per")
    each = ejection.get("vp_each")
    cap = ejection.get("max")
    things = {
        "colour_cards": f"{readable(ejection.get('colour', ''))} mission in space",
        "own_cards": "own mission in space",
        "own_ships": "own ship in space",
    }
    if per == "flat":
        text = f"{each} VP"
    elif per in things:
        text = f"{each} VP per {things[per]}"
    else:
        return ba_effect(ejection)
    if cap is not None and per != "flat":
        text += f" (max {cap})"
    return text


def ba_hal_card(card: object) -> str:
    """Hal's revealed card: each half's die colour and action, e.g. "top: orange, command"."""
    if not isinstance(card, dict):
        return readable(card)
    halves = []
    for half in ("top", "bottom"):
        h = card.get(half)
        if not isinstance(h, dict):
            continue
        action, _, how = str(h.get("action", "")).partition(":")
        words = _ACTION_WORDS.get(action, readable(action))
        if how:
            words += f" ({readable(how)})"
        colour = readable(h.get("colour", ""))
        halves.append(f"{half}: {colour}, {words}" if words else f"{half}: {colour}")
    return "; ".join(halves) or "—"


_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+[0-9]*:[a-z0-9_:-]*[a-z0-9]\b")


def _token(match: re.Match[str]) -> str:
    word = match.group(0)
    if word in TOKENS:
        return TOKENS[word]
    if word.startswith("plus1:"):
        return ba_boost(word)
    return readable(word)


_SEAT = re.compile(r"\b([Ss])eat (\d{1,2})\b")


def _player(match: re.Match[str]) -> str:
    return f"{'P' if match.group(1) == 'S' else 'p'}layer {int(match.group(2)) + 1}"


#: Orbital and Solenia write a player as "P2" (already counted from 1, as their rulebooks).
_SHORT_PLAYER = re.compile(r"\bP([1-9])\b(?!\.\d)")


def plain(text: object) -> str:
    """An engine text with any identifier in it turned into words, its seats numbered as the
    rulebooks number players.

    Engines should write player language, and mostly do; a line that still names a rule value
    (``the Ravager on action 3: lose_resource``, ``(repair:clockwise)``) is shown with that value
    in words ("lose a resource", "(repair clockwise)"). Prose never
    contains ``word_word`` or ``word:word`` without spaces, so nothing else changes. The engines
    and the protocol count seats from 0 ("seat 0 moves ship 2"), Orbital and Solenia write "P1";
    every page a person reads says "player 1" (issue #37: one numbering everywhere, as the
    rulebooks do)."""
    text = _SEAT.sub(_player, _IDENTIFIER.sub(_token, str(text)))
    return _SHORT_PLAYER.sub(r"player \1", text)


_BREAK_AFTER = re.compile(r"((?:[_\-./)]|&gt;)+)(?=.)")


def wrap_name(name: object) -> Markup:
    """A bot or owner name that wraps at its word boundaries on a narrow screen.

    Spaces already are boundaries; names are often ``snake_case`` or ``dotted.words`` with
    none, so a break opportunity (``<wbr>``) follows each ``_ - . / ) >``. Without it a long
    name either widens the table past a phone's screen or, with ``overflow-wrap: anywhere``,
    breaks mid-word. The name is escaped first."""
    return Markup(_BREAK_AFTER.sub(r"\1<wbr>", str(escape(str(name)))))


def register(app: Flask) -> None:
    """Make the helpers Jinja filters (``{{ t.boost | ba_boost }}``)."""
    app.jinja_env.filters["readable"] = readable
    app.jinja_env.filters["plain"] = plain
    app.jinja_env.filters["wrap_name"] = wrap_name
    app.jinja_env.filters["ba_effect"] = ba_effect
    app.jinja_env.filters["ba_boost"] = ba_boost
    app.jinja_env.filters["ba_ravager"] = ba_ravager
    app.jinja_env.filters["ba_counts"] = ba_counts
    app.jinja_env.filters["ba_ejection"] = ba_ejection
    app.jinja_env.filters["ba_hal_card"] = ba_hal_card
    app.jinja_env.globals["phase_name"] = phase_name
