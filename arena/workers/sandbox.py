"""Whether the platform's matches run their bots in bubblewrap: on unless ``ARENA_SANDBOX=0``.

One switch for every match the platform plays (qualification, SPRT, ladder, tournaments, people's
games and challenges), read where the match is set up; the server's settings
(:class:`arena.server.config.ServerConfig`) take their default from here too.
"""

from __future__ import annotations

import os

SANDBOX_ENV = "ARENA_SANDBOX"


def sandbox_default() -> bool:
    """Sandboxing is on unless ``ARENA_SANDBOX=0`` says otherwise (development machines)."""
    return os.environ.get(SANDBOX_ENV, "1").strip().lower() not in ("0", "false", "no", "off")
