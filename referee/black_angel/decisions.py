"""The registry of decision kinds: phase name -> (list the options, apply one).

Each rule module registers the decisions it owns, so the state's decision loop stays generic
and a rule reads top to bottom in its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState

OptionsFn = Callable[["BlackAngelState"], list[tuple[str, str]]]
ApplyFn = Callable[["BlackAngelState", str], None]

PHASES: dict[str, tuple[OptionsFn, ApplyFn]] = {}
PROMPTS: dict[str, str] = {}


def register(name: str, prompt: str, options: OptionsFn, apply: ApplyFn) -> None:
    PHASES[name] = (options, apply)
    PROMPTS[name] = prompt
