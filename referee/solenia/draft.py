"""기술 타일 드래프트 (상급 규칙 2, and the solo game with technology).

Level-1 tiles are revealed one per player; level-3 tiles are revealed as day+night sets, one
per player, never pairing the two tiles whose day and night sides are identical (Q&A 6).
Players pick in reverse turn order, one level-1 tile or one set per pick, until each has one
of each. Solo: two of each are revealed and the player takes one per level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.engine import Option
from referee.solenia.data import (
    DAY,
    NIGHT,
    TECH_EFFECT,
    TECH_IDENTICAL,
    TECH_LEVEL1,
    TECH_LEVEL3,
    TECH_TEXT,
)

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def can_pair(day_tile: int, night_tile: int) -> bool:
    e = TECH_EFFECT[day_tile]
    return not (e in TECH_IDENTICAL and e == TECH_EFFECT[night_tile])


def setup_draft(st: SoleniaState) -> None:
    rng = st.rng
    n = 2 if st.solo else st.players
    level1 = list(TECH_LEVEL1)
    rng.shuffle(level1)
    st.offer1 = level1[:n]
    days = list(TECH_LEVEL3[DAY])
    nights = list(TECH_LEVEL3[NIGHT])
    rng.shuffle(days)
    rng.shuffle(nights)
    sets = []
    for _ in range(n):
        d = days.pop()
        for i in range(len(nights) - 1, -1, -1):
            if can_pair(d, nights[i]):
                sets.append([d, nights.pop(i)])
                break
    st.offer3 = sets
    st.draft_queue = [0, 0] if st.solo else list(reversed(range(st.players))) * 2


def options(st: SoleniaState) -> list[Option]:
    seat = st.draft_queue[0]
    out = []
    if st.tech1[seat] < 0:
        out += [Option(f"tech1:{t}", f"level 1: {TECH_TEXT[t]}") for t in st.offer1]
    if st.tech3[seat][DAY] < 0:
        out += [
            Option(f"tech3:{k}", f"level 3 set: day {TECH_TEXT[d]} / night {TECH_TEXT[nt]}")
            for k, (d, nt) in enumerate(st.offer3)
        ]
    return out


def pick(st: SoleniaState, kind: str, arg: int, events: list[str]) -> None:
    seat = st.draft_queue.pop(0)
    if kind == "tech1":
        st.offer1.remove(arg)
        st.tech1[seat] = arg
        events.append(f"P{seat + 1} takes level-1 technology: {TECH_TEXT[arg]}")
    else:
        d, nt = st.offer3.pop(arg)
        st.tech3[seat][DAY] = d
        st.tech3[seat][NIGHT] = nt
        events.append(f"P{seat + 1} takes the level-3 set: {TECH_TEXT[d]} / {TECH_TEXT[nt]}")
