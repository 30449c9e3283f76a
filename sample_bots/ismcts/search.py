"""Information-set Monte Carlo tree search (single observer) over any engine of the platform.

Why this shape:

* The bot only ever has its observation. :func:`arena.sdk.sample_state` turns it into one
  playable state; every iteration then re-deals what the seat cannot see with the engine's own
  ``determinise`` (other hands, deck orders, future rolls), so the tree's statistics average over
  the hidden information instead of trusting one guess (the "determinised" bias of plain MCTS
  on a single sample).
* One tree per decision, keyed by option ids from the observer's point of view (all seats'
  choices are edges, as in Cowling, Powley & Whitehouse's SO-ISMCTS). An option is only counted
  as *available* in the iterations whose sample offers it, and UCB uses that availability count
  in place of the parent's visits, so options that exist only in some samples are not starved.
* Re-dealing costs more than the rest of an iteration (a Black Angel deal shuffles five decks),
  so the first ``samples`` iterations each deal afresh and later ones replay one of those deals
  chosen at random, with a fresh generator for the rolls still to come.
* Whole random playouts to the end are long and noisy (a Black Angel game is 60-120 decisions),
  so a playout runs a few random decisions and then scores the position with a per-game
  heuristic (:mod:`sample_bots.ismcts.heuristics`), turned into a value in [0, 1] per seat.
* Time: the search stops at a deadline (``time.perf_counter()``) checked every iteration, or after
  ``max_iterations``, whichever comes first; the caller derives the deadline from the decision's
  clock and never plans on the bank.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.engine import GameState
from referee.rng import Rng

Values = Callable[[GameState], list[float]]
Policy = Callable[[GameState, list[str], Rng], str]
#: at most this many random decisions to finish a turn in a playout
TURN_CAP = 40


class Node:
    """One edge-and-node of the tree: statistics of the option that led here."""

    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


@dataclass
class SearchResult:
    """What one search decided, with enough detail for a replay comment or a benchmark."""

    option_id: str
    iterations: int
    seconds: float
    visits: dict[str, int]
    value: float

    def comment(self) -> str:
        return (f"ISMCTS {self.iterations} it in {self.seconds * 1000:.0f} ms; "
                f"{self.visits.get(self.option_id, 0)} visits, value {self.value:.2f}")


@dataclass
class Settings:
    """Search knobs. ``exploration`` is UCB's constant for values in [0, 1]."""

    exploration: float = 0.7
    rollout_depth: int = 6
    #: first finish the decisions of the seat that made the last tree move (its turn), so the
    #: leaf is scored between turns, not halfway through a payment
    to_turn_end: bool = True
    #: distinct deals of the hidden information; later iterations reuse one (with fresh rolls)
    samples: int = 48
    #: playout policy ``(state, option ids, rng) -> id``; None plays uniformly at random
    policy: Policy | None = None
    max_iterations: int = 1_000_000


def search(
    base: GameState,
    seat: int,
    legal: list[str],
    values: Values,
    deadline: float,
    seed: int,
    settings: Settings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Choose one of ``legal`` for ``seat`` from ``base`` (a state sampled from the observation).

    ``values(state)`` scores any state (over or not) as one number in [0, 1] per seat.
    Stops at ``deadline`` (a ``clock()`` time: wall time for a bot, whose clock is the referee's;
    ``time.process_time`` lets a benchmark give CPU time that other processes cannot steal) or
    after ``settings.max_iterations``; at least one iteration is run, so a bot with no time left
    still answers legally.
    """
    cfg = settings or Settings()
    started = clock()
    if len(legal) == 1:
        return SearchResult(legal[0], 0, 0.0, {legal[0]: 0}, 0.5)
    rng = Rng(seed)
    root = Node()
    allowed = set(legal)
    c = cfg.exploration
    depth = cfg.rollout_depth
    turn_end = cfg.to_turn_end
    policy = cfg.policy
    log = math.log
    sqrt = math.sqrt
    iterations = 0
    pool: list[GameState] = []
    reseed = hasattr(base, "rng")
    while True:
        if len(pool) < cfg.samples:
            state = base.determinise(seat, rng.next64())
            pool.append(state.clone())
        else:
            state = pool[rng.below(len(pool))].clone()
            if reseed:  # the same deal, other rolls to come
                state.rng = Rng(rng.next64())
        node = root
        path: list[tuple[Node, int]] = []
        at_root = True
        while True:
            mover = state.to_move()
            if mover is None:
                break
            ids = state.option_ids()
            if at_root:
                ids = [i for i in ids if i in allowed] or legal
                at_root = False
            children = node.children
            untried = [i for i in ids if i not in children]
            if untried:
                oid = untried[rng.below(len(untried))]
                child = children[oid] = Node()
                for i in ids:
                    ch = children.get(i)
                    if ch is not None:
                        ch.avail += 1
                state.apply(oid)
                path.append((child, mover))
                break
            best, best_v = ids[0], -1.0
            for i in ids:
                ch = children[i]
                ch.avail += 1
                v = ch.total / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                if v > best_v:
                    best, best_v = i, v
            node = children[best]
            state.apply(best)
            path.append((node, mover))
        if turn_end and path:
            last = path[-1][1]
            for _ in range(TURN_CAP):
                if state.to_move() != last:
                    break
                ids = state.option_ids()
                state.apply(policy(state, ids, rng) if policy else ids[rng.below(len(ids))])
        for _ in range(depth):
            if state.to_move() is None:
                break
            ids = state.option_ids()
            state.apply(policy(state, ids, rng) if policy else ids[rng.below(len(ids))])
        reward = values(state)
        for child, mover in path:
            child.visits += 1
            child.total += reward[mover]
        iterations += 1
        if iterations >= cfg.max_iterations or clock() >= deadline:
            break
    visits = {oid: ch.visits for oid, ch in root.children.items() if oid in allowed}
    best_id = max(visits, key=lambda i: (visits[i], root.children[i].total))
    chosen = root.children[best_id]
    return SearchResult(best_id, iterations, clock() - started, visits,
                        chosen.total / chosen.visits if chosen.visits else 0.5)


def reward_from_points(points: list[float], scale: float, baseline: float | None = None) -> list[float]:
    """Turn per-seat point estimates into values in [0, 1].

    With rivals, a seat's value is a logistic of its lead over the best other seat (winning is
    what counts, by how much only a little). Alone (a solo game) it is a logistic of the points
    over ``baseline`` (the automaton's score, or the estimate at the root).
    """
    n = len(points)
    if n == 1:
        return [_logistic((points[0] - (baseline or 0.0)) / scale)]
    out = []
    for s in range(n):
        rival = max(points[o] for o in range(n) if o != s)
        out.append(_logistic((points[s] - rival) / scale))
    return out


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def final_values(scores: list[float], ranks: list[int], scale: float, baseline: float | None = None) -> list[float]:
    """Values of a finished game: mostly the win (shared wins split), a little the margin."""
    margin = reward_from_points(scores, scale, baseline)
    if len(scores) == 1:
        return margin
    winners = sum(1 for r in ranks if r == 1)
    return [0.75 * ((1.0 / winners) if r == 1 else 0.0) + 0.25 * m for r, m in zip(ranks, margin, strict=True)]


def observation_seat(obs: dict[str, Any]) -> int:
    """The seat an observation belongs to (``seat``; older Black Angel observations: ``you``)."""
    return int(obs["seat"] if "seat" in obs else obs["you"])
