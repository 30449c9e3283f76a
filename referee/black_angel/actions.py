"""The six actions of the Black Angel board (rulebook [4] A2 액션).

Each action spends its activation value one step at a time, with one small decision per
step: take a tile (then insert it), remove a damage cube (then place the debris), destroy a
Ravager location, or command a ship (which ship, where to, which mission to place).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.decisions import register

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


def start_action(s: BlackAngelState) -> None:
    kind = s.ctx["kind"]
    if kind == "discover":
        _next_discover(s)
    elif kind == "repair":
        _next_repair(s)
    elif kind == "destroy":
        _next_destroy(s)
    else:
        _begin_command(s)


def _finish(s: BlackAngelState) -> None:
    from referee.black_angel.sequence_a import finish_sequence_a

    finish_sequence_a(s)


# --- technology discovery (orange) ---------------------------------------------------------------
def _take_options(s: BlackAngelState) -> list[tuple[str, str]]:
    val = s.ctx["val"]
    out = []
    for i, t in enumerate(s.display):
        if t >= 0 and D.DISPLAY_COST[i] <= val:
            out.append((f"take:d{i}", f"take {D.TILE[t]['colour']} tile {t} (cost {D.DISPLAY_COST[i]})"))
    if val >= 2:
        for j, t in enumerate(s.a_disp):
            if t >= 0:
                out.append((f"take:a{j}", f"take advanced tile {t} ({D.ADV[t]['counts']}, cost 2)"))
    if out:
        out.append(("done", "stop taking tiles"))
    return out


def _next_discover(s: BlackAngelState) -> None:
    if _take_options(s):
        s.phase = "discover"
    else:
        _finish(s)


def _take_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "done":
        _finish(s)
        return
    where, i = oid[5], int(oid[6:])
    if where == "d":
        tile = s.display[i]
        s.display[i] = -1  # no refill, no sliding (rulebook 알림)
        s.ctx["val"] -= D.DISPLAY_COST[i]
    else:
        tile = s.a_disp[i]
        s.a_disp[i] = s.a_deck.pop() if s.a_deck else -1  # refilled at once
        s.ctx["val"] -= 2
    s.ctx["tile"] = tile
    s.log.append(f"seat {s.seat} takes tile {tile}")
    s.phase = "insert"


def arrows_for(tile: int) -> list[int]:
    """Technology tiles enter along any of the six coloured arrows, advanced tiles along the two
    black ones ([4] 기술 발견; the arrows' colour marks their use, not a tile colour)."""
    black = D.is_advanced(tile)
    return [a for a in range(len(D.ARROW_IDS)) if D.ARROW_BLACK[a] == black]


def _insert_options(s: BlackAngelState) -> list[tuple[str, str]]:
    return [(f"arrow:{D.ARROW_IDS[a]}", f"insert the tile at {D.ARROW_WORDS[a]}")
            for a in arrows_for(s.ctx["tile"])]


def insert_tile(s: BlackAngelState, p: int, tile: int, arrow: int) -> int:
    """Push ``tile`` in along ``arrow``; returns the ejected tile or -1.

    The new tile pushes the run of tiles ahead of it; a gap stops the push, otherwise the tile
    at the far end leaves the grid. Debris and the shown side travel with their tile; an
    ejected tile's debris goes back to storage.
    """
    grid, boost, gdeb = s.grid[p], s.boost[p], s.gdeb[p]
    carry = (tile, 1 if (s.adv and not D.is_advanced(tile) and tile < 100) else 0, 0)
    for cell in D.ARROW_PATH[arrow]:
        here = (grid[cell], boost[cell], gdeb[cell])
        grid[cell], boost[cell], gdeb[cell] = carry
        carry = here
        if carry[0] < 0:
            return -1
    if carry[2]:
        s.deb[p] += carry[2]
    return carry[0]


def _insert_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    arrow = D.ARROW_IDS.index(oid[6:])
    out = insert_tile(s, p, s.ctx.pop("tile"), arrow)
    if out >= 0:
        s.log.append(f"tile {out} is ejected from seat {p}'s grid")
        if D.is_advanced(out):
            free = [k for k in range(3) if s.ej_adv[p][k] < 0]
            if len(free) > 1:
                s.ctx["ejected"] = out
                s.phase = "eject_slot"
                return
            if free:
                s.ej_adv[p][free[0]] = out
            else:
                s.ej_over[p].append(out)
        else:
            s.ej_tiles[p].append(out)
    _next_discover(s)


def _eslot_options(s: BlackAngelState) -> list[tuple[str, str]]:
    return [(f"eslot:{k}", f"put the ejected advanced tile beside the {D.COLOURS[k]} missions")
            for k in range(3) if s.ej_adv[s.seat][k] < 0]


def _eslot_apply(s: BlackAngelState, oid: str) -> None:
    s.ej_adv[s.seat][int(oid[6:])] = s.ctx.pop("ejected")
    _next_discover(s)


# --- repair (gray) ------------------------------------------------------------------------------
def _fix_options(s: BlackAngelState) -> list[tuple[str, str]]:
    if s.ctx["val"] <= 0:
        return []
    out = [(f"fix:a{k + 1}", f"remove a damage cube from action {k + 1}") for k in range(6) if s.dmg[k]]
    out += [(f"fix:d{c}", f"repair a damaged {D.COLOURS[c]} die") for c in range(3) if s.sdmg[c]]
    if out:
        out.append(("done", "stop repairing"))
    return out


def _next_repair(s: BlackAngelState) -> None:
    if _fix_options(s):
        s.phase = "repair"
    else:
        _finish(s)


def _fix_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "done":
        _finish(s)
        return
    if oid[4] == "a":
        # with two cubes the damaging one goes first: one cube left means no penalty
        s.dmg[int(oid[5:]) - 1] -= 1
    else:
        s.sdmg[int(oid[5:])] -= 1
    s.ctx["val"] -= 1
    s.log.append(f"seat {s.seat} repairs: the cube becomes a debris")
    if lightning_cells(s, s.seat):
        s.phase = "debris"
    else:
        s.deb[s.seat] += 1
        _next_repair(s)


def lightning_cells(s: BlackAngelState, p: int) -> list[int]:
    out = []
    for c in range(9):
        t = s.grid[p][c]
        if t >= 0 and not D.is_advanced(t) and not s.gdeb[p][c] and D.TILE[t]["lightning"] and not s.boost[p][c]:
            out.append(c)
    return out


def _debris_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p = s.seat
    return [("put:store", "put the debris in storage")] + [
        (f"put:{c}", f"put it on the lightning of tile {s.grid[p][c]}: {B.effect_text(D.TILE[s.grid[p][c]]['standard'])}")
        for c in lightning_cells(s, p)]


def _debris_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    if oid == "put:store":
        s.deb[p] += 1
    else:
        c = int(oid[4:])
        s.gdeb[p][c] = 1
        B.apply_effect(s, p, D.TILE[s.grid[p][c]]["standard"])
        s.log.append(f"seat {p} puts the debris on a lightning space: tile {s.grid[p][c]} activates")
    _next_repair(s)


# --- destroy Ravagers (green) -------------------------------------------------------------------
def _kill_options(s: BlackAngelState) -> list[tuple[str, str]]:
    val = s.ctx["val"]
    out = [(f"kill:{k + 1}", f"destroy the {len(s.rav_on[k])} Ravager(s) at action {k + 1}")
           for k in range(6) if 0 < len(s.rav_on[k]) <= val]
    if out:
        out.append(("done", "stop destroying"))
    return out


def _next_destroy(s: BlackAngelState) -> None:
    if _kill_options(s):
        s.phase = "destroy"
    else:
        _finish(s)


def _kill_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "done":
        _finish(s)
        return
    k = int(oid[5:]) - 1
    cards = s.rav_on[k]
    s.ctx["val"] -= len(cards)  # a stack is destroyed all together
    s.hand_r[s.seat].extend(cards)
    s.known_r[s.seat].extend(cards)  # they were face up on the action: everyone saw them taken
    s.log.append(f"seat {s.seat} destroys {len(cards)} Ravager(s) at action {k + 1}")
    s.rav_on[k] = []
    _next_destroy(s)


# --- command your ship (all colours) --------------------------------------------------------
def _star(s: BlackAngelState) -> bool:
    return B.die_face(s.ctx["die"]) == 0


def _ship_targets(s: BlackAngelState, start: int, leaving: int, robots_after: int) -> list[int]:
    p, col = s.seat, s.ctx["col"]
    dests = S.destinations(s, start, s.ctx["val"], p, leaving)
    if _star(s):
        has = any(D.MISSION_COLOUR[m] == col for m in s.hand_m[p])
        if not has or robots_after < 1:
            return []
        dests = [h for h in dests if S.can_place_mission_at(s, h, col)]
    return dests


def _ship_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p = s.seat
    out = []
    for i, (o, h) in enumerate(s.ships):
        if o == p and _ship_targets(s, h, i, s.rbreak[p]):
            out.append((f"ship:{i}", f"move your ship at {S.hex_label(s, h)}"))
    if s.shp[p] >= 1 and s.rbreak[p] >= 1 and _ship_targets(s, S.ba_hex(s), -1, s.rbreak[p] - 1):
        out.append(("ship:new", "launch a new ship from the Black Angel (1 robot pilots it)"))
    return out


def _begin_command(s: BlackAngelState) -> None:
    opts = _ship_options(s)
    if not opts:
        s.log.append("no ship can be commanded: the action does nothing")
        _finish(s)
        return
    if len(opts) == 1:
        _ship_apply(s, opts[0][0])
    else:
        s.phase = "cmd_ship"


def _ship_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    if oid == "ship:new":
        s.shp[p] -= 1
        s.rbreak[p] -= 1
        s.ships.append([p, S.ba_hex(s)])
        s.ctx["ship"] = len(s.ships) - 1
        s.log.append(f"seat {p} launches a ship")
    else:
        s.ctx["ship"] = int(oid[5:])
    i = s.ctx["ship"]
    dests = _ship_targets(s, s.ships[i][1], i, s.rbreak[p])
    if len(dests) == 1:
        _move_to(s, dests[0])
    else:
        s.phase = "cmd_move"


def _move_options(s: BlackAngelState) -> list[tuple[str, str]]:
    i = s.ctx["ship"]
    return [(f"to:{h}", f"end at {S.hex_label(s, h)} ({S.hex_type(s, h)})")
            for h in _ship_targets(s, s.ships[i][1], i, s.rbreak[s.seat])]


def _move_apply(s: BlackAngelState, oid: str) -> None:
    _move_to(s, int(oid[3:]))


def _move_to(s: BlackAngelState, hk: int) -> None:
    p = s.seat
    s.ships[s.ctx["ship"]][1] = hk
    s.ctx["hex"] = hk
    s.log.append(f"seat {p}'s ship ends at {S.hex_label(s, hk)}")
    if _place_options(s):
        s.phase = "cmd_card"
    else:
        _finish(s)


def _place_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p, hk, col = s.seat, s.ctx["hex"], s.ctx["col"]
    if s.rbreak[p] < 1 or not S.can_place_mission_at(s, hk, col):
        return []
    out = [(f"place:{m}", f"place mission {m} ({D.MISSION[m]['kind']}, reward {B.effect_text(D.MISSION[m]['reward'])})")
           for m in sorted(set(s.hand_m[p])) if D.MISSION_COLOUR[m] == col]
    if out and not _star(s):
        out.append(("noplace", "place no mission"))
    return out


def _place_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "noplace":
        _finish(s)
        return
    p = s.seat
    m = int(oid[6:])
    s.hand_m[p].remove(m)
    place_mission(s, p, m, s.ctx["hex"])
    _finish(s)


def place_mission(s: BlackAngelState, p: int, m: int, hk: int) -> None:
    """A mission lands in space: reward robot, Ravagers called by adjacent icons, new tiles."""
    icons = S.ravager_icons_around(s, hk)
    s.cards[hk] = [m, p]
    if p >= 0:
        s.rbreak[p] -= 1
    B.apply_effect(s, p, D.MISSION[m]["reward"])
    s.log.append(f"{'Hal' if p < 0 else 'seat ' + str(p)} places mission {m} at {S.hex_label(s, hk)}"
                 f" (reward {B.effect_text(D.MISSION[m]['reward'])}); {icons} Ravager icon(s) around")
    for _ in range(icons):
        B.ravager_arrives(s)
    for colour in D.MISSION_ICONS[m]:
        B.push_display(s, colour)


register("discover", "technology discovery: take a tile (cost 2 or 1) or stop", _take_options, _take_apply)
register("insert", "insert the tile along an arrow (coloured: technology, black: advanced)", _insert_options, _insert_apply)
register("eject_slot", "choose the space for the ejected advanced tile", _eslot_options, _eslot_apply)
register("repair", "repair: remove a damage cube or stop", _fix_options, _fix_apply)
register("debris", "place the debris: a lightning space or storage", _debris_options, _debris_apply)
register("destroy", "destroy Ravagers: choose a location or stop", _kill_options, _kill_apply)
register("cmd_ship", "command: which ship", _ship_options, _ship_apply)
register("cmd_move", "command: where the ship ends its move", _move_options, _move_apply)
register("cmd_card", "command: place a mission of the die's colour here?", _place_options, _place_apply)
