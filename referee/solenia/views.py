"""What each seat sees, and the spectator's full view for replays.

A seat sees its own hand, every board, tile and resource, and only counts of other hands and
decks. The ``raw`` block repeats the public state as plain numbers so a bot can rebuild a
playable state (``observed.state_from_observation``); the spectator view adds every hand and
deck order so a replay viewer can draw everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.solenia.data import (
    BOARD_COUNT,
    BOARD_SIDES,
    CARD_VALUE,
    CELL_NAMES,
    DAY,
    KIND_NAMES,
    NIGHT,
    RESOURCES,
    ROWS,
    SIDE_NAMES,
    TECH_EFFECT,
    TECH_LEVEL1,
    TECH_TEXT,
    TILE_COST,
    TILE_KIND,
    TILE_POINTS,
    card_text,
)
from referee.solenia.fields import EMPTY, FLAT_LISTS, P_CELL, P_DRAFT, PHASE_NAMES, SCALARS, VP
from referee.solenia.geometry import col_row, ship_pos
from referee.solenia.scoring import score_breakdown

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def public_view(st: SoleniaState) -> dict[str, Any]:
    columns = []
    for col in range(BOARD_COUNT):
        b, side = st.board_at[col], st.side_at[col]
        cells = []
        for row in range(len(BOARD_SIDES[b][side])):
            p = col * len(BOARD_SIDES[b][side]) + row
            o = st.owner[p]
            cells.append({
                "pos": p,
                "col": col,
                "row": row,
                "type": CELL_NAMES[st.ctype[p]],
                "owner": None if o == EMPTY else ("virtual" if o == VP else o),
                "card": None if o == EMPTY else {"id": st.card[p], "text": card_text(st.card[p])},
            })
        columns.append({"board": b, "side": SIDE_NAMES[b][side], "cells": cells})
    players = []
    for s in range(st.players):
        players.append({
            "seat": s,
            "resources": dict(zip(RESOURCES, st.res[s], strict=True)),
            "resource_limit": st.limit(s),
            "stars": st.stars[s],
            "day_row": [None if t < 0 else tile_json(t) for t in st.rows[s][DAY]],
            "night_row": [None if t < 0 else tile_json(t) for t in st.rows[s][NIGHT]],
            "hand_count": len(st.hand[s]) + (1 if st.phase == P_CELL and st.cur == s else 0),
            "deck_count": len(st.deck[s]),
            "cards_used": st.used[s],
            "out_of_game": [{"id": c, "text": card_text(c)} for c in st.out_cards[s]],
            "tech_level1": None if st.tech1[s] < 0 else tech_json(st.tech1[s]),
            "tech_level3": [None if t < 0 else tech_json(t) for t in st.tech3[s]],
            "tech_points": list(st.tech_pts[s]),
            "score_now": score_breakdown(st, s),
        })
    view: dict[str, Any] = {
        "game": "solenia",
        "variant": st.variant,
        "players": st.players,
        "phase": PHASE_NAMES[st.phase],
        "to_move": st.to_move(),
        "actor": "virtual" if st.cur == VP else st.cur,
        "prompt": st.decision_prompt(),
        "geometry": {
            "columns": BOARD_COUNT,
            "rows": ROWS,
            "hex": "pointy-top, odd rows shifted half a cell right; one column per board",
            "neighbour_numbers": "1 east (the ship's direction), then clockwise",
        },
        "ship": {"pos": ship_pos(st.ship_col), "col": st.ship_col, "row": col_row(ship_pos(st.ship_col))[1]},
        "boards": columns,
        "market": {KIND_NAMES[k]: [None if t < 0 else tile_json(t) for t in st.market[k]] for k in (DAY, NIGHT)},
        "tile_deck_counts": {KIND_NAMES[k]: len(st.tile_deck[k]) for k in (DAY, NIGHT)},
        "players_info": players,
        "pending": {
            "cell": st.sel_cell if st.sel_cell >= 0 else None,
            "card": None if st.phase in (P_CELL,) or st.sel_card < 0 else card_text(st.sel_card),
            "distance_left": st.pay_left,
            "tile": None if st.pend_tile < 0 else tile_json(st.pend_tile),
            "city": None if st.pend_kind < 0 else KIND_NAMES[st.pend_kind],
            "bonus_left": st.bonus_left,
            "must_drop": list(st.excess),
            "virtual_cells": list(st.vp_options),
        },
    }
    view["raw"] = raw_public(st)
    if st.solo:
        view["virtual_player"] = {
            "deck_count": len(st.vp_deck),
            "cards_used": st.vp_used,
            "last_die": st.vp_die,
            "tiles": [tile_json(t) for t in st.vp_tiles],
        }
    if st.phase == P_DRAFT:
        view["draft"] = {
            "level1": [tech_json(t) for t in st.offer1],
            "level3_sets": [[tech_json(d), tech_json(n)] for d, n in st.offer3],
            "order": list(st.draft_queue),
        }
    return view

def raw_public(st: SoleniaState) -> dict[str, Any]:
    """The public part of the state as plain numbers, so a bot can rebuild a state from it."""
    src = st.__dict__
    raw: dict[str, Any] = {k: src[k] for k in SCALARS if k not in ("sel_card", "seed")}
    for k in FLAT_LISTS:
        if k != "vp_deck":
            raw[k] = list(src[k])
    for k in ("market", "res", "out_cards", "tech3", "tech_pts", "offer3"):
        raw[k] = [list(x) for x in src[k]]
    raw["rows"] = [[list(r[0]), list(r[1])] for r in st.rows]
    raw["hand_sizes"] = [len(h) for h in st.hand]
    raw["deck_sizes"] = [len(d) for d in st.deck]
    raw["tile_deck_sizes"] = [len(d) for d in st.tile_deck]
    raw["vp_deck_size"] = len(st.vp_deck)
    return raw

def observation(st: SoleniaState, seat: int) -> dict[str, Any]:
    view = public_view(st)
    view["seat"] = seat
    view["hand"] = _hand(st, seat)
    if st.phase == P_CELL and st.cur == seat:
        view["pending"]["card"] = card_text(st.sel_card)
        view["pending"]["card_id"] = st.sel_card
    view["raw"]["sel_card"] = _sel_card(st, seat)
    return view


def _hand(st: SoleniaState, seat: int) -> list[dict[str, Any]]:
    return [{"id": c, "value": CARD_VALUE[c], "text": card_text(c)} for c in st.hand[seat]]


def _sel_card(st: SoleniaState, seat: int) -> int:
    """The card being played, as ``seat`` may know it (a card played face down is -1)."""
    return st.sel_card if st.phase != P_CELL or st.cur == seat else -1


def compact(st: SoleniaState, seat: int) -> dict[str, Any]:
    """The keys of ``observation(st, seat)`` that determine the rest (``from_observation`` reads
    only these), equal to the observation's, at a fraction of its cost (arena/envs/encoding.py)."""
    raw = raw_public(st)
    raw["sel_card"] = _sel_card(st, seat)
    return {"seat": seat, "raw": raw, "hand": _hand(st, seat)}

def spectator_view(st: SoleniaState) -> dict[str, Any]:
    view = public_view(st)
    view["hands"] = [[card_text(c) for c in h] for h in st.hand]
    view["decks"] = [[card_text(c) for c in d] for d in st.deck]
    view["tile_decks"] = {KIND_NAMES[k]: [tile_json(t) for t in st.tile_deck[k]] for k in (DAY, NIGHT)}
    if st.sel_card >= 0:
        view["pending"]["card"] = card_text(st.sel_card)
    if st.solo:
        view["virtual_player"]["deck"] = [card_text(c) for c in st.vp_deck]
    return view


def tile_json(t: int) -> dict[str, Any]:
    return {
        "id": t,
        "kind": KIND_NAMES[TILE_KIND[t]],
        "cost": dict(zip(RESOURCES, TILE_COST[t], strict=True)),
        "points": TILE_POINTS[t],
    }


def tech_json(t: int) -> dict[str, Any]:
    return {"id": t, "effect": TECH_EFFECT[t], "text": TECH_TEXT[t], "level": 1 if t in TECH_LEVEL1 else 3}
