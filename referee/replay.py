"""Re-apply a match record with the engine and check that it tells the same story.

The engine is deterministic, so seed + option ids must reproduce every event line, whose turn it
was at each decision, and the result. Any difference means the record was altered or the engine
changed behaviour: either way the replay must fail loudly and say exactly where.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from referee import registry
from referee.engine import ConfigError, GameState, IllegalAction, audience_of
from referee.record import MatchRecord, final_ranks


class ReplayMismatch(Exception):
    """The record and the engine disagree. ``differences`` lists each disagreement."""

    def __init__(self, differences: list[str]) -> None:
        self.differences = differences
        shown = "\n  ".join(differences[:20])
        more = f"\n  … and {len(differences) - 20} more" if len(differences) > 20 else ""
        super().__init__(f"replay differs from the record:\n  {shown}{more}")


@dataclass(frozen=True)
class ReplaySummary:
    decisions: int
    result: dict[str, Any]


def _canonical(value: Any) -> Any:
    """JSON round-trip, so tuples and lists (or int and float keys) compare as stored."""
    return json.loads(json.dumps(value, sort_keys=True))


def replay(record: MatchRecord) -> tuple[GameState, ReplaySummary]:
    """Replay ``record``; return the final state, or raise :class:`ReplayMismatch`."""
    try:
        state = registry.new_game(record.game, record.players, record.seed, record.variant)
    except ConfigError as exc:
        raise ReplayMismatch([f"the record's game cannot be set up: {exc}"]) from None
    except ImportError as exc:
        raise ReplayMismatch([f"the {record.game} engine cannot be loaded: {exc}"]) from None
    diffs: list[str] = []
    opening = list(state.opening_events())
    if opening != record.opening_events:
        diffs.append(f"opening events differ: record {record.opening_events!r}, engine {opening!r}")
    for i, d in enumerate(record.decisions):
        where = f"decision {i}"
        if d.n != i:
            diffs.append(f"{where}: numbered {d.n} in the record")
        to_move = state.to_move()
        if to_move is None:
            diffs.append(f"{where}: the game is already over, but the record goes on "
                         f"({len(record.decisions) - i} more decisions)")
            raise ReplayMismatch(diffs)
        if to_move != d.seat:
            diffs.append(f"{where}: the record says seat {d.seat} chose, the engine says seat {to_move}")
        secret = state.option_audience(d.option)
        try:
            events = state.apply(d.option)
        except IllegalAction as exc:
            diffs.append(f"{where}: option {d.option!r} is illegal here: {exc}")
            raise ReplayMismatch(diffs) from None
        if events != d.events:
            diffs.append(f"{where}: events differ: record {d.events!r}, engine {events!r}")
        if d.event_audiences is not None:  # records made before audiences have none to check
            heard = [None if (a := audience_of(e)) is None else list(a) for e in events]
            if heard != d.event_audiences or (None if secret is None else list(secret)) != d.option_audience:
                diffs.append(f"{where}: audiences differ: record {d.option_audience!r} {d.event_audiences!r}, "
                             f"engine {secret!r} {heard!r}")
    if not state.is_over():
        diffs.append(f"the record ends after {len(record.decisions)} decisions, "
                     f"but the game is not over (seat {state.to_move()} to move)")
        raise ReplayMismatch(diffs)
    result = state.result()
    forfeited = {f.seat for f in record.forfeits}
    expected = {
        "scores": list(result.scores),
        "ranks": final_ranks(list(result.ranks), forfeited, result.details.get("automaton_rank")),
        "engine_ranks": list(result.ranks),
        "details": result.details,
    }
    for key, value in expected.items():
        recorded = record.result.get(key)
        if _canonical(recorded) != _canonical(value):
            diffs.append(f"result {key}: record {recorded!r}, engine {value!r}")
    for f in record.forfeits:
        later = [d for d in record.decisions[f.decision:] if d.seat == f.seat and not d.forced]
        if later:
            diffs.append(f"seat {f.seat} forfeited at decision {f.decision} but chose again at "
                         f"decision {later[0].n}")
    forced_seats = {d.seat for d in record.decisions if d.forced}
    if not forced_seats <= forfeited:
        diffs.append(f"seats {sorted(forced_seats - forfeited)} have forced decisions but no forfeit")
    if diffs:
        raise ReplayMismatch(diffs)
    return state, ReplaySummary(len(record.decisions), expected)
