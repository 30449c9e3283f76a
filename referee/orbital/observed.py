"""Rebuild a playable state from one seat's observation (for bots that search).

Everything public is copied from the observation's ``raw`` block, including the cards everyone
saw go into a hand (``known_hands``: they stay in that hand in every sample); what the seat
cannot see — the rest of other hands, the bot players' stacks, the deck order, the secret discards, the observatory's cards
of another seat — is sampled from the cards not in view, exactly as
:meth:`OrbitalState.determinise` would.
"""

from __future__ import annotations

from typing import Any

from referee.orbital import rules
from referee.orbital.data import CARD_COUNT, MODULE_COUNT
from referee.orbital.state import OrbitalState
from referee.orbital.station import CORE
from referee.orbital.views import RAW_FLAT, RAW_SCALARS
from referee.rng import Rng


def state_from_observation(obs: dict[str, Any], seed: int = 0) -> OrbitalState:
    raw = obs["raw"]
    seat = obs["seat"]
    rng = Rng(seed ^ 0x0B5E0B)
    st = OrbitalState.__new__(OrbitalState)
    d = st.__dict__
    for k in RAW_SCALARS:
        d[k] = raw[k]
    d["seed"] = 0
    for k in RAW_FLAT:
        d[k] = list(raw[k])
    st.track = [list(t) for t in raw["track"]]
    st.mods = [[list(m) for m in s] for s in raw["mods"]]
    st._derive()
    own = [c["id"] for c in obs["hand"]]
    own_peek = [c["id"] for c in obs.get("peek", [])]
    layout = raw.get("discard", [-1] * raw["discard_size"])
    st.dpub = [c for c in layout if c >= 0]
    # cards everyone saw go into a hand (older observations: none)
    st.known = [list(k) for k in raw.get("known_hands", [[] for _ in raw["hand_sizes"]])]
    # cards that may have left a hand in a secret discard since (older observations: none)
    st.maybe = [list(k) for k in raw.get("maybe_hands", [[] for _ in raw["hand_sizes"]])]
    st.gone = list(raw.get("maybe_gone", [0] * len(raw["hand_sizes"])))
    known = set(own) | set(own_peek) | set(st.market) | set(st.dpub)
    for k in st.known:
        known.update(k)
    for s in st.mods:
        known.update(m[0] for m in s if m[0] != CORE)
    stay: dict[int, list[int]] = {}
    extra: list[int] = []
    seen = set(known)
    for a, n in enumerate(raw["hand_sizes"]):
        if a != seat and st.maybe[a]:
            stay[a], out = rules.deal_maybe(st.maybe[a], st.gone[a], seen, n - len(st.known[a]), rng)
            seen.update(stay[a])
            seen.update(out)
            extra += out
    pool = [c for c in range(MODULE_COUNT if st.peaceful else CARD_COUNT) if c not in seen]
    rng.shuffle(pool)
    st.hands = []
    for a, n in enumerate(raw["hand_sizes"]):
        if a == seat:
            st.hands.append(own)
        else:
            k = st.known[a] + stay.get(a, [])
            n -= len(k)
            st.hands.append(k + pool[:n])
            pool = pool[n:]
    if own_peek:
        st.peek = own_peek
    else:
        st.peek = pool[: raw["peek_size"]]
        pool = pool[raw["peek_size"]:]
    # maybe cards that left went face down onto the pile: its secret places first
    st.discard, st.deck = rules.fill_discard(layout, set(st.dpub), extra + pool)
    st.rng = Rng(rng.next64())
    st.opening = ()
    st._fresh_caches()
    return st
