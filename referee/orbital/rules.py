"""The actions of a turn (게임 라운드) and what modules and events do, as queries on a state.

Everything here takes an :class:`OrbitalState` and an *actor* (a seat, or a bot player after the
seats). Queries answer "may this happen now, and at what cost"; effects change the state and
append event lines. The state module strings them into decisions.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from referee.engine import seen_by
from referee.orbital import station as geo
from referee.orbital.data import (
    CARD_ACTION,
    CARD_COLOUR,
    CARD_IS_EVENT,
    CARD_NAME,
    CARD_PASSIVE,
    COLOURS,
    CORE_ACTION,
    CORE_EFFECT,
    EVENT_EFFECT,
    PURPLE,
    RULES,
)
from referee.orbital.station import CORE, D, P, U, W

if TYPE_CHECKING:
    from referee.orbital.state import OrbitalState

BUILD_COST = RULES["build_cost"]
REPAIR_COST = RULES["repair_cost"]


#: ``_NAMES[players][actor]``: seats are P1.., bot players after them Bot A.. (made once, not per line)
_NAMES = tuple(tuple(f"P{a + 1}" if a < p else f"Bot {chr(ord('A') + a - p)}" for a in range(8)) for p in range(6))

#: the build cost is 1 MC less for a module joined to one of its own colour
_SAME_DISCOUNT = RULES["same_colour_discount"]


def name(st: OrbitalState, a: int) -> str:
    if 0 <= a < 8 and st.players < 6:
        return _NAMES[st.players][a]
    return f"P{a + 1}" if a < st.players else f"Bot {chr(ord('A') + a - st.players)}"


def colour_of(st: OrbitalState, a: int, m: list[int]) -> int:
    """The colour a module counts as (the core takes its upgrade's colour); damaged: none."""
    if m[D]:
        return -1
    return st.core[a] if m[0] == CORE else CARD_COLOUR[m[0]]


def colour_counts(st: OrbitalState, a: int) -> list[int]:
    """Undamaged modules per colour, core included (한 해의 끝 1. 승점 획득, 4. 수입)."""
    counts = [0] * 6
    core = st.core[a]
    for m in st.mods[a]:
        if m[D]:
            continue
        c = core if m[0] == CORE else CARD_COLOUR[m[0]]
        counts[c] += 1
    return counts


def has_passive(st: OrbitalState, a: int, passive: str) -> int:
    """How many undamaged modules of ``a`` have the always-on effect ``passive``."""
    n = 0
    for m in st.mods[a]:
        if not m[D] and _PASSIVE[m[0]] == passive:
            n += 1
    return n


#: a module's damage tokens (``m[D]``), as a function for ``map``
_DAMAGE = itemgetter(D)


def free_slots(st: OrbitalState, a: int) -> list[tuple[int, int]]:
    """``geo.free_slots(mods, ordered=False)`` of station ``a``, kept from one decision to the next.

    Why: the main decision, command modules and bot players all ask for the free exits, most
    often of a station that has not changed since they last asked. The free exits depend on the
    modules' places and damage only, so the list is reused while the station holds the same
    module objects (``geo.place`` makes a new one; a removal shortens the list) with the same
    damage: checked on every call, so even a state edited by hand (tests) is never answered from
    a stale list. After a build (one undamaged module added at the end, nothing else changed) the
    list is updated rather than remade: ``geo.free_slots_after_place``. Callers must not modify
    the list.
    """
    mods = st.mods[a]
    dmg = list(map(_DAMAGE, mods))
    e = st._free.get(a)
    if e is not None and e[0] is mods:
        if e[1] is mods[-1] and e[2] == dmg:
            return e[3]
        n = len(e[2])
        if len(mods) == n + 1 and mods[-2] is e[1] and not dmg[n] and dmg[:n] == e[2]:
            # one module built since (모듈 건설 appends it): update the list, not remake it
            slots, cells, occ = geo.free_slots_after_place(mods, e[3], e[4], e[5])
            st._free[a] = (mods, mods[-1], dmg, slots, cells, occ)
            return slots
    slots, cells, occ = geo.indexed_free_slots(mods)
    st._free[a] = (mods, mods[-1], dmg, slots, cells, occ)
    return slots


def free_slots_with_cells(st: OrbitalState, a: int) -> tuple[list[tuple[int, int]], list[int]]:
    """:func:`free_slots` and, for each, the code of the cell a module built there would take
    (``x * 1024 + y``; ``geo.code_rank`` gives its place in the bot's placement order)."""
    slots = free_slots(st, a)
    return slots, st._free[a][4]


def parents(st: OrbitalState, b: int) -> set[int]:
    """The modules of station ``b`` that something is built on (the others are end modules, 말단
    모듈); the core's parent -1 is in it too. Kept while the station holds the same module objects
    (as :func:`free_slots`); callers must not modify the set."""
    return _shape(st, b)[3]


def target_order(st: OrbitalState, b: int) -> list[int]:
    """``geo.target_order(st.mods[b])``: the non-core modules in target-module order, kept with
    :func:`parents` (modules never move, so the order changes only with the module objects).
    Filtering it keeps the order, so every target list below is a filter of it, not a sort.
    Callers must not modify the list."""
    e = _shape(st, b)
    if e[4] is None:
        e[4] = geo.target_order(e[0])
    return e[4]


def _shape(st: OrbitalState, b: int) -> list:
    """The cache entry of :func:`parents` and :func:`target_order`: [mods, last module, length,
    parents, order or None (made when first asked)]."""
    mods = st.mods[b]
    e = st._parents.get(b)
    if e is not None and e[0] is mods and e[1] is mods[-1] and e[2] == len(mods):
        return e
    e = st._parents[b] = [mods, mods[-1], len(mods), {m[P] for m in mods}, None]
    return e


#: always-on effect per card with the core's row last (``_PASSIVE[CORE]``: none), so the hot
#: loops need no core test
_PASSIVE: tuple[str, ...] = tuple(CARD_PASSIVE) + ("",)


def hand_limit(st: OrbitalState, a: int) -> int:
    """핸드 제한 5, +1 per undamaged hand-limit module (damaged ones do not count, 6. 수리)."""
    extra = has_passive(st, a, "hand_limit") + (1 if CORE_EFFECT[st.core[a]] == "hand_limit" else 0)
    return RULES["hand_limit"] + extra


def build_cost(st: OrbitalState, a: int, card: int, parent: int, via: str = "") -> int:
    """모듈 건설 (6MC, 1MC less joined to the same colour), less the designed discounts."""
    cost = BUILD_COST
    if colour_of(st, a, st.mods[a][parent]) == CARD_COLOUR[card]:
        cost -= RULES["same_colour_discount"]
    if has_passive(st, a, "build_discount") or CORE_EFFECT[st.core[a]] == "build_repair_discount":
        cost -= 1
    if via == "build":
        cost -= 2
    elif via == "build_military":
        cost -= 3 if CARD_COLOUR[card] == PURPLE else 2
    return max(0, cost)


def card_build_costs(colour: int, base: int, military: bool) -> tuple[int, int]:
    """What a module card of ``colour`` costs joined to a module of its own colour (the same-colour
    discount) and to any other, from the action's ``base`` cost; Military Command's build takes
    1 MC off a purple card. Never below 0."""
    cost = base - 1 if military and colour == PURPLE else base
    same = cost - _SAME_DISCOUNT
    return (same if same > 0 else 0), (cost if cost > 0 else 0)


def build_options(st: OrbitalState, a: int, via: str = "", ordered: bool = False,
                  only: int | None = None, slots: list[tuple[int, int]] | None = None) -> list[tuple[int, int, int, int]]:
    """(card, parent, direction, cost) for every module card in hand and every free exit it can
    afford (``ordered``: exits in the bot's placement order; ``only``: that hand card alone;
    ``slots``: the station's ``free_slots`` when the caller has them already)."""
    if only is None:
        hand = [c for c in st.hands[a] if not CARD_IS_EVENT[c]]
    else:
        hand = [c for c in st.hands[a] if c == only and not CARD_IS_EVENT[c]]
    if not hand:
        return []
    mods = st.mods[a]
    if slots is None:
        slots = geo.free_slots(mods, True) if ordered else free_slots(st, a)
    if not slots:
        return []
    base = base_build_cost(st, a, via)
    core = st.core[a]
    coloured = [(p, d, core if mods[p][0] == CORE else CARD_COLOUR[mods[p][0]]) for p, d in slots]
    military = via == "build_military"
    out = []
    append = out.append
    mc = st.mc[a]
    for card in hand:
        colour = CARD_COLOUR[card]
        c_same, c_other = card_build_costs(colour, base, military)
        ok_same, ok_other = c_same <= mc, c_other <= mc
        if not (ok_same or ok_other):
            continue
        for parent, d, pc in coloured:
            if pc == colour:
                if ok_same:
                    append((card, parent, d, c_same))
            elif ok_other:
                append((card, parent, d, c_other))
    return out


def base_build_cost(st: OrbitalState, a: int, via: str) -> int:
    """모듈 건설's 6 MC less the station's discounts and a command module's (before colour)."""
    base = BUILD_COST
    if has_passive(st, a, "build_discount") or CORE_EFFECT[st.core[a]] == "build_repair_discount":
        base -= 1
    if via:
        base -= 2
    return base


def can_build(st: OrbitalState, a: int, via: str = "", mc: int | None = None,
              slots: list[tuple[int, int]] | None = None) -> bool:
    """Whether :func:`build_options` would list anything (with ``mc`` MC), without listing it."""
    hand = [c for c in st.hands[a] if not CARD_IS_EVENT[c]]
    if not hand:
        return False
    mods = st.mods[a]
    if slots is None:
        slots = free_slots(st, a)
    if not slots:
        return False
    if mc is None:
        mc = st.mc[a]
    base = base_build_cost(st, a, via)
    core = st.core[a]
    colours = {core if mods[p][0] == CORE else CARD_COLOUR[mods[p][0]] for p, _ in slots}
    same = RULES["same_colour_discount"]
    military = via == "build_military"
    for card in hand:
        colour = CARD_COLOUR[card]
        cost = base - 1 if military and colour == PURPLE else base
        if colour in colours and max(0, cost - same) <= mc:
            return True
        if (len(colours) > 1 or colour not in colours) and max(0, cost) <= mc:
            return True
    return False


def repair_cost(st: OrbitalState, a: int) -> int:
    """모듈 수리하기 3MC; each usable airlock (and the support core) makes it 1 MC cheaper, at least 1."""
    off = has_passive(st, a, "repair_discount") + (1 if CORE_EFFECT[st.core[a]] == "build_repair_discount" else 0)
    return max(1, REPAIR_COST - off)


def damaged_modules(st: OrbitalState, a: int) -> list[int]:
    return [i for i, m in enumerate(st.mods[a]) if m[D]]


def module_action(st: OrbitalState, a: int, i: int) -> tuple[int, int, str, int] | None:
    m = st.mods[a][i]
    return CORE_ACTION[st.core[a]] if m[0] == CORE else CARD_ACTION[m[0]]


def others(st: OrbitalState, a: int) -> tuple[int, ...]:
    """The other stations an effect may target (none in the peaceful solo game)."""
    if st.actors < 8 and 0 <= a < st.actors:
        return _OTHERS[st.actors][a]
    return tuple(b for b in range(st.actors) if b != a)


#: ``_OTHERS[actors][a]``, made once (a fresh list was made on every option listing)
_OTHERS = tuple(tuple(tuple(b for b in range(n) if b != a) for a in range(n)) for n in range(8))


def end_targets(st: OrbitalState, b: int, undamaged_only: bool = False) -> list[int]:
    """Non-core end modules of station ``b`` in target order (cores are never damaged)."""
    mods = st.mods[b]
    ps = parents(st, b)
    if undamaged_only:
        return [i for i in target_order(st, b) if i not in ps and not mods[i][D]]
    return [i for i in target_order(st, b) if i not in ps]


def any_targets(st: OrbitalState, b: int, undamaged_only: bool = False) -> list[int]:
    if not undamaged_only:
        return list(target_order(st, b))
    mods = st.mods[b]
    return [i for i in target_order(st, b) if not mods[i][D]]


def damaged_end_targets(st: OrbitalState, b: int) -> list[int]:
    mods = st.mods[b]
    ps = parents(st, b)
    return [i for i in target_order(st, b) if mods[i][D] and i not in ps]


def effect_targets(st: OrbitalState, a: int, effect: str, bot: bool = False) -> list[tuple[int, int]]:
    """(station, module) pairs an attack-like effect may hit; module -1 for player-level effects.

    A bot player never damages an already damaged module (봇 알고리즘 1).
    """
    out: list[tuple[int, int]] = []
    for b in others(st, a):
        out.extend((b, i) for i in station_targets(st, b, effect, bot))
    return out


def station_targets(st: OrbitalState, b: int, effect: str, bot: bool = False) -> list[int]:
    """The modules of station ``b`` an attack-like effect may hit, in target order; ``[-1]`` when
    a player-level effect (Meteor Storm, Quiet Year) may aim at ``b``: :func:`effect_targets`, one
    station at a time."""
    if effect == "attack_end":
        return end_targets(st, b, undamaged_only=bot)
    if effect in ("attack_any", "sabotage"):
        return any_targets(st, b, undamaged_only=bot or effect == "sabotage")
    if effect == "hull_breach":
        return damaged_end_targets(st, b)
    if effect == "meteor_storm":  # any undamaged end module: no need to order them
        mods = st.mods[b]
        ps = parents(st, b)
        return [-1] if any(not mods[i][D] for i in range(1, len(mods)) if i not in ps) else []
    if effect == "quiet_year":
        return [-1] if st.hands[b] else []
    return []


#: what an attack-like effect may hit (:func:`station_targets`): (end modules only, damage
#: wanted: True damaged, False undamaged, None either), and for a bot player (봇 알고리즘 1:
#: never an already damaged module)
_TARGET_NEEDS = {
    "attack_end": ((True, None), (True, False)),
    "attack_any": ((False, None), (False, False)),
    "sabotage": ((False, False), (False, False)),
    "hull_breach": ((True, True), (True, True)),
    "meteor_storm": ((True, False), (True, False)),
}


def has_target(st: OrbitalState, a: int, effect: str, bot: bool = False) -> bool:
    """Whether :func:`effect_targets` is non-empty, without sorting anything (option listing)."""
    if effect == "quiet_year":
        return any(st.hands[b] for b in others(st, a))
    needs = _TARGET_NEEDS.get(effect)
    if needs is None:
        return False
    end_only, damaged = needs[bot]
    for b in others(st, a):
        mods = st.mods[b]
        if len(mods) < 2:  # the core alone: cores are never targets
            continue
        ps = parents(st, b) if end_only else ()
        for i in range(1, len(mods)):
            if i in ps:
                continue
            if damaged is None or bool(mods[i][D]) is damaged:
                return True
    return False


def can_draw(st: OrbitalState) -> bool:
    return bool(st.deck) or bool(st.discard)


def can_activate(st: OrbitalState, a: int, i: int, bot: bool = False) -> bool:
    """모듈 작동하기: an undamaged module with an arrow, once a year, crew and MC as printed."""
    m = st.mods[a][i]
    if m[D] or m[U]:
        return False
    act = module_action(st, a, i)
    if act is None:
        return False
    crew, mc, effect, _ = act
    if st.crew[a] < crew or st.mc[a] < mc:
        return False
    return effect_applies(st, a, effect, mc_after=st.mc[a] - mc, bot=bot)


def effect_applies(st: OrbitalState, a: int, effect: str, mc_after: int = 0, bot: bool = False) -> bool:
    if effect in ("mc", "crew", "mc_draw"):
        return True
    if effect in ("draw", "observe"):
        return can_draw(st)
    if effect == "repair":
        return bool(damaged_modules(st, a))
    if effect in ("build", "build_military"):
        return can_build(st, a, effect, mc_after)
    if effect == "salvage":
        return bool(st.discard)
    if effect in ("attack_end", "attack_any"):
        return has_target(st, a, effect, bot)
    raise AssertionError(effect)


def event_applies(st: OrbitalState, a: int, card: int, bot: bool = False) -> bool:
    """이벤트 카드 사용하기: only if its effect can apply."""
    e = EVENT_EFFECT[card]
    if e in ("meteor_storm", "quiet_year", "sabotage", "hull_breach"):
        return has_target(st, a, e, bot)
    if e == "insider_contact":
        return can_draw(st) if (st.no_market or bot) else bool(st.market)
    if e in ("reinforcements", "trade_boom", "tax_refund"):
        return True
    if e == "economic_crisis":
        return any(st.mc[b] > 0 for b in others(st, a))
    if e == "crew_rotation":
        return any(m[W] for m in st.mods[a])
    if e == "cold_war":
        return colour_counts(st, a)[PURPLE] > 0
    if e == "high_risk":
        return st.crew[a] > 0
    if e == "supply_drop":
        return can_draw(st)
    if e == "emergency_repairs":
        return bool(damaged_modules(st, a))
    raise AssertionError(e)


# ---------------------------------------------------------------------------- effects
def draw(st: OrbitalState, a: int, n: int, events: list[str]) -> list[int]:
    """Draw ``n`` cards (5. 카드 뽑기: reshuffle the discard pile when the deck runs out)."""
    got = []
    for _ in range(n):
        if not st.deck:
            if not st.discard:
                break
            st.deck = st.discard
            st.discard = []
            st.dpub = []
            st.rng.shuffle(st.deck)
            events.append("the discard pile is shuffled into a new deck")
        got.append(st.deck.pop())
    return got


def to_discard(st: OrbitalState, cards: list[int], public: bool) -> None:
    """Put cards on the discard pile; ``public`` ones were shown face up (a played event, a bot's
    revealed card, a removed module, the old market) and stay visible there, the others (over the
    hand limit, the observatory's rest, Quiet Year) are secret."""
    st.discard.extend(cards)
    if public:
        st.dpub.extend(cards)


def fill_discard(layout: list[int], shown: set[int], pool: list[int]) -> tuple[list[int], list[int]]:
    """The discard pile with its face-up cards in place and its secret places dealt from
    ``pool`` (a card id < 0 or not in ``shown`` is a secret place); returns (pile, rest of pool)."""
    pile = []
    k = 0
    for x in layout:
        if x >= 0 and x in shown:
            pile.append(x)
        else:
            pile.append(pool[k])
            k += 1
    return pile, pool[k:]


def give(st: OrbitalState, a: int, cards: list[int], events: list[str], why: str = "draws") -> None:
    """Put drawn cards in a hand; only that seat may read which (a bot's stack: nobody)."""
    st.hands[a].extend(cards)
    if not cards:
        return
    events.append(f"{name(st, a)} {why} {len(cards)} card(s)")
    if a < st.players:
        events.append(seen_by(a, f"{name(st, a)} {why}: " + ", ".join(CARD_NAME[c] for c in cards)))


def damage(st: OrbitalState, b: int, i: int, events: list[str], n: int = 1) -> None:
    """Put ``n`` damage tokens on module ``i`` of station ``b`` (a shield generator may stop it)."""
    mods = st.mods[b]
    if mods[i][0] == CORE:
        return
    if not st.shield[b] and has_passive(st, b, "shield"):
        st.shield[b] = 1
        events.append(f"{name(st, b)}'s shield generator stops the damage to {CARD_NAME[mods[i][0]]}")
        return
    mods[i][D] += n
    st.damage_dealt += n
    events.append(f"{name(st, b)}'s {CARD_NAME[mods[i][0]]} takes {n} damage")


def repair_one(st: OrbitalState, a: int, i: int, events: list[str]) -> None:
    m = st.mods[a][i]
    m[D] -= 1
    events.append(f"{name(st, a)} repairs 1 damage on {CARD_NAME[m[0]]}")


def remove_module(st: OrbitalState, b: int, i: int, events: list[str]) -> None:
    """게임의 주요 개념 » 제거: the module is discarded, its crew and tokens go back to the supply."""
    card = geo.remove(st.mods[b], i)
    to_discard(st, [card], public=True)
    events.append(f"{name(st, b)}'s {CARD_NAME[card]} is removed and discarded")


def forget(st: OrbitalState, a: int, card: int) -> None:
    """``card`` left ``a``'s hand face up (built, played): it is no longer known to be there."""
    known = st.known[a]
    if card in known:
        known.remove(card)
    elif card in st.maybe[a]:  # it was still there after all: it did not leave in secret
        st.maybe[a].remove(card)
        st.gone[a] = min(st.gone[a], len(st.maybe[a]))


def secret_discard(st: OrbitalState, a: int) -> None:
    """``a`` discarded one card face down (over the hand limit, Quiet Year): nobody else knows
    which, so each card known in that hand may have been it. They become *maybe* cards: at most
    ``gone[a]`` of ``maybe[a]`` have left the hand (one more per secret discard), the rest are
    surely still there. Forgetting them instead would let a sampler deal a card everyone saw go
    into this hand to another hand or the deck, which no real game can show."""
    st.maybe[a] += st.known[a]
    st.known[a] = []
    st.gone[a] = min(st.gone[a] + 1, len(st.maybe[a]))


def deal_maybe(maybe: list[int], gone: int, visible: set[int], room: int,
               rng: Any) -> tuple[list[int], list[int]]:
    """Split one hand's *maybe* cards (:func:`secret_discard`) into those a sample keeps in the
    hand and those it lets have left: ``visible`` cards (face up elsewhere, in the sampling
    seat's own hand) surely left, and each counts against ``gone``; of the rest at most the
    remaining ``gone`` leave, and at least as many as ``room`` (free places in the hand) forces.
    Each secret discard took a maybe card with the chance the maybe cards had among the hand's
    ``room`` + 1 cards (the discard was one of them), a fair guess when nothing else is known."""
    cands = [c for c in maybe if c not in visible]
    gone = min(max(0, gone - (len(maybe) - len(cands))), len(cands))
    if not cands:
        return [], []
    rng.shuffle(cands)
    left = 0
    for _ in range(gone):
        if rng.below(room + 1) < len(cands) - left:
            left += 1
    left = min(max(left, len(cands) - room), len(cands))
    return cands[left:], cands[:left]


def build(st: OrbitalState, a: int, card: int, parent: int, d: int, cost: int, events: list[str]) -> None:
    st.hands[a].remove(card)
    forget(st, a, card)
    st.mc[a] -= cost
    geo.place(st.mods[a], card, parent, d)
    st.built[a] += 1
    events.append(f"{name(st, a)} builds {CARD_NAME[card]} ({COLOURS[CARD_COLOUR[card]]}) for {cost} MC")


def is_used(m: list[int]) -> bool:
    return bool(m[U])


def parent_of(m: list[int]) -> int:
    return m[P]
