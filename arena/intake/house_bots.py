"""Built-in bots by name (``--bot random``, ``--bot greedy``, ``--bot ismcts``) from any folder.

The sample bots ship inside the installed package, so a name is resolved to their folder there:
an author in their own project can play against them without knowing where pip put them. A path
that exists always wins over a name (a folder called ``greedy`` in the current directory is the
author's own bot).
"""

from __future__ import annotations

from pathlib import Path

import sample_bots

SAMPLE_BOTS = Path(sample_bots.__file__).resolve().parent
NAMES = ("random", "greedy", "ismcts")


class UnknownBuiltin(ValueError):
    """A built-in name that has no bot for this game."""


def resolve(source: str, game: str) -> str:
    """The folder of built-in bot ``source`` for ``game``, or ``source`` unchanged."""
    if source not in NAMES or Path(source).exists():
        return source
    folder = {"random": "random_bot", "ismcts": "ismcts"}.get(source, f"{game}_greedy")
    path = SAMPLE_BOTS / folder
    if not (path / "bot.py").is_file():
        raise UnknownBuiltin(f"there is no built-in {source} bot for {game}; "
                             f"built-in bots: {', '.join(NAMES)} (greedy only for some games)")
    return str(path)
