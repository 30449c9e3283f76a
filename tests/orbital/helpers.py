"""Constructed states for the Orbital rules tests: a game past set-up, with hands, stations and
money put in place by hand."""

from __future__ import annotations

from referee.orbital import station as geo
from referee.orbital.data import CARD_NAME
from referee.orbital.state import P_MAIN, OrbitalState

N, E, S, W = range(4)


def card(name: str, k: int = 0) -> int:
    """The k-th card id with this name."""
    ids = [i for i, n in enumerate(CARD_NAME) if n == name]
    return ids[k]


def fresh(players: int = 2, variant: str = "standard", seed: int = 1, mc: int = 20) -> OrbitalState:
    """A game in year 1, seat 0 to act, empty hands, ``mc`` each, nothing built."""
    st = OrbitalState.new(players, seed, variant)
    everything = st.hands
    for h in everything:
        st.deck.extend(h)
    st.hands = [[] for _ in range(st.actors)]
    st.queue = []
    st.phase = P_MAIN
    st.first = st.cur = 0
    st.passes = 0
    st.mc = [mc] * st.actors
    st._cache = None
    return st


def give(st: OrbitalState, a: int, *cards: int) -> None:
    for c in cards:
        for pile in (st.deck, st.discard, st.market):
            if c in pile:
                pile.remove(c)
        st.hands[a].append(c)
    st._cache = None


def put(st: OrbitalState, a: int, c: int, parent: int, d: int) -> int:
    """Build ``c`` on exit ``d`` of module ``parent`` of station ``a`` without paying."""
    for pile in (st.deck, st.discard, st.market):
        if c in pile:
            pile.remove(c)
    st._cache = None
    return geo.place(st.mods[a], c, parent, d)


def ids(st: OrbitalState) -> list[str]:
    return st.option_ids()
