"""``arena bench records``: a match record stored as today's JSON beside its compact form
(:mod:`arena.records.compact`, issue 40 items 1, 3 and 5), on the same matches, side by side.

Per game, N matches of random legal play (:mod:`benchmarks.random_records`: the engine itself,
no bots; times rounded as the referee records them), and for each one:

* **bytes**: the JSON the database stored before (``orjson`` of ``MatchRecord.to_dict()``), the
  same gzipped (level 6), and the compact form; medians and the smallest ratio;
* **byte for byte**: the compact form regenerated and serialised must equal the JSON
  (``not_byte_identical`` counts failures);
* **times** (CPU of this thread, medians): the worker's conversion of a finished record as
  it stored JSON (``json_convert_ms``: ``arena.workers.tasks._record_for_storage``) and as it
  stores it now (``compact_convert_ms``: :func:`arena.records.stored.for_storage` — one replay
  of the engine, checked as it goes), regenerating a record (``regenerate_ms``: replay, verify,
  serialise; a cache miss), reading it from the LRU cache (``cached_read_ms``) beside parsing
  the stored JSON (``json_read_ms``, what every read cost before), and the engine's time for
  the match as the referee drives it (``engine_ms``: options, the acting seat's observation
  and the move, per decision — without bots, sandbox or gRPC).

``--storage`` also loads the matches into two fresh SQLite databases of the platform's schema,
one storing JSON as before and one compact, and reports each file's size (after VACUUM), the
load time, and the bytes and cost per million matches (at ``--price-gb-month``, an assumption
the output repeats).
"""

from __future__ import annotations

import gzip
import os
import statistics
import tempfile
import time
from typing import Any

import orjson

from arena.records import compact, stored
from referee import registry


def engine_ms(record: Any) -> float:  # noqa: ANN401 - a MatchRecord
    """CPU ms the engine spends on the match as the referee plays it: per decision the legal
    options, the acting seat's observation (encoded as the referee sends it) and the move."""
    t = time.thread_time()
    state = registry.new_game(record.game, record.players, record.seed, record.variant)
    state.opening_events()
    for d in record.decisions:
        state.legal_options()
        orjson.dumps(state.observation(state.to_move()))
        state.option_audience(d.option)
        state.apply(d.option)
    state.result()
    return (time.thread_time() - t) * 1000


def _ms(fn, *args: Any) -> tuple[Any, float]:  # noqa: ANN001, ANN401
    t = time.thread_time()
    out = fn(*args)
    return out, (time.thread_time() - t) * 1000


def bench(games: tuple[str, ...] = ("black_angel", "solenia", "orbital"), matches: int = 30,
          players: int = 2, storage: bool = False, price_gb_month: float = 0.10,
          postgres: bool = False) -> dict[str, Any]:
    from arena.workers.tasks import _record_for_storage
    from benchmarks.random_records import played_record

    med = statistics.median
    out: dict[str, Any] = {"compressor": f"zstd level {compact.LEVEL}", "matches_per_game": matches,
                           "players": players, "times": "CPU ms of this thread, medians"}
    every: dict[str, list[Any]] = {}
    for game in games:
        rows: dict[str, list[float]] = {k: [] for k in (
            "json", "gzip", "compact", "json_convert", "compact_convert", "regenerate", "cached", "json_read",
            "engine")}
        mismatches = 0
        records = []
        for k in range(matches):
            record = played_record(game, 7000 + k, players=players)
            records.append(record)
            text = compact.stored_json(record)
            rows["json"].append(len(text))
            rows["gzip"].append(len(gzip.compress(text, 6)))
            rows["engine"].append(engine_ms(record))
            rows["json_convert"].append(_ms(_record_for_storage, record)[1])
            (small, _), ms = _ms(stored.for_storage, record)
            rows["compact_convert"].append(ms)
            rows["compact"].append(len(small))
            again, ms = _ms(lambda d: compact.stored_json(compact.regenerate(d)), small)
            rows["regenerate"].append(ms)
            mismatches += again != text
            stored.CACHE.text(small)  # warm: what a page read often costs
            rows["cached"].append(_ms(stored.record_of, None, small)[1])
            rows["json_read"].append(_ms(orjson.loads, text)[1])
        every[game] = [(r, compact.stored_json(r), stored.for_storage(r)[0]) for r in records]
        out[game] = {
            "median_json_bytes": round(med(rows["json"])), "median_gzip_bytes": round(med(rows["gzip"])),
            "median_compact_bytes": round(med(rows["compact"])),
            "ratio_json": round(med(rows["json"]) / med(rows["compact"]), 1),
            "ratio_gzip": round(med(rows["gzip"]) / med(rows["compact"]), 1),
            "min_ratio_json": round(min(j / c for j, c in zip(rows["json"], rows["compact"], strict=True)), 1),
            "not_byte_identical": mismatches,
            **{f"{k}_ms": round(med(rows[k]), 3) for k in (
                "engine", "json_convert", "compact_convert", "regenerate", "cached", "json_read")},
            "regenerate_over_engine": round(med(r / e for r, e in zip(rows["regenerate"], rows["engine"],
                                                                     strict=True)), 2),
        }
    stored.CACHE.clear()
    if storage:
        out["storage"] = storage_bench(every, price_gb_month)
    if postgres:
        out["storage_postgres"] = postgres_bench(every, price_gb_month)
    return out


