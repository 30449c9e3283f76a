"""Match records at the size of their information (issue 40 item 1): the compact stored form.

A match record as JSON (``referee.record.MatchRecord.to_dict``) is mostly recomputable: the
engines are deterministic, so the seed and each decision's choice re-derive every option id,
event line, audience and the result. The compact form keeps only what cannot be recomputed:

* a header (JSON): match id, game, variant, players, seed, time control, seats, start and end
  times, origin, the record format, protocol and **engine version** (:data:`ENGINE_VERSIONS`),
  the result, forfeits, seat totals, the comments, which decisions were forced, recorded without
  CPU time or without audiences, and a **digest of the events** (SHA-256 of the event log);
* per decision the choice as an **index into that decision's legal options** in the engine's
  order (``state.option_ids()``), as a varint;
* the wall and CPU times, as varints of whole units of the finest resolution they were recorded
  at (the referee rounds wall times to 0.001 ms and CPU times to 0.1 ms, ``referee/match.py``),
  or exact float64 when a column is not at such a resolution (old or hand-made records) —
  so the JSON comes back byte for byte either way;

the whole compressed with zstandard. :func:`regenerate` replays the engine from the seed and the
indexes and checks the regenerated events against the stored digest and the engine's result
against the stored one: a record the current engine replays differently is refused
(:class:`RecordNotReplayable`, with a message saying why), never shown as a different game.

A record the match runner just made carries each choice's index (``record._choices``), so a
worker stores it with no replay: packing and compressing cost about what encoding its JSON did.
A record read back from JSON (the conversion of existing records) is replayed once to find the
indexes, checking as it goes that every event line and audience it regenerates is the one
recorded: then what :func:`encode` returns regenerates the record it was given, or it raises
:class:`NotCompactable` (the caller keeps the JSON). docs/records-size.md has the sizes and times.
"""

from __future__ import annotations

import hashlib
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import zstandard

from referee import registry
from referee.engine import GameState, Option, audience_of
from referee.protocol import PROTOCOL_VERSION
from referee.record import FORMAT_VERSION, Decision, Forfeit, MatchRecord, SeatTotals

#: The first bytes of every compact record (``TAR`` = Tabletop Arena Record, then the layout's
#: version). A reader refuses any other.
MAGIC = b"TAR\x01"

#: The version of each game's engine, as the records it makes name it. Bump a game's number
#: whenever its engine would replay an existing record differently (other options, other
#: events, another result): the golden records in ``tests/records/golden/`` fail until you do,
#: and the platform then refuses to replay that game's older compact records with a clear
#: message instead of showing a different game (their JSON, where kept, still shows).
ENGINE_VERSIONS: dict[str, int] = {"black_angel": 1, "solenia": 1, "orbital": 1}

#: zstandard level. A compact record is ~1.4 kB before compression: level 9 leaves it ~1.5 %
#: larger than level 19 in a sixth of the time (0.02 ms against 0.12 with a reused compressor,
#: docs/records-size.md) — a worker compresses every match it plays.
LEVEL = 9
_local = threading.local()


def thread_compressor(level: int = LEVEL) -> zstandard.ZstdCompressor:
    """This thread's compressor at ``level`` (setting one up costs as much as using it on a
    record; zstandard's objects are not to be shared between threads)."""
    kept = getattr(_local, "compressors", None)
    if kept is None:
        kept = _local.compressors = {}
    z = kept.get(level)
    if z is None:
        z = kept[level] = zstandard.ZstdCompressor(level=level)
    return z


def thread_decompressor() -> zstandard.ZstdDecompressor:
    """This thread's decompressor (one per thread, as for :func:`thread_compressor`)."""
    z = getattr(_local, "decompressor", None)
    if z is None:
        z = _local.decompressor = zstandard.ZstdDecompressor()
    return z

_F64 = 255  # a time column stored as exact float64


class NotCompactable(ValueError):
    """This record cannot be stored compactly (its engine does not replay it as recorded, or
    it holds something the layout has no place for): keep its JSON."""


class RecordNotReplayable(ValueError):
    """A compact record the current engine cannot regenerate as it was recorded."""


