"""1인용 규칙: the virtual player, played by the engine.

It draws a card, rolls the die and puts the card on the ship's neighbour of that number (1 =
the ship's direction of travel, then clockwise). A cell holding the player's card passes to
the next number; a cell holding its own card lets the player choose any free cell next to that
card. When nothing works, the card is discarded and the ship advances. On a city it takes the
rightmost supply tile of that city for free; the row shifts right and a new tile is revealed
on the left. It keeps no resources or stars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.solenia.data import CARD_VALUE, CELL_NAMES, DAY, DAY_CITY, NIGHT, card_text, tile_text
from referee.solenia.fields import EMPTY, P_VPCELL, VP
from referee.solenia.geometry import NEIGHBOURS, NUMBERED, col_row, ship_pos

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def take_turn(st: SoleniaState, events: list[str]) -> None:
    card = st.vp_deck.pop()
    st.vp_used += 1
    st.vp_card = card
    die = st.rng.randint(1, 6)
    st.vp_die = die
    events.append(f"the virtual player draws {card_text(card)} and rolls {die}")
    around = NUMBERED[ship_pos(st.ship_col)]
    for k in range(6):
        pos = around[(die - 1 + k) % 6]
        if pos < 0:
            continue
        o = st.owner[pos]
        if o == EMPTY:
            put(st, pos, events)
            return
        if o == VP:
            free = [n for n in NEIGHBOURS[pos] if st.owner[n] == EMPTY]
            if len(free) == 1:
                put(st, free[0], events)
                return
            if free:
                st.vp_options = free
                st.phase = P_VPCELL
                return
    st.vp_out.append(card)
    st.vp_card = EMPTY
    st.ship_col += 1
    events.append("the virtual player cannot place: its card is discarded and the ship advances")
    st._end_turn(events)


def put(st: SoleniaState, pos: int, events: list[str]) -> None:
    card = st.vp_card
    st.vp_options = []
    st.owner[pos] = VP
    st.card[pos] = card
    t = st.ctype[pos]
    events.append(f"the virtual player puts its card on the {CELL_NAMES[t]} at {col_row(pos)}")
    if t >= DAY_CITY:
        take_rightmost_tile(st, DAY if t == DAY_CITY else NIGHT, events)
    if CARD_VALUE[card] == 0:
        st.ship_col += 1
        events.append("the supply ship moves 1 cell")
    st.vp_card = EMPTY
    st._end_turn(events)


def take_rightmost_tile(st: SoleniaState, kind: int, events: list[str]) -> None:
    """가장 오른쪽 보급품 타일을 가져오고, 나머지를 오른쪽으로 밀고, 가장 왼쪽에 새 타일을 놓습니다.

    Once a pile runs out the row has gaps; "push the rest to the right" then packs the tiles
    still on show against the right end, and the new tile (if any) goes on the leftmost space.
    """
    row = st.market[kind]
    shown = [t for t in row if t >= 0]
    if not shown:
        return
    tile = shown.pop()
    st.vp_tiles.append(tile)
    row[:] = [EMPTY] * (len(row) - len(shown)) + shown
    events.append(f"the virtual player takes {tile_text(tile)}")
    if st.tile_deck[kind]:
        row[0] = st.tile_deck[kind].pop()
        events.append(f"new {tile_text(row[0])} revealed on the left")
