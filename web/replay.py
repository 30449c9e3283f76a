"""Rebuild any moment of a stored match from its record (seed, variant, decision ids).

A match record stores no boards: the engine is deterministic, so seed + the option ids replays
the game exactly. The record already carries each decision's events, comment and time, so the
match page lists the whole event log without touching the engine; only the *board* of a step
needs a replay. Replaying from the start for every step would make stepping through a long game
quadratic, and storing every spectator view would cost megabytes per match, so a
:class:`Replay` keeps a cloned state every ``CHECKPOINT_EVERY`` decisions, made lazily as far as
the viewer has gone: a step's board is then at most ``CHECKPOINT_EVERY`` ``apply`` calls away.
Replays live in a small LRU cache keyed by match id, because a viewer stepping through a match
asks for many steps of the same match in a row.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from referee import registry
from referee.black_angel.board import effect_text
from referee.engine import EngineError, GameState
from web.option_words import choice_words, needs_view

CHECKPOINT_EVERY = 16
CACHE_SIZE = 32


class ReplayError(Exception):
    """The record cannot be replayed (unknown game, or an id the engine rejects)."""


@dataclass(frozen=True)
class Decision:
    """One decision as the record stores it (``referee.record.Decision``)."""

    seat: int
    option_id: str
    comment: str
    elapsed_ms: float | None
    forced: bool
    events: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "option_id": self.option_id,
            "comment": self.comment,
            "elapsed_ms": self.elapsed_ms,
            "forced": self.forced,
            "events": list(self.events),
        }


def decisions_from_record(record: dict[str, Any] | None) -> list[Decision]:
    """The decisions of a match record, tolerant of records written by older referees."""
    out: list[Decision] = []
    for item in (record or {}).get("decisions") or []:
        if not isinstance(item, dict):
            raise ReplayError(f"decision {len(out)} is not an object")
        option = item.get("option", item.get("option_id"))
        if not isinstance(option, str):
            raise ReplayError(f"decision {len(out)} has no option id")
        elapsed = item.get("wall_ms", item.get("elapsed_ms"))
        events = item.get("events") or []
        out.append(
            Decision(
                seat=int(item.get("seat", -1)),
                option_id=option,
                comment=str(item.get("comment") or "")[:200],
                elapsed_ms=float(elapsed) if isinstance(elapsed, int | float) else None,
                forced=bool(item.get("forced", False)),
                events=tuple(str(e) for e in events),
            )
        )
    return out


#: Black Angel effects as event lines worded them before issue 27 ("vp 2, draw orange").
_OLD_EFFECT = re.compile(
    r"\b(?:resource|debris|vp|robot|draw|ship|worker) [a-z0-9]+"
    r"(?:, (?:resource|debris|vp|robot|draw|ship|worker) [a-z0-9]+)*\b"
)


def _old_effect(match: re.Match[str]) -> str:
    parts = (p.split(" ", 1) for p in match.group(0).split(", "))
    return effect_text({k: int(v) if v.isdigit() else v for k, v in parts})


def reworded(game: str, line: str) -> str:
    """A recorded event line in the words the engine uses now.

    Issue 27 reworded some Black Angel lines ("draws a orange mission" → "draws an orange
    mission", "activates tile 102: vp 2" → "…: 2 VP"); a match recorded before must not read as
    diverged for that. Only the wording changes: a number, a colour or a line that differs still
    differs."""
    if game != "black_angel":
        return line
    return _OLD_EFFECT.sub(_old_effect, re.sub(r"\bdraws a (?=[aeiou])", "draws an ", line))


def same_events(game: str, recorded: tuple[str, ...], replayed: tuple[str, ...]) -> bool:
    """Whether the engine's lines are the recorded ones, line by line, allowing a rewording."""
    return len(recorded) == len(replayed) and all(
        old == new or reworded(game, old) == new for old, new in zip(recorded, replayed, strict=True)
    )


@dataclass(frozen=True)
class StepView:
    """The board of step ``index`` (after ``index`` decisions) and the decision that led there."""

    index: int
    last: int
    decision: Decision | None
    label: str | None
    prompt: str
    events: tuple[str, ...]
    to_move: int | None
    view: dict[str, Any]
    result: dict[str, Any] | None
    #: The engine's event lines differ from the ones the record stored for this decision: the
    #: engine changed since the match was played, so this board may not be what happened.
    diverged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "diverged": self.diverged,
            "index": self.index,
            "last": self.last,
            "decision": self.decision.to_json() if self.decision else None,
            "label": self.label,
            "prompt": self.prompt,
            "events": list(self.events),
            "to_move": self.to_move,
            "view": self.view,
            "result": self.result,
        }


def _words(game: str, state: GameState, seat: Any, option_id: str, label: str | None) -> str | None:
    """The chosen option in the board's words (issue #37: "build Airlock north of Core", not
    "module 0 side N"), read in the seat's view when the words name a place. A record is
    public once the match is over, so the seat's view of a past decision hides nothing."""
    if label is None:
        return None
    view = state.observation(seat) if isinstance(seat, int) and needs_view(game, option_id) else None
    return choice_words(game, option_id, label, view)


