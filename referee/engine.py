"""The engine contract every game implements.

A game is a pure, deterministic state machine driven one *decision* at a time. The referee,
the conformance kit, search bots and the replay checker only ever talk to this interface, so an
engine that honours it can be hosted without any game-specific code elsewhere.

Why these choices:

* Option ids are short stable strings, so a match record (seed + ids) replays exactly and a bot
  never has to construct a compound move.
* All randomness comes from :class:`referee.rng.Rng` kept inside the state, so cloning and
  serialising the state also captures every future shuffle and die roll.
* ``observation(seat)`` is the *only* thing a bot sees; ``spectator_view()`` shows everything
  and is used for replays after the game.
* Every event line has an *audience* (:class:`Event`): public, or only some seats. A live match
  is streamed to spectators and opponents while it is played, so a line that names hidden
  information (the card a seat drew, a face-down tile) must say who may read it; the full log is
  published only when the match is over. Likewise :meth:`GameState.option_audience` says who may
  learn *which* option a seat chose, when the id or label itself names something hidden.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar


class EngineError(Exception):
    """Base class for errors an engine raises on purpose."""


class IllegalAction(EngineError, ValueError):
    """An option id that is not legal now. The state is left unchanged."""


class ConfigError(EngineError, ValueError):
    """A player count or variant the game does not support (or does not implement)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One legal choice for the seat to move: a stable id and a short human label."""

    id: str
    label: str


class Event(str):
    """One event line of the replay log, with its audience.

    An ``Event`` *is* its text (a ``str``), so records, replays and logs that only want the
    words keep working unchanged; ``audience`` is ``None`` for a public line, or the sorted
    tuple of seats that may read it while the match is running. A plain ``str`` returned by an
    engine counts as public: engines wrap only the lines that name hidden information, with
    :func:`seen_by`. After the match every line is public.
    """

    audience: tuple[int, ...] | None

    def __new__(cls, text: str, audience: Iterable[int] | None = None) -> Event:
        line = super().__new__(cls, text)
        line.audience = None if audience is None else tuple(sorted(set(audience)))
        return line

    def __reduce__(self) -> tuple[Any, ...]:
        return (Event, (str(self), self.audience))


def public(text: str) -> Event:
    """A line every spectator and seat may read at once."""
    return Event(text, None)


def seen_by(seats: int | Iterable[int], text: str) -> Event:
    """A line only ``seats`` may read during the match (a card drawn into a hand, say)."""
    return Event(text, (seats,) if isinstance(seats, int) else seats)


def audience_of(line: str) -> tuple[int, ...] | None:
    """The seats that may read ``line`` during the match; ``None`` means everyone."""
    return getattr(line, "audience", None)


def visible_to(line: str, seat: int | None) -> bool:
    """May ``seat`` (``None``: a spectator) read ``line`` while the match is running?"""
    audience = audience_of(line)
    return audience is None or (seat is not None and seat in audience)


@dataclass(frozen=True)
class TimeControl:
    """Per-seat clock: each decision may take ``decision_ms``; overruns draw on ``bank_ms``."""

    decision_ms: int = 1000
    bank_ms: int = 10000


@dataclass(frozen=True)
class GameSpec:
    """What a game is: its name, the player counts and variants it supports.

    ``configurations`` lists every (players, variant) pair that can be played; a variant that
    only makes sense for some player counts (a solitaire mode, say) is simply absent for the
    others.
    """

    name: str
    title: str
    configurations: tuple[tuple[int, str], ...]
    default_variant: str
    description: str = ""
    time_control: TimeControl = field(default_factory=TimeControl)
    variant_help: dict[str, str] = field(default_factory=dict)

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted({p for p, _ in self.configurations}))

    @property
    def variants(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for _, v in self.configurations:
            seen.setdefault(v, None)
        return tuple(seen)

    def variants_for(self, players: int) -> tuple[str, ...]:
        return tuple(v for p, v in self.configurations if p == players)

    def check(self, players: int, variant: str | None) -> str:
        """Return the variant to use, or raise :class:`ConfigError` with a helpful message."""
        variant = variant or self.default_variant
        if (players, variant) in self.configurations:
            return variant
        if players not in self.player_counts:
            raise ConfigError(
                f"{self.name} is played by {_fmt_counts(self.player_counts)} players, not {players}"
            )
        if variant not in self.variants:
            raise ConfigError(
                f"{self.name} has no variant {variant!r}; known variants: {', '.join(self.variants)}"
            )
        allowed = self.variants_for(players)
        if len(allowed) == 1 and variant == self.default_variant:
            return allowed[0]
        raise ConfigError(
            f"{self.name} variant {variant!r} is not played with {players} players; "
            f"with {players} players choose one of: {', '.join(allowed)}"
        )


def _fmt_counts(counts: tuple[int, ...]) -> str:
    if counts == tuple(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
        return f"{counts[0]}-{counts[-1]}"
    return ", ".join(map(str, counts))


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``ranks`` uses competition ranking: 1 is best and tied seats share a rank (1, 1, 3).
    ``details`` carries game-specific extras (tie-breaker values, a solo score band message).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "details": self.details}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        return cls(tuple(data["scores"]), tuple(data["ranks"]), dict(data.get("details", {})))


def competition_ranks(keys: list[Any]) -> tuple[int, ...]:
    """Rank seats by ``keys`` (higher is better, compared as tuples); equal keys share a rank."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    ranks = [0] * len(keys)
    for pos, seat in enumerate(order):
        if pos and keys[seat] == keys[order[pos - 1]]:
            ranks[seat] = ranks[order[pos - 1]]
        else:
            ranks[seat] = pos + 1
    return tuple(ranks)


