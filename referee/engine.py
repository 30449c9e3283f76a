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
  :meth:`GameState.public_view` is the board a live spectator may see (no hand, no face-down
  card, no deck order). The conformance kit checks all three (``check_audiences``,
  ``check_public_view``); docs/referee.md lists the rules.
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
    if type(seats) is int:  # the common case, without Event's sorting: engines log it per card
        line = str.__new__(Event, text)
        line.audience = (seats,)
        return line
    return Event(text, seats)


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
                f"{self.name} has no variant {variant[:80]!r}; known variants: {', '.join(self.variants)}"
            )
        allowed = self.variants_for(players)
        if len(allowed) == 1 and variant == self.default_variant:
            return allowed[0]
        raise ConfigError(
            f"{self.name} variant {variant[:80]!r} is not played with {players} players; "
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
    In a solo game against an automaton the seat's rank is computed against the automaton's
    score and ``details`` names it (see :func:`solo_outcome`): a loss is rank 2, not rank 1.
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "details": self.details}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        return cls(tuple(data["scores"]), tuple(data["ranks"]), dict(data.get("details", {})))


def solo_outcome(score: float, automaton: str, automaton_score: float,
                 tie_wins: bool) -> tuple[int, dict[str, Any]]:
    """Rank a solo seat against an engine-played automaton (Hal, Solenia's virtual player).

    Why: a solo game has one seat, so plain competition ranks would call every game a win.
    The seat is ranked as if the automaton held a seat: 1 when the player wins, 2 when the
    automaton does; ``tie_wins`` says whether the rulebook shares a tie (Solenia) or not
    (Black Angel: you must score *more* than Hal). Returns the seat's rank and the
    ``Result.details`` keys naming the automaton, its score and rank, and the outcome in words
    ("beat Hal" / "lost to Hal") that the CLI and the web show.
    """
    tie = score == automaton_score
    won = score > automaton_score or (tie and tie_wins)
    if score > automaton_score:
        words = f"beat {automaton}"
    elif won:
        words = f"tied with {automaton} (a shared win)"
    else:
        words = f"lost to {automaton}"
    details = {
        "automaton": automaton,
        "automaton_score": automaton_score,
        "automaton_rank": 1 if score <= automaton_score else 2,
        "beat_automaton": won,
        "outcome": f"{words}, {score:g} to {automaton_score:g}",
    }
    return (1 if won else 2), details


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

    def public_view(self) -> dict[str, Any]:
        """JSON-ready data that every spectator may know *while* the match runs (live pages).

        The default keeps what every seat's observation agrees on (:func:`common_view`), here
        and in worlds where each seat's secrets were re-sampled by another seat's
        :meth:`determinise` (so two hands that happen to hold the same card do not show it).
        It is an approximation that costs ``players²`` observations: engines should override
        it with their exact public part, and an engine with a single seat (a solitaire
        variant) must, because there the one observation includes the hand. The conformance
        kit checks that re-sampling any seat's hidden information never changes it.
        """
        seats = range(self.players)
        views = [self.observation(q) for q in seats]
        for other in seats:
            world = self.determinise(other, 0x5EC0 + other)
            views += [world.observation(q) for q in seats if q != other]
        return common_view(views)

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

    @classmethod
    def from_observation(cls, observation: dict[str, Any], seed: int = 0) -> GameState:
        """A playable state whose ``observation(seat)`` equals ``observation`` (what search bots need).

        Only the observation is used: whatever that seat cannot see (other hands, deck orders,
        future rolls) is sampled afresh from ``seed``, consistently with what it shows. Engines
        override this; the default says clearly that the game does not offer it.
        """
        raise EngineError(f"{cls.spec.name} cannot rebuild a state from an observation yet "
                          "(its engine does not implement GameState.from_observation)")

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


def common_view(views: list[Any]) -> Any:
    """The part every one of ``views`` (JSON-ready data) agrees on.

    Dicts keep the keys all views have, each reduced recursively; lists of one length are
    reduced item by item; anything else is kept when all views hold the same value and
    becomes ``None`` otherwise (a hidden hand shown to its owner only, say).
    """
    first = views[0]
    if all(isinstance(v, dict) for v in views):
        keys = [k for k in first if all(k in v for v in views)]
        return {k: common_view([v[k] for v in views]) for k in keys}
    if all(isinstance(v, list) for v in views) and len({len(v) for v in views}) == 1:
        return [common_view([v[i] for v in views]) for i in range(len(first))]
    return first if all(v == first for v in views[1:]) else None
