"""The search bot: information-set MCTS for every game (see ``search.py`` for how it works).

Each decision it samples the hidden information afresh from its observation many times over,
grows one tree of option ids over those samples and plays the most visited option. It spends
``SHARE`` of the decision's own time (never the bank), minus ``RESERVE_MS`` for the answer's
trip back to the referee. Change ``SHARE`` here for a hosted copy (the sandbox passes no
environment); a bot you run yourself also reads ``ARENA_ISMCTS_SHARE`` (0-1) and
``ARENA_ISMCTS_ITERATIONS`` (a cap per decision).
"""

from __future__ import annotations

import os
import zlib

from arena.sdk import Turn, serve_bot
from referee.engine import EngineError

try:  # imported as a package (tests, benchmarks)
    from sample_bots.ismcts.player import decide
except ImportError:  # run from this folder: the sandbox shows only the bot's own folder
    from player import decide  # type: ignore[no-redef]

SHARE = float(os.environ.get("ARENA_ISMCTS_SHARE", "0.5"))
MAX_ITERATIONS = int(os.environ.get("ARENA_ISMCTS_ITERATIONS", "1000000"))
RESERVE_MS = 40.0

match = {"game": "", "id": ""}


def start(info: dict) -> None:
    match["game"] = info["game"]
    match["id"] = f"{info['match_id']}:{info['seat']}"


def act(observation: dict, legal_options: list, turn: Turn) -> tuple[str, str]:
    game = match["game"] or observation["game"]
    seed = zlib.crc32(f"{match['id']}:{turn.decision}".encode())
    legal = [o.id for o in legal_options]
    try:
        result = decide(game, observation, legal, turn.deadline(SHARE, RESERVE_MS), seed, MAX_ITERATIONS)
    except EngineError as exc:  # an engine that cannot rebuild a state: play on, and say why
        return legal[seed % len(legal)], f"no search: {exc}"[:200]
    return result.option_id, result.comment()


if __name__ == "__main__":
    serve_bot(act, start=start)
