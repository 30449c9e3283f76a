"""The house bots' registry: built-in bots by name (``--bot random``, ``--bot greedy``,
``--bot ismcts``) from any folder.

The sample bots ship inside the installed package, so a name is resolved to their folder there:
an author in their own project can play against them without knowing where pip put them. A path
that exists always wins over a name (a folder called ``greedy`` in the current directory is the
author's own bot).

Which bots there are, in which folder of which package, and which function plays each one in
process (the toolkit environments' opponents, :mod:`arena.envs.opponents`) is data:
``house_bots.json`` beside this module. The package that holds them is *found*, not imported:
the sample bots are bots (they import :mod:`arena.sdk`), a layer above the platform, so the
platform asks the import system where that package lies and loads a bot's code only by the name
the registry gives it, when asked to.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

REGISTRY: dict[str, Any] = json.loads(
    Path(__file__).with_name("house_bots.json").read_text(encoding="utf-8"))
NAMES: tuple[str, ...] = tuple(REGISTRY["bots"])


class UnknownBuiltin(ValueError):
    """A built-in name that has no bot for this game."""


def _package_folder(package: str) -> Path:
    """The folder of ``package`` without running its code (``find_spec`` of a top-level name
    imports nothing); where it is not installed, the folder beside ``arena/`` in a checkout, so
    that a missing bot is reported when it is asked for (:func:`resolve`), not at import."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return Path(__file__).resolve().parents[2] / package
    return Path(next(iter(spec.submodule_search_locations))).resolve()


#: The folder of the package that ships the house bots (sample_bots/).
SAMPLE_BOTS = _package_folder(REGISTRY["package"])
#: The random bot: qualification's opponent (and the SPRT's, against no predecessor).
RANDOM_BOT = SAMPLE_BOTS / REGISTRY["bots"]["random"]["folder"]


def resolve(source: str, game: str) -> str:
    """The folder of built-in bot ``source`` for ``game``, or ``source`` unchanged."""
    if source not in NAMES or Path(source).exists():
        return source
    path = SAMPLE_BOTS / REGISTRY["bots"][source]["folder"].format(game=game)
    if not (path / "bot.py").is_file():
        raise UnknownBuiltin(f"there is no built-in {source} bot for {game}; "
                             f"built-in bots: {', '.join(NAMES)} (greedy and learned only for some games)")
    return str(path)


def in_process(name: str, game: str) -> Callable[..., Any]:
    """The function that plays built-in bot ``name`` for ``game`` inside the caller's process
    (``module:attribute`` in the registry), loaded by that name when first asked for."""
    target = REGISTRY["bots"].get(name, {}).get("in_process")
    if target is None:
        raise UnknownBuiltin(f"the built-in {name} bot does not play in process")
    module, _, attribute = target.format(game=game).partition(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError as exc:
        raise UnknownBuiltin(f"there is no built-in {name} bot for {game}") from exc
