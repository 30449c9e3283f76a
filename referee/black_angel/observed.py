"""Rebuild a playable Black Angel state from one seat's observation (for bots that search).

The observation's ``raw`` block (built here, by :func:`raw_block`) carries the public part of the
state in the engine's own encoding, so nothing has to be parsed back from labels. What the seat
cannot see is sampled afresh from what is left:

* other seats' missions (their count per colour is public) and face-down played missions (the
  card back shows the colour), together with each mission deck: from every mission of that
  colour not visible anywhere;
* other seats' Ravagers in hand and face down, and the Ravager deck: from every Ravager not
  visible (the rest is the box, whose cards the set-up removed unseen); a Ravager a seat
  destroyed (face up on an action, 격파) stays in that seat's hand (``known_r``);
* the order of the advanced deck, of each technology stack below its top tile and of Hal's deck,
  and every future roll (a fresh generator).

The raw block names the *sets* of tiles in the advanced deck and below each stack's top: a seat
that remembers the whole game knows them (every tile that ever left those piles was shown), so
they reveal nothing; the order stays hidden. The card a seat to move has picked but not yet
placed (phase ``a_slot``) is private: other seats get it sampled from the sampled hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.black_angel import data as D
from referee.engine import ConfigError
from referee.rng import Rng

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

_SCALARS = ("players", "variant", "adv", "solo", "neutral", "hal_vp", "spes_token", "spes_tile",
            "spes_reached", "advances", "seat", "round", "end_trig", "last_round", "over", "phase",
            "last_seq")
_LISTS = ("vp", "supply", "sdmg", "dmg", "rav_disc", "t_disc", "display", "a_disp", "strips", "side",
          "res", "deb", "shp", "rbreak", "rsup", "nwork", "hal_disc", "hal_card")
_LISTS2 = ("comp", "rav_on", "m_disc", "ships", "grid", "boost", "gdeb", "work", "ej_tiles", "ej_adv",
           "ej_over", "known_r")
#: a face-down card seen from another seat: -1 empty, RAV_BACK a Ravager, MISSION_BACK + colour
RAV_BACK = 100
MISSION_BACK = 200
#: context keys that only the seat to move may read
_PRIVATE_CTX = ("card",)


def _back(card: int) -> int:
    if card < 0:
        return -1
    return RAV_BACK if card >= 100 else MISSION_BACK + D.MISSION_COLOUR[card]


def raw_block(s: BlackAngelState, seat: int) -> dict[str, Any]:
    """The public state in engine encoding, plus ``seat``'s own hand and slots."""
    raw: dict[str, Any] = {f: getattr(s, f) for f in _SCALARS}
    for f in _LISTS:
        raw[f] = getattr(s, f)[:]
    for f in _LISTS2:
        raw[f] = [x[:] for x in getattr(s, f)]
    raw["ej_cards"] = [[x[:] for x in y] for y in s.ej_cards]
    raw["cards"] = [[k, v[0], v[1]] for k, v in sorted(s.cards.items())]
    raw["rav_deck_size"] = len(s.rav_deck)
    raw["m_deck_sizes"] = [len(d) for d in s.m_deck]
    raw["a_deck_tiles"] = sorted(s.a_deck)
    raw["t_stack_top"] = [st[-1] if st else -1 for st in s.t_stack]
    raw["t_stack_below"] = [sorted(st[:-1]) for st in s.t_stack]
    raw["hal_deck_size"] = len(s.hal_deck)
    raw["hand_m_colours"] = [[sum(1 for m in h if D.MISSION_COLOUR[m] == c) for c in range(3)] for h in s.hand_m]
    raw["hand_r_sizes"] = [len(h) for h in s.hand_r]
    raw["slot_backs"] = [[_back(c) for c in sl] for sl in s.slots]
    raw["own_hand_m"] = s.hand_m[seat][:]
    raw["own_hand_r"] = s.hand_r[seat][:]
    raw["own_slots"] = s.slots[seat][:]
    if seat == s.seat and not s.over:
        raw["ctx"] = {k: (v[:] if isinstance(v, list) else v) for k, v in s.ctx.items()}
    else:
        raw["ctx"] = {k: (v[:] if isinstance(v, list) else v) for k, v in s.ctx.items() if k not in _PRIVATE_CTX}
    return raw


