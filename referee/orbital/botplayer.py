"""Bot players (1인 규칙, 경쟁 버전): the rulebook's bot algorithm, played inside ``apply``.

A bot player's hand is a face-down stack; each turn it tries, in order: (1) reveal the top card
and play it (an event it may use, or a module it can build) or discard it for 2 MC; (2) with no
cards, activate a module; (3) repair; (4) pass. Targets: the leading player (most VP; ties the
next player to its left), the target-module order from the left of the core, inside out,
clockwise, skipping damaged modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.orbital import rules
from referee.orbital import station as geo
from referee.orbital.data import (
    CARD_ACTION,
    CARD_COLOUR,
    CARD_IS_EVENT,
    CARD_NAME,
    CORE_ACTION,
    EVENT_EFFECT,
    RULES,
)
from referee.orbital.station import CORE, U, W

if TYPE_CHECKING:
    from referee.orbital.state import OrbitalState

#: 봇 알고리즘 1 예외: bot players never play these events.
NEVER_PLAYED = ("reinforcements", "economic_crisis")
#: 봇 알고리즘 2: these actions are used only for building / repairing, or never.
NOT_ACTIVATED = ("build", "build_military", "repair", "salvage")


def player_priority(st: OrbitalState, a: int) -> list[int]:
    """The other players, leading player first (most VP; ties: the next player to the left)."""
    return sorted(rules.others(st, a), key=lambda b: (-st.vp[b], (b - a) % st.actors))


def choose_target(st: OrbitalState, a: int, effect: str) -> tuple[int, int] | None:
    """Where a bot player's event or military module strikes (None: nowhere): the first target
    of ``rules.effect_targets`` on the first player in priority order that offers one, looking
    at one station at a time (the others are never listed)."""
    for b in player_priority(st, a):
        targets = rules.station_targets(st, b, effect, bot=True)
        if targets:
            return b, targets[0]
    return None


def resolve_for_bot(st: OrbitalState, a: int, effect: str, events: list[str]) -> None:
    target = choose_target(st, a, effect)
    if target is None:
        return
    if effect in ("attack_end", "attack_any"):
        st.attacks[a] += 1
    st.resolve_target(a, effect, target[0], target[1], events)


def _command_module(st: OrbitalState, a: int) -> tuple[int, str] | None:
    """A Command HQ or Military Command the bot may use to build now (its crew and MC)."""
    mods = st.mods[a]
    crew, mc = st.crew[a], st.mc[a]
    usable = []
    core_action = CORE_ACTION[st.core[a]]
    for i, m in enumerate(mods):
        if m[5] or m[U]:
            continue
        act = core_action if m[0] == CORE else CARD_ACTION[m[0]]  # rules.module_action
        if act and act[2] in ("build", "build_military") and crew >= act[0] and mc >= act[1]:
            usable.append(i)
    i = geo.first_in_target_order(mods, usable)
    if i is None:
        return None
    return i, rules.module_action(st, a, i)[2]  # type: ignore[index]


def choose_build(st: OrbitalState, a: int, card: int, via: str = "") -> tuple[int, int, int] | None:
    """(parent, direction, cost): a same-colour exit for the discount if possible, else the first
    free exit in target order.

    The same choice as taking ``rules.build_options(st, a, via, only=card)`` in placement order,
    without listing every exit: a same-colour exit is never dearer than another, so either the
    same-colour exits are affordable and the first of them wins, or only other exits can be
    (when there is no same-colour exit at all).
    """
    if CARD_IS_EVENT[card] or card not in st.hands[a]:
        return None
    colour = CARD_COLOUR[card]
    c_same, c_other = rules.card_build_costs(colour, rules.base_build_cost(st, a, via), via == "build_military")
    mc = st.mc[a]
    if c_same > mc:  # not even with the discount: no exit needs looking at
        return None
    slots, cells = rules.free_slots_with_cells(st, a)
    if not slots:
        return None
    mods = st.mods[a]
    core = st.core[a]
    # the first exit in placement order (geo.free_slots' order), of the same colour and of any
    # other; exits of undamaged modules only, so the parent's colour is its printed (or core) one
    same = other = None
    for (p, d), cell in zip(slots, cells, strict=True):
        key = (geo.code_rank(cell) << 16) | (p << 2) | d
        if (core if mods[p][0] == CORE else CARD_COLOUR[mods[p][0]]) == colour:
            if same is None or key < same:
                same = key
        elif other is None or key < other:
            other = key
    if same is not None:
        key, cost = same, c_same
    elif c_other <= mc:
        key, cost = other, c_other  # type: ignore[assignment]
    else:
        return None
    return (key >> 2) & 0x3FFF, key & 3, cost


def _try_build(st: OrbitalState, a: int, card: int, events: list[str]) -> bool:
    cmd = _command_module(st, a)
    if cmd is not None:
        i, via = cmd
        crew, mc, _, _ = rules.module_action(st, a, i)  # type: ignore[misc]
        saved = st.mc[a]
        st.mc[a] -= mc
        spot = choose_build(st, a, card, via)
        st.mc[a] = saved
        if spot is not None:
            m = st.mods[a][i]
            st.crew[a] -= crew
            m[W] += crew
            st.mc[a] -= mc
            m[U] = 1
            events.append(f"{rules.name(st, a)} activates {CARD_NAME[m[0]]} to build")
            rules.build(st, a, card, spot[0], spot[1], spot[2], events)
            return True
    spot = choose_build(st, a, card)
    if spot is None:
        return False
    rules.build(st, a, card, spot[0], spot[1], spot[2], events)
    return True


def take_turn(st: OrbitalState, events: list[str]) -> bool:
    """One bot-player turn. Returns True when it passed."""
    a = st.cur
    who = rules.name(st, a)
    hand = st.hands[a]
    if hand:
        card = hand[-1]
        events.append(f"{who} reveals {CARD_NAME[card]}")
        if CARD_IS_EVENT[card]:
            if EVENT_EFFECT[card] not in NEVER_PLAYED and rules.event_applies(st, a, card, bot=True):
                st.play_event(a, card, events, bot=True)
                return False
        elif _try_build(st, a, card, events):
            return False
        hand.pop()
        rules.forget(st, a, card)
        rules.to_discard(st, [card], public=True)
        st.mc[a] += RULES["bot_discard_mc"]
        events.append(f"{who} discards it and gains {RULES['bot_discard_mc']} MC")
        return False
    mods = st.mods[a]
    # the cheap refusals of rules.can_activate first, then only these few in target order
    candidates = []
    core_action = CORE_ACTION[st.core[a]]
    for i, m in enumerate(mods):
        if m[5] or m[U]:
            continue
        act = core_action if m[0] == CORE else CARD_ACTION[m[0]]  # rules.module_action
        if act is None or act[2] in NOT_ACTIVATED or st.crew[a] < act[0] or st.mc[a] < act[1]:
            continue
        candidates.append(i)
    for i in geo.in_target_order(mods, candidates):
        if rules.can_activate(st, a, i, bot=True):
            st.activate(a, i, events, bot=True)
            return False
    if _repair(st, a, events):
        return False
    events.append(f"{who} passes")
    return True


def _repair(st: OrbitalState, a: int, events: list[str]) -> bool:
    """봇 알고리즘 3: repair the first damaged module in target order, with a workshop if possible."""
    mods = st.mods[a]
    target = geo.first_in_target_order(mods, [i for i in range(1, len(mods)) if mods[i][5]])
    if target is None:
        return False
    workshops: dict[int, tuple[int, int, str, int]] = {}
    core_action = CORE_ACTION[st.core[a]]
    for i, m in enumerate(mods):
        if m[5] or m[U]:
            continue
        act = core_action if m[0] == CORE else CARD_ACTION[m[0]]  # rules.module_action
        if act and act[2] == "repair" and st.crew[a] >= act[0] and st.mc[a] >= act[1]:
            workshops[i] = act
    i = geo.first_in_target_order(mods, list(workshops))
    if i is not None:
        crew, mc, _, _ = workshops[i]
        m = mods[i]
        st.crew[a] -= crew
        m[W] += crew
        st.mc[a] -= mc
        m[U] = 1
        events.append(f"{rules.name(st, a)} activates {CARD_NAME[m[0]] if m[0] != CORE else 'its core'} to repair")
        rules.repair_one(st, a, target, events)
        return True
    cost = rules.repair_cost(st, a)
    if st.mc[a] >= cost:
        st.mc[a] -= cost
        rules.repair_one(st, a, target, events)
        return True
    return False
