"""A finished match as training rows: one row per decision, as the acting seat saw it.

Why here, beside the environments: a dataset row must hold exactly what an environment hands an
agent at that decision — the seat's observation (JSON and the hashed vector of
:mod:`arena.envs.encoding`), the legal options and their action numbers in the game's fixed
catalogue (:mod:`arena.envs.catalogue`) — so a model trained on the archive can be played in the
environments unchanged. The rows are rebuilt by replaying the record with the engine (the record
stores the seed and the option chosen at each decision), and every row is built from
``state`` *and the acting seat only*: :func:`decision_row` reads nothing the seat could not see
(no other seat's observation, no events, no seed), which tests/envs/test_decisions.py checks by
re-sampling everything else (``GameState.determinise``) and comparing rows.

The database, the filters and the file formats are the platform's part
(``arena export dataset``, :mod:`arena.cli.export`); this module needs neither.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from arena.envs.catalogue import Catalogue, catalogue
from arena.envs.core import compact_observation, fresh_observation
from arena.envs.encoding import encode
from arena.envs.encoding import np as _np
from referee import registry
from referee.engine import GameState
from referee.record import MatchRecord

_EMPTY_INDEX = _np.zeros(0, _np.uint16)
_EMPTY_VALUE = _np.zeros(0, _np.float32)


class DecisionReplayError(ValueError):
    """A record whose decisions the engine does not accept (altered, or made by other rules)."""


@dataclass(frozen=True)
class SeatRow:
    """What one decision looked like to the seat that made it (see docs/datasets.md)."""

    observation_json: bytes  # orjson of the observation (compact or whole: see ``whole``)
    vector_index: Any  # the non-zero buckets of arena.envs.encoding.encode, ascending (uint16 array)
    vector_value: Any  # their values (float32 array)
    option_ids: list[str]  # the legal options in the engine's order
    legal_actions: list[int]  # their catalogue action numbers, sorted (the mask's ones)
    choice: str  # the option chosen
    choice_index: int  # its position in option_ids
    action: int  # its catalogue action number


def decision_row(state: GameState, seat: int, choice: str, cat: Catalogue, whole: bool = False,
                 vector: bool = True) -> SeatRow:
    """The row of ``seat`` choosing ``choice`` in ``state``. Reads ``state`` only through what
    ``seat`` is shown: its observation and its legal options (which the referee sends it).
    ``vector=False`` leaves the vector empty (it is ``encode`` of the observation, about half
    the cost of a row: a loader can compute it from the JSON when it wants it)."""
    observation = fresh_observation(state, seat) if whole else compact_observation(state, seat)
    if vector:
        dense = encode(observation, whole=whole)
        nonzero = dense.nonzero()[0]
        buckets, values = nonzero.astype(_np.uint16), dense[nonzero]
    else:
        buckets, values = _EMPTY_INDEX, _EMPTY_VALUE
    options = state.option_ids()
    try:
        index = options.index(choice)
    except ValueError:
        raise DecisionReplayError(f"option {choice[:80]!r} is not among the legal options") from None
    return SeatRow(
        orjson.dumps(observation),
        buckets,
        values,
        options,
        cat.mask(options),
        choice,
        index,
        cat.index[choice],
    )


def record_rows(record: MatchRecord, whole: bool = False,
                vector: bool = True) -> Iterator[tuple[int, int, bool, SeatRow]]:
    """``(decision number, seat, forced, row)`` for every decision of ``record``, replaying it.

    A decision the engine refuses raises :class:`DecisionReplayError` (the caller skips that
    match and says so); the full check of a record against the engine is ``referee.replay``."""
    try:
        state = registry.new_game(record.game, record.players, record.seed, record.variant)
    except Exception as exc:  # noqa: BLE001 - a configuration or engine this build cannot set up
        raise DecisionReplayError(f"the match cannot be set up: {exc}") from None
    cat = catalogue(record.game)
    for d in record.decisions:
        seat = state.to_move()
        if seat is None or seat != d.seat:
            raise DecisionReplayError(f"decision {d.n}: the record says seat {d.seat}, the engine {seat}")
        try:
            row = decision_row(state, seat, d.option, cat, whole, vector)
        except DecisionReplayError as exc:
            raise DecisionReplayError(f"decision {d.n}: {exc}") from None
        yield d.n, seat, d.forced, row
        try:
            state.apply(d.option)
        except Exception as exc:  # noqa: BLE001 - IllegalAction or an engine refusing altered input
            raise DecisionReplayError(f"decision {d.n}: {exc}") from None


def vector_size() -> int:
    """The length of the dense vector a row's ``vector_index``/``vector_value`` spell."""
    from arena.envs.encoding import SIZE

    return SIZE


def dense_vector(index: list[int], value: list[float]) -> Any:
    """A row's vector as the dense float32 array the environments hand out."""
    out = _np.zeros(vector_size(), dtype=_np.float32)
    out[_np.asarray(index, dtype=_np.intp)] = _np.asarray(value, dtype=_np.float32)
    return out


__all__ = ["DecisionReplayError", "SeatRow", "decision_row", "dense_vector", "record_rows"]
