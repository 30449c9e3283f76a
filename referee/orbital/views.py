"""What each seat sees, and the spectator's full view for replays.

A seat sees its own hand, every station (modules, colours, damage, crew), the market, the
upgrade cores left, every player's MC, VP and unused crew, and only the *sizes* of other hands
(with ``known_hands``: the cards everyone saw go into each hand — a market buy, Insider
Contact's pick, a face-up card the Robot Arm took — while they surely are still there),
of the bot players' hand stacks and of the deck. The discard pile shows the cards that were
face up when discarded (a played event, a bot player's revealed card, a removed module, the old
market); discards over the hand limit, the observatory's rest and Quiet Year's are secret. The ``raw`` block repeats the public
state as plain numbers so a bot can rebuild a playable state
(:func:`referee.orbital.observed.state_from_observation`). The spectator view adds every hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.orbital import rules
from referee.orbital import station as geo
from referee.orbital.data import COLOURS, CORE_NAME, CORE_TEXT, RULES, card_json

if TYPE_CHECKING:
    from referee.orbital.state import OrbitalState

RAW_SCALARS = ("players", "variant", "nbots", "year", "first", "cur", "passes", "phase", "pend",
               "pend_src", "damage_dealt")
RAW_FLAT = ("mc", "vp", "crew", "core", "shield", "events_played", "attacks", "built", "market",
            "upgrades", "queue", "opp_vp")


def station_json(st: OrbitalState, a: int) -> dict[str, Any]:
    mods = st.mods[a]
    out = []
    for i, m in enumerate(mods):
        core = m[0] == geo.CORE
        out.append({
            "index": i,
            "card": ({"kind": "core", "name": CORE_NAME[st.core[a]], "colour": COLOURS[st.core[a]],
                      "text": CORE_TEXT[st.core[a]]} if core else card_json(m[0])),
            "x": m[geo.X], "y": m[geo.Y], "heading": "NESW"[m[geo.H]], "parent": m[geo.P],
            "colour": COLOURS[st.core[a]] if core else card_json(m[0])["colour"],
            "damage": m[geo.D], "crew": m[geo.W], "used": bool(m[geo.U]),
            "end": (not core) and geo.is_end(mods, i),
            "exits": ["NESW"[d] for d in geo.exits(m)],
        })
    counts = rules.colour_counts(st, a)
    return {
        "actor": a,
        "name": rules.name(st, a),
        "bot": a >= st.players,
        "core_colour": COLOURS[st.core[a]],
        "modules": out,
        "colour_counts": dict(zip(COLOURS, counts, strict=True)),
        "population": geo.population(mods, st.core[a]),
        "mc": st.mc[a], "vp": st.vp[a], "unused_crew": st.crew[a],
        "hand_size": len(st.hands[a]),
        "hand_limit": rules.hand_limit(st, a),
    }


def discard_layout(st: OrbitalState) -> list[int]:
    """The discard pile bottom to top: a face-up card's id, -1 for a secret discard."""
    shown = set(st.dpub)
    return [c if c in shown else -1 for c in st.discard]


def discard_json(st: OrbitalState) -> list[dict[str, Any] | None]:
    """The discard pile bottom to top as players see it: the cards shown when discarded (played
    events, bot players' revealed cards, removed modules, the old market), ``null`` for a secret one."""
    return [card_json(c) if c >= 0 else None for c in discard_layout(st)]


def public_view(st: OrbitalState) -> dict[str, Any]:
    from referee.orbital.state import PHASE_NAMES

    view: dict[str, Any] = {
        "game": "orbital",
        "variant": st.variant,
        "players": st.players,
        "bot_players": st.nbots,
        "year": st.year,
        "years": RULES["years"],
        "first_player": st.first,
        "to_move": st.to_move(),
        "actor_to_move": st.cur,
        "phase": PHASE_NAMES[st.phase],
        "prompt": st.decision_prompt(),
        "pending_effect": st.pend or None,
        "stations": [station_json(st, a) for a in range(st.actors)],
        "market": [{"cost": i + 1, "card": card_json(c)} for i, c in enumerate(st.market)],
        "upgrade_cores": [COLOURS[c] for c in st.upgrades],
        "deck_size": len(st.deck),
        "discard_size": len(st.discard),
        "discard": discard_json(st),
        "hand_sizes": [len(h) for h in st.hands],
        "known_hands": [[card_json(c) for c in k] for k in st.known],
        "maybe_hands": [[card_json(c) for c in k] for k in st.maybe],
        "maybe_gone": list(st.gone),
        "peek_size": len(st.peek),
        "mc": list(st.mc), "vp": list(st.vp), "crew": list(st.crew),
    }
    if st.peaceful:
        view["opponent_tracks"] = [dict(zip(COLOURS, t, strict=True)) for t in st.track]
        view["opponent_vp"] = list(st.opp_vp)
    view["raw"] = raw_block(st)
    return view


def raw_block(st: OrbitalState) -> dict[str, Any]:
    """The public state in engine encoding (an observation's ``raw``)."""
    raw: dict[str, Any] = {k: getattr(st, k) for k in RAW_SCALARS}
    for k in RAW_FLAT:
        raw[k] = list(getattr(st, k))
    raw["track"] = [list(t) for t in st.track]
    raw["mods"] = [[list(m) for m in s] for s in st.mods]
    raw["hand_sizes"] = [len(h) for h in st.hands]
    raw["known_hands"] = [list(k) for k in st.known]
    raw["maybe_hands"] = [list(k) for k in st.maybe]
    raw["maybe_gone"] = list(st.gone)
    raw["deck_size"] = len(st.deck)
    raw["discard_size"] = len(st.discard)
    raw["discard"] = discard_layout(st)
    raw["peek_size"] = len(st.peek)
    return raw


def _hand_and_peek(st: OrbitalState, seat: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    from referee.orbital.state import P_OBS

    peek = [card_json(c) for c in st.peek] if st.phase == P_OBS and st.cur == seat else []
    return [card_json(c) for c in st.hands[seat]], peek


def observation(st: OrbitalState, seat: int) -> dict[str, Any]:
    view = public_view(st)
    view["seat"] = seat
    view["hand"], view["peek"] = _hand_and_peek(st, seat)
    return view


def compact(st: OrbitalState, seat: int) -> dict[str, Any]:
    """The keys of ``observation(st, seat)`` that determine the rest (``from_observation`` reads
    only these), equal to the observation's, at a fraction of its cost (arena/envs/encoding.py)."""
    hand, peek = _hand_and_peek(st, seat)
    return {"seat": seat, "raw": raw_block(st), "hand": hand, "peek": peek}


def spectator_view(st: OrbitalState) -> dict[str, Any]:
    view = public_view(st)
    view["hands"] = [[card_json(c) for c in h] for h in st.hands]
    view["peek"] = [card_json(c) for c in st.peek]
    return view