def _rows(every: dict[str, list[Any]], form: str) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The ``matches`` rows of ``every`` as stored in ``form``, and for JSON the record texts
    exactly as the worker wrote them (orjson, no spaces) by match id."""
    rows, texts = [], []
    for game, matches in every.items():
        for record, json_text, small in matches:
            row = {"id": record.match_id, "game": game, "variant": record.variant,
                   "players": record.players, "seed": record.seed, "status": "done",
                   "result": record.result, "forfeits": []}
            if form == "compact":
                row.update(record_compact=small, engine_version=compact.engine_version(game))
            elif form == "json":
                texts.append((json_text.decode(), record.match_id))
            rows.append(row)
    return rows, texts


def _record_each(engine: Any, every: dict[str, list[Any]], form: str) -> tuple[float, float]:  # noqa: ANN401
    """Each match's record stored as a worker stores it — converted
    (``arena.workers.tasks._record_for_storage``, and for the compact form
    :func:`arena.records.stored.for_storage` first), then written by one UPDATE in a transaction
    of its own — and the median CPU and wall ms of that, per match."""
    from arena.workers.tasks import _record_for_storage

    cpu, wall = [], []
    sql = ("UPDATE matches SET record = ?, record_compact = ?, engine_version = ? WHERE id = ?"
           if engine.dialect.name == "sqlite" else
           "UPDATE matches SET record = %s, record_compact = %s, engine_version = %s WHERE id = %s")
    for matches in every.values():
        for record, _, _ in matches:
            t, w = time.thread_time(), time.perf_counter()
            if form == "compact":
                small, version = stored.for_storage(record)
                _record_for_storage(record, whole=False)
                params = (None, small, version, record.match_id)
            else:
                _, text_ = _record_for_storage(record)
                params = (text_, None, None, record.match_id)
            with engine.begin() as conn:
                conn.exec_driver_sql(sql, params)
            cpu.append((time.thread_time() - t) * 1000)
            wall.append((time.perf_counter() - w) * 1000)
    return round(statistics.median(cpu), 3), round(statistics.median(wall), 3)


def _per_million(used: int, total: int, price_gb_month: float, load_s: float) -> dict[str, Any]:
    per_match = used / total
    return {"database_bytes": used, "bytes_per_match": round(per_match),
            "gb_per_million_matches": round(per_match * 1e6 / 1e9, 3),
            "usd_per_million_matches_per_month": round(per_match * 1e6 / 1e9 * price_gb_month, 4),
            "load_s": round(load_s, 3)}


def _read_ms(url: str, ids: list[str]) -> dict[str, float]:
    """Median CPU ms to read one match's record as GetMatch and the match page do (the row by
    id through the ORM, then :func:`arena.records.stored.record_data`): the first read of each
    (a compact one regenerated) and a second (a compact one from the LRU cache)."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from arena.db.models import Match
    from arena.db.session import _json_dumps  # the platform's engine settings for JSON

    engine = create_engine(url, json_serializer=_json_dumps)
    stored.CACHE.clear()
    out = {}
    for name in ("first_read_ms", "cached_read_ms"):
        times = []
        for mid in ids:
            with Session(engine) as session:
                t = time.thread_time()
                stored.record_data(session.get(Match, mid))
                times.append((time.thread_time() - t) * 1000)
        out[name] = round(statistics.median(times), 3)
    engine.dispose()
    stored.CACHE.clear()
    return out


