"""Final scoring (rulebook 3. 게임의 종료, 겨울면 효과, 3단계 기술 타일).

Kept apart from the turn loop because the bots score positions with the same functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.solenia.data import (
    DAY,
    NIGHT,
    RES_INDEX,
    SET_BONUS,
    SET_BONUS_CAP,
    TECH_CAP,
    TECH_EFFECT,
    TECH_SIDE,
    TILE_COST,
    TILE_KIND,
    TILE_POINTS,
    WINTER_SLOTS,
    WOOD,
)

if TYPE_CHECKING:
    from referee.solenia.state import SoleniaState


def set_bonus(day_tiles: int, night_tiles: int) -> int:
    """Summer day-night sets: the k-th set is worth SET_BONUS[k-1] (1,2,3,4,0,0), at most 10."""
    sets = min(day_tiles, night_tiles)
    return min(SET_BONUS_CAP, sum(SET_BONUS[:sets]))


def printed(tiles: list[int], resource: int) -> int:
    return sum(TILE_COST[t][resource] for t in tiles)


def tech3_end_points(effect: str, st: SoleniaState, seat: int, tiles: list[int]) -> int:
    """End-of-game points of a level-3 technology tile's laurel effect (before the cap)."""
    res = st.res[seat]
    day = sum(1 for t in tiles if TILE_KIND[t] == DAY)
    night = len(tiles) - day
    if effect == "set_three":
        return 3 * min(day, night)
    if effect == "end_two_day":
        return 2 * day
    if effect == "end_two_night":
        return 2 * night
    if effect == "printed_wood":
        return printed(tiles, WOOD)
    if effect.startswith("held_"):
        return 3 * res[RES_INDEX[effect[5:]]]
    if effect == "cards_left":
        return 3 * sum(1 for o in st.owner if o == seat)
    return 0


def score_breakdown(st: SoleniaState, seat: int) -> dict[str, Any]:
    """Every scoring line for ``seat``; ``total`` is the final score."""
    rows = st.rows[seat]
    tiles = [t for row in rows for t in row if t >= 0]
    out: dict[str, Any] = {
        "tiles": sum(TILE_POINTS[t] for t in tiles),
        "stars": st.stars[seat],
        "resources": sum(st.res[seat]) // 2,
    }
    if not st.winter:
        out["sets"] = set_bonus(sum(1 for t in rows[DAY] if t >= 0), sum(1 for t in rows[NIGHT] if t >= 0))
    else:
        board = 0
        for kind in (DAY, NIGHT):
            for i, slot in enumerate(WINTER_SLOTS[kind]):
                if rows[kind][i] < 0:
                    continue
                if slot["effect"] == "printed_points":
                    r = RES_INDEX[slot["resource"]]
                    board += min(slot["cap"], printed(tiles, r))
                elif slot["effect"] == "end_points":
                    board += slot["points"]
        out["winter_board"] = board
        if st.tech:
            tech = 0
            for k in (DAY, NIGHT):
                tile = st.tech3[seat][k]
                earned = st.tech_pts[seat][k]
                if tile >= 0 and st.tech3_active(seat, TECH_SIDE[tile]):
                    earned += tech3_end_points(TECH_EFFECT[tile], st, seat, tiles)
                tech += min(TECH_CAP, earned)
            out["technology"] = tech
    out["total"] = sum(v for v in out.values())
    return out


def virtual_player_score(st: SoleniaState) -> int:
    """The virtual player's final score, to rank the solo player against it.

    1인용 규칙: it keeps no resources or stars, puts the tiles it takes on its personal board, and
    "점수를 계산하는 방법은 기본 규칙과 같습니다": its tiles' printed points plus, on the summer
    side, the day-night set points (designed reading: the winter side's slots and technology
    need a player's choices, so the virtual player scores only its tiles there).
    """
    tiles = st.vp_tiles
    points = sum(TILE_POINTS[t] for t in tiles)
    if not st.winter:
        day = sum(1 for t in tiles if TILE_KIND[t] == DAY)
        points += set_bonus(day, len(tiles) - day)
    return points

