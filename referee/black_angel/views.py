"""What each seat sees (observation), what a replay shows (spectator view), and determinise.

Hidden: other seats' hands and face-down played cards, deck orders (missions, Ravagers,
advanced tiles, the technology stacks below their top tile, Hal's cards) and future rolls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.observed import raw_block
from referee.rng import Rng

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


def _die_json(code: int) -> dict[str, Any]:
    return {"colour": D.COLOURS[B.die_colour(code)], "face": B.die_face(code), "reserved": B.die_secure(code)}


def _tile_json(t: int, boost: int = 0) -> dict[str, Any] | None:
    if t < 0:
        return None
    if D.is_advanced(t):
        return {"id": t, "colour": "black", "counts": D.ADV[t]["counts"]}
    info = D.TILE[t]
    out = {"id": t, "colour": info["colour"], "effect": info["standard"], "lightning": info["lightning"]}
    if info.get("boost"):
        out["boost"] = info["boost"]
        out["boost_side_up"] = bool(boost)
    return out


def _mission_json(m: int) -> dict[str, Any]:
    info = D.MISSION[m]
    out = {"id": m, "colour": info["colour"], "kind": info["kind"], "reward": info["reward"], "icons": info["icons"]}
    out["effect" if info["kind"] == "active" else "ejection"] = info.get("effect") or info.get("ejection")
    return out


_RAV_TEXT = {
    "lose_resource": "lose a resource", "lose_debris": "lose a debris", "lose_ship": "lose a stored ship",
    "lose_robot": "a break-room robot goes back to your supply", "discard_mission": "discard a mission",
}
ACTION_NAMES = {"discover": "technology discovery", "repair": "repair the Black Angel",
                "destroy": "destroy Ravagers", "command": "command your ship"}


def _ravager_json(r: int) -> dict[str, Any]:
    return {"id": r, "action": D.RAV_ACTION[r] + 1, "effect": D.RAV_EFFECT[r],
            "effect_text": _RAV_TEXT.get(D.RAV_EFFECT[r], D.RAV_EFFECT[r]) + " (else -1 VP)"}


def seat_name(s: BlackAngelState, owner: int) -> str:
    """A readable name for a seat index, Hal (-1 or his compartment) or the neutral player."""
    if owner < 0 or (owner == s.players and s.solo):
        return "Hal"
    if owner == s.players:
        return "neutral player"
    return f"seat {owner}"


def _slot_back(card: int) -> dict[str, Any] | None:
    """A face-down played card: its back shows whether it is a Ravager or a mission of a colour."""
    if card < 0:
        return None
    if card >= 100:
        return {"kind": "ravager"}
    return {"kind": "mission", "colour": D.MISSION[card]["colour"]}


def _hal_card_json(card: int) -> dict[str, Any]:
    c = D.HAL_CARDS[card]
    return {"id": card, "top": c["top"], "bottom": c["bottom"]}


_HEX_STATIC: dict[tuple[int, int, bool], list[dict[str, Any]]] = {}


def _strip_static(s: BlackAngelState, sid: int) -> list[dict[str, Any]]:
    """The printed part of a strip's hexes: it depends only on the strip, its side and whether
    the Spes tile sits on it, so it is built once and copied (observations are built at every
    decision and this is their largest part)."""
    key = (sid, s.side[sid], sid == s.spes_tile)
    cached = _HEX_STATIC.get(key)
    if cached is None:
        cached = [{"hex": sid * S.H + r, "type": S.hex_type(s, sid * S.H + r),
                   "icons": S.hex_icons(s, sid * S.H + r), "comet": S.hex_comet(s, sid * S.H + r)}
                  for r in range(S.H)]
        _HEX_STATIC[key] = cached
    return cached


_LABELS = [[f"strip {q + 1} hex {r + 1}" for r in range(S.H)] for q in range(8)]


def _space_json(s: BlackAngelState) -> dict[str, Any]:
    strips = []
    bahex = S.ba_hex(s)
    ships: dict[int, list[int]] = {}
    for owner, hk in s.ships:
        ships.setdefault(hk, []).append(owner)
    for q, sid in enumerate(s.strips):
        hexes = []
        labels = _LABELS[q]
        for r, static in enumerate(_strip_static(s, sid)):
            hk = static["hex"]
            here = ships.get(hk, [])
            h: dict[str, Any] = {**static, "ships": here,
                                 "ship_owners": [seat_name(s, o) for o in here] if here else [],
                                 "black_angel": hk == bahex, "label": labels[r]}
            if hk in s.cards:
                m, owner = s.cards[hk]
                h["mission"] = _mission_json(m)
                h["owner"] = "Hal" if owner < 0 else owner
                h["owner_name"] = seat_name(s, owner)
            hexes.append(h)
        strips.append({"position": q + 1, "strip": sid, "side": s.side[sid], "hexes": hexes,
                       "spes_token": sid == s.spes_token})
    return {"strips": strips, "spes_tile_strip": s.spes_tile, "spes_reached": s.spes_reached,
            "advances": s.advances, "geometry": "axial: hex (q,r) touches (q±1,r), (q,r±1), (q+1,r-1), (q-1,r+1)"}


def _player_public(s: BlackAngelState, p: int) -> dict[str, Any]:
    return {
        "seat": p, "name": seat_name(s, p), "turn_order": p + 1,
        "vp": s.vp[p], "resources": s.res[p], "debris": s.deb[p], "ships": s.shp[p],
        "robots_break_room": s.rbreak[p], "robots_supply": s.rsup[p], "workstations": s.work[p][:],
        "robots_per_workstation": {D.COLOURS[c]: s.work[p][c] for c in range(3)},
        "dice": [_die_json(c) for c in s.comp[p]],
        "grid": [_tile_json(t, s.boost[p][i]) for i, t in enumerate(s.grid[p])],
        "grid_debris": s.gdeb[p][:],
        "slots_used": [c >= 0 for c in s.slots[p]],
        "slot_names": list(D.SLOT_NAMES),
        "slots_face_down": [_slot_back(c) for c in s.slots[p]],
        "hand_missions": len(s.hand_m[p]), "hand_ravagers": len(s.hand_r[p]),
        "known_ravagers": [_ravager_json(r) for r in s.known_r[p]],
        "hand_missions_by_colour": {D.COLOURS[c]: sum(1 for m in s.hand_m[p] if D.MISSION_COLOUR[m] == c)
                                    for c in range(3)},
        "ejected_tiles": [_tile_json(t) for t in s.ej_tiles[p]],
        "ejected_advanced": [_tile_json(t) for t in s.ej_adv[p]],
        "ejected_advanced_extra": [_tile_json(t) for t in s.ej_over[p]],
        "ejected_missions": [[_mission_json(m) for m in col] for col in s.ej_cards[p]],
    }


def _public(s: BlackAngelState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": "black_angel", "variant": s.variant, "players": s.players, "advanced_rules": s.adv,
        "round": s.round, "to_move": None if s.over else s.seat, "phase": s.phase,
        "end_triggered": s.end_trig, "final_round": s.last_round if s.end_trig else None, "over": s.over,
        "actions": [{"number": k + 1, "colour": D.COLOURS[D.ACTION_COLOUR[k]], "kind": D.ACTION_KIND[k],
                     "name": ACTION_NAMES[D.ACTION_KIND[k]],
                     "damage": s.dmg[k], "ravagers": [_ravager_json(r) for r in s.rav_on[k]]} for k in range(6)],
        "dice_supply": {D.COLOURS[c]: {"dice": s.supply[c], "damaged": s.sdmg[c]} for c in range(3)},
        "display": [_tile_json(t, 1 if s.adv else 0) for t in s.display],
        "display_costs": list(D.DISPLAY_COST),
        "technology_discard": [_tile_json(t) for t in s.t_disc],
        "advanced_display": [_tile_json(t) for t in s.a_disp],
        "advanced_deck": len(s.a_deck),
        "tech_stacks": {D.COLOURS[c]: {"count": len(s.t_stack[c]),
                                       "top": _tile_json(s.t_stack[c][-1]) if s.t_stack[c] else None}
                        for c in range(3)},
        "mission_decks": [len(d) for d in s.m_deck],
        "mission_discards": [[_mission_json(m) for m in d] for d in s.m_disc],
        "ravager_deck": len(s.rav_deck), "ravager_discard": [_ravager_json(r) for r in s.rav_disc],
        "space": _space_json(s),
        "seats": [_player_public(s, p) for p in range(s.players)],
    }
    if s.neutral:
        out["neutral"] = {"name": "neutral player", "dice": [_die_json(c) for c in s.comp[s.players]],
                          "workstations": s.nwork[:],
                          "robots_per_workstation": {D.COLOURS[c]: s.nwork[c] for c in range(3)}}
    if s.solo:
        out["hal"] = {"name": "Hal", "vp": s.hal_vp, "dice": [_die_json(c) for c in s.comp[s.players]],
                      "deck": len(s.hal_deck), "discard": s.hal_disc[:],
                      "discard_cards": [_hal_card_json(c) for c in s.hal_disc],
                      "revealed": D.HAL_CARDS[s.hal_card[0]] if s.hal_card else None,
                      "reads_first": "top" if s.last_seq != "B" else "bottom"}
    return out


def public_view(s: BlackAngelState) -> dict[str, Any]:
    """What every spectator of a live match may know: the public part of every observation."""
    out = _public(s)
    out["you"] = None
    return out


def observation(s: BlackAngelState, seat: int) -> dict[str, Any]:
    out = _public(s)
    me = out["seats"][seat]
    me["hand"] = {"missions": [_mission_json(m) for m in s.hand_m[seat]],
                  "ravagers": [_ravager_json(r) for r in s.hand_r[seat]]}
    me["slots"] = [None if c < 0 else (_ravager_json(c) if c >= 100 else _mission_json(c)) for c in s.slots[seat]]
    out["you"] = seat
    out["seat"] = seat
    if seat == s.seat and not s.over:
        out["context"] = dict(s.ctx)  # the mover's own decision in progress
    out["raw"] = raw_block(s, seat)  # engine encoding, for bots that rebuild a state (observed.py)
    return out


def compact(s: BlackAngelState, seat: int) -> dict[str, Any]:
    """The keys of ``observation(s, seat)`` that determine the rest (``from_observation`` reads
    only these), equal to the observation's, at a fraction of its cost (arena/envs/encoding.py)."""
    return {"seat": seat, "raw": raw_block(s, seat)}


