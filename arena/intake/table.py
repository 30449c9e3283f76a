"""The qualification table: where a submission's qualification match and its SPRT pairs are
played, and the bot they are played against.

Shared by :mod:`arena.intake.qualification` (one match against the random bot) and
:mod:`arena.intake.sprt_runner` (pairs against the predecessor, or the random bot), which
qualification starts: in a module of its own so neither imports the other back.
"""

from __future__ import annotations

from arena.intake.house_bots import RANDOM_BOT
from referee import registry
from referee.engine import ConfigError

__all__ = ["RANDOM_BOT", "table_for"]


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
