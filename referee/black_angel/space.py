"""The space board: strips of hexes, ships, missions in space and the Black Angel's advance.

Geometry (designed, see RULES_NOTES.md): each strip is a column of 5 hexes; strips are laid
side by side in axial hex coordinates (q = strip position, r = row), so hex (q, r) touches
(q±1, r), (q, r±1), (q+1, r-1) and (q-1, r+1). A hex is named by ``strip_id * 5 + row``, which
stays the same when strips move, so ships and cards never need renumbering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B
from referee.black_angel import data as D

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

H = D.HEXES_PER_STRIP


def hex_type(s: BlackAngelState, hk: int) -> str:
    strip, row = divmod(hk, H)
    if strip == s.spes_tile and row == D.MIDDLE:
        return "spes"
    return D.HEX_TYPE[strip][s.side[strip]][row]


def hex_icons(s: BlackAngelState, hk: int) -> int:
    strip, row = divmod(hk, H)
    if strip == s.spes_tile and row == D.MIDDLE:
        return 0
    return D.HEX_ICONS[strip][s.side[strip]][row]


def hex_comet(s: BlackAngelState, hk: int) -> bool:
    strip, row = divmod(hk, H)
    return D.HEX_COMET[strip][s.side[strip]][row]


def hex_colour(s: BlackAngelState, hk: int) -> int:
    return D.COLOUR_INDEX.get(hex_type(s, hk), -1)


def ba_pos(s: BlackAngelState) -> int:
    """The Black Angel stays on the middle strip: the board scrolls under it as strips move."""
    return len(s.strips) // 2


def ba_hex(s: BlackAngelState) -> int:
    return s.strips[ba_pos(s)] * H + D.MIDDLE


def hex_label(s: BlackAngelState, hk: int) -> str:
    strip, row = divmod(hk, H)
    return f"strip {s.strips.index(strip) + 1} hex {row + 1}"


def neighbours(s: BlackAngelState, hk: int) -> list[int]:
    strip, r = divmod(hk, H)
    q = s.strips.index(strip)
    n = len(s.strips)
    out = []
    for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
        q2, r2 = q + dq, r + dr
        if 0 <= q2 < n and 0 <= r2 < H:
            out.append(s.strips[q2] * H + r2)
    return out


def passable(s: BlackAngelState, hk: int, bahex: int) -> bool:
    """Ships may not stop in or cross an asteroid field, unless the Black Angel protects it."""
    return hk == bahex or hex_type(s, hk) != "asteroid"


def ships_at(s: BlackAngelState, hk: int) -> list[int]:
    return [o for o, h in s.ships if h == hk]


def can_end_at(s: BlackAngelState, hk: int, owner: int, leaving: int) -> bool:
    """At most two ships on a hex, and they must belong to different players."""
    others = [o for i, (o, h) in enumerate(s.ships) if h == hk and i != leaving]
    return len(others) < 2 and owner not in others


def destinations(s: BlackAngelState, start: int, steps: int, owner: int, leaving: int) -> list[int]:
    """Hexes a ship can end on, moving up to ``steps`` hexes from ``start``."""
    bahex = ba_hex(s)
    seen = {start}
    frontier = [start]
    for _ in range(steps):
        nxt = []
        for h in frontier:
            for g in neighbours(s, h):
                if g not in seen and passable(s, g, bahex):
                    seen.add(g)
                    nxt.append(g)
        frontier = nxt
    return sorted(h for h in seen if passable(s, h, bahex) and can_end_at(s, h, owner, leaving))


def can_place_mission_at(s: BlackAngelState, hk: int, colour: int) -> bool:
    return hex_colour(s, hk) == colour and hk not in s.cards


def ravager_icons_around(s: BlackAngelState, hk: int) -> int:
    """Icons printed on adjacent hexes; a mission card lying on a hex covers its icons."""
    return sum(hex_icons(s, g) for g in neighbours(s, hk) if g not in s.cards)


def remove_ship(s: BlackAngelState, index: int) -> None:
    """A ship leaves space: it goes to the supply, its robot pilot to its owner's supply."""
    owner, _ = s.ships.pop(index)
    if owner >= 0:
        s.rsup[owner] += 1


def neutral_ejection_vp(s: BlackAngelState, card: int, owner: int) -> int:
    ej = D.MISSION[card]["ejection"]
    per = ej["per"]
    if per == "flat":
        count = 1
    elif per == "colour_cards":
        c = D.COLOUR_INDEX[ej["colour"]]
        count = sum(1 for m, _ in s.cards.values() if D.MISSION_COLOUR[m] == c)
    elif per == "own_ships":
        count = sum(1 for o, _ in s.ships if o == owner)
    else:  # own_cards
        count = sum(1 for _, o in s.cards.values() if o == owner)
    return min(count * ej["vp_each"], ej["max"])


def advance_black_angel(s: BlackAngelState) -> None:
    """Sequence B step 3: the Black Angel moves one hex towards Spes; the first strip is ejected."""
    old = ba_hex(s)
    if hex_type(s, old) == "asteroid":
        for i in range(len(s.ships) - 1, -1, -1):
            if s.ships[i][1] == old:
                s.log.append(f"a ship of seat {s.ships[i][0]} is destroyed in the asteroid field")
                remove_ship(s, i)
    first = s.strips[0]
    lo, hi = first * H, first * H + H
    # the ejected cards leave first: their neutral effects do not count them; the ships and
    # robots on the first strip go to the supply only once the effects are resolved
    ejected = [(hk, s.cards.pop(hk)) for hk in sorted(s.cards) if lo <= hk < hi]
    for _hk, (card, owner) in ejected:
        if owner < 0:
            B.gain_vp(s, -1, 3)
            s.log.append("Hal's card is ejected: Hal scores 3")
            continue
        if D.MISSION[card]["kind"] == "neutral":
            n = neutral_ejection_vp(s, card, owner)
            s.vp[owner] += n
            s.log.append(f"neutral mission {card} ejected: seat {owner} scores {n}")
    for i in range(len(s.ships) - 1, -1, -1):
        if lo <= s.ships[i][1] < hi:
            remove_ship(s, i)
    for _hk, (card, owner) in ejected:
        if owner < 0:
            s.m_disc[D.MISSION_COLOUR[card]].append(card)
            continue
        s.ej_cards[owner][D.MISSION_COLOUR[card]].append(card)
        s.rsup[owner] += 1  # the robot on the reward space goes to the supply
    s.strips.pop(0)
    s.side[first] ^= 1
    s.strips.append(first)
    if s.spes_token == first:
        s.spes_token = -1
        s.spes_tile = first
        s.log.append("Spes comes into view")
    s.advances += 1
    s.log.append("the Black Angel advances")
    if s.spes_tile >= 0 and s.strips[ba_pos(s)] == s.spes_tile:
        s.spes_reached = True
        s.log.append("the Black Angel reaches Spes")
        s.trigger_end()
