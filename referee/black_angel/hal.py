"""Hal, the solitaire opponent (rulebook [6] 1인 게임). Hal is played by the engine, not a seat.

Hal has no storage: whatever he would receive is turned into VP at once with the conversion
table printed on the backs of his cards (data/hal.json).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.actions import place_mission

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

CONV = D.HAL_CONVERSION
HAL = -1


def hal_gain_effect(s: BlackAngelState, eff: dict[str, Any], times: int = 1) -> None:
    """Hal converts every gain to VP (a mission reward, an activation of his card)."""
    total = 0
    for key, val in eff.items():
        n = val if isinstance(val, int) else 1
        total += n * CONV.get(key, 0)
    s.hal_vp += total * times
    what = B.effect_text(eff) + (f", {times} times" if times != 1 else "")
    s.log.append(f"Hal converts what he gains ({what}) into {total * times} VP: Hal has {s.hal_vp} VP")


def _hal_comp(s: BlackAngelState) -> list[int]:
    return s.comp[s.players]


def _available(s: BlackAngelState, colour: int) -> list[tuple[int, int, int]]:
    """(owner, index, face) of dice of ``colour`` Hal may take: his own, or your unreserved ones."""
    out = [(s.players, i, B.die_face(c)) for i, c in enumerate(_hal_comp(s)) if B.die_colour(c) == colour]
    out += [(0, i, B.die_face(c)) for i, c in enumerate(s.comp[0])
            if B.die_colour(c) == colour and not B.die_secure(c)]
    return out


def hal_turn(s: BlackAngelState) -> None:
    if not _hal_comp(s):
        _hal_reroll(s)
        return
    if not s.hal_deck:
        s.hal_deck.extend(s.hal_disc)
        s.hal_disc.clear()
        s.rng.shuffle(s.hal_deck)
    card_id = s.hal_deck.pop()
    s.hal_card = [card_id]
    card = D.HAL_CARDS[card_id]
    halves = [card["top"], card["bottom"]]
    if s.last_seq == "B":
        halves.reverse()
    s.log.append(f"Hal reveals card {card_id}")
    for half in halves:
        colour = D.COLOUR_INDEX[half["colour"]]
        dice = _available(s, colour)
        if dice:
            _hal_act(s, colour, half["action"], dice)
            break
    else:
        used = {D.COLOUR_INDEX[h["colour"]] for h in halves}
        comp = _hal_comp(s)
        for i, code in enumerate(comp):
            if B.die_colour(code) not in used:
                B.return_die(s, comp.pop(i))
                break
        s.hal_vp += 3
        s.log.append("Hal has no die of the card's colours: he returns a die and scores 3")
    s.hal_disc.append(card_id)


def _hal_reroll(s: BlackAngelState) -> None:
    comp = _hal_comp(s)
    for c in range(3):
        taken, damaged = B.take_die_from_supply(s, c)
        if taken:
            if damaged:
                B.lose_vp(s, HAL, 1)
            comp.append(B.roll(s, c))
    s.log.append(f"Hal rolls {len(comp)} dice")
    if not s.end_trig:
        S.advance_black_angel(s)


def _hal_act(s: BlackAngelState, colour: int, action: str, dice: list[tuple[int, int, int]]) -> None:
    best = max(f for _, _, f in dice)
    owner, i, face = next(d for d in dice if d[2] == best)  # Hal's own dice come first
    code = s.comp[owner].pop(i)
    if owner == 0:
        s.res[0] += 1  # you are paid from the supply for the die Hal buys
        s.log.append("Hal buys your die: you take 1 resource from the supply")
    kind, _, mode = action.partition(":")
    k = next(a for a in range(6) if D.ACTION_COLOUR[a] == colour and D.ACTION_KIND[a] == kind)
    val = face - 1 if face and s.dmg[k] >= D.MAX_DAMAGE else face
    s.log.append(f"Hal uses a {D.COLOURS[colour]} {face} on action {k + 1} ({action})")
    if kind == "command":
        _hal_command(s, colour)
    elif val <= 0 or not {"discover": _hal_discover, "repair": _hal_repair, "destroy": _hal_destroy}[kind](s, val, mode):
        s.hal_vp += 3
        s.log.append("Hal cannot act: he scores 3")
    B.return_die(s, code)


def _take_cheap(s: BlackAngelState) -> bool:
    """Hal takes tiles from the end nearest the ejection point."""
    for i in range(D.DISPLAY_SIZE - 1, -1, -1):
        if s.display[i] >= 0 and D.DISPLAY_COST[i] == 1:
            _gain_tile(s, i)
            return True
    return False


def _take_advanced(s: BlackAngelState) -> bool:
    """The advanced tile nearest the display; the others slide and the row is refilled."""
    for j, t in enumerate(s.a_disp):
        if t >= 0:
            rest = [x for x in s.a_disp[j + 1:]]
            s.a_disp = s.a_disp[:j] + rest + [s.a_deck.pop() if s.a_deck else -1]
            s.hal_vp += CONV["advanced_tile"]
            s.log.append(f"Hal takes advanced tile {t} ({D.ADV[t]['counts']}): +{CONV['advanced_tile']} VP")
            return True
    return False


def _gain_tile(s: BlackAngelState, i: int) -> None:
    """Hal takes the technology tile on display space i and turns it into VP."""
    t = s.display[i]
    s.display[i] = -1
    s.hal_vp += CONV["tile"]
    s.log.append(f"Hal takes {D.TILE[t]['colour']} technology tile {t} (cost {D.DISPLAY_COST[i]}): "
                 f"+{CONV['tile']} VP")


def _hal_discover(s: BlackAngelState, val: int, mode: str) -> bool:
    took = False
    if mode == "advanced":
        if val == 1:
            return _take_cheap(s)
        took = _take_advanced(s)
        if took:
            if val >= 3:
                _take_cheap(s)
            return True
    budget = val
    for i in range(D.DISPLAY_SIZE - 1, -1, -1):
        t = s.display[i]
        if t >= 0 and D.DISPLAY_COST[i] <= budget:
            budget -= D.DISPLAY_COST[i]
            _gain_tile(s, i)
            took = True
    return took


def _order(mode: str) -> range:
    return range(6) if mode == "clockwise" else range(5, -1, -1)


def _hal_repair(s: BlackAngelState, val: int, mode: str) -> bool:
    done = 0
    while done < val:
        k = next((a for a in _order(mode) if s.dmg[a]), -1)
        if k >= 0:
            s.dmg[k] -= 1
        else:
            c = next((c for c in range(3) if s.sdmg[c]), -1)
            if c < 0:
                break
            s.sdmg[c] -= 1
        s.hal_vp += CONV["debris"]
        done += 1
    if done:
        s.log.append(f"Hal repairs {done} damage cube(s) into debris: +{done * CONV['debris']} VP")
    return done > 0


def _best(sizes: list[int], budget: int) -> int:
    """Most Ravager cards destroyable with ``budget`` from these stacks (subset sum)."""
    reach = {0}
    for size in sizes:
        reach |= {r + size for r in reach if r + size <= budget}
    return max(reach)


def _hal_destroy(s: BlackAngelState, val: int, mode: str) -> bool:
    order = [a for a in _order(mode) if s.rav_on[a]]
    budget, killed = val, 0
    for n, a in enumerate(order):
        size = len(s.rav_on[a])
        rest = [len(s.rav_on[b]) for b in order[n + 1:]]
        if size <= budget and size + _best(rest, budget - size) == _best([size] + rest, budget):
            budget -= size
            killed += size
            s.rav_disc.extend(s.rav_on[a])
            s.rav_on[a] = []
    s.hal_vp += killed * CONV["ravager"]
    if killed:
        s.log.append(f"Hal destroys {killed} Ravager(s): +{killed * CONV['ravager']} VP")
    return killed > 0


def _hal_command(s: BlackAngelState, colour: int) -> None:
    m = B.draw_mission(s, colour)
    if m < 0:
        s.hal_vp += 3
        s.log.append("Hal finds no mission to place: he scores 3")
        return
    positions = range(len(s.strips)) if D.MISSION[m]["kind"] == "neutral" else range(len(s.strips) - 1, -1, -1)
    for q in positions:
        strip = s.strips[q]
        spots = [strip * S.H + r for r in range(S.H) if S.can_place_mission_at(s, strip * S.H + r, colour)]
        if not spots:
            continue
        if len(spots) > 1:
            comet = [h for h in spots if S.hex_comet(s, h)]
            hk = comet[0] if comet else spots[0]
            if comet:
                s.hal_vp += 3
                s.log.append(f"Hal places his mission on the comet at {S.hex_label(s, hk)}: +3 VP")
        else:
            hk = spots[0]
        place_mission(s, HAL, m, hk)
        return
    s.m_disc[colour].append(m)
    s.hal_vp += 3
    s.log.append("no hex can take Hal's mission: he discards it and scores 3")
