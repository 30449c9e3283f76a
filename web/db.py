"""Database access for the website: one read session per request.

The site only reads. On SQLite the platform's shared engine starts every transaction with
``BEGIN IMMEDIATE`` (so that workers queue for the write lock); a page view must never take
that lock, or a busy ladder would stall the website and the website would stall the workers.
So the web opens its own SQLite engine with plain autocommit reads (WAL lets them run beside a
writer) after making sure the schema is migrated. Other databases use the shared engine's
pool, PostgreSQL in autocommit too (no BEGIN and ROLLBACK round trips per page).
"""

from __future__ import annotations

from flask import current_app, g
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from arena.db import database_url, get_engine, init_db


def make_sessionmaker(url: str | None) -> sessionmaker[Session]:
    url = database_url(url)
    init_db(url)
    engine: Engine
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _read_only(dbapi_conn, _record) -> None:  # noqa: ANN001
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA query_only=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            # Pages read by one request are likely read by the next (the same leaderboard,
            # the newest matches): a bigger page cache and memory-mapped reads keep them hot.
            cur.execute("PRAGMA cache_size=-65536")
            cur.execute("PRAGMA mmap_size=268435456")
            cur.close()
    else:
        engine = get_engine(url)
        if engine.dialect.name == "postgresql":
            if not event.contains(engine, "connect", _no_jit):
                event.listen(engine, "connect", _no_jit)
            # Reads in autocommit, as on SQLite: without it psycopg2 sends BEGIN before a
            # page's first query and the pool a ROLLBACK after its last — two round trips of
            # a page's four to eight, each a wait for a core on a busy machine. (Rows a page
            # reads in two statements are immutable once written, or shown as a snapshot
            # anyway: a history page's matches, then their seats.)
            engine = engine.execution_options(isolation_level="AUTOCOMMIT")
    return sessionmaker(engine, expire_on_commit=False)


def _no_jit(dbapi_conn, _record) -> None:  # noqa: ANN001
    """Page queries read a few rows through indexes, but walks like "newest matches with a
    forfeit" carry planner costs in the millions, past ``jit_above_cost``: compiling them took
    ~45 ms of a 50 ms budget at 1,000,000 matches, to save nothing."""
    cur = dbapi_conn.cursor()
    cur.execute("SET jit = off")
    cur.close()
    dbapi_conn.commit()


def db() -> Session:
    """The request's session (opened on first use, closed when the request ends)."""
    session = g.get("_db_session")
    if session is None:
        session = g._db_session = current_app.extensions["arena_sessionmaker"]()
    return session


def close_session(_exc: BaseException | None = None) -> None:
    session = g.pop("_db_session", None)
    if session is not None:
        session.close()
