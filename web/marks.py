"""The last-move marks every board shows (issue #37 item 6): the same drawing at ``/play``, on
the live page and in the replay viewer, with each seat's latest move written in its player panel
(``data-last-move``, the board macro ``player_head``).

The boards read a seat's name as ``seats[i].name`` and its mark as ``seats[i].last_move``; the
live and replay pages hold the match's seat rows, so :class:`MarkedSeat` adds the mark to a
row without copying it. Spectators see public information only: the live stream's public
choices (a hidden choice stays "a hidden choice") and the finished match's public record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from web.labels import plain
from web.option_words import choice_words


class MarkedSeat:
    """A seat row with its last move (``None``: not marked); every other attribute is the row's."""

    def __init__(self, row: Any, last_move: dict[str, Any] | None) -> None:
        self._row = row
        self.last_move = last_move

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, name)


def mark(rows: Sequence[Any], moves: dict[int, dict[str, Any]]) -> list[MarkedSeat]:
    """The seat rows, each with its marked move from ``moves`` (by seat)."""
    return [MarkedSeat(row, moves.get(getattr(row, "seat", i))) for i, row in enumerate(rows)]


def live_words(game: str, d: dict[str, Any]) -> str:
    """A public decision of the live stream in the board's words — the very words of the
    player's own move log at ``/play`` and of the replay (:func:`web.option_words.choice_words`,
    without the seat's view, which a spectator has not): "build Airlock for 6 MC", not
    "build:45:0.1". A hidden choice stays "a hidden choice"."""
    if d.get("private_choice"):
        return "a hidden choice"
    option, label = str(d.get("option") or ""), str(d.get("label") or "")
    return choice_words(game, option, label or option) if option else plain(label)


def live_moves(log: Iterable[dict[str, Any]], game: str) -> dict[int, dict[str, Any]]:
    """Each seat's latest move in a live page's public log (oldest first), in the words a
    player reads (:func:`live_words`)."""
    marks: dict[int, dict[str, Any]] = {}
    for d in log:
        seat = d.get("seat")
        if not isinstance(seat, int):
            continue
        marks[seat] = {"n": d.get("n"), "words": live_words(game, d),
                       "events": [plain(e) for e in d.get("events") or []]}
    return marks


def step_moves(step: Any) -> dict[int, dict[str, Any]]:
    """The replay step's mark: the move that led to this position (as lichess marks it)."""
    decision = getattr(step, "decision", None)
    if decision is None or not isinstance(getattr(decision, "seat", None), int):
        return {}
    return {decision.seat: {"n": step.index - 1, "words": plain(step.label or decision.option_id),
                            "events": [plain(e) for e in step.events]}}
