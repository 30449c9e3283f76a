"""One decision of the ISMCTS bot: observation in, option id out (no gRPC here).

The benchmark and the tests call :func:`decide` in-process; ``bot.py`` wraps it for the referee.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from arena.sdk import sample_state

try:  # imported as a package (tests, benchmarks)
    from sample_bots.ismcts.heuristics import values_for
    from sample_bots.ismcts.search import SearchResult, Settings, observation_seat, search
except ImportError:  # run from the bot's own folder: the sandbox shows only that folder
    from heuristics import values_for  # type: ignore[no-redef]
    from search import SearchResult, Settings, observation_seat, search  # type: ignore[no-redef]

def decide(
    game: str,
    observation: dict[str, Any],
    legal: list[str],
    deadline: float,
    seed: int,
    max_iterations: int = 1_000_000,
    settings: Settings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Search from ``observation`` until ``deadline`` (a ``clock()`` time) or ``max_iterations``."""
    seat = observation_seat(observation)
    if len(legal) == 1:
        return SearchResult(legal[0], 0, 0.0, {legal[0]: 0}, 0.5)
    base = sample_state(game, observation, seed)
    values, tuned = values_for(game, base)
    cfg = settings or tuned
    cfg.max_iterations = min(cfg.max_iterations, max_iterations)
    return search(base, seat, legal, values, deadline, seed ^ 0x15C7, cfg, clock)