def state_from_observation(obs: dict[str, Any], seed: int = 0) -> BlackAngelState:
    """A state whose ``observation(seat)`` equals ``obs``, the hidden part drawn with ``seed``."""
    from referee.black_angel.state import BlackAngelState

    try:
        raw = obs["raw"]
        seat = int(obs["seat"])
    except (KeyError, TypeError, ValueError):
        raise ConfigError("not a Black Angel observation with a 'raw' block and a 'seat'") from None
    rng = Rng(seed ^ 0xB1AC)
    s = BlackAngelState.__new__(BlackAngelState)
    for f in _SCALARS:
        setattr(s, f, raw[f])
    s.seed = 0
    for f in _LISTS:
        setattr(s, f, list(raw[f]))
    for f in _LISTS2:
        if f == "known_r" and f not in raw:  # an observation from before known_r: none known
            s.known_r = [[] for _ in raw["hand_r_sizes"]]
            continue
        setattr(s, f, [list(x) for x in raw[f]])
    s.ej_cards = [[list(x) for x in y] for y in raw["ej_cards"]]
    s.cards = {int(k): [int(m), int(o)] for k, m, o in raw["cards"]}
    s.ctx = {k: (list(v) if isinstance(v, list) else v) for k, v in raw["ctx"].items()}
    s.opening = []
    s.log = []
    s._opts = None
    players = s.players
    others = [p for p in range(players) if p != seat]
    s.hand_m = [[] for _ in range(players)]
    s.hand_r = [[] for _ in range(players)]
    s.slots = [[-1] * 6 for _ in range(players)]
    s.hand_m[seat] = list(raw["own_hand_m"])
    s.hand_r[seat] = list(raw["own_hand_r"])
    s.slots[seat] = list(raw["own_slots"])
    _deal_missions(s, raw, seat, others, rng)
    _deal_ravagers(s, raw, seat, others, rng)
    s.a_deck = list(raw["a_deck_tiles"])
    rng.shuffle(s.a_deck)
    s.t_stack = []
    for below, top in zip(raw["t_stack_below"], raw["t_stack_top"], strict=True):
        stack = list(below)
        rng.shuffle(stack)
        if top >= 0:
            stack.append(top)
        s.t_stack.append(stack)
    known_hal = set(s.hal_disc) | set(s.hal_card)
    s.hal_deck = [c for c in range(len(D.HAL_CARDS)) if c not in known_hal] if s.solo else []
    if len(s.hal_deck) != raw["hal_deck_size"]:
        raise ConfigError("inconsistent observation: Hal's deck size does not match his cards")
    rng.shuffle(s.hal_deck)
    if s.phase == "a_slot" and "card" not in s.ctx:
        _sample_picked_card(s, rng)
    s.rng = Rng(rng.next64())
    return s


def _deal_missions(s: BlackAngelState, raw: dict[str, Any], seat: int, others: list[int], rng: Rng) -> None:
    seen: set[int] = set(s.hand_m[seat]) | {c for c in s.slots[seat] if 0 <= c < 100}
    for disc in s.m_disc:
        seen.update(disc)
    seen.update(m for m, _ in s.cards.values())
    for per_seat in s.ej_cards:
        for col in per_seat:
            seen.update(col)
    s.m_deck = []
    for col in range(3):
        pool = [m for m in D.MISSIONS_BY_COLOUR[col] if m not in seen]
        rng.shuffle(pool)
        n_deck = raw["m_deck_sizes"][col]
        need = n_deck + sum(raw["hand_m_colours"][p][col] for p in others) + sum(
            1 for p in others for b in raw["slot_backs"][p] if b == MISSION_BACK + col)
        if len(pool) < need:
            raise ConfigError(f"inconsistent observation: {need} hidden {D.COLOURS[col]} missions, "
                              f"only {len(pool)} unseen")
        s.m_deck.append(pool[:n_deck])
        del pool[:n_deck]
        for p in others:
            for _ in range(raw["hand_m_colours"][p][col]):
                s.hand_m[p].append(pool.pop())
            for i, b in enumerate(raw["slot_backs"][p]):
                if b == MISSION_BACK + col:
                    s.slots[p][i] = pool.pop()
    for p in others:
        rng.shuffle(s.hand_m[p])


def _deal_ravagers(s: BlackAngelState, raw: dict[str, Any], seat: int, others: list[int], rng: Rng) -> None:
    seen: set[int] = set(s.hand_r[seat]) | {c for c in s.slots[seat] if c >= 100}
    seen.update(s.rav_disc)
    for on in s.rav_on:
        seen.update(on)
    for known in s.known_r:
        seen.update(known)
    pool = [r for r in D.RAVAGER_IDS if r not in seen]
    rng.shuffle(pool)
    need = raw["rav_deck_size"] + sum(raw["hand_r_sizes"][p] - len(s.known_r[p]) for p in others) + sum(
        1 for p in others for b in raw["slot_backs"][p] if b == RAV_BACK)
    if len(pool) < need:
        raise ConfigError(f"inconsistent observation: {need} hidden Ravagers, only {len(pool)} unseen")
    s.rav_deck = [pool.pop() for _ in range(raw["rav_deck_size"])]
    for p in others:
        # destroyed Ravagers stay in the hand they were taken into, after the hidden ones
        # (they came in later, and a Ravager is played from the end of the hand)
        s.hand_r[p] = [pool.pop() for _ in range(raw["hand_r_sizes"][p] - len(s.known_r[p]))] + s.known_r[p]
        for i, b in enumerate(raw["slot_backs"][p]):
            if b == RAV_BACK:
                s.slots[p][i] = pool.pop()


def _sample_picked_card(s: BlackAngelState, rng: Rng) -> None:
    """Another seat is placing a card it picked: pick one its sampled hand could have offered."""
    p = s.seat
    codes = [f"m{m}" for m in sorted(set(s.hand_m[p]))] + (["r"] if s.hand_r[p] else [])
    rng.shuffle(codes)
    for code in codes:  # the first one with a slot to go to, as the engine only offers those
        s.ctx["card"] = code
        s._opts = None
        if s.option_ids():
            return
    raise ConfigError("inconsistent observation: the seat placing a card has no card it could place")
