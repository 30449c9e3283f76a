"""Serve a policy trained on the toolkit spaces as a ladder bot (``arena.sdk.serve_policy``).

Why here and not in the SDK proper: a policy over the environments' spaces needs their
encoder (numpy) and action catalogue, and the platform must run without numpy. The SDK's
``serve_policy`` imports this module only when called.

What the policy sees is what it saw in training: the referee's observation goes through the very
encoder the PettingZoo and Gymnasium environments use (:func:`arena.envs.encoding.encode`), the
legal options become the same int8 ``action_mask`` over the game's action catalogue
(:mod:`arena.envs.catalogue`), and the chosen index is answered as the catalogue's option id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.envs import require
from arena.envs.catalogue import Catalogue, catalogue
from arena.envs.encoding import encode

np = require("numpy", "numpy")

#: The two observations a policy can ask for: the float32[2048] vector, or the referee's dict.
OBSERVATIONS = ("vector", "structured")

Policy = Callable[[Any, Any], Any]


class IllegalChoice(ValueError):
    """The policy chose an action the mask rules out (a bug in the policy, not the game)."""


def action_mask(cat: Catalogue, option_ids: list[str]) -> Any:
    """The int8 mask over ``cat`` of the legal ``option_ids``, as the environments build it."""
    mask = np.zeros(len(cat), dtype=np.int8)
    mask[cat.mask(option_ids)] = 1
    return mask


def policy_act(
    policy: Policy, game: str, observation: str = "vector"
) -> Callable[[dict, list], str]:
    """An SDK ``act(observation, legal_options)`` that asks ``policy`` for an action index.

    ``policy(obs, action_mask)`` gets the float32[2048] vector (``observation="vector"``) or the
    referee's observation dict (``"structured"``) and the int8 mask, and returns an index into
    ``game``'s action catalogue (any integer type). An index the mask rules out raises
    :class:`IllegalChoice`, which the SDK prints to the crash log: a policy that ignores the
    mask has a bug its author should see, not a silent substitute move.
    """
    if observation not in OBSERVATIONS:
        raise ValueError(
            f"observation must be one of {', '.join(OBSERVATIONS)}, not {str(observation)[:40]!r}"
        )
    cat = catalogue(game)
    vector = observation == "vector"

    def act(obs: dict, legal_options: list) -> str:
        mask = action_mask(cat, [o.id for o in legal_options])
        choice = policy(encode(obs) if vector else obs, mask)
        try:
            index = int(choice)
        except (TypeError, ValueError):
            raise IllegalChoice(
                f"the policy returned {str(choice)[:40]!r}, not an action index"
            ) from None
        if not (0 <= index < len(cat) and mask[index]):
            label = repr(cat.ids[index]) if 0 <= index < len(cat) else "outside the catalogue"
            raise IllegalChoice(
                f"the policy chose action {index} ({label}), which the mask rules out"
            )
        return cat.ids[index]

    return act


def serve_policy(policy: Policy, game: str, observation: str = "vector", **serve: Any) -> None:
    """Serve ``policy`` for ``game`` as a bot (see :func:`policy_act`); ``serve`` goes to
    :func:`arena.sdk.serve_bot` (``start``, ``end``, ``name``, ``argv``)."""
    from arena.sdk import serve_bot

    serve_bot(policy_act(policy, game, observation), **serve)