class Walk:
    """What a :class:`Replay` gathers in its walk through the game — each decision's words
    (:meth:`Replay.labels`) and a checkpoint every ``CHECKPOINT_EVERY`` decisions — gathered
    instead during the regeneration of a compact record (issue 40): the regeneration's
    per-decision hook (:data:`arena.records.compact.Visit`), so that a cold match page walks
    the engine once, not twice (once to regenerate the record, once for the viewer).

    Pass one to :func:`arena.records.stored.record_data` and then to :class:`Replay`: when the
    record was regenerated in this read (``done``), the replay takes the walk's words and
    checkpoints; otherwise (stored JSON, a record from a cache) it walks the engine itself, as
    before."""

    def __init__(self) -> None:
        self.game: str | None = None
        self.labels: list[str | None] = []
        self.checkpoints: dict[int, GameState] = {}
        self.done = False

    def __call__(self, i: int, state: GameState, chosen: Any) -> None:  # noqa: ANN401 - an Option
        if i == 0:
            self.game = state.spec.name
        if i % CHECKPOINT_EVERY == 0:
            self.checkpoints[i] = state.clone()
        if chosen is None:  # after the last decision
            self.done = True
            return
        self.labels.append(_words(self.game, state, state.to_move(), chosen.id, chosen.label))


class Replay:
    """Random access to every step of one match, with lazily made checkpoints."""

    def __init__(self, record: dict[str, Any], walk: Walk | None = None) -> None:
        game = record.get("game")
        if not isinstance(game, str):
            raise ReplayError("the match record names no game")
        self.game = game
        self.decisions = decisions_from_record(record)
        self._lock = threading.Lock()
        self._labels: list[str | None] | None = None
        if (walk is not None and walk.done and walk.game == game and 0 in walk.checkpoints
                and len(walk.labels) == len(self.decisions)):
            # the record's regeneration walked the game for us (one walk, not two)
            self._checkpoints: dict[int, GameState] = dict(walk.checkpoints)
            self._labels = list(walk.labels)
            return
        players = record.get("players")
        if not isinstance(players, int):
            players = len(record.get("seats") or [])
        try:
            start = registry.new_game(
                game, players, int(record.get("seed", 0)), record.get("variant")
            )
        except (EngineError, ImportError) as exc:
            raise ReplayError(f"cannot replay {game}: {exc}") from exc
        self._checkpoints = {0: start}

    @property
    def last(self) -> int:
        return len(self.decisions)

    def _state_before(self, index: int) -> GameState:
        """A private copy of the state after ``index`` decisions, saving checkpoints on the way."""
        with self._lock:
            base = max(k for k in self._checkpoints if k <= index)
            state = self._checkpoints[base].clone()
        for i in range(base, index):
            self._apply(state, i)
            if (i + 1) % CHECKPOINT_EVERY == 0 and (i + 1) not in self._checkpoints:
                with self._lock:
                    self._checkpoints[i + 1] = state.clone()
        return state

    def _apply(self, state: GameState, i: int) -> list[str]:
        option = self.decisions[i].option_id
        try:
            return state.apply(option)
        except EngineError as exc:
            raise ReplayError(f"decision {i}: the engine rejects {option!r}: {exc}") from exc

    def _words(self, state: GameState, decision: Any, label: str | None) -> str | None:
        return _words(self.game, state, getattr(decision, "seat", None), decision.option_id, label)

    def labels(self) -> list[str | None]:
        """Each decision's option in the board's words (:func:`web.option_words.choice_words`),
        the words the step box shows, for the event log.

        One walk through the whole game (about half a millisecond per decision), made once per
        replay and saving checkpoints on the way; a decision the engine rejects, and every one
        after it, has no label (the log then shows its id, as the step box does)."""
        if self._labels is not None:
            return self._labels
        out: list[str | None] = [None] * self.last
        with self._lock:
            state = self._checkpoints[0].clone()
        for i, decision in enumerate(self.decisions):
            found = {o.id: o.label for o in state.legal_options()}
            out[i] = self._words(state, decision, found.get(decision.option_id))
            try:
                self._apply(state, i)
            except ReplayError:
                break
            if (i + 1) % CHECKPOINT_EVERY == 0 and (i + 1) not in self._checkpoints:
                with self._lock:
                    self._checkpoints[i + 1] = state.clone()
        self._labels = out
        return out

    def step(self, index: int) -> StepView:
        """Everything the viewer shows for step ``index`` (clamped to ``0 .. last``)."""
        index = max(0, min(index, self.last))
        if index == 0:
            state = self._state_before(0)
            decision, label, prompt, events = None, None, "", ()
        else:
            state = self._state_before(index - 1)
            prompt = state.decision_prompt()
            decision = self.decisions[index - 1]
            labels = {o.id: o.label for o in state.legal_options()}
            label = self._words(state, decision, labels.get(decision.option_id))
            events = tuple(self._apply(state, index - 1))
        diverged = decision is not None and bool(decision.events) and not same_events(self.game, decision.events, events)
        result = state.result().to_json() if state.is_over() else None
        return StepView(
            index=index,
            last=self.last,
            decision=decision,
            label=label,
            prompt=prompt,
            events=events,
            to_move=state.to_move(),
            view=state.spectator_view(),
            result=result,
            diverged=diverged,
        )


class ReplayCache:
    """A thread-safe LRU of replays, keyed by match id."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[Any, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def walk_for(self, key: Any) -> Walk | None:
        """A :class:`Walk` for the read of ``key``'s record that precedes :meth:`get`, or None
        when its replay is cached (no walk will be needed)."""
        with self._lock:
            return None if key in self._items else Walk()

    def get(self, key: Any, record: dict[str, Any], walk: Walk | None = None) -> Replay:
        with self._lock:
            replay = self._items.get(key)
            if replay is not None:
                self._items.move_to_end(key)
                return replay
        replay = Replay(record, walk)
        with self._lock:
            replay = self._items.setdefault(key, replay)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return replay
