"""Build constructed Solenia positions for the rules tests.

The default layout is night-night-dawn-day-day. Positions (column*7 + row), ship at 17:

     0:wood    7:water  14:night 21:stone 28:water
     1:night   8:wheat  15:wheat 22:water 29:day
     2:stone   9:night  16:wood  23:day   30:wood
     3:wheat  10:wood   17:stone 24:wheat 31:stone
     4:water  11:night  18:water 25:day   32:wheat
     5:night  12:stone  19:day   26:wood  33:day
     6:wheat  13:wood   20:stone 27:water 34:stone

The ship's neighbours 1-6 (east, then clockwise): 24, 25, 18, 10, 16, 23.
"""

from __future__ import annotations

from referee.solenia.data import LAYOUTS
from referee.solenia.state import EMPTY, P_CARD, SoleniaState

SHIP = 17


def fresh(players: int = 2, variant: str = "summer", seed: int = 1) -> SoleniaState:
    """A game at the start of seat 0's turn, empty boards and stores, known layout."""
    st = SoleniaState.new(players, seed, variant)
    st.side_at = list(LAYOUTS["night_first"])
    st.board_at = [0, 1, 2, 3, 4]
    st._rebuild_cells()
    st.owner = [EMPTY] * 35
    st.card = [EMPTY] * 35
    st.ship_col = 2
    st.res = [[0, 0, 0, 0] for _ in range(players)]
    st.stars = [0] * players
    st.draft_queue = []
    st.offer1 = []
    st.offer3 = []
    st.excess = []
    st.vp_options = []
    st.vp_used = 0
    st.vp_tiles = []
    st.phase = P_CARD
    st.cur = 0
    st._cache = None
    return st


def hand(st: SoleniaState, seat: int, cards: list[int], deck: list[int] | None = None) -> None:
    st.hand[seat] = list(cards)
    if deck is not None:
        st.deck[seat] = list(deck)
    st._cache = None


def market(st: SoleniaState, day: list[int], night: list[int], day_pile: list[int] | None = None,
           night_pile: list[int] | None = None) -> None:
    st.market = [list(day), list(night)]
    if day_pile is not None:
        st.tile_deck[0] = list(day_pile)
    if night_pile is not None:
        st.tile_deck[1] = list(night_pile)
    st._cache = None


def put(st: SoleniaState, pos: int, seat: int, card: int) -> None:
    st.owner[pos] = seat
    st.card[pos] = card
    st._cache = None


def ids(st: SoleniaState) -> list[str]:
    return [o.id for o in st.legal_options()]


def play(st: SoleniaState, *option_ids: str) -> list[str]:
    events: list[str] = []
    for oid in option_ids:
        events += st.apply(oid)
    return events
