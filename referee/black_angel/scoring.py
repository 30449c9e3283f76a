"""Final scoring (rulebook [5] 게임 종료): advanced tiles with their caps, the 2:1 conversion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.black_angel import data as D
from referee.engine import Result, competition_ranks, solo_outcome

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


def component_count(s: BlackAngelState, p: int, counts: str) -> int:
    """How many components of one kind seat p has for an advanced tile to count."""
    if counts.endswith("_tiles"):
        c = D.COLOUR_INDEX[counts[:-6]]
        return sum(1 for t in s.grid[p] if t >= 0 and D.TILE_COLOUR[t] == c)
    if counts == "debris":
        return s.deb[p] + sum(s.gdeb[p])  # 0 on tiles once the game is over (they return)
    if counts == "resources":
        return s.res[p]
    if counts == "ships":
        return s.shp[p]
    if counts == "ravagers":
        return len(s.hand_r[p])
    return sum(len(x) for x in s.ej_cards[p])  # ejected_missions


def advanced_tiles(s: BlackAngelState, p: int) -> list[tuple[int, int]]:
    """(tile, cap) for each advanced tile seat p owns: in the grid, in the 3 spaces, beyond."""
    out = [(t, 4) for t in s.grid[p] if t >= 0 and D.is_advanced(t)]
    for k, t in enumerate(s.ej_adv[p]):
        if t >= 0:
            out.append((t, 4 + 2 * len(s.ej_cards[p][k])))
    out += [(t, 4) for t in s.ej_over[p]]
    return out


def advanced_vp(s: BlackAngelState, p: int) -> int:
    """Each component counts for one tile only: same-kind tiles share the components, the
    highest caps served first (which maximises the total, every component being worth 1)."""
    by_kind: dict[str, list[int]] = {}
    for t, cap in advanced_tiles(s, p):
        by_kind.setdefault(D.ADV[t]["counts"], []).append(cap)
    total = 0
    for kind, caps in by_kind.items():
        left = component_count(s, p, kind)
        for cap in sorted(caps, reverse=True):
            take = min(cap, left)
            total += take
            left -= take
    return total


def conversion_vp(s: BlackAngelState, p: int) -> int:
    """Only when Spes was reached: robots in the break room + resources + stored ships, 2:1."""
    if not s.spes_reached:
        return 0
    return (s.rbreak[p] + s.res[p] + s.shp[p]) // 2


def final_scores(s: BlackAngelState) -> tuple[list[int], dict[str, Any]]:
    scores, parts = [], []
    for p in range(s.players):
        a, c = advanced_vp(s, p), conversion_vp(s, p)
        scores.append(s.vp[p] + a + c)
        parts.append({"track": s.vp[p], "advanced_tiles": a, "conversion": c})
    return scores, {"breakdown": parts, "spes_reached": s.spes_reached}


def result(s: BlackAngelState) -> Result:
    scores, details = final_scores(s)
    if s.solo:
        # [6] 1인 게임 게임 종료: Hal gets nothing extra at the end; "할보다 승점이 높으면 게임에서
        # 승리" — you win only by scoring more than Hal, so a tie is a loss. The seat is ranked
        # against Hal as if he held a seat: 1 when you beat him, else 2 (Hal first).
        rank, outcome = solo_outcome(scores[0], "Hal", s.hal_vp, tie_wins=False)
        details.update(outcome)
        details["hal"] = s.hal_vp
        details["beat_hal"] = rank == 1
        return Result((float(scores[0]),), (rank,), details)
    # ties are shared: the rulebook has no tie-breaker (공동 승리)
    return Result(tuple(float(x) for x in scores), competition_ranks(scores), details)
