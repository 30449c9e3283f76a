"""우주선 카드 사용 규칙: where a spaceship card may go.

1. only on an empty cell; 2. on or around the supply ship, or around one of your own cards;
3. when neither is possible: discard a card and advance the ship, or discard one resource per
cell between the target and the ship (or your nearest card) and place it anywhere (Q&A 3).
A city cell is only open when one of its supply tiles can be paid in full (도시 지역 중요!!!).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.engine import Option
from referee.solenia.data import CARD_FACE, DAY, DAY_CITY, NIGHT, card_text
from referee.solenia.fields import EMPTY
from referee.solenia.geometry import CELLS, DISTANCE, NEIGHBOURS, ship_pos

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def _city_open(st: SoleniaState, seat: int) -> tuple[bool, bool]:
    return st.can_buy(seat, DAY), st.can_buy(seat, NIGHT)


def normal_cells(st: SoleniaState, seat: int) -> list[int]:
    """Empty, usable cells on/around the ship or around the seat's own cards (rules 1-2)."""
    owner = st.owner
    ctype = st.ctype
    ship = ship_pos(st.ship_col)
    zone = {ship}
    zone.update(NEIGHBOURS[ship])
    for p in range(CELLS):
        if owner[p] == seat:
            zone.update(NEIGHBOURS[p])
    city: tuple[bool, bool] | None = None
    out = []
    for p in sorted(zone):
        if owner[p] != EMPTY:
            continue
        t = ctype[p]
        if t >= DAY_CITY:
            if city is None:
                city = _city_open(st, seat)
            if not city[t - DAY_CITY]:
                continue
        out.append(p)
    return out


def distance_cost(st: SoleniaState, seat: int, pos: int) -> int:
    """Resources to discard for ``pos``: the cells between it and the ship or the nearest own card.

    The level-1 technology 'cheaper_distance' makes it one less (free one cell away).
    """
    row = DISTANCE[pos]
    d = row[ship_pos(st.ship_col)]
    owner = st.owner
    for p in range(CELLS):
        if owner[p] == seat and row[p] < d:
            d = row[p]
    cost = d - 1
    if st.tech1_effect(seat) == "cheaper_distance":
        cost -= 1
    return max(0, cost)


def paid_cells(st: SoleniaState, seat: int) -> list[tuple[int, int]]:
    """(cell, cost) for every cell reachable by discarding resources (rule 3, first choice)."""
    have = sum(st.res[seat])
    out = []
    for p in range(CELLS):
        if st.owner[p] != EMPTY:
            continue
        cost = distance_cost(st, seat, p)
        if cost > have:
            continue
        t = st.ctype[p]
        if t >= DAY_CITY and not st.can_buy(seat, t - DAY_CITY, spare=cost):
            continue
        out.append((p, cost))
    return out


def paid_mode(st: SoleniaState, seat: int) -> bool:
    return not normal_cells(st, seat)


def cells_for(st: SoleniaState, seat: int) -> tuple[list[tuple[int, int]], bool]:
    normal = normal_cells(st, seat)
    if normal:
        return [(p, 0) for p in normal], False
    return paid_cells(st, seat), True


def card_options(st: SoleniaState, seat: int) -> list[Option]:
    """One option per distinct card face in hand; discards only when rules 1-2 cannot apply."""
    seen = set()
    faces = []
    for c in st.hand[seat]:
        if CARD_FACE[c] not in seen:
            seen.add(CARD_FACE[c])
            faces.append(c)
    out = []
    normal = normal_cells(st, seat)
    if normal or paid_cells(st, seat):
        out = [Option(f"card:{c}", f"play {card_text(c)}") for c in faces]
    if not normal:
        out += [Option(f"discard:{c}", f"discard {card_text(c)} and advance the ship 1 cell") for c in faces]
    return out


def spendable(st: SoleniaState, seat: int) -> list[int]:
    """Resources that may be discarded for the distance without losing the city's tile."""
    res = st.res[seat]
    t = st.ctype[st.sel_cell]
    out = []
    for r in range(4):
        if res[r] == 0:
            continue
        if t >= DAY_CITY:
            res[r] -= 1
            ok = st.can_buy(seat, t - DAY_CITY, spare=st.pay_left - 1)
            res[r] += 1
            if not ok:
                continue
        out.append(r)
    return out

