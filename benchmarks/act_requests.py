"""The ``ActRequest`` payloads the call benchmarks send: a real mid-game decision of a game.

Shared by :mod:`benchmarks.bench_referee` (the bare call, the referee's overhead),
:mod:`benchmarks.bench_dialin` (the relayed call) and :mod:`benchmarks.bench_shortcuts`: in a
module of its own so that none of them imports another back.
"""

from __future__ import annotations

import json

from referee import registry
from referee._proto import bot_pb2
from referee.engine import GameState


def _act_request(state: GameState, n: int) -> bot_pb2.ActRequest:
    seat = state.to_move()
    return bot_pb2.ActRequest(
        match_id="bench",
        decision=n,
        observation_json=json.dumps(state.observation(seat), separators=(",", ":")),
        options=[bot_pb2.Option(id=o.id, label=o.label) for o in state.legal_options()],
        time_left_ms=11000,
        bank_left_ms=10000,
        prompt=state.decision_prompt(),
    )


def sample_request(game: str, players: int = 2, seed: int = 1) -> bot_pb2.ActRequest:
    """A mid-game ActRequest of ``game``: the payload the bare call sends."""
    state = registry.new_game(game, players, seed)
    n = 0
    while n < 40 and state.to_move() is not None:
        options = state.legal_options()
        state.apply(options[(n * 7) % len(options)].id)
        n += 1
    if state.to_move() is None:
        state, n = registry.new_game(game, players, seed), 0
    return _act_request(state, n)
