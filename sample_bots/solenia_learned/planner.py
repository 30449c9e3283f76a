"""The learned Solenia bot's search: greedy's turn planner, then a short look-ahead judged by a
learned value.

Why this shape: the greedy bot (``sample_bots/solenia_greedy``) plans the rest of its own turn —
every card, cell, supply tile, payment and slot — and keeps the outcome its hand-written rule of
thumb likes best. Its blind spot is what happens next: the rule cannot see what the opponent
will buy with the tiles and resources a turn leaves on the table. So :func:`look_ahead` keeps
greedy's few best first options, plays each one out for a couple of turns on a few samples of
the hidden cards (both seats playing greedy, :func:`greedy_move`), and asks the learned value
(``model.onnx``: the final margin a position is worth, fitted to how greedy's games ended) which
of those futures is best. :func:`choose` is greedy's planner with any evaluation of the ends of a
turn, without the look-ahead (this bot's previous form: docs/environments.md says why it did not
beat greedy). The bot folder holds its own copy of greedy's search and rule of thumb because
the sandbox shows a hosted bot only its own folder (and the ``arena``/``referee`` packages); a
test checks that the copy plays as the greedy bot does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.solenia.data import CARD_VALUE, RES_INDEX, TILE_COST, TILE_POINTS
from referee.solenia.geometry import DISTANCE, ship_pos
from referee.solenia.observed import state_from_observation
from referee.solenia.scoring import score_breakdown
from referee.solenia.state import P_CARD, P_DROP, P_GAIN, P_OVER, P_SPEND, P_VPCELL, SoleniaState

try:
    from sample_bots.solenia_learned.features import greedy_value
except ImportError:  # run from this folder (the sandbox)
    from features import greedy_value  # type: ignore[no-redef]

_MICRO = (P_GAIN, P_DROP, P_SPEND, P_VPCELL)
_MAX_LEAVES = 600

#: ``evaluate(leaves, seat) -> values``: the worth of each end-of-turn state for ``seat``.
Evaluator = Callable[[list[SoleniaState], int], list[float]]


def resource_need(st: SoleniaState, seat: int) -> list[float]:
    """How much each resource helps towards the supply tiles on show (the greedy bot's rule)."""
    res = st.res[seat]
    need = [0.0, 0.0, 0.0, 0.0]
    for kind in (0, 1):
        if not st.row_has_room(seat, kind):
            continue
        for t in st.market[kind]:
            if t < 0:
                continue
            cost = TILE_COST[t]
            missing = sum(max(0, cost[r] - res[r]) for r in range(4))
            weight = TILE_POINTS[t] / (1.0 + missing)
            for r in range(4):
                if cost[r] > res[r]:
                    need[r] += weight
    return need


def _micro_choice(st: SoleniaState, seat: int, ids: list[str]) -> str:
    if st.phase == P_VPCELL:
        ship = ship_pos(st.ship_col)
        return max(ids, key=lambda i: (DISTANCE[int(i.split(":")[1])][ship], i))
    need = resource_need(st, seat)
    res = st.res[seat]

    def keep_value(i: str) -> float:
        r = RES_INDEX[i.split(":")[1]]
        return need[r] - 0.4 * res[r]

    if st.phase == P_GAIN:
        return max(ids, key=keep_value)
    return min(ids, key=keep_value)


class _Search:
    """Enumerates the rest of the turn after each first option; collects the leaves."""

    def __init__(self, seat: int, start_used: int) -> None:
        self.seat = seat
        self.start_used = start_used
        self.leaves: list[SoleniaState] = []

    def turn_over(self, st: SoleniaState) -> bool:
        if st.phase == P_OVER or st.to_move() != self.seat:
            return True
        if st.cur != self.seat and st.phase != P_DROP:
            return True
        return st.phase == P_CARD and st.used[self.seat] > self.start_used

    def collect(self, st: SoleniaState) -> list[int]:
        """Indices (into :attr:`leaves`) of the end-of-turn states reachable from ``st``."""
        while not self.turn_over(st) and st.phase in _MICRO:
            st.apply(_micro_choice(st, self.seat, st.option_ids()))
        if self.turn_over(st) or len(self.leaves) > _MAX_LEAVES:
            self.leaves.append(st)
            return [len(self.leaves) - 1]
        out: list[int] = []
        for oid in st.option_ids():
            child = st.clone()
            child.apply(oid)
            out += self.collect(child)
        return out


def ranked(st: SoleniaState, seat: int, ids: list[str], evaluate: Evaluator) -> list[str]:
    """``ids`` best first by the value of each one's best end of turn (ties: the earlier id)."""
    search = _Search(seat, st.used[seat])
    reach = []
    for oid in ids:
        child = st.clone()
        child.apply(oid)
        reach.append(search.collect(child))
    values = evaluate(search.leaves, seat)
    scored = []
    for n, (oid, leaves) in enumerate(zip(ids, reach, strict=True)):
        v = max(values[i] for i in leaves)
        if oid.startswith("card:") and CARD_VALUE[int(oid.split(":")[1])] == 0:
            v -= 0.2  # a <0> card is better kept for when nothing else fits (greedy's rule)
        scored.append((-v, n, oid))
    return [oid for _, _, oid in sorted(scored)]


def greedy_evaluate(leaves: list[SoleniaState], seat: int) -> list[float]:
    """The greedy bot's rule of thumb, as an :data:`Evaluator`."""
    return [greedy_value(st, seat) for st in leaves]


def _sampled(obs: dict[str, Any], sample: int = 0) -> SoleniaState:
    """A playable state of what the seat sees, the hidden cards drawn anew for each ``sample``
    (seeded by the observation: the same observation always gives the same samples)."""
    return state_from_observation(obs, seed=obs["raw"]["vp_used"] * 131 + sum(obs["raw"]["used"]) + 7919 * sample)


def choose(obs: dict[str, Any], ids: list[str], evaluate: Evaluator) -> str:
    """Greedy's planner with ``evaluate`` judging the ends of the turn: the option whose best
    end of turn it values most (ties: the first)."""
    if len(ids) == 1:
        return ids[0]
    st = _sampled(obs)
    if st.phase in _MICRO:
        return _micro_choice(st, obs["seat"], ids)
    return ranked(st, obs["seat"], ids, evaluate)[0]


def greedy_move(st: SoleniaState) -> str:
    """What the greedy bot plays in ``st`` for whoever is to move (the look-ahead's playouts;
    a test checks it against the greedy bot itself)."""
    seat = st.to_move()
    ids = st.option_ids()
    if len(ids) == 1:
        return ids[0]
    if st.phase in _MICRO:
        return _micro_choice(st, seat, ids)
    return ranked(st, seat, ids, greedy_evaluate)[0]


def play_turns(st: SoleniaState, turns: int) -> SoleniaState:
    """Play ``st`` on with greedy on every seat until ``turns`` more cards are played (a turn
    each) and the next turn is about to begin, or the game ends."""
    until = sum(st.used) + turns
    while st.phase != P_OVER and not (st.phase == P_CARD and sum(st.used) >= until):
        st.apply(greedy_move(st))
    return st


#: A finished game's worth in the value's units: the final margin plus this per win (minus per
#: loss), the target the value was fitted to.
WIN_BONUS = 5.0


def margin_worth(margin: float) -> float:
    """A final margin plus :data:`WIN_BONUS` if it is a win, minus it if a loss."""
    return margin + WIN_BONUS * ((margin > 0) - (margin < 0))


def final_worth(st: SoleniaState, seat: int) -> float:
    """:func:`margin_worth` of ``seat``'s final margin over the best other seat."""
    totals = [score_breakdown(st, s)["total"] for s in range(st.players)]
    return margin_worth(totals[seat] - max(t for s, t in enumerate(totals) if s != seat))


def look_ahead(obs: dict[str, Any], ids: list[str], value: Evaluator, *,
               candidates: int = 3, samples: int = 2, turns: int = 2) -> str:
    """Greedy's ``candidates`` best first options, each played on for ``turns`` turns on
    ``samples`` samples of the hidden cards (the same samples for every option, so they differ
    only by their own consequences); the option whose futures ``value`` sums highest (a
    finished game counts its :func:`final_worth`). Ties go to greedy's order."""
    if len(ids) == 1:
        return ids[0]
    seat = obs["seat"]
    st = _sampled(obs)
    if st.phase in _MICRO:
        return _micro_choice(st, seat, ids)
    best = ranked(st, seat, ids, greedy_evaluate)[:candidates]
    if len(best) == 1:
        return best[0]
    futures = []
    for sample in range(samples):
        base = st if sample == 0 else _sampled(obs, sample)
        for oid in best:
            child = base.clone()
            child.apply(oid)
            futures.append(play_turns(child, turns))
    live = [f for f in futures if f.phase != P_OVER]
    judged = iter(value(live, seat) if live else [])
    worth = [final_worth(f, seat) if f.phase == P_OVER else next(judged) for f in futures]
    totals = [sum(worth[i::len(best)]) for i in range(len(best))]
    return best[max(range(len(best)), key=lambda i: (totals[i], -i))]
