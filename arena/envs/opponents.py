"""The house bots as in-process opponents for the single-agent environments.

Why in-process: the built-in bots (arena/intake/house_bots.py names them, sample_bots/ holds them)
are plain ``act(observation, options)`` functions behind a gRPC wrapper; calling ``act``
directly gives the learner the very same opponents the ladder's house bots are, without a
socket per step. ``random`` draws from the environment's seeded generator, ``greedy`` is the
game's deterministic rule-of-thumb bot, ``ismcts`` runs the search bot for a fixed number of
iterations (not a clock) so an episode is reproducible from its seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from arena.intake import house_bots
from arena.sdk import Option
from referee.engine import GameState

NAMES = ("greedy", "random", "ismcts")
#: ISMCTS iterations per decision: enough to beat random clearly, cheap enough to train against.
ISMCTS_ITERATIONS = 200

Opponent = Callable[[GameState, int, random.Random], str]


def opponent(name: str, game: str, iterations: int = ISMCTS_ITERATIONS) -> Opponent:
    """The function choosing an option id for ``seat`` in ``state`` as house bot ``name``."""
    if name == "random":
        return lambda state, seat, rng: rng.choice(state.option_ids())
    if name == "greedy":
        act = house_bots.in_process("greedy", game)

        def greedy(state: GameState, seat: int, rng: random.Random) -> str:
            options = [Option(o.id, o.label) for o in state.legal_options()]
            return str(act(state.observation(seat), options))

        return greedy
    if name == "ismcts":
        decide = house_bots.in_process("ismcts", game)

        def ismcts(state: GameState, seat: int, rng: random.Random) -> str:
            legal = state.option_ids()
            return decide(game, state.observation(seat), legal, math.inf, rng.randrange(2**31),
                          iterations).option_id

        return ismcts
    raise ValueError(f"unknown opponent {str(name)[:40]!r}; choose one of: {', '.join(NAMES)}")
