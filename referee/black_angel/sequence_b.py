"""Sequence B (rulebook [4] 시퀀스 B): reroll, reset your board, advance the Black Angel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.decisions import register
from referee.black_angel.turns import end_turn

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


def reroll(s: BlackAngelState, p: int) -> None:
    """B1: lose VP for unused dice, return them, then one die per workstation robot (if any left)."""
    comp = s.comp[p]
    lost = sum(B.die_face(c) for c in comp)
    if lost:
        lost = B.lose_vp(s, p, lost)
        s.log.append(f"seat {p} loses {lost} VP for unused dice")
    for code in comp:
        B.return_die(s, code)
    comp.clear()
    for c in range(3):
        for _ in range(s.work[p][c]):
            taken, damaged = B.take_die_from_supply(s, c)
            if not taken:
                break
            if damaged:
                lost = B.lose_vp(s, p, 1)  # the cube returns to the supply
                s.log.append(f"seat {p} rolls a damaged {D.COLOURS[c]} die: -{lost} VP")
            comp.append(B.roll(s, c))
    s.log.append(f"seat {p} rolls {len(comp)} dice")


def reroll_neutral(s: BlackAngelState) -> None:
    """2 players: the neutral player's used dice and stars are rolled again; others stay."""
    comp = s.comp[s.players]
    for c in range(3):
        if not s.nwork[c]:
            continue
        idx = [i for i, code in enumerate(comp) if B.die_colour(code) == c]
        if idx:
            i = idx[0]
            if B.die_face(comp[i]) == 0:
                comp[i] = B.roll(s, c)
            continue
        taken, _ = B.take_die_from_supply(s, c)
        if taken:
            comp.append(B.roll(s, c))


def begin_sequence_b(s: BlackAngelState) -> None:
    p = s.seat
    reroll(s, p)
    if s.neutral:
        reroll_neutral(s)
    if s.res[p] >= 1 and any(not B.die_secure(c) for c in s.comp[p]):
        s.ctx = {}
        s.phase = "b_reserve"
        return
    _after_reserve(s)


def _reserve_options(s: BlackAngelState) -> list[tuple[str, str]]:
    out = [("none", "reserve no die")]
    seen = set()
    for i, code in enumerate(s.comp[s.seat]):
        if not B.die_secure(code) and code not in seen:
            seen.add(code)
            out.append((f"reserve:{i}", f"pay 1 resource: reserve {D.COLOURS[B.die_colour(code)]} {B.die_face(code)}"))
    return out


def _reserve_apply(s: BlackAngelState, oid: str) -> None:
    p = s.seat
    if oid != "none":
        s.res[p] -= 1
        s.comp[p][int(oid[8:])] |= 4
        s.log.append(f"seat {p} pays a resource to reserve a die")
    _after_reserve(s)


def reset_board(s: BlackAngelState, p: int) -> None:
    """B2: discard the six played cards; debris on tiles goes back to storage."""
    for i, card in enumerate(s.slots[p]):
        if card < 0:
            continue
        if card >= 100:
            s.rav_disc.append(card)
        else:
            s.m_disc[D.MISSION_COLOUR[card]].append(card)
        s.slots[p][i] = -1
    back = sum(s.gdeb[p])
    if back:
        s.deb[p] += back
        s.gdeb[p] = [0] * 9


def _after_reserve(s: BlackAngelState) -> None:
    p = s.seat
    reset_board(s, p)
    if s.end_trig:
        s.log.append("the end is triggered: the Black Angel no longer advances")
    else:
        S.advance_black_angel(s)
    end_turn(s)


register("b_reserve", "B1: pay 1 resource to reserve one die?", _reserve_options, _reserve_apply)
