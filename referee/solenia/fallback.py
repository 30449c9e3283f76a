"""The decision the referee plays for a forfeited seat: the one that disturbs the others least.

Why: the other seats play on, so the forfeited seat should leave their game as it would have
been. Every move of the supply ship detaches a board (the cards on it leave with their
recovery effects), and every supply tile taken changes the market, so the seat plays a card
that does not move the ship (a <1> or <2> before a <0>; never the discard-and-advance of
사용 규칙 3 while a card can be played) onto a resource region, not a city, paying nothing
for the distance when it can, and moves the ship 1 cell, not 2, when a <0> must be played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.solenia import placement
from referee.solenia.data import CARD_VALUE, DAY_CITY
from referee.solenia.fields import P_CARD, P_CELL, P_SHIP

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def fallback_option(st: SoleniaState) -> str:
    ids = [o.id for o in st.legal_options()]
    if st.phase == P_CARD:
        def card_cost(oid: str) -> tuple[bool, bool, int]:
            kind, _, card = oid.partition(":")
            value = CARD_VALUE[int(card)]
            return (kind == "discard", value == 0, value)

        return min(ids, key=card_cost)
    if st.phase == P_CELL:
        cells, _ = placement.cells_for(st, st.cur)
        pos, _cost = min(cells, key=lambda pc: (st.ctype[pc[0]] >= DAY_CITY, pc[1]))
        return f"cell:{pos}"
    if st.phase == P_SHIP:
        return "ship:1"
    return ids[0]
