"""The house bots as in-process opponents for the single-agent environments.

Why in-process: the built-in bots (arena/intake/house_bots.py names them, sample_bots/ holds them)
are plain ``act(observation, options)`` functions behind a gRPC wrapper; calling ``act``
directly gives the learner the very same opponents the ladder's house bots are, without a
socket per step. ``random`` draws from the environment's seeded generator, ``greedy`` is the
game's deterministic rule-of-thumb bot, ``ismcts`` runs the search bot for a fixed number of
iterations (not a clock) so an episode is reproducible from its seed.

A policy may be an opponent too — ``policy(obs_vector, action_mask) -> action index``, the
signature :func:`arena.sdk.serve_policy` serves — so a trainer can fill the other seats with a
frozen copy of its learner (self-play) inside a Gymnasium vector environment: PettingZoo's
parallel API (and so SuperSuit's vectorisation of it) does not fit games where the engine alone
says who moves, so this is the vector path for multi-seat training (docs/environments.md).
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


def opponent(name: str | Callable, game: str, iterations: int = ISMCTS_ITERATIONS) -> Opponent:
    """The function choosing an option id for ``seat`` in ``state`` as house bot ``name``, or as
    the policy ``name`` if it is callable."""
    if callable(name):
        return _policy_opponent(name, game)
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


def _policy_opponent(policy: Callable, game: str) -> Opponent:
    """``policy(vector, mask) -> index`` seeing what the learner's seat would see in that seat:
    the same encoder and catalogue (imported here: numpy only when a policy is used)."""
    import numpy as np

    from arena.envs import core
    from arena.envs.catalogue import catalogue
    from arena.envs.encoding import encode

    cat = catalogue(game)

    def play(state: GameState, seat: int, rng: random.Random) -> str:
        ids = state.option_ids()
        mask = np.zeros(len(cat), dtype=np.int8)
        mask[[cat.action_of(o) for o in ids]] = 1
        index = policy(encode(core.compact_observation(state, seat)), mask)
        option = cat.ids[int(index)] if 0 <= int(index) < len(cat) else None
        if option not in ids:
            raise ValueError(f"the opponent policy chose action {int(index)}, which is not legal "
                             f"for seat {seat} now (mask it with the action_mask it is given)")
        return option

    return play
