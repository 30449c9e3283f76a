"""Databases for the benchmarks: a throw-away PostgreSQL database, and fast bulk loading.

``postgres_database()`` creates ``arena_bench_<random>`` on the server of ``ARENA_BENCH_PG``
(default: localhost as ``postgres`` or ``root``, trust auth, as on the CI machines), yields its
URL and drops it afterwards, whatever happened; ``kept_database(name)`` is one that stays, so a
dataset loaded once (minutes at a million matches) can be measured again and again. ``load(engine, model, rows)`` bulk-loads rows:
``COPY … FROM STDIN`` (CSV) on PostgreSQL — a million matches in minutes, not hours — and an
``executemany`` INSERT elsewhere.
"""

from __future__ import annotations

import csv
import io
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

PG_ENV = "ARENA_BENCH_PG"


def _admin():  # noqa: ANN202 - a psycopg2 connection
    import psycopg2

    dsn = os.environ.get(PG_ENV)
    if dsn:
        conn = psycopg2.connect(dsn, connect_timeout=3)
        conn.autocommit = True
        return conn, conn.info.user, conn.info.host, conn.info.port
    last: Exception | None = None
    for user in ("postgres", "root"):
        for dbname in ("postgres", "template1"):
            try:
                conn = psycopg2.connect(host="localhost", user=user, dbname=dbname, connect_timeout=3)
                conn.autocommit = True
                return conn, user, "localhost", 5432
            except Exception as exc:  # noqa: BLE001
                last = exc
    raise RuntimeError(f"PostgreSQL not reachable (set {PG_ENV} to a libpq URL): {last}")


def postgres_available() -> bool:
    try:
        conn = _admin()[0]
    except RuntimeError:
        return False
    conn.close()
    return True


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty database for one benchmark run; dropped afterwards (even on errors)."""
    from arena.db import dispose_all

    conn, user, host, port = _admin()
    name = f"arena_bench_{uuid.uuid4().hex[:10]}"
    with conn.cursor() as cur:
        cur.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg2://{user}@{host}:{port}/{name}"
    finally:
        dispose_all()
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()


#: The row a finished load leaves in a kept database: what was loaded, and how long it took.
DATASET_TABLE = "bench_dataset"


@contextmanager
def kept_database(name: str, kind: str, bots: int, matches: int) -> Iterator[tuple[str, float | None]]:
    """``(url, loaded_in_s)`` of the database ``name``, which the run keeps. ``loaded_in_s`` is
    the original load time when the database already holds the dataset ``(kind, bots,
    matches)``; None when it must be loaded now (a database without that mark — half loaded,
    or another dataset — is dropped and created again, empty). The caller loads it and calls
    :func:`mark_loaded` on it."""
    from arena.db import dispose_all

    if not name.replace("_", "").isalnum() or not name[:1].isalpha():
        raise ValueError(f"{name!r}: a kept database is named with letters, digits and _")
    conn, user, host, port = _admin()
    url = f"postgresql+psycopg2://{user}@{host}:{port}/{name}"
    try:
        loaded = _loaded_in(url, kind, bots, matches)
        if loaded is None:
            dispose_all()  # engines of the old database (and "migrated" marks) are stale now
            with conn.cursor() as cur:
                cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                cur.execute(f'CREATE DATABASE "{name}"')
        yield url, loaded
    finally:
        dispose_all()
        conn.close()


def _loaded_in(url: str, kind: str, bots: int, matches: int) -> float | None:
    import psycopg2

    try:
        conn = psycopg2.connect(url.replace("postgresql+psycopg2", "postgresql"), connect_timeout=3)
    except psycopg2.OperationalError:
        return None  # no such database yet
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s)", (DATASET_TABLE,))
            if cur.fetchone()[0] is None:
                return None
            cur.execute(f"SELECT loaded_s FROM {DATASET_TABLE} WHERE kind = %s AND bots = %s "
                        "AND matches = %s", (kind, bots, matches))
            row = cur.fetchone()
            return None if row is None else float(row[0])
    finally:
        conn.close()


def mark_loaded(url: str, kind: str, bots: int, matches: int, loaded_s: float) -> None:
    """Mark the kept database at ``url`` as holding the dataset, loaded in ``loaded_s``."""
    from sqlalchemy import text

    from arena.db import get_engine

    with get_engine(url).begin() as conn:
        conn.execute(text(f"CREATE TABLE IF NOT EXISTS {DATASET_TABLE} (kind text, bots int, "
                          "matches int, loaded_s float8)"))
        conn.execute(text(f"DELETE FROM {DATASET_TABLE}"))
        conn.execute(text(f"INSERT INTO {DATASET_TABLE} VALUES (:k, :b, :m, :s)"),
                     {"k": kind, "b": bots, "m": matches, "s": loaded_s})


NULL = "\\N"  # COPY's NULL marker here: an empty CSV field is an empty string, not NULL


def _csv_value(value: Any) -> Any:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    return value


def load(engine: Any, model: Any, rows: Iterable[dict[str, Any]]) -> int:
    """Insert ``rows`` (dicts with the same keys) into ``model``'s table; how many."""
    from sqlalchemy import insert

    rows = list(rows)
    if not rows:
        return 0
    if engine.dialect.name != "postgresql":
        with engine.begin() as conn:
            conn.execute(insert(model), rows)
        return len(rows)
    table = model.__table__
    columns = list(rows[0])
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([_csv_value(row[c]) for c in columns])
    buffer.seek(0)
    names = ", ".join(f'"{table.c[c].name}"' for c in columns)
    raw = engine.raw_connection()
    try:
        with raw.cursor() as cur:
            cur.copy_expert(f'COPY "{table.name}" ({names}) FROM STDIN WITH (FORMAT csv, NULL \'{NULL}\')', buffer)
        raw.commit()
    finally:
        raw.close()
    return len(rows)


def analyze(engine: Any) -> None:
    """Fresh planner statistics after a bulk load (as autovacuum would do a little later)."""
    if engine.dialect.name == "postgresql":
        from sqlalchemy import text

        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE"))