def engine_version(game: str) -> str:
    """The engine version a record of ``game`` made now names, e.g. ``"solenia/1"``."""
    return f"{game}/{ENGINE_VERSIONS.get(game, 0)}"


def events_digest(events: Sequence[str], opening_audiences: Any, audiences: Sequence[Any]) -> str:
    """SHA-256 (hex, 32 characters kept) of the event log and who could read each line: what a
    regeneration must reproduce to count as the recorded match."""
    h = hashlib.sha256(orjson.dumps(list(events)))
    h.update(orjson.dumps([opening_audiences, list(audiences)]))
    return h.hexdigest()[:32]


# --- varints --------------------------------------------------------------------------------
def _varints(values: Sequence[int]) -> bytes:
    out = bytearray()
    for v in values:
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
    return bytes(out)


def _read_varints(raw: bytes, at: int, count: int) -> tuple[list[int], int]:
    chunk = raw[at:at + count]
    if len(chunk) == count and (not chunk or max(chunk) < 0x80):  # each one byte (most indexes)
        return list(chunk), at + count
    values = []
    for _ in range(count):
        v = shift = 0
        while True:
            b = raw[at]
            at += 1
            v |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
        values.append(v)
    return values, at


def _time_column(times: Sequence[float]) -> bytes:
    """Times (ms) as one scale byte then varints of whole 10^-scale ms, at the coarsest scale
    (0-6) at which every one comes back exactly; else ``_F64`` then float64s."""
    for scale in range(7):
        unit = 10 ** scale
        ints = []
        for t in times:
            k = round(t * unit)
            if not (0 <= k < 1 << 53) or k / unit != t:
                break
            ints.append(k)
        else:
            return bytes([scale]) + _varints(ints)
    return bytes([_F64]) + struct.pack(f"<{len(times)}d", *times)


def _read_time_column(raw: bytes, at: int, n: int) -> tuple[list[float], int]:
    scale = raw[at]
    at += 1
    if scale == _F64:
        return list(struct.unpack_from(f"<{n}d", raw, at)), at + 8 * n
    ints, at = _read_varints(raw, at, n)
    unit = 10 ** scale
    return [k / unit for k in ints], at


# --- encode ---------------------------------------------------------------------------------
def _audiences(events: Sequence[str]) -> list[list[int] | None]:
    return [None if (a := audience_of(e)) is None else list(a) for e in events]


def encode(record: MatchRecord) -> bytes:
    """The compact form of ``record``. A record the match runner just made carries each
    choice's index (``record._choices``, ``referee/match.py``): it is packed as it is, with no
    replay. Any other record (read back from JSON) is replayed once to turn option ids into
    indexes, checking that the engine regenerates every event line, audience and the end as
    recorded; :class:`NotCompactable` where it would not (keep that record's JSON)."""
    if record.format_version != FORMAT_VERSION:
        raise NotCompactable(f"record format {record.format_version}, this layout stores {FORMAT_VERSION}")
    if record.game not in ENGINE_VERSIONS:
        raise NotCompactable(f"no engine version for game {record.game!r}")
    choices = record._choices
    if choices is not None and len(choices) == len(record.decisions):
        indexes = list(choices)
    else:
        indexes = _replayed_indexes(record)
    return _pack(record, indexes)


def _replayed_indexes(record: MatchRecord) -> list[int]:
    try:
        state = registry.new_game(record.game, record.players, record.seed, record.variant)
    except Exception as exc:  # noqa: BLE001 - any refusal by the engine: keep the JSON
        raise NotCompactable(f"the engine does not start this match: {exc}") from None
    opening = list(state.opening_events())
    if opening != record.opening_events or (
            record.opening_audiences is not None and _audiences(opening) != record.opening_audiences):
        raise NotCompactable("the engine's opening differs from the record's")
    indexes = []
    for i, d in enumerate(record.decisions):
        if state.is_over() or d.n != i or d.seat != state.to_move():
            raise NotCompactable(f"decision {i} is not the engine's next decision")
        options = state.option_ids()
        try:
            indexes.append(options.index(d.option))
        except ValueError:
            raise NotCompactable(f"decision {i}: {d.option!r} is not a legal option") from None
        secret = state.option_audience(d.option)
        events = state.apply(d.option)
        if (events != d.events or (None if secret is None else list(secret)) != d.option_audience
                or (d.event_audiences is not None and _audiences(events) != d.event_audiences)):
            raise NotCompactable(f"decision {i}: the engine's events differ from the record's")
    if not state.is_over():
        raise NotCompactable("the record ends before the game does")
    return indexes


