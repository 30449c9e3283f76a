"""Toolkit environments (PettingZoo, Gymnasium, OpenSpiel) over the referee's engines.

Why a separate package behind an extra: the platform (referee, server, CLI) must run without
numpy or any RL toolkit, so nothing outside ``arena.envs`` imports them, and each toolkit module
checks its own dependency with :func:`require` so a missing one is a one-line message, not a
traceback. Install with ``pip install -e ".[envs]"``; docs/environments.md explains the spaces.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtra(ImportError):
    """A toolkit the environments need is not installed."""


def require(module: str, package: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtra` naming the pip extra that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(
            f"arena.envs needs the {package!r} package, which is not installed; "
            f'install the environments extra: pip install -e ".[envs]" (or pip install {package})'
        ) from exc
