"""Which games the platform hosts, found by name.

Engines are imported lazily so that listing games, or running one game, never pays for (or
breaks on) another engine's import.
"""

from __future__ import annotations

import importlib

from referee.engine import ConfigError, GameSpec, GameState

#: name -> "module:Class". Every hosted game is listed here.
_BUILTIN: dict[str, str] = {
    "black_angel": "referee.black_angel.state:BlackAngelState",
    "solenia": "referee.solenia.state:SoleniaState",
    "orbital": "referee.orbital.state:OrbitalState",
}

_extra: dict[str, type[GameState]] = {}


def register(cls: type[GameState]) -> type[GameState]:
    """Register an engine class outside the built-in list (used by tests for a toy game)."""
    _extra[cls.spec.name] = cls
    return cls


def game_names() -> list[str]:
    return sorted(set(_BUILTIN) | set(_extra))


def get_game(name: str) -> type[GameState]:
    """The engine class for ``name``, or a :class:`ConfigError` naming the known games."""
    if name in _extra:
        return _extra[name]
    target = _BUILTIN.get(name)
    if target is None:
        raise ConfigError(f"unknown game {name[:80]!r}; known games: {', '.join(game_names())}")
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


def get_spec(name: str) -> GameSpec:
    return get_game(name).spec


def new_game(name: str, players: int, seed: int, variant: str | None = None) -> GameState:
    return get_game(name).new(players, seed, variant)