def _pack(record: MatchRecord, indexes: list[int]) -> bytes:
    n = len(record.decisions)
    header = {
        "format_version": record.format_version, "protocol": int(PROTOCOL_VERSION),
        "engine": engine_version(record.game),
        "match_id": record.match_id, "game": record.game, "variant": record.variant,
        "players": record.players, "seed": record.seed, "time_control": record.time_control,
        "seats": record.seats, "started_at": record.started_at, "ended_at": record.ended_at,
        "origin": record.origin, "result": record.result,
        "forfeits": [vars(f) for f in record.forfeits], "totals": [vars(t) for t in record.totals],
        "opening_audiences": record.opening_audiences is not None,
        "no_audiences": [i for i, d in enumerate(record.decisions) if d.event_audiences is None],
        "comments": {str(i): d.comment for i, d in enumerate(record.decisions) if d.comment},
        "forced": [i for i, d in enumerate(record.decisions) if d.forced],
        "no_cpu": [i for i, d in enumerate(record.decisions) if d.cpu_ms is None],
        "digest": events_digest(record.events(), record.opening_audiences,
                                [d.event_audiences for d in record.decisions]),
    }
    try:
        head = orjson.dumps(header)
    except TypeError as exc:  # e.g. an int past 64 bits
        raise NotCompactable(f"the header does not encode: {exc}") from None
    body = b"".join((
        _varints([len(head)]), head, _varints([n]), _varints(indexes),
        _time_column([d.wall_ms for d in record.decisions]),
        _time_column([d.cpu_ms or 0.0 for d in record.decisions]),
    ))
    return MAGIC + thread_compressor().compress(body)


def encode_data(data: dict[str, Any]) -> bytes:
    """:func:`encode` of a stored record's JSON data (the conversion of existing records)."""
    from referee.record import RecordError

    try:
        record = MatchRecord.from_dict(data)
        # as stored: from_dict renames old forfeit reasons, which would not regenerate the JSON
        record.forfeits = [Forfeit(**f) for f in data["forfeits"]]
    except (RecordError, TypeError, KeyError) as exc:
        raise NotCompactable(str(exc)) from None
    return encode(record)


# --- regenerate -----------------------------------------------------------------------------
def header(data: bytes) -> dict[str, Any]:
    """The header of a compact record (no replay): its game, engine version, result …"""
    raw = _open(data)
    (hlen,), at = _read_varints(raw, 0, 1)
    return orjson.loads(raw[at:at + hlen])


def _open(data: bytes) -> bytes:
    if data[:4] != MAGIC:
        raise RecordNotReplayable("not a compact match record this platform reads")
    try:
        return thread_decompressor().decompress(data[4:])
    except zstandard.ZstdError as exc:
        raise RecordNotReplayable(f"the compact record is damaged: {exc}") from None


def check_engine(h: dict[str, Any]) -> str:
    """The engine version this platform runs for the game of the record whose header is ``h``;
    :class:`RecordNotReplayable` (the message pages show) when the record names another."""
    now = engine_version(h["game"])
    if h["engine"] != now:
        raise RecordNotReplayable(
            f"match {h['match_id']} was played by engine {h['engine']}; this platform runs {now}, "
            "which would not replay it as it was played, so its replay is not shown")
    return now


#: A regeneration's per-decision hook (:func:`regenerate`'s ``visit``): called as
#: ``visit(i, state, chosen)`` with the state before decision ``i`` and the option chosen there
#: (its id and label), then once more as ``visit(n, final state, None)``. It may read or clone
#: the state, never change it. What lets a reader that walks the engine anyway (the web's
#: replay viewer: each decision's words, checkpoints) do it in the regeneration's walk.
Visit = Callable[[int, GameState, Option | None], None]