def spectator_view(s: BlackAngelState) -> dict[str, Any]:
    out = _public(s)
    for p in range(s.players):
        out["seats"][p]["hand"] = {"missions": [_mission_json(m) for m in s.hand_m[p]],
                                   "ravagers": [_ravager_json(r) for r in s.hand_r[p]]}
        out["seats"][p]["slots"] = [None if c < 0 else (_ravager_json(c) if c >= 100 else _mission_json(c))
                                    for c in s.slots[p]]
    # decks listed top card first
    out["decks"] = {
        "missions": {D.COLOURS[c]: [_mission_json(m) for m in reversed(s.m_deck[c])] for c in range(3)},
        "ravagers": [_ravager_json(r) for r in reversed(s.rav_deck)],
        "advanced": [_tile_json(t) for t in reversed(s.a_deck)],
        "tech": {D.COLOURS[c]: [_tile_json(t) for t in reversed(s.t_stack[c])] for c in range(3)},
        "hal": [_hal_card_json(c) for c in reversed(s.hal_deck)],
    }
    out["opening_events"] = s.opening[:]
    out["context"] = dict(s.ctx)
    if "die" in s.ctx:
        out["context_die"] = _die_json(s.ctx["die"])
    out["to_move_name"] = None if s.over else seat_name(s, s.seat)
    out["prompt"] = s.decision_prompt()
    return out


