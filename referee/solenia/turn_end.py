"""보급 우주선 규칙, the end of a turn: the leftmost board leaves, its cards come home.

Each card on the detached board goes back to its owner, who applies the effect printed under
it (우주선 카드 회수 효과); the card is then out of the game. The board is flipped and joined
on the right, so the ship is back on the middle board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.solenia.data import (
    BOARD_SIDES,
    CARD_RECOVERY,
    CARD_VALUE,
    DAY_CITY,
    REC_REGION,
    REC_RESOURCES,
    RESOURCES,
    ROWS,
    SIDE_NAMES,
    plural,
)
from referee.solenia.fields import EMPTY

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def recover_card(st: SoleniaState, seat: int, card: int, cell_type: int, events: list[str]) -> None:
    """Apply the effect printed under ``card`` for its owner (with level-1 technology boosts).

    The level-1 tile ``recover_zero_plus_one`` (designed, the eighth level-1 tile) makes a <0>
    card's region recovery one larger: 3 instead of 2 of the region's resource, or 3 stars.
    """
    kind, n, res = CARD_RECOVERY[card]
    value = CARD_VALUE[card]
    mult = 1
    tech = st.tech1_effect(seat) if st.tech else ""
    who = f"P{seat + 1} recovers its <{value}> card"
    if tech == "recover_two_points" and value == 2:
        st.stars[seat] += 2
        events.append(f"{who}: 2 stars instead of what it shows (technology)")
        return
    if tech == "recover_one_double" and value == 1:
        mult = 2
    boost = " (technology)" if mult > 1 else ""
    if kind == REC_REGION:
        if tech == "recover_zero_plus_one" and value == 0:
            n += 1
            boost = " (technology: 1 more)"
        if cell_type < DAY_CITY:
            st.res[seat][cell_type] += n * mult
            events.append(f"{who}: {n * mult} {RESOURCES[cell_type]}{boost}")
        else:
            st.stars[seat] += n * mult
            events.append(f"{who}: {plural(n * mult, 'star')} from the city{boost}")
    elif kind == REC_RESOURCES:
        for r in res:
            st.res[seat][r] += mult
        events.append(f"{who}: " + " and ".join(f"{mult} {RESOURCES[r]}" for r in res) + boost)
    elif cell_type == res[0]:
        st.stars[seat] += mult
        events.append(f"{who}: {plural(mult, 'star')} for the {RESOURCES[res[0]]} region{boost}")
    else:
        events.append(f"{who}: nothing (it is not on a {RESOURCES[res[0]]} region)")


def detach_leftmost_board(st: SoleniaState, events: list[str]) -> None:
    owner, card, ctype = st.owner, st.card, st.ctype
    for pos in range(ROWS):
        o = owner[pos]
        if o == EMPTY:
            continue
        if o < st.players:
            recover_card(st, o, card[pos], ctype[pos], events)
            st.out_cards[o].append(card[pos])
        else:
            st.vp_out.append(card[pos])
    board = st.board_at.pop(0)
    side = 1 - st.side_at.pop(0)
    st.board_at.append(board)
    st.side_at.append(side)
    st.owner = owner[ROWS:] + [EMPTY] * ROWS
    st.card = card[ROWS:] + [EMPTY] * ROWS
    st.ctype = ctype[ROWS:] + list(BOARD_SIDES[board][side])
    st.ship_col -= 1
    events.append(f"board {board} leaves on the left and returns on the right as its {SIDE_NAMES[board][side]} side")
