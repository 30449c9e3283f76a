"""Sequence A (rulebook [4] 시퀀스 A): play a card, use one die, draw a card.

Decisions, in order: which card (or none) -> which slot -> which technology tile to activate
next -> which die (own, bought, or flip one of yours with debris first, as often as you have
debris) -> where to use it -> (Ravager effect choice, boosts) -> the action's own decisions
(actions.py) -> (flip dice with debris again) -> (advanced: keep 1 of 2).

A2 is mandatory, so a card play or flip that would leave no die with a use is not offered;
everything else the rulebook allows is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.decisions import register
from referee.black_angel.turns import end_turn
from referee.engine import seen_by

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


# --- what a die can do ------------------------------------------------------------------------
def action_value(s: BlackAngelState, k: int, face: int) -> int:
    """Activation value: the face, less 1 when the action holds 2 damage cubes; a star stays 0."""
    if face and s.dmg[k] >= D.MAX_DAMAGE:
        return face - 1
    return face


def _has_mission(s: BlackAngelState, p: int, colour: int) -> bool:
    return any(D.MISSION_COLOUR[m] == colour for m in s.hand_m[p])


def command_possible(s: BlackAngelState, p: int, colour: int, value: int, star: bool, k: int = -1) -> bool:
    """Commanding needs a ship in space, or a ship in storage plus a robot to launch it.

    With a star the ship cannot move and a mission must be placed, so the hex it stands on
    (or the Black Angel's hex for a new ship) must take a mission of the die's colour. The top
    Ravager of action ``k`` is resolved first, so a ship or robot it takes does not count.
    """
    eff = D.RAV_EFFECT[s.rav_on[k][-1]] if k >= 0 and s.rav_on[k] else ""
    ships = s.shp[p] - (1 if eff == "lose_ship" and s.shp[p] else 0)
    robots = s.rbreak[p] - (1 if eff == "lose_robot" and s.rbreak[p] else 0)
    launch = ships >= 1 and robots >= 1
    bahex = S.ba_hex(s)
    if not star:
        if any(o == p for o, _ in s.ships):
            return True
        if not launch:
            return False
        # a new ship may always stay on the Black Angel's hex if there is room there
        return S.can_end_at(s, bahex, p, -1) or bool(S.destinations(s, bahex, value, p, -1))
    missions = sum(1 for m in s.hand_m[p] if D.MISSION_COLOUR[m] == colour)
    if missions == 0 or (eff == "discard_mission" and len(s.hand_m[p]) < 2):
        return False
    for o, h in s.ships:
        if o == p and robots >= 1 and S.can_place_mission_at(s, h, colour):
            return True
    return (launch and robots >= 2 and S.can_end_at(s, bahex, p, -1)
            and S.can_place_mission_at(s, bahex, colour))


def die_uses(s: BlackAngelState, p: int, colour: int, face: int) -> list[tuple[str, str]]:
    """Where a die of this colour and face may go: an action of its colour or an active mission.

    A star (0) can only command a ship (the partial command action, rulebook [4] A2).
    """
    out = []
    for k in range(6):
        if D.ACTION_COLOUR[k] != colour:
            continue
        kind = D.ACTION_KIND[k]
        if kind == "command":
            if command_possible(s, p, colour, action_value(s, k, face), face == 0, k):
                out.append((f"act:{k + 1}", f"action {k + 1}: command your ship"))
        elif face:
            out.append((f"act:{k + 1}", f"action {k + 1}: {kind}"))
    if face:
        for hk in sorted(s.cards):
            m, owner = s.cards[hk]
            if D.MISSION_COLOUR[m] != colour or D.MISSION[m]["kind"] != "active":
                continue
            if owner == p or any(o == p and h == hk for o, h in s.ships):
                out.append((f"mis:{hk}", f"activate mission {m} at {S.hex_label(s, hk)}"))
    return out


def _buyable(s: BlackAngelState, p: int) -> list[tuple[int, int, int]]:
    """(owner compartment, index, code) of dice p may buy: not p's own, not reserved."""
    if s.res[p] < 1:
        return []
    out = []
    for owner, comp in enumerate(s.comp):
        if owner == p:
            continue
        for i, code in enumerate(comp):
            if not B.die_secure(code):
                out.append((owner, i, code))
    return out


def die_usable(s: BlackAngelState, p: int, colour: int, face: int) -> bool:
    """Has this die a use now, counting an advanced-rules '1x' recolour of it?"""
    if face:
        return True  # every colour has a non-command action, and any face > 0 may go there
    if die_uses(s, p, colour, 0):
        return True
    if s.adv and _recolour_cell(s, p) >= 0:
        return any(die_uses(s, p, c2, 0) for c2 in range(3) if c2 != colour)
    return False


def _any_die_use(s: BlackAngelState, p: int) -> bool:
    """Could the mandatory step A2 still be done (own die, a debris flip, or a bought die)?"""
    comp = s.comp[p]
    if comp and s.deb[p] >= 1:
        return True  # a flipped star shows 2, and any face > 0 has a use
    for code in comp:
        if die_usable(s, p, B.die_colour(code), B.die_face(code)):
            return True
    for _, _, code in _buyable(s, p):
        if die_usable(s, p, B.die_colour(code), B.die_face(code)):
            return True
    return False


def can_sequence_a(s: BlackAngelState, p: int) -> bool:
    """Sequence A is possible when step A2 is: "if you cannot do sequence A you must do B" ([4])."""
    return _any_die_use(s, p)


def _robust(s: BlackAngelState, p: int) -> bool:
    """A die use that no card play can take away (it needs neither a mission nor a robot)."""
    if s.comp[p] and s.deb[p] >= 1:
        return True
    if any(B.die_face(c) for c in s.comp[p]):
        return True
    return any(B.die_face(c) for _, _, c in _buyable(s, p))


# --- A1: play a card --------------------------------------------------------------------------
def begin_sequence_a(s: BlackAngelState) -> None:
    p = s.seat
    s.ctx = {}
    if (s.hand_m[p] or s.hand_r[p]) and -1 in s.slots[p]:
        s.phase = "a_card"
    else:
        begin_die_choice(s)


def _activated_cells(s: BlackAngelState, p: int, slot: int, colour: int) -> tuple[list[int], list[int]]:
    """Cells a card of ``colour`` (-1: a Ravager) played at ``slot`` activates: (standard, boost)."""
    pend, bst = [], []
    grid, boost = s.grid[p], s.boost[p]
    for cell in D.SLOT_CELLS[slot]:
        t = grid[cell]
        if t < 0 or D.is_advanced(t):
            continue  # advanced tiles are never activated (rulebook [4] A1 알림)
        if colour >= 0 and D.TILE_COLOUR[t] != colour:
            continue
        (bst if boost[cell] else pend).append(cell)
    return pend, bst


def _play_keeps_a(s: BlackAngelState, p: int, card: int, slot: int) -> bool:
    """Would step A2 still be possible after playing ``card`` (-1: a Ravager) at ``slot``?

    A1 is optional but A2 is not: a card play that would leave no die with a use would make the
    chosen sequence impossible, so it is not offered. Only a star die's command can be spoiled
    this way: by giving away the mission it must place, or by workstation tiles taking the break
    room robots it needs.
    """
    if _robust(s, p):
        return True
    colour = -1 if card < 0 else D.MISSION_COLOUR[card]
    pend, _ = _activated_cells(s, p, slot, colour)
    workers = sum(1 for c in pend if "worker" in D.TILE[s.grid[p][c]]["standard"])
    hand = s.hand_m[p]
    i = hand.index(card) if card >= 0 else -1
    if i >= 0:
        hand.pop(i)
    moved = min(workers, s.rbreak[p])
    s.rbreak[p] -= moved
    ok = _any_die_use(s, p)
    s.rbreak[p] += moved
    if i >= 0:
        hand.insert(i, card)
    return ok


def _card_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p = s.seat
    out = [("nocard", "play no card")]
    free = [k for k in range(6) if s.slots[p][k] < 0]
    for mid in sorted(set(s.hand_m[p])):
        if any(_play_keeps_a(s, p, mid, k) for k in free):
            out.append((f"card:m{mid}", f"play mission {mid} ({D.MISSION[mid]['colour']})"))
    if s.hand_r[p] and any(_play_keeps_a(s, p, -1, k) for k in free):
        out.append(("card:r", "play a Ravager card (activates every tile of the line)"))
    return out


def _card_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "nocard":
        begin_die_choice(s)
        return
    code = oid[5:]
    s.ctx = {"card": code}
    s.phase = "a_slot"


def _slot_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p, code = s.seat, s.ctx["card"]
    card = -1 if code == "r" else int(code[1:])
    return [(f"slot:{D.SLOT_NAMES[i]}", f"place it at {D.SLOT_NAMES[i]}")
            for i in range(6) if s.slots[p][i] < 0 and _play_keeps_a(s, p, card, i)]


def _slot_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    slot = D.SLOT_NAMES.index(oid[5:])
    code = s.ctx["card"]
    if code == "r":
        card = s.hand_r[p].pop()
        known = s.known_r[p]
        if known and known[-1] == card:
            known.pop()
        colour = -1
    else:
        card = int(code[1:])
        s.hand_m[p].remove(card)
        colour = D.MISSION_COLOUR[card]
    s.slots[p][slot] = card
    s.log.append(f"seat {p} plays a {'Ravager' if colour < 0 else D.COLOURS[colour] + ' mission'}"
                 f" card face down at {D.SLOT_NAMES[slot]}")
    if colour >= 0:
        s.log.append(seen_by(p, f"seat {p}'s card at {D.SLOT_NAMES[slot]} is mission {card}"))
    pend, bst = _activated_cells(s, p, slot, colour)
    s.ctx = {"pend": pend, "bst": bst}
    _continue_tiles(s)


def _continue_tiles(s: BlackAngelState) -> None:
    pend, bst = s.ctx["pend"], s.ctx["bst"]
    if not bst and len(pend) <= 1:
        if pend:
            _activate(s, pend[0])
        begin_die_choice(s)
        return
    if not pend and not bst:
        begin_die_choice(s)
        return
    s.phase = "a_tiles"


def _activate(s: BlackAngelState, cell: int) -> None:
    p = s.seat
    t = s.grid[p][cell]
    eff = D.TILE[t]["standard"]
    B.apply_effect(s, p, eff)
    s.log.append(f"seat {p} activates tile {t}: {B.effect_text(eff)}")


def _tiles_options(s: BlackAngelState) -> list[tuple[str, str]]:
    out = [(f"tile:{c}", f"activate tile {s.grid[s.seat][c]} at cell {c}") for c in s.ctx["pend"]]
    out += [(f"flip:{c}", f"flip boost tile at cell {c} to standard and activate it")
            for c in s.ctx["bst"] if _boost_activation_keeps_a(s, c)]
    if not s.ctx["pend"]:
        out.append(("done", "keep the boost sides"))
    return out


def _boost_activation_keeps_a(s: BlackAngelState, cell: int) -> bool:
    """Flipping a boost tile to activate it is optional; it is not offered when it would leave
    step A2 (the mandatory step) impossible. Two things can do that to a star die: the tile's
    workstation effect taking the break-room robot the command needs, and the flip itself
    giving up the tile's boost side — a '1x' recolour the star die relies on."""
    p = s.seat
    if _robust(s, p):
        return True
    grid = s.grid[p]
    workers = sum(1 for c in (*s.ctx["pend"], cell) if "worker" in D.TILE[grid[c]]["standard"])
    moved = min(workers, s.rbreak[p])
    s.rbreak[p] -= moved
    s.boost[p][cell] = 0
    ok = _any_die_use(s, p)
    s.boost[p][cell] = 1
    s.rbreak[p] += moved
    return ok


def _tiles_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "done":
        begin_die_choice(s)
        return
    kind, cell = oid.split(":")
    c = int(cell)
    if kind == "flip":
        s.ctx["bst"].remove(c)
        s.boost[s.seat][c] = 0
    else:
        s.ctx["pend"].remove(c)
    _activate(s, c)
    _continue_tiles(s)


# --- A2: choose a die -------------------------------------------------------------------------
def begin_die_choice(s: BlackAngelState) -> None:
    s.ctx = {}
    s.phase = "a_die"


def _flip_keeps_a(s: BlackAngelState, p: int, i: int) -> bool:
    """A debris flip is offered unless it would leave step A2 impossible (a die flipped to a star
    that has no command to do, when no other die has a use)."""
    comp = s.comp[p]
    if len(comp) > 1 and s.deb[p] >= 2:
        return True
    old = comp[i]
    comp[i] = B.flipped(old)
    s.deb[p] -= 1
    ok = _any_die_use(s, p)
    s.deb[p] += 1
    comp[i] = old
    return ok


def flip_options(s: BlackAngelState, p: int, check: bool) -> list[tuple[str, str]]:
    """Spend a debris from storage to turn one of your own dice to its opposite face ([4] 잔해 큐브).

    Any die in your compartment may be flipped, as often as you have debris; a bought die or
    a neutral die never (it is not in your compartment).
    """
    if s.deb[p] < 1:
        return []
    out = []
    seen = set()
    for i, code in enumerate(s.comp[p]):
        if code in seen:
            continue
        seen.add(code)
        if check and not _flip_keeps_a(s, p, i):
            continue
        c, f = B.die_colour(code), B.die_face(code)
        out.append((f"flip:{i}", f"spend a debris: flip your {D.COLOURS[c]} {f} to {f ^ 2}"))
    return out


def _die_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p = s.seat
    out = []
    seen = set()
    for i, code in enumerate(s.comp[p]):
        if code in seen:
            continue
        seen.add(code)
        c, f = B.die_colour(code), B.die_face(code)
        if die_usable(s, p, c, f):
            out.append((f"use:{i}", f"use your {D.COLOURS[c]} {f}"))
    out += flip_options(s, p, True)
    seen2: set[tuple[int, int]] = set()
    for owner, i, code in _buyable(s, p):
        if (owner, code) in seen2:
            continue
        seen2.add((owner, code))
        c, f = B.die_colour(code), B.die_face(code)
        if die_usable(s, p, c, f):
            who = "neutral player" if owner == s.players and s.neutral else (
                "Hal" if owner == s.players else f"seat {owner}")
            out.append((f"buy:{owner}:{i}", f"buy {who}'s {D.COLOURS[c]} {f} for 1 resource"))
    return out


def _die_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    parts = oid.split(":")
    if parts[0] == "flip":
        i = int(parts[1])
        s.deb[p] -= 1
        old = s.comp[p][i]
        s.comp[p][i] = B.flipped(old)
        s.log.append(f"seat {p} spends a debris to flip a {D.COLOURS[B.die_colour(old)]} die "
                     f"from {B.die_face(old)} to {B.die_face(old) ^ 2}")
        return
    if parts[0] == "use":
        code = s.comp[p].pop(int(parts[1]))
        bought = 0
    else:
        owner, i = int(parts[1]), int(parts[2])
        code = s.comp[owner].pop(i)
        s.res[p] -= 1
        if owner < s.players:
            s.res[owner] += 1
        elif s.solo:
            s.hal_vp += 1  # Hal discards the resource and scores 1 (1인 게임 명확화)
            s.log.append(f"Hal discards the resource he is paid and scores 1 VP: Hal has {s.hal_vp} VP")
        bought = 1
        seller = f"seat {owner}" if owner < s.players else ("Hal" if s.solo else "the neutral player")
        s.log.append(f"seat {p} buys a die from {seller} for 1 resource")
    c = B.die_colour(code)
    s.ctx = {"die": code & ~4, "col": c, "ocol": c, "bought": bought}
    s.phase = "a_use"


def _recolour_cell(s: BlackAngelState, p: int) -> int:
    for cell in range(9):
        t = s.grid[p][cell]
        if s.boost[p][cell] and t >= 0 and not D.is_advanced(t) and D.TILE[t]["boost"] == "recolour":
            return cell
    return -1


def _use_options(s: BlackAngelState) -> list[tuple[str, str]]:
    p = s.seat
    code = s.ctx["die"]
    c, f = B.die_colour(code), B.die_face(code)
    out = die_uses(s, p, c, f)
    if s.adv and _recolour_cell(s, p) >= 0:
        for c2 in range(3):
            if c2 == c:
                continue
            for oid, label in die_uses(s, p, c2, f):
                out.append((f"rc{c2}{oid}", f"1x: the die counts as {D.COLOURS[c2]}; {label}"))
    return out


def _use_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    if oid.startswith("rc"):
        c2 = int(oid[2])
        cell = _recolour_cell(s, p)
        s.boost[p][cell] = 0
        s.ctx["col"] = c2
        s.log.append(f"seat {p} flips a boost tile: the die counts as {D.COLOURS[c2]}")
        oid = oid[3:]
    face = B.die_face(s.ctx["die"])
    kind, arg = oid.split(":")
    if kind == "mis":
        s.ctx["hk"] = int(arg)
        s.ctx["val"] = face
        s.ctx["kind"] = "mission"
        _begin_boosts(s)
        return
    k = int(arg) - 1
    s.ctx["k"] = k
    s.ctx["val"] = action_value(s, k, face)
    s.ctx["kind"] = D.ACTION_KIND[k]
    s.log.append(f"seat {p} uses a {D.COLOURS[s.ctx['col']]} {face} on action {k + 1}"
                 + (" (damaged: -1)" if face and s.dmg[k] >= D.MAX_DAMAGE else ""))
    _ravager_effect(s)


# --- the top Ravager's permanent effect ---------------------------------------------------------
def _ravager_effect(s: BlackAngelState) -> None:
    """Resolve the top Ravager of the action first; -1 VP only when it cannot be applied."""
    p, k = s.seat, s.ctx["k"]
    if not s.rav_on[k]:
        _begin_boosts(s)
        return
    eff = D.RAV_EFFECT[s.rav_on[k][-1]]
    ok = True
    if eff == "lose_resource":
        ok = s.res[p] > 0
        if ok:
            s.res[p] -= 1
    elif eff == "lose_debris":
        ok = s.deb[p] > 0
        if ok:
            s.deb[p] -= 1
    elif eff == "lose_ship":
        ok = s.shp[p] > 0
        if ok:
            s.shp[p] -= 1
    elif eff == "lose_robot":
        ok = s.rbreak[p] > 0
        if ok:
            s.rbreak[p] -= 1
            s.rsup[p] += 1
    elif eff == "discard_mission":
        ok = bool(s.hand_m[p])
        if ok:
            s.phase = "rav_discard"
            return
    if ok:
        s.log.append(f"the Ravager on action {k + 1}: {eff}")
    else:
        lost = B.lose_vp(s, p, 1)
        s.log.append(f"the Ravager on action {k + 1} cannot {eff}: seat {p} loses {lost} VP")
    _begin_boosts(s)


def _rav_discard_options(s: BlackAngelState) -> list[tuple[str, str]]:
    hand = s.hand_m[s.seat]
    cands = sorted(set(hand))
    if s.ctx["kind"] == "command" and B.die_face(s.ctx["die"]) == 0:
        # a star must still place a mission of its colour: keep one of that colour
        col = s.ctx["col"]
        if sum(1 for m in hand if D.MISSION_COLOUR[m] == col) == 1:
            cands = [m for m in cands if D.MISSION_COLOUR[m] != col]
    return [(f"discard:{m}", f"discard mission {m} ({D.MISSION[m]['colour']})") for m in cands]


def _rav_discard_apply(s: BlackAngelState, oid: str) -> None:
    m = int(oid.split(":")[1])
    s.hand_m[s.seat].remove(m)
    s.m_disc[D.MISSION_COLOUR[m]].append(m)
    s.log.append(f"the Ravager makes seat {s.seat} discard a mission")
    _begin_boosts(s)


# --- advanced: '1x' boosts ------------------------------------------------------------------------
def _boost_cells(s: BlackAngelState) -> list[int]:
    """Boost tiles whose '1x' effect raises this action's value. A star's value is always 0
    ([4] A2 알림: 눈이 ☆인 주사위는 ... 활성 수치가 0), so a star is never boosted."""
    if not s.adv or not B.die_face(s.ctx["die"]):
        return []
    p = s.seat
    want = "plus1:" + s.ctx["kind"]
    return [c for c in range(9) if s.boost[p][c] and s.grid[p][c] >= 0
            and not D.is_advanced(s.grid[p][c]) and D.TILE[s.grid[p][c]]["boost"] == want]


def _begin_boosts(s: BlackAngelState) -> None:
    if _boost_cells(s):
        s.phase = "a_boost"
        return
    _start_use(s)


def _boost_options(s: BlackAngelState) -> list[tuple[str, str]]:
    return [("noboost", "no (more) boosts")] + [
        (f"boost:{c}", f"1x: flip the tile at cell {c} for +1") for c in _boost_cells(s)]


def _boost_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "noboost":
        _start_use(s)
        return
    c = int(oid.split(":")[1])
    s.boost[s.seat][c] = 0
    s.ctx["val"] += 1
    s.log.append(f"seat {s.seat} uses a 1x boost: +1")
    _begin_boosts(s)


def _start_use(s: BlackAngelState) -> None:
    from referee.black_angel import actions

    if s.ctx["kind"] == "mission":
        activate_mission(s)
    else:
        actions.start_action(s)


def activate_mission(s: BlackAngelState) -> None:
    """Use the die on an active mission in space; then its owner activates it once for free."""
    p, hk, val = s.seat, s.ctx["hk"], s.ctx["val"]
    m, owner = s.cards[hk]
    eff = D.MISSION[m]["effect"]
    B.apply_effect(s, p, eff, val)
    s.log.append(f"seat {p} activates mission {m} x{val}: {B.effect_text(eff)}")
    if owner != p:
        B.apply_effect(s, owner, eff, 1)
        s.log.append(f"{'Hal' if owner < 0 else 'seat ' + str(owner)} (owner) activates it once")
    finish_sequence_a(s)


# --- A3: draw a card, return the die ----------------------------------------------------------
def finish_sequence_a(s: BlackAngelState) -> None:
    """The action is done. Debris may still flip your dice ("at any time during your turn"),
    e.g. one just gained by repairing, before A3."""
    if flip_options(s, s.seat, False):
        s.phase = "a_endflip"
        return
    draw_step(s)


def _endflip_options(s: BlackAngelState) -> list[tuple[str, str]]:
    return [("done", "no (more) flips: draw your card")] + flip_options(s, s.seat, False)


def _endflip_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "done":
        draw_step(s)
        return
    p, i = s.seat, int(oid[5:])
    old = s.comp[p][i]
    s.deb[p] -= 1
    s.comp[p][i] = B.flipped(old)
    s.log.append(f"seat {p} spends a debris to flip a {D.COLOURS[B.die_colour(old)]} die "
                 f"from {B.die_face(old)} to {B.die_face(old) ^ 2}")
    finish_sequence_a(s)


def draw_step(s: BlackAngelState) -> None:
    """A3: draw a card of the die's colour and return the die to its supply."""
    p = s.seat
    colour = s.ctx["ocol"]  # the die's own colour, even when a 1x changed it (상급자 규칙 알림)
    B.return_die(s, s.ctx["die"])
    if s.adv:
        drawn = 0
        for _ in range(2):
            m = B.draw_mission(s, colour)
            if m >= 0:
                s.hand_m[p].append(m)
                drawn += 1
        if drawn == 2:
            s.ctx = {"keep": 2}
            s.phase = "draw_keep"
            return
    else:
        m = B.draw_mission(s, colour)
        if m >= 0:
            s.hand_m[p].append(m)
    s.log.append(f"seat {p} draws {B.article(D.COLOURS[colour])} mission")
    if not s.adv and m >= 0:
        s.log.append(seen_by(p, f"seat {p} draws mission {m}"))
    end_turn(s)


def _keep_options(s: BlackAngelState) -> list[tuple[str, str]]:
    a, b = s.hand_m[s.seat][-2:]
    return [(f"keep:{a}", f"keep mission {a}, discard {b}"), (f"keep:{b}", f"keep mission {b}, discard {a}")]


def _keep_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    hand = s.hand_m[p]
    keep = int(oid.split(":")[1])
    other = hand.pop(len(hand) - 1 if hand[-2] == keep else len(hand) - 2)
    s.m_disc[D.MISSION_COLOUR[other]].append(other)
    s.log.append(f"seat {p} draws 2 missions and keeps 1")
    s.log.append(seen_by(p, f"seat {p} keeps mission {keep}"))
    end_turn(s)


register("a_card", "A1: play a card (or not)", _card_options, _card_apply)
register("a_slot", "A1: choose the slot for the card", _slot_options, _slot_apply)
register("a_tiles", "A1: activate the next technology tile", _tiles_options, _tiles_apply)
register("a_die", "A2: choose a die (or flip one with debris)", _die_options, _die_apply)
register("a_use", "A2: where to use the die", _use_options, _use_apply)
register("rav_discard", "the Ravager's effect: discard a mission", _rav_discard_options, _rav_discard_apply)
register("a_boost", "advanced: flip a boost tile for +1?", _boost_options, _boost_apply)
register("a_endflip", "flip your dice with debris before drawing?", _endflip_options, _endflip_apply)
register("draw_keep", "A3 (advanced): keep one of the two cards drawn", _keep_options, _keep_apply)