def determinise(s: BlackAngelState, seat: int, seed: int) -> BlackAngelState:
    """Re-deal what ``seat`` cannot see, keeping every count (and colour per hidden mission slot)."""
    c = s.clone()
    rng = Rng(seed)
    others = [p for p in range(s.players) if p != seat]
    # Another seat's mission chosen to play but not yet in a slot is still in its hand: it is
    # re-dealt with the hand, and the choice follows it.
    chosen = -1
    if s.phase == "a_slot" and s.seat != seat and str(s.ctx.get("card", "r")) != "r":
        chosen = c.hand_m[s.seat].index(int(s.ctx["card"][1:]))
    # missions: the deck of each colour and other seats' hidden missions of that colour
    for col in range(3):
        spots: list[tuple[list[int], int]] = []
        for p in others:
            for i, m in enumerate(c.hand_m[p]):
                if D.MISSION_COLOUR[m] == col:
                    spots.append((c.hand_m[p], i))
            for i, m in enumerate(c.slots[p]):
                if 0 <= m < 100 and D.MISSION_COLOUR[m] == col:
                    spots.append((c.slots[p], i))
        pool = c.m_deck[col][:] + [lst[i] for lst, i in spots]
        rng.shuffle(pool)
        n = len(c.m_deck[col])
        c.m_deck[col] = pool[:n]
        for (lst, i), m in zip(spots, pool[n:], strict=False):
            lst[i] = m
    if chosen >= 0:
        c.ctx["card"] = f"m{c.hand_m[s.seat][chosen]}"
    # Ravagers: the deck and other seats' hands and face-down played Ravagers
    # a destroyed Ravager (known_r) was seen going into the hand: it stays; hidden ones come first
    spots = [(c.hand_r[p], i) for p in others for i in range(len(c.hand_r[p]) - len(c.known_r[p]))]
    spots += [(c.slots[p], i) for p in others for i, r in enumerate(c.slots[p]) if r >= 100]
    pool = c.rav_deck[:] + [lst[i] for lst, i in spots]
    rng.shuffle(pool)
    n = len(c.rav_deck)
    c.rav_deck = pool[:n]
    for (lst, i), r in zip(spots, pool[n:], strict=False):
        lst[i] = r
    rng.shuffle(c.a_deck)
    for st in c.t_stack:
        if len(st) > 1:
            below = st[:-1]
            rng.shuffle(below)
            st[:-1] = below
    rng.shuffle(c.hal_deck)
    c.rng = Rng(rng.next64())
    c._opts = None
    return c
