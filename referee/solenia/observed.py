"""Rebuild a playable state from one seat's observation (for bots that search).

Everything public is copied from the observation's ``raw`` block; what the seat cannot see —
other hands, every deck's order, the unrevealed supply tiles, the dice — is sampled from what
is left, exactly as :meth:`SoleniaState.determinise` would.
"""

from __future__ import annotations

from typing import Any

from referee.rng import Rng
from referee.solenia.data import DECK_SIZE, TILES_OF_KIND
from referee.solenia.fields import FLAT_LISTS, P_CELL, SCALARS
from referee.solenia.state import SoleniaState


def state_from_observation(obs: dict[str, Any], seed: int = 0) -> SoleniaState:
    raw = obs["raw"]
    seat = obs["seat"]
    rng = Rng(seed ^ 0x0B5E)
    st = SoleniaState.__new__(SoleniaState)
    d = st.__dict__
    for k in SCALARS:
        d[k] = raw.get(k, 0)
    d["seed"] = 0
    d["sel_card"] = raw["sel_card"]
    for k in FLAT_LISTS:
        d[k] = list(raw.get(k, []))
    for k in ("market", "res", "out_cards", "tech3", "tech_pts", "offer3"):
        d[k] = [list(x) for x in raw[k]]
    st.rows = [[list(r[0]), list(r[1])] for r in raw["rows"]]
    st._derive_flags()
    st._rebuild_cells()
    players = st.players
    own_hand = [c["id"] for c in obs["hand"]]
    st.hand = [[] for _ in range(players)]
    st.deck = [[] for _ in range(players)]
    for s in range(players):
        seen = [st.card[p] for p in range(len(st.owner)) if st.owner[p] == s] + st.out_cards[s]
        pool = list(range(DECK_SIZE))
        for c in seen:
            pool.remove(c)
        if s == seat:
            for c in own_hand:
                pool.remove(c)
            if st.phase == P_CELL and st.cur == s and st.sel_card >= 0:
                pool.remove(st.sel_card)
            rng.shuffle(pool)
            st.hand[s] = own_hand
            st.deck[s] = pool
            continue
        rng.shuffle(pool)
        if st.phase == P_CELL and st.cur == s:
            st.sel_card = pool.pop()
        n = raw["hand_sizes"][s]
        st.hand[s] = pool[:n]
        st.deck[s] = pool[n:]
    visible = {t for row in st.market for t in row if t >= 0}
    visible.update(st.vp_tiles)
    for r in st.rows:
        visible.update(t for row in r for t in row if t >= 0)
    if st.pend_tile >= 0:
        visible.add(st.pend_tile)
    st.tile_deck = []
    for kind in (0, 1):
        pile = [t for t in TILES_OF_KIND[kind] if t not in visible]
        rng.shuffle(pile)
        st.tile_deck.append(pile[: raw["tile_deck_sizes"][kind]])
    vp_pool = list(range(DECK_SIZE))
    for c in [st.card[p] for p in range(len(st.owner)) if st.owner[p] == 4] + st.vp_out:
        vp_pool.remove(c)
    if st.vp_card >= 0:
        vp_pool.remove(st.vp_card)
    rng.shuffle(vp_pool)
    st.vp_deck = vp_pool[: raw["vp_deck_size"]]
    st.rng = Rng(rng.next64())
    st.opening = ()
    st._cache = None
    return st
