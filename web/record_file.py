"""Read what /replay posts about a local match record (``arena play --out FILE``).

The browser reads the file itself and posts only what the engine needs to replay it (game,
variant, players, seed, each decision's option id) and what the public replay page shows
beside the board (seat names, each decision's seat, time, comment, fallback flag and recorded
events, the final scores and ranks, forfeit reasons). Bots' output (forfeit log tails),
timings and audiences stay on the user's machine, and nothing posted is kept: every request
carries the record again and is replayed from the start (a step of a 408-decision Orbital game
answers in under 20 ms).

A stranger can post anything here, so every field is checked and every refusal is a sentence
that quotes at most :func:`arena.quoting.shorten` of the input, never a traceback.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from arena.quoting import shorten
from referee import registry

#: Largest request body read, in bytes. A long Orbital game with a comment on every decision
#: posts well under 200 KB (the file itself is larger: it also holds log tails and timings).
MAX_REQUEST_BYTES = 1 << 20
#: Most decisions a posted record may have (every request replays up to its step).
MAX_DECISIONS = 20_000
MAX_PLAYERS = 16
MAX_NAME = 100
MAX_OPTION = 200
MAX_EVENTS = 64
MAX_EVENT = 500


class BadRecord(ValueError):
    """The posted record cannot be shown; the message says why, for the user."""


@dataclass(frozen=True)
class FileSeat:
    """A seat as the replay templates read it (``name``, ``score``, ``rank``)."""

    seat: int
    name: str
    score: float | None
    rank: int | None
    forfeit: str


@dataclass(frozen=True)
class ReplayRequest:
    """A checked request: the record in the shape :class:`web.replay.Replay` reads, the
    seats to show, the step asked for (``None``: the last) and the file's name for the
    ``arena fork`` command."""

    record: dict[str, Any]
    seats: list[FileSeat]
    step: int | None
    file_name: str
    match_id: str


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRecord(f"{what} must be a whole number from {low} to {high}, not {shorten(json.dumps(value))}")
    return value


def _str(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise BadRecord(f"{what} must be a string, not {shorten(json.dumps(value))}")
    if len(value) > limit:
        raise BadRecord(f"{what} is longer than {limit} characters: {shorten(value)}")
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _decision(item: Any, n: int, players: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise BadRecord(f"decision {n} is not an object")
    events = item.get("events") or []
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        raise BadRecord(f"decision {n}: events must be a list of at most {MAX_EVENTS} lines")
    return {
        "seat": _int(item.get("seat"), f"decision {n}: seat", 0, players - 1),
        "option": _str(item.get("option"), f"decision {n}: option", MAX_OPTION),
        "wall_ms": _number(item.get("wall_ms")),
        "comment": item["comment"][:200] if isinstance(item.get("comment"), str) else "",
        "forced": item.get("forced") is True,
        "events": [_str(e, f"decision {n}: event", MAX_EVENT) for e in events],
    }


def parse_request(body: bytes) -> ReplayRequest:
    """The checked request in ``body`` (JSON: ``{"record": {...}, "step": N or "end"}``)."""
    try:
        data = json.loads(body)
    except UnicodeDecodeError:
        raise BadRecord("the request is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadRecord(f"the request is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError):  # a number of thousands of digits; nesting too deep
        raise BadRecord("the request is not JSON this page reads (a number too long or nesting too deep)") from None
    if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
        raise BadRecord('the request must be a JSON object with a "record" object')
    rec = data["record"]
    game = _str(rec.get("game"), "game", 50)
    if game not in registry.game_names():
        raise BadRecord(f"unknown game {shorten(game)!r}: this site replays {', '.join(registry.game_names())}")
    players = _int(rec.get("players"), "players", 1, MAX_PLAYERS)
    variant = rec.get("variant")
    if variant is not None:
        variant = _str(variant, "variant", 50)
    seed = _int(rec.get("seed"), "seed", -(2**63), 2**64 - 1)
    decisions = rec.get("decisions")
    if not isinstance(decisions, list):
        raise BadRecord('the record has no "decisions" list')
    if len(decisions) > MAX_DECISIONS:
        raise BadRecord(f"the record has {len(decisions)} decisions; this page replays at most {MAX_DECISIONS}")
    seats_in = rec.get("seats")
    if not isinstance(seats_in, list) or len(seats_in) != players:
        raise BadRecord(f'the record must list {players} seats (its "players")')
    result = rec.get("result") if isinstance(rec.get("result"), dict) else {}
    scores, ranks = result.get("scores"), result.get("ranks")
    forfeits_in = rec.get("forfeits") if isinstance(rec.get("forfeits"), list) else []
    forfeits = {
        f["seat"]: f"{shorten(f.get('reason', ''), 40)}: {shorten(f.get('message', ''), 160)}".strip(": ")
        for f in forfeits_in if isinstance(f, dict) and isinstance(f.get("seat"), int)
    }
    seats = []
    for i, s in enumerate(seats_in):
        name = _str(s.get("name") if isinstance(s, dict) else s, f"seat {i}: name", MAX_NAME)
        score = _number(scores[i]) if isinstance(scores, list) and i < len(scores) else None
        rank = ranks[i] if isinstance(ranks, list) and i < len(ranks) else None
        seats.append(FileSeat(i, name, score, rank if isinstance(rank, int) else None,
                              str(forfeits.get(i, ""))))
    step = data.get("step", 0)
    if step != "end":
        step = _int(step, "step", 0, MAX_DECISIONS)
    file_name = data.get("file_name")
    if not isinstance(file_name, str) or not file_name.strip():
        file_name = "match.json"
    match_id = rec.get("match_id") if isinstance(rec.get("match_id"), str) else ""
    record = {
        "game": game,
        "players": players,
        "variant": variant,
        "seed": seed,
        "decisions": [_decision(d, n, players) for n, d in enumerate(decisions)],
    }
    return ReplayRequest(record, seats, None if step == "end" else step,
                         shorten(file_name, 60), shorten(match_id, 40))