def regenerate(data: bytes, visit: Visit | None = None) -> MatchRecord:
    """The full record regenerated from its compact form by replaying the engine, verified
    against the stored digest of the events and the stored result. Raises
    :class:`RecordNotReplayable` (with a message for people) when the current engine is not the
    one that made the record, or does not replay it as recorded. ``visit`` (:data:`Visit`) is
    called at each decision of the walk; a reader must use what it gathered only when this
    returns (a record that raises was not the match played)."""
    raw = _open(data)
    (hlen,), at = _read_varints(raw, 0, 1)
    h = orjson.loads(raw[at:at + hlen])
    at += hlen
    game = h["game"]
    now = check_engine(h)
    (n,), at = _read_varints(raw, at, 1)
    indexes, at = _read_varints(raw, at, n)
    walls, at = _read_time_column(raw, at, n)
    cpus, at = _read_time_column(raw, at, n)
    comments = {int(k): v for k, v in h["comments"].items()}
    forced, no_cpu, no_audiences = set(h["forced"]), set(h["no_cpu"]), set(h["no_audiences"])
    for i in no_cpu:
        cpus[i] = None
    try:
        state = registry.new_game(game, h["players"], h["seed"], h["variant"])
        opening = list(state.opening_events())
        decisions = []
        append = decisions.append
        to_move, option_ids, option_audience, apply = (
            state.to_move, state.option_ids, state.option_audience, state.apply)
        for i in range(n):
            seat = to_move()
            if visit is None:
                option = option_ids()[indexes[i]]
            else:  # the labelled options (the visitor's words), in option_ids' order
                chosen = state.legal_options()[indexes[i]]
                option = chosen.id
                visit(i, state, chosen)
            secret = option_audience(option)
            events = apply(option)
            append(Decision(
                i, seat, option, walls[i], cpus[i], comments.get(i, ""), i in forced, events,
                None if secret is None else list(secret),
                None if i in no_audiences else _audiences(events)))
        if visit is not None:
            visit(n, state, None)
        over = state.is_over()
        engine_result = state.result() if over else None
    except Exception as exc:  # noqa: BLE001 - the engine refused a recorded choice
        raise RecordNotReplayable(
            f"match {h['match_id']} does not replay on engine {now}: {type(exc).__name__}: {exc}") from None
    record = MatchRecord(
        match_id=h["match_id"], game=game, variant=h["variant"], players=h["players"], seed=h["seed"],
        time_control=h["time_control"], seats=h["seats"], opening_events=opening,
        opening_audiences=_audiences(opening) if h["opening_audiences"] else None,
        decisions=decisions, result=h["result"], forfeits=[Forfeit(**f) for f in h["forfeits"]],
        totals=[SeatTotals(**t) for t in h["totals"]], started_at=h["started_at"], ended_at=h["ended_at"],
        origin=h["origin"], format_version=h["format_version"],
    )
    digest = events_digest(record.events(), record.opening_audiences, [d.event_audiences for d in decisions])
    stored = h["result"]
    if (not over or digest != h["digest"] or list(engine_result.scores) != stored.get("scores")
            or ("engine_ranks" in stored and list(engine_result.ranks) != stored["engine_ranks"])):
        raise RecordNotReplayable(
            f"match {h['match_id']} replays differently on engine {now} than it was played "
            "(its events or result do not match the stored ones), so its replay is not shown")
    return record


def regenerated_json(record: MatchRecord) -> bytes:
    """:func:`stored_json`'s bytes, ten times faster (0.1 ms against 1.0 for a 40 kB record,
    docs/records-size.md): orjson serialises the record's dataclasses itself, field by field in
    the order ``to_dict`` lists them, and the event log is appended as ``to_dict`` appends it.
    What a cache miss of a compact record pays (``arena.records.stored``); checked equal to
    :func:`stored_json` on every game's records by the tests."""
    return (orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)[:-1] + b',"events":'
            + orjson.dumps(record.events()) + b"}")


def stored_json(record: MatchRecord) -> bytes:
    """The JSON text the database stores for ``record`` (what
    ``arena.workers.tasks._record_for_storage`` writes): orjson of ``to_dict()``."""
    return orjson.dumps(record.to_dict(), option=orjson.OPT_NON_STR_KEYS)