def postgres_bench(every: dict[str, list[Any]], price_gb_month: float) -> dict[str, Any]:
    """As :func:`storage_bench` on a throw-away PostgreSQL database (``ARENA_BENCH_PG``): the
    ``matches`` table's size with its TOAST (PostgreSQL compresses a large JSON value itself,
    pglz), without its indexes (the same for both forms)."""
    from sqlalchemy import create_engine, insert, text

    from arena.db.models import Base, Match
    from benchmarks.bench_db import postgres_database

    found: dict[str, Any] = {"price_gb_month_assumed": price_gb_month}
    total = sum(len(v) for v in every.values())
    sql_size = "SELECT pg_total_relation_size('matches') - pg_indexes_size('matches')"
    with postgres_database() as url:
        engine = create_engine(url)
        Base.metadata.create_all(engine)
        for form in ("json", "compact"):
            with engine.begin() as conn:
                conn.execute(text("TRUNCATE matches CASCADE"))
            with engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM FULL matches"))
                empty = conn.execute(text(sql_size)).scalar()
            rows, _ = _rows(every, "bare")
            with engine.begin() as conn:
                conn.execute(insert(Match), rows)
            t = time.perf_counter()
            cpu, wall = _record_each(engine, every, form)
            load_s = time.perf_counter() - t
            with engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM FULL matches"))
                used = conn.execute(text(sql_size)).scalar() - empty
            found[form] = _per_million(used, total, price_gb_month, load_s)
            found[form].update(record_cpu_ms=cpu, record_wall_ms=wall)
        engine.dispose()
    found["ratio"] = round(found["json"]["database_bytes"] / max(1, found["compact"]["database_bytes"]), 1)
    return found


def storage_bench(every: dict[str, list[Any]], price_gb_month: float) -> dict[str, Any]:
    """The matches loaded into two fresh SQLite databases of the platform's schema (the models'
    tables, rollback journal: no WAL file beside them; one row per
    match in ``matches``: as the worker stored it before, JSON text, and as it stores it now,
    compact); each database's size after a checkpoint and VACUUM less the empty schema's, the
    load's wall time, and per million matches."""
    import sqlite3

    from sqlalchemy import create_engine, insert

    from arena.db.models import Base, Match

    def size(path: str) -> int:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.close()
        return os.path.getsize(path)

    found: dict[str, Any] = {"price_gb_month_assumed": price_gb_month}
    total = sum(len(v) for v in every.values())
    with tempfile.TemporaryDirectory() as tmp:
        for form in ("json", "compact"):
            path = os.path.join(tmp, f"{form}.sqlite3")
            url = f"sqlite:///{path}"
            engine = create_engine(url)
            Base.metadata.create_all(engine)  # the models' schema (what the migrations build)
            engine.dispose()
            empty = size(path)
            rows, _ = _rows(every, "bare")
            with engine.begin() as conn:
                conn.execute(insert(Match), rows)
            t = time.perf_counter()
            cpu, wall = _record_each(engine, every, form)
            load_s = time.perf_counter() - t
            engine.dispose()
            used = size(path) - empty
            found[form] = _per_million(used, total, price_gb_month, load_s)
            found[form].update(record_cpu_ms=cpu, record_wall_ms=wall)
            found[form].update(_read_ms(url, [r["id"] for r in rows]))
    found["ratio"] = round(found["json"]["database_bytes"] / max(1, found["compact"]["database_bytes"]), 1)
    return found
