"""Terminal rewards from the engine's ranks, shared by every toolkit wrapper.

Documented in docs/environments.md: with ``n`` seats, rank ``r`` (1 best, ties share a rank) pays
``1 - 2 (r - 1) / (n - 1)``: +1 first, -1 last, evenly between. A solo seat is ranked against
the automaton (the engine's ``solo_outcome``): +1 for rank 1 (a win or shared win), -1 otherwise.
When engine-played bot players also take places (Orbital's ``bots-N``), ``n`` is the whole
field (seats and bots), so a seat behind every bot still gets -1 and never less.
"""

from __future__ import annotations

from collections.abc import Sequence


def rank_rewards(ranks: Sequence[int], field: int | None = None) -> list[float]:
    """The reward of each seat; ``field``: how many take places (seats plus bot players)."""
    n = max(len(ranks), field or 0, max(ranks))
    if len(ranks) == 1:
        return [1.0 if ranks[0] == 1 else -1.0]
    return [1.0 - 2.0 * (r - 1) / (n - 1) for r in ranks]