class GameState(abc.ABC):
    """One game in progress. Subclasses implement the abstract methods below.

    Seats are numbered ``0 .. players-1``. Automata of solitaire modes (Hal, the virtual player,
    Orbital's bot players) are not seats: the engine plays their moves inside :meth:`apply`.
    """

    spec: ClassVar[GameSpec]
    #: Every engine sets these three in ``new`` and ``from_json``.
    players: int
    variant: str
    seed: int

    # --- construction -------------------------------------------------------------------
    @classmethod
    @abc.abstractmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> GameState:
        """Set up a fresh game. Must call ``cls.spec.check(players, variant)`` first."""

    # --- the decision loop --------------------------------------------------------------
    @abc.abstractmethod
    def to_move(self) -> int | None:
        """The seat whose decision it is, or ``None`` when the game is over."""

    def is_over(self) -> bool:
        return self.to_move() is None

    @abc.abstractmethod
    def legal_options(self) -> list[Option]:
        """Every legal option for the current decision; never empty before the end."""

    @abc.abstractmethod
    def apply(self, option_id: str) -> list[str]:
        """Apply one option and return the human-readable event lines it caused.

        Raises :class:`IllegalAction` (and changes nothing) when ``option_id`` is not legal.
        Automata moves that follow are applied here too and reported in the returned lines.
        A line that names hidden information is an :class:`Event` with its audience
        (:func:`seen_by`); plain strings are public.
        """

    def opening_events(self) -> list[str]:
        """Event lines of what happened during set-up (an automaton's opening move, say).

        The referee puts them at the head of the replay log, before the first decision's lines.
        """
        return []

    def option_audience(self, option_id: str) -> tuple[int, ...] | None:
        """Who may learn, during the match, that the seat to move chose ``option_id``.

        Called before :meth:`apply`. ``None`` (the default) means the choice is public: its id
        and label may be streamed live. An engine returns the tuple of seats that may see it
        when the id or label names hidden information (which card of a private hand was kept,
        say); a live stream then shows only that the seat decided.
        """
        return None

    def decision_prompt(self) -> str:
        """A short text naming the current decision (e.g. "choose a slot for the card")."""
        return ""

    def fallback_option(self) -> str:
        """The option the referee plays for a seat that has forfeited. Deterministic."""
        return self.legal_options()[0].id

    # --- views ----------------------------------------------------------------------------
    @abc.abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """JSON-ready data that ``seat`` may know: never another hand, a deck order, a future roll."""

    @abc.abstractmethod
    def spectator_view(self) -> dict[str, Any]:
        """JSON-ready data with everything, for replays after the game."""

    # --- copying ----------------------------------------------------------------------------
    @abc.abstractmethod
    def clone(self) -> GameState:
        """An independent copy; cheap, because search bots call it a lot."""

    @abc.abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The complete state (including the random generator) as JSON-ready data."""

    @classmethod
    @abc.abstractmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_json`; ``from_json(s.to_json()).to_json() == s.to_json()``."""

    @abc.abstractmethod
    def determinise(self, seat: int, seed: int) -> GameState:
        """A clone in which everything ``seat`` cannot see is re-sampled consistently.

        Other hands, deck orders and the random generator (future rolls) are replaced by a sample
        that agrees with ``observation(seat)``; ``seat``'s own observation must be unchanged.
        """

    # --- the end -----------------------------------------------------------------------------
    @abc.abstractmethod
    def result(self) -> Result:
        """Scores and ranks with the rulebook's tie-breakers. Only valid when the game is over."""

    # --- conveniences shared by all engines ------------------------------------------------
    def option_ids(self) -> list[str]:
        return [o.id for o in self.legal_options()]

    def illegal(self, option_id: str) -> IllegalAction:
        """Build the standard error for an option id that is not legal now."""
        opts = self.legal_options()
        shown = ", ".join(o.id for o in opts[:12]) + (" …" if len(opts) > 12 else "")
        return IllegalAction(f"option {option_id!r} is not legal now; legal: {shown}")
