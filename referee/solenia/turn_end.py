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
    card_text,
)
from referee.solenia.fields import EMPTY

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def recover_card(st: SoleniaState, seat: int, card: int, cell_type: int, events: list[str]) -> None:
    """Apply the effect printed under ``card`` for its owner (with level-1 technology boosts)."""
    kind, n, res = CARD_RECOVERY[card]
    value = CARD_VALUE[card]
    mult = 1
    tech = st.tech1_effect(seat) if st.tech else ""
    if tech == "recover_two_points" and value == 2:
        st.stars[seat] += 2
        events.append(f"P{seat + 1} recovers {card_text(card)}: 2 points (technology)")
        return
    if tech == "recover_one_double" and value == 1:
        mult = 2
    if kind == REC_REGION:
        if cell_type < DAY_CITY:
            st.res[seat][cell_type] += n * mult
            events.append(f"P{seat + 1} recovers {card_text(card)}: {n * mult} {RESOURCES[cell_type]}")
        else:
            st.stars[seat] += n * mult
            events.append(f"P{seat + 1} recovers {card_text(card)}: {n * mult} points")
    elif kind == REC_RESOURCES:
        for r in res:
            st.res[seat][r] += mult
        events.append(f"P{seat + 1} recovers {card_text(card)}: " + ", ".join(f"{mult} {RESOURCES[r]}" for r in res))
    elif cell_type == res[0]:
        st.stars[seat] += mult
        events.append(f"P{seat + 1} recovers {card_text(card)}: {mult} point(s) for the {RESOURCES[res[0]]} region")
    else:
        events.append(f"P{seat + 1} recovers {card_text(card)}: no effect")


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
