"""Qualification: a new bot version plays one short match against the random bot first.

Only a version that finishes that match without a fault (no crash, no overrun clock, no illegal
answer, no failed start) is activated. The point is to catch a broken upload before it wastes
tournament slots and drags opponents' ratings about, and to tell its author exactly why: the
fault kind, the referee's message and the tail of the bot's own stderr (its traceback).

The match is the game's smallest table with two seats when the game allows it (the candidate in
seat 0, random bots in the others), sandboxed like every hosted match.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee import registry
from referee.engine import ConfigError, TimeControl
from referee.faults import REASONS, SERVER_ERROR
from referee.match import MatchConfig, SeatSpec, run_match

log = logging.getLogger("arena.qualification")

RANDOM_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "random_bot"

LOG_TAIL_CHARS = 4000


@dataclass(frozen=True)
class Outcome:
    """How qualification went; ``kind``/``message``/``log_tail`` are empty when it passed."""

    passed: bool
    match_id: str
    kind: str = ""
    message: str = ""
    log_tail: str = ""
    record: dict[str, Any] | None = None


def table_for(game: str) -> tuple[int, str]:
    """(players, variant) of the qualification match: two seats if possible, default variant."""
    spec = registry.get_spec(game)
    counts = spec.player_counts
    players = 2 if 2 in counts else min(counts)
    try:
        variant = spec.check(players, None)
    except ConfigError:
        variant = spec.variants_for(players)[0]
    return players, variant


def qualify(
    game: str,
    source: str,
    *,
    name: str = "candidate",
    seed: int | None = None,  # None: a secret random one
    sandbox: bool = True,
    time_control: TimeControl | None = None,
    startup_ms: int = 10000,
    opponent: Path = RANDOM_BOT,
) -> Outcome:
    """Play the qualification match of ``source`` (a bot folder or host:port) for ``game``."""
    players, variant = table_for(game)
    seats = [SeatSpec(name, source)] + [SeatSpec(f"random-{i}", str(opponent)) for i in range(1, players)]
    config = MatchConfig(
        game=game, seats=seats, seed=secrets.randbits(31) if seed is None else seed, variant=variant, time_control=time_control, sandbox=sandbox,
        startup_ms=startup_ms,
    )
    try:
        record = run_match(config)
    except ConfigError as exc:
        return Outcome(False, config.match_id, SERVER_ERROR, f"the qualification match could not start: {exc}")
    except Exception as exc:  # noqa: BLE001 - an engine or runner failure is not the bot's fault,
        # but the version cannot be activated without a clean match; the log has the traceback.
        log.exception("qualification match %s failed", config.match_id)
        return Outcome(False, config.match_id, SERVER_ERROR, f"the qualification match failed on the server: {exc}")
    data = record.to_dict()
    forfeit = record.forfeit_of(0)
    if forfeit is None:
        return Outcome(True, record.match_id, record=data)
    kind = forfeit.reason  # the refusal kind is the fault reason itself: one vocabulary
    why = REASONS.get(forfeit.reason, forfeit.reason)
    message = f"{why} (decision {forfeit.decision}): {forfeit.message}"
    return Outcome(False, record.match_id, kind, message, forfeit.log_tail[-LOG_TAIL_CHARS:], data)
