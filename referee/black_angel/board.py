"""Shared low-level board operations: dice, decks, effects, damage.

These are the verbs every rule module uses (draw a mission, gain a resource, put a damage cube
on an action). Keeping them in one place means a rule like "reshuffle an empty mission deck"
is written exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.black_angel import data as D

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

# A die is one int: colour * 8 + secure * 4 + face value (0 = star, 1, 2, 3).


def die(colour: int, face: int, secure: int = 0) -> int:
    return colour * 8 + secure * 4 + face


def die_colour(code: int) -> int:
    return code >> 3


def die_face(code: int) -> int:
    return code & 3


def die_secure(code: int) -> bool:
    return bool(code & 4)


def flipped(code: int) -> int:
    """The opposite face: faces 0,1,1,2,3,3 are arranged so opposite faces differ by 2."""
    return code ^ 2


def roll(s: BlackAngelState, colour: int) -> int:
    return die(colour, D.FACES[s.rng.below(6)])


def take_die_from_supply(s: BlackAngelState, colour: int) -> tuple[bool, bool]:
    """Remove one die of ``colour`` from its supply. Returns (taken, was_damaged).

    The roller picks the dice it takes, and an undamaged die is the same die without the
    penalty, so undamaged dice are taken first; a damaged one is taken only when no other die of
    that colour is left, and then it cannot be refused ([4] 시퀀스 B 1 알림).
    """
    if s.supply[colour] <= 0:
        return False, False
    damaged = s.sdmg[colour] >= s.supply[colour]
    s.supply[colour] -= 1
    if damaged:
        s.sdmg[colour] -= 1
    return True, damaged


def return_die(s: BlackAngelState, code: int) -> None:
    s.supply[die_colour(code)] += 1


def draw_mission(s: BlackAngelState, colour: int) -> int:
    """Top card of a mission deck, reshuffling its discard pile when the deck is empty; -1 if none."""
    deck = s.m_deck[colour]
    if not deck:
        disc = s.m_disc[colour]
        if not disc:
            return -1
        deck.extend(disc)
        disc.clear()
        s.rng.shuffle(deck)
        s.log.append(f"the {D.COLOURS[colour]} mission deck is reshuffled")
    return deck.pop()


def lose_vp(s: BlackAngelState, p: int, n: int) -> int:
    """Move a disc down the score track; the track ends at 0, so a score never goes negative.

    Returns the VP actually lost. Seat -1 is Hal.
    """
    have = s.hal_vp if p < 0 else s.vp[p]
    n = min(n, max(have, 0))
    if p < 0:
        s.hal_vp -= n
    else:
        s.vp[p] -= n
    return n


def gain_vp(s: BlackAngelState, p: int, n: int) -> None:
    """Score for a seat, or for Hal (seat -1)."""
    if p < 0:
        s.hal_vp += n
    else:
        s.vp[p] += n


def apply_effect(s: BlackAngelState, p: int, eff: dict[str, Any], times: int = 1) -> None:
    """Resolve a printed effect (tile, mission reward or activation) ``times`` times for seat p."""
    if p < 0:
        from referee.black_angel.hal import hal_gain_effect

        hal_gain_effect(s, eff, times)
        return
    for _ in range(times):
        for key, val in eff.items():
            if key == "vp":
                s.vp[p] += val
            elif key == "resource":
                s.res[p] += val
            elif key == "debris":
                s.deb[p] += val
            elif key == "ship":
                s.shp[p] += val
            elif key == "robot":
                n = min(val, s.rsup[p])
                s.rsup[p] -= n
                s.rbreak[p] += n
            elif key == "worker":
                add_worker(s, p, D.COLOUR_INDEX[val])
            elif key == "draw":
                mid = draw_mission(s, D.COLOUR_INDEX[val])
                if mid >= 0:
                    s.hand_m[p].append(mid)


def add_worker(s: BlackAngelState, p: int, colour: int) -> None:
    """Move a robot from the break room to a workstation; a neutral robot there leaves the game."""
    if s.rbreak[p] <= 0:
        return
    s.rbreak[p] -= 1
    s.work[p][colour] += 1
    if s.neutral and s.nwork[colour]:
        s.nwork[colour] = 0
        s.log.append(f"the neutral robot leaves the {D.COLOURS[colour]} workstation")


def article(word: str) -> str:
    """``word`` with "a" or "an" before it ("an orange", "a gray")."""
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _counted(n: object, word: str) -> str:
    return f"+{n} {word}" if n == 1 else f"+{n} {word}s"


def effect_text(eff: dict[str, Any]) -> str:
    """An effect dict in player words, for event lines and option labels: ``{"vp": 2, "draw":
    "orange"}`` → "2 VP, draw an orange mission" (never the data's keys, "vp 2")."""
    parts = []
    for key, val in eff.items():
        if key == "vp":
            parts.append(f"{val} VP")
        elif key in ("resource", "robot", "ship"):
            parts.append(_counted(val, key))
        elif key == "debris":
            parts.append(f"+{val} debris")
        elif key == "worker":
            parts.append(f"a robot to the {val} workstation")
        elif key == "draw":
            parts.append(f"draw {article(str(val))} mission")
        else:
            parts.append(f"{str(key).replace('_', ' ')} {val}")
    return ", ".join(parts) or "nothing"


def damage_action(s: BlackAngelState, action: int) -> None:
    """A Ravager arrives at an action: a cube on the action, else on a die in that colour's supply."""
    if s.dmg[action] < D.MAX_DAMAGE:
        s.dmg[action] += 1
        return
    colour = D.ACTION_COLOUR[action]
    if s.supply[colour] > s.sdmg[colour]:
        s.sdmg[colour] += 1
        s.log.append(f"a damage cube lands on a {D.COLOURS[colour]} die in the supply")


def draw_ravager(s: BlackAngelState) -> int:
    """Draw a Ravager. Emptying the deck triggers the end of the game and reshuffles the discards."""
    if not s.rav_deck:
        if not s.rav_disc:
            return -1
        s.rav_deck.extend(s.rav_disc)
        s.rav_disc.clear()
        s.rng.shuffle(s.rav_deck)
    card = s.rav_deck.pop()
    if not s.rav_deck:
        s.log.append("the Ravager deck is exhausted")
        s.trigger_end()
        if s.rav_disc:
            s.rav_deck.extend(s.rav_disc)
            s.rav_disc.clear()
            s.rng.shuffle(s.rav_deck)
    return card


def _placeable_left(s: BlackAngelState) -> bool:
    """Is any card in the Ravager deck or discard pile aimed at an action with room for it?"""
    full = [len(on) >= D.MAX_RAVAGERS for on in s.rav_on]
    if not any(full):
        return bool(s.rav_deck or s.rav_disc)
    return any(not full[D.RAV_ACTION[c]] for c in s.rav_deck) or any(
        not full[D.RAV_ACTION[c]] for c in s.rav_disc)


def ravager_arrives(s: BlackAngelState) -> None:
    """One Ravager icon: draw, place at its action (max 3 there, else discard and draw again).

    The rulebook's "discard it and draw another" is followed for as long as some card left in
    the deck or the discard pile could be placed; only when none could (every action its cards
    aim at already holds 3) does the icon bring no Ravager, since drawing on could never end.
    """
    while _placeable_left(s):
        card = draw_ravager(s)
        if card < 0:
            return
        a = D.RAV_ACTION[card]
        if len(s.rav_on[a]) >= D.MAX_RAVAGERS:
            s.rav_disc.append(card)
            s.log.append(f"Ravager for action {a + 1} discarded: already 3 there")
            continue
        s.rav_on[a].append(card)
        damage_action(s, a)
        s.log.append(f"a Ravager attacks action {a + 1} ({D.RAV_EFFECT[card]})")
        return
    s.log.append("no Ravager card left could find room at its action: none arrives")


def push_display(s: BlackAngelState, colour: int) -> None:
    """A new technology tile of ``colour`` enters the display at the top, pushing the others down."""
    stack = s.t_stack[colour]
    if not stack:
        return
    tile = stack.pop()
    disp = s.display
    carry = tile
    for i in range(D.DISPLAY_SIZE):
        carry, disp[i] = disp[i], carry
        if carry < 0:
            break
    if carry >= 0:
        s.t_disc.append(carry)
    s.log.append(f"a {D.COLOURS[colour]} technology tile enters the display")
