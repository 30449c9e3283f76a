"""What every toolkit wrapper shares: one game in progress, seen as action numbers and vectors.

Why a core apart from the wrappers: PettingZoo, Gymnasium and OpenSpiel each want the same
three things from an engine state — the legal action numbers (:mod:`arena.envs.catalogue`), a
seat's vector (:mod:`arena.envs.encoding`) and terminal rewards (:mod:`arena.envs.rewards`) — and
the text board for ``render_mode="ansi"``; keeping them here keeps the wrappers thin and alike.
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from typing import Any

import orjson

from arena.envs.catalogue import GAMES, Catalogue
from arena.envs.rewards import rank_rewards
from referee import registry
from referee.engine import ConfigError, GameState


def check_config(game: str, players: int, variant: str | None) -> str:
    """The variant to play, or :class:`ConfigError` (a clear message) for a bad combination."""
    if game not in GAMES:
        raise ConfigError(f"no environment for game {str(game)[:80]!r}; games: {', '.join(GAMES)}")
    if not isinstance(players, int) or isinstance(players, bool):
        raise ConfigError(f"players must be an integer, not {type(players).__name__}")
    return registry.get_spec(game).check(players, variant)


def configurations(game: str) -> list[tuple[int, str]]:
    """Every (players, variant) the game offers — what ``arena games`` lists."""
    return list(registry.get_spec(game).configurations)


def new_state(game: str, players: int, variant: str, seed: int) -> GameState:
    return registry.new_game(game, players, seed, variant)


def fresh_observation(state: GameState, seat: int) -> dict[str, Any]:
    """``state.observation(seat)`` as a new object tree: an engine may share parts of it between
    calls, and a toolkit user keeps (and may modify) every observation handed out."""
    return orjson.loads(orjson.dumps(state.observation(seat)))


def compact_observation(state: GameState, seat: int) -> dict[str, Any]:
    """The keys of ``state.observation(seat)`` that determine all of it (``seat``, ``raw`` and the
    private cards: :data:`arena.envs.encoding.SUFFICIENT`), equal to the observation's, built by
    the engine's own ``views.compact`` without the readable rest (card texts, names, totals) —
    several times cheaper, and all the vector encodes. Shared: read it, do not keep it."""
    return _compact(state.spec.name)(state, seat)


@cache
def _compact(game: str) -> Any:
    return importlib.import_module(f"referee.{game}.views").compact


def legal_actions(cat: Catalogue, state: GameState) -> list[int]:
    return cat.mask(state.option_ids())


def option_of(cat: Catalogue, state: GameState, action: Any) -> str:
    """The option id of ``action`` if it is legal now, else a ``ValueError`` saying so."""
    try:
        number = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"an action is an integer index into the action catalogue, "
                         f"not {str(action)[:40]!r}") from None
    if not 0 <= number < len(cat):
        raise ValueError(f"action {number} is outside the catalogue of {cat.game} (0..{len(cat) - 1})")
    option_id = cat.ids[number]
    if option_id not in state.option_ids():
        raise ValueError(f"action {number} ({option_id!r}) is not legal now")
    return option_id


def terminal_rewards(state: GameState) -> list[float]:
    """Rank rewards; bot players that take places (``details["places"]``) count in the field."""
    result = state.result()
    return rank_rewards(result.ranks, len(result.details.get("places") or result.ranks))


def board_text(state: GameState) -> str:
    """The board as text: who moves, the decision, the public board and the legal options of
    the seat to move — what that seat may see, never the seed (from which every hidden card
    could be rebuilt) nor another seat's hidden state."""
    lines = [f"{state.spec.title} ({state.players} players, {state.variant})"]
    if state.is_over():
        result = state.result()
        lines.append(f"game over: scores {list(result.scores)}, ranks {list(result.ranks)}")
    else:
        lines.append(f"seat {state.to_move()} to move: {state.decision_prompt()}")
    _text(state.public_view(), "", lines)
    if not state.is_over():
        lines.append("options: " + ", ".join(f"{o.id} ({o.label})" for o in state.legal_options()[:20]))
    return "\n".join(lines) + "\n"


#: The render modes of every wrapper: PettingZoo's classic games' (text printed, text, image).
RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_mode(mode: str | None) -> None:
    """``ValueError`` (a clear message) for a render mode the wrappers do not offer."""
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, {', '.join(map(repr, RENDER_MODES))}, "
                         f"not {str(mode)[:40]!r}")


def render(state: GameState | None, mode: str | None) -> Any:
    """``render()`` of the toolkit wrappers: the text for ``ansi``, printed for ``human``
    (PettingZoo's and Gymnasium's convention: ``human`` returns ``None``), the board as an
    H x W x 3 ``uint8`` image for ``rgb_array`` (:mod:`arena.envs.picture`, needs Pillow)."""
    if mode is None:
        return None
    if mode == "rgb_array":
        from arena.envs.picture import picture

        return picture(state)
    if state is None:
        text = "no game yet: call reset()\n"
    else:
        text = board_text(state)
    if mode == "human":
        print(text, end="", flush=True)
        return None
    return text


def _text(node: Any, indent: str, lines: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, dict | list) and len(json.dumps(value)) > 90:
                lines.append(f"{indent}{key}:")
                _text(value, indent + "  ", lines)
            else:
                lines.append(f"{indent}{key}: {json.dumps(value)}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if isinstance(value, dict | list) and len(json.dumps(value)) > 90:
                lines.append(f"{indent}[{i}]")
                _text(value, indent + "  ", lines)
            else:
                lines.append(f"{indent}[{i}] {json.dumps(value)}")
    else:
        lines.append(f"{indent}{json.dumps(node)}")
