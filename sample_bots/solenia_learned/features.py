"""What the learned Solenia bot's value reads of a position: 26 numbers per seat.

Why these: they are the quantities the greedy bot's hand-written evaluation combines (points
banked, resources and how late it is, the best supply tile each row can still afford) plus the
ones it ignores (each resource on its own, room left in each row, how far ahead the opponent is,
whether the game is over), so a linear mix of them can be greedy's judgement (exactly, with
:data:`GREEDY_WEIGHTS`) or one fitted to how games ended.
Everything is read from the state as the seat sees it: its own cards, public tiles, scores and
resources, never another seat's hand.
"""

from __future__ import annotations

from referee.solenia.data import TILE_COST, TILE_POINTS
from referee.solenia.scoring import score_breakdown
from referee.solenia.state import P_OVER, SoleniaState

NAMES = (
    "points", "resources", "resources_x_left", "left", "best_day", "best_night",
    "best_day_x_left", "best_night_x_left", "res0", "res1", "res2", "res3",
    "affordable", "over", "stars", "tile_points", "room_day", "room_night",
    "opp_points", "opp_resources", "margin", "used", "final_margin_if_over", "total",
    "greedy_if_live", "total_if_over",
)
#: The greedy bot's evaluation as weights on these features: its rule of thumb while the game
#: goes on, the final score once it is over. The learned model starts from exactly these.
GREEDY_WEIGHTS = {"greedy_if_live": 1.0, "total_if_over": 1.0}
SIZE = len(NAMES)


def _best_affordable(st: SoleniaState, seat: int) -> tuple[list[float], int]:
    """The most points of a supply tile on show that ``seat`` can pay for now, per row with room
    (day, night), and how many such tiles there are."""
    res = st.res[seat]
    best = [0.0, 0.0]
    affordable = 0
    for kind in (0, 1):
        if not st.row_has_room(seat, kind):
            continue
        for t in st.market[kind]:
            if t >= 0 and all(res[r] >= TILE_COST[t][r] for r in range(4)):
                best[kind] = max(best[kind], float(TILE_POINTS[t]))
                affordable += 1
    return best, affordable


def greedy_value(st: SoleniaState, seat: int) -> float:
    """The greedy bot's rule of thumb alone (what :data:`GREEDY_WEIGHTS` make of the features,
    without computing the others): the final score once the game is over; before, points banked
    plus resources (worth more early) plus part of the best tile each row can already buy."""
    b = score_breakdown(st, seat)
    if st.phase == P_OVER:
        return float(b["total"])
    left = (len(st.hand[seat]) + len(st.deck[seat])) / 16.0
    best, _ = _best_affordable(st, seat)
    return (b["total"] - b["resources"] + sum(st.res[seat]) * (0.5 + 0.8 * left)
            + 0.3 * (best[0] + best[1]) * left)


def features(st: SoleniaState, seat: int) -> list[float]:
    """The :data:`NAMES` values of ``st`` for ``seat`` (two-player games: the other seat is the
    opponent; with more, the best of the others)."""
    b = score_breakdown(st, seat)
    over = st.phase == P_OVER
    left = (len(st.hand[seat]) + len(st.deck[seat])) / 16.0
    res = st.res[seat]
    best, affordable = _best_affordable(st, seat)
    others = [score_breakdown(st, s)["total"] for s in range(st.players) if s != seat]
    opp = max(others) if others else 0
    opp_res = max((sum(st.res[s]) for s in range(st.players) if s != seat), default=0)
    total = float(b["total"])
    points = total - b["resources"]
    greedy = points + sum(res) * (0.5 + 0.8 * left) + 0.3 * (best[0] + best[1]) * left
    return [
        points, float(sum(res)), sum(res) * left, left, best[0], best[1],
        best[0] * left, best[1] * left, *map(float, res),
        float(affordable), float(over), float(b["stars"]), float(b["tiles"]),
        float(st.row_has_room(seat, 0)), float(st.row_has_room(seat, 1)),
        float(opp), float(opp_res), total - opp, float(st.used[seat]),
        (total - opp) if over else 0.0, total,
        0.0 if over else greedy, total if over else 0.0,
    ]
