"""The match record: everything needed to replay, audit and show a match, as JSON.

A record is the seed plus every option id chosen, so the engine can re-derive the whole game
(``referee.replay``); it also keeps what the engine cannot re-derive (who sat where, timings,
comments, forfeits) and what it can (events, result) so a replay can check them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar

from referee.faults import canonical

FORMAT_VERSION = 1


class RecordError(ValueError):
    """A file that is not a match record this version understands."""


@dataclass
class Decision:
    n: int
    seat: int
    option: str
    wall_ms: float
    cpu_ms: float | None
    comment: str
    forced: bool  # played by the fallback policy for a forfeited seat
    events: list[str]
    #: Who could learn ``option`` while the match ran: None (everyone) or the seats that could
    #: (``GameState.option_audience``); after the end the whole record is public.
    option_audience: list[int] | None = None
    #: One entry per line of ``events``: None (public) or the seats that could read it live.
    event_audiences: list[list[int] | None] | None = None


@dataclass
class Forfeit:
    seat: int
    reason: str  # a code from referee.faults.REASONS
    message: str
    decision: int  # how many decisions had been made when the seat forfeited
    log_tail: str = ""

    def public(self) -> dict[str, Any]:
        """The forfeit without the bot's output (``log_tail``): that is for its owner and the
        organisers only (it may hold the bot's secrets, or anything it printed)."""
        return {"seat": self.seat, "reason": self.reason, "message": self.message, "decision": self.decision}


@dataclass
class SeatTotals:
    seat: int
    decisions: int = 0
    time_used_ms: float = 0.0
    bank_left_ms: float = 0.0
    cpu_ms: float | None = None
    ready_ms: float | None = None  # launch (or dial) to the answer to StartMatch
    start_ms: float | None = None  # the StartMatch call alone, against the start budget


@dataclass
class MatchRecord:
    match_id: str
    game: str
    variant: str
    players: int
    seed: int
    time_control: dict[str, int]
    seats: list[dict[str, str]]  # {"name", "kind"}
    #: What happened during set-up (an automaton's opening move, the opening roll …).
    opening_events: list[str] = field(default_factory=list)
    #: One entry per opening line: None (public) or the seats that could read it live.
    opening_audiences: list[list[int] | None] | None = None
    decisions: list[Decision] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    forfeits: list[Forfeit] = field(default_factory=list)
    totals: list[SeatTotals] = field(default_factory=list)
    started_at: str = ""
    ended_at: str = ""
    #: A forked match (``arena fork``): the original's match id, the decision it was forked
    #: at (decisions before it are the original's), the seat and the bot that took it over.
    origin: dict[str, Any] | None = None
    format_version: int = FORMAT_VERSION
    #: Not a field (never in the JSON: ``to_dict`` reads the fields, orjson skips attributes
    #: named with ``_``): the match runner sets ``record._choices``, each decision's choice as
    #: its index in that decision's legal options, so the record is stored compactly without a
    #: replay of the engine (``arena.records.compact``). Records read back have none.
    _choices: ClassVar[list[int] | None] = None

    def events(self) -> list[str]:
        """The whole event log, in order."""
        return self.opening_events + [line for d in self.decisions for line in d.events]

    def forfeit_of(self, seat: int) -> Forfeit | None:
        return next((f for f in self.forfeits if f.seat == seat), None)

    # --- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON data (what :func:`dataclasses.asdict` gives, several times
        faster: a worker converts every record it plays, with hundreds of decisions)."""
        data = _plain(self)
        data["events"] = self.events()
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        if not isinstance(data, dict) or "format_version" not in data:
            raise RecordError("not a match record (no format_version)")
        if data["format_version"] != FORMAT_VERSION:
            raise RecordError(
                f"match record format {data['format_version']} is not supported "
                f"(this referee reads format {FORMAT_VERSION})"
            )
        try:
            return cls(
                match_id=data["match_id"],
                game=data["game"],
                variant=data["variant"],
                players=int(data["players"]),
                seed=int(data["seed"]),
                time_control=dict(data["time_control"]),
                seats=[dict(s) for s in data["seats"]],
                opening_events=[str(line) for line in data.get("opening_events", [])],
                opening_audiences=data.get("opening_audiences"),
                decisions=[Decision(**d) for d in data["decisions"]],
                result=dict(data["result"]),
                forfeits=[Forfeit(**{**f, "reason": canonical(f["reason"])}) for f in data["forfeits"]],
                totals=[SeatTotals(**t) for t in data["totals"]],
                started_at=data.get("started_at", ""),
                ended_at=data.get("ended_at", ""),
                origin=data.get("origin"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"match record is malformed: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"match record is not valid JSON: {exc}") from None
        return cls.from_dict(data)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """Dataclasses to dicts, lists and dicts copied, everything else shared (records hold only
    JSON leaves — str, numbers, None, bool — and ``Event`` strings, which are immutable)."""
    if isinstance(value, _LEAVES):
        return value
    names = _FIELDS.get(type(value))
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[type(value)] = tuple(f.name for f in fields(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, list):
        return [v if isinstance(v, _LEAVES) else _plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: v if isinstance(v, _LEAVES) else _plain(v) for k, v in value.items()}
    return value


_LEAVES = (str, int, float, type(None))


def without_logs(record: dict[str, Any], keep_seats: set[int] | frozenset[int] = frozenset()) -> dict[str, Any]:
    """A copy of a record (as JSON data) whose forfeits carry no bot output (``log_tail``),
    except for ``keep_seats``: crash logs and stderr tails are for the bot's owner and the
    organisers only; everybody else sees the fault reason and message."""
    forfeits = record.get("forfeits")
    if not isinstance(forfeits, list):
        return record
    out = dict(record)
    out["forfeits"] = [
        f if not isinstance(f, dict) or f.get("seat") in keep_seats else {k: v for k, v in f.items() if k != "log_tail"}
        for f in forfeits
    ]
    return out


def final_ranks(engine_ranks: list[int], forfeited: set[int],
                automaton_rank: int | None = None) -> list[int]:
    """Ranks after forfeits: seats that finished keep their engine order (competition ranks
    among themselves); every forfeited seat shares the last rank. In a solo game the
    automaton (``Result.details["automaton_rank"]``) counts as one more finisher, so a seat
    that lost to it keeps rank 2 and a forfeited seat ranks behind it."""
    finished = [s for s in range(len(engine_ranks)) if s not in forfeited]
    auto = automaton_rank is not None
    ranks = [0] * len(engine_ranks)
    for s in finished:
        ranks[s] = 1 + sum(1 for o in finished if engine_ranks[o] < engine_ranks[s])
        ranks[s] += 1 if auto and automaton_rank < engine_ranks[s] else 0  # type: ignore[operator]
    for s in forfeited:
        ranks[s] = len(finished) + 1 + (1 if auto else 0)
    return ranks
