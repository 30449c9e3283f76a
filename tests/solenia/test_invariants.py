"""Counts that must hold throughout random games: nothing is created or lost by accident."""

from __future__ import annotations

import random

import pytest

from referee.solenia.state import P_CARD, P_CELL, VP, SoleniaState


def _check(st: SoleniaState) -> None:
    for s in range(st.players):
        assert min(st.res[s]) >= 0
        on_board = sum(1 for o in st.owner if o == s)
        held = 1 if st.phase == P_CELL and st.cur == s else 0
        # 16 cards: hand + deck + on the boards + out of the game (+ the one being placed)
        assert len(st.hand[s]) + len(st.deck[s]) + on_board + len(st.out_cards[s]) + held == 16
        assert st.used[s] == on_board + len(st.out_cards[s])
        if st.phase == P_CARD:
            assert sum(st.res[s]) <= st.limit(s)
    tiles = [t for m in st.market for t in m if t >= 0] + st.tile_deck[0] + st.tile_deck[1] + st.vp_tiles
    tiles += [t for r in st.rows for row in r for t in row if t >= 0]
    if st.pend_tile >= 0 and all(st.pend_tile not in row for r in st.rows for row in r):
        tiles.append(st.pend_tile)
    assert sorted(tiles) == list(range(48))
    if st.solo:
        vp_on_board = sum(1 for o in st.owner if o == VP)
        assert st.vp_used == vp_on_board + len(st.vp_out) + (1 if st.vp_card >= 0 else 0)


@pytest.mark.parametrize("variant", ["summer", "winter", "winter-tech"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_cards_tiles_and_stores_are_conserved(players: int, variant: str) -> None:
    for seed in range(4):
        st = SoleniaState.new(players, seed, variant)
        rnd = random.Random(seed)
        _check(st)
        while not st.is_over():
            st.apply(rnd.choice(st.option_ids()))
            _check(st)
        assert all(u == 16 for u in st.used)
