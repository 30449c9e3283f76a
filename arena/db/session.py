"""Engines and sessions: where the database is, and how every process opens it.

Where the data lives (``database_url``):

* ``ARENA_DATABASE_URL`` when set — e.g. ``postgresql://arena@db/arena`` for a deployment
  with several machines (workers, web, gRPC server all point at the same PostgreSQL);
  ``postgresql://`` (and ``postgres://``) means psycopg 3, as in SQLAlchemy 2.1, or psycopg2
  when only that is installed; ``postgresql+psycopg://`` and ``postgresql+psycopg2://`` pick
  one explicitly (both are dependencies; see :func:`engine_url`);
* otherwise an embedded SQLite file at ``$ARENA_HOME/arena.sqlite3`` when ``ARENA_HOME`` is set,
  else ``${XDG_DATA_HOME:-~/.local/share}/tabletop-arena/arena.sqlite3``. A per-user path (not
  ``./arena.sqlite3``) so that ``arena demo`` run from any folder finds the same ratings.

SQLite is opened in WAL mode (the web can read while a worker writes) with a long busy timeout,
and every write transaction starts with ``BEGIN IMMEDIATE`` so two worker processes recording
results queue up for the write lock instead of failing half-way with "database is locked".

Every process calls :func:`init_db` once on start: it applies the Alembic migrations (the schema
is never created any other way), guarded by a lock so concurrently starting workers don't race.
Long-running services (``arena worker``, ``arena beat``, ``arena serve``) call it through
:func:`wait_for_db`, which waits for a database server that is not up yet.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
from sqlalchemy import URL, Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from arena import SettingError
from arena.quoting import shorten

log = logging.getLogger(__name__)

DATABASE_ENV = "ARENA_DATABASE_URL"
HOME_ENV = "ARENA_HOME"

_engines: dict[str, Engine] = {}
_makers: dict[str, sessionmaker[Session]] = {}
_upgraded: set[str] = set()
_lock = threading.Lock()


def default_sqlite_path() -> Path:
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser() / "arena.sqlite3"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "tabletop-arena" / "arena.sqlite3"


def database_url(url: str | None = None) -> str:
    """The URL to use: the argument, else ``ARENA_DATABASE_URL``, else the contents of the file
    ``ARENA_DATABASE_URL_FILE`` names (a Docker secret), else the SQLite default."""
    if url:
        return url
    env = os.environ.get(DATABASE_ENV)
    if env:
        return env
    secret = os.environ.get(f"{DATABASE_ENV}_FILE")  # a Docker secret: the URL holds a password
    if secret:
        try:
            return Path(secret).read_text().strip()
        except OSError as exc:
            raise SettingError(f"{DATABASE_ENV}_FILE={secret}: cannot read it ({exc.strerror})") from None
    return f"sqlite:///{default_sqlite_path()}"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


#: What a user may write for ARENA_DATABASE_URL, said in every refusal of one.
URL_EXAMPLES = "sqlite:////path/to/arena.sqlite3 or postgresql://user:password@host:5432/dbname"
#: The PostgreSQL drivers the platform is tested with (both are dependencies).
PG_DRIVERS = ("psycopg", "psycopg2")


def url_for_display(url: str) -> str:
    """The URL for a message: password hidden, and never unbounded (it may be any text)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # not parsed, but it may still hold a password
        url = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)
    return shorten(url)


def _named(url: str) -> str:
    """How a refusal names the URL: as the setting it came from, when it did."""
    if os.environ.get(DATABASE_ENV) == url:
        return f"{DATABASE_ENV}={url_for_display(url)}"
    return f"database {url_for_display(url)}"


def engine_url(url: str) -> URL:
    """``url`` as the engine opens it, or a :class:`SettingError` saying what is wrong with it.

    Users write ``postgresql://`` (the form PostgreSQL's own tools and most hosts print);
    SQLAlchemy 2.1 opens that with psycopg 3 (2.0 took psycopg2), so which module it needed
    depended on the SQLAlchemy release. Here it is psycopg 3 when installed, else psycopg2;
    ``postgres://`` (Heroku's spelling, refused by SQLAlchemy) is the same. Only SQLite and
    PostgreSQL are supported: the per-match statements (:mod:`arena.db.driver_sql`) and the
    migration lock are written for those two."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise SettingError(f"{_named(url)}: not a database URL; "
                           f"write e.g. {URL_EXAMPLES}") from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend == "postgres":
        backend = "postgresql"
    if backend == "sqlite":
        if driver not in ("", "pysqlite"):
            raise SettingError(f"{_named(url)}: SQLite is opened with Python's "
                               "sqlite3 (sqlite:///…), not " + shorten(driver))
        return parsed
    if backend != "postgresql":
        raise SettingError(f"{_named(url)}: the platform stores its data in SQLite "
                           f"or PostgreSQL, not {shorten(backend)}; write e.g. {URL_EXAMPLES}")
    if not driver:
        driver = "psycopg" if _importable("psycopg") else "psycopg2"
    if driver not in PG_DRIVERS:
        raise SettingError(f"{_named(url)}: PostgreSQL is opened with psycopg "
                           f"(postgresql+psycopg://) or psycopg2 (postgresql+psycopg2://), "
                           f"not {shorten(driver)}")
    if not _importable(driver):
        raise SettingError(f"{_named(url)} needs the Python package {driver}, "
                           f"which is not installed (pip install "
                           f"{'psycopg[binary]' if driver == 'psycopg' else 'psycopg2-binary'})")
    return parsed.set(drivername=f"postgresql+{driver}")


def check_database(url: str | None = None) -> str:
    """The database URL to use, refused now (a :class:`SettingError`) if it cannot work: not a
    URL, a driver not installed, an SQLite folder that cannot be made. What a service checks
    before it announces itself, so a wrong setting is its only line."""
    url = database_url(url)
    if is_sqlite(engine_url(url).drivername):
        _sqlite_folder(url)
    return url


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _sqlite_folder(url: str) -> None:
    """Create the folder of an SQLite file, or say in one line why it cannot be."""
    path = url.split("///", 1)[1] if "///" in url else ""
    if not path or path == ":memory:":
        return
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = f"{HOME_ENV} or {DATABASE_ENV}" if os.environ.get(HOME_ENV) is None else HOME_ENV
        raise SettingError(f"cannot create the database folder {shorten_path(folder)}: "
                           f"{exc.strerror or exc}; set {where} to a folder you can write") from None


def shorten_path(path: Path) -> str:
    return shorten(str(path), 200)


def _make_engine(url: str) -> Engine:
    opened = engine_url(url)
    if is_sqlite(opened.drivername):
        _sqlite_folder(url)
        engine = create_engine(opened, connect_args={"timeout": 60, "check_same_thread": False},
                               json_serializer=_json_dumps)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001
            # Take transaction control away from pysqlite so BEGIN IMMEDIATE below is honoured.
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL still never corrupts and survives a process crash (what a
            # killed worker is); only an OS crash may drop the last commits. Saves an fsync
            # per transaction, which workers recording results do a lot.
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.close()

        # Every transaction starts with BEGIN IMMEDIATE: the write lock up front, so two writers
        # never deadlock upgrading a read lock. SQLAlchemy's documented recipe for pysqlite (a
        # "begin" event). Until 2026-12-04 this replaced the dialect's ``do_begin`` to skip the
        # execution layer (~40 µs a transaction, two per match: ~2 % of the platform's cost per
        # match), a patch under the 5 % bar of docs/shortcuts.md, so it went.
        @event.listens_for(engine, "begin")
        def _begin_immediate(conn) -> None:  # noqa: ANN001 - a Connection
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(opened, pool_pre_ping=True, pool_size=5, max_overflow=5,
                         json_serializer=_json_dumps)


def _json_dumps(value: object) -> str:
    """JSON columns are written with orjson: a match record (tens of kB) is written by a worker
    for every match, and the standard encoder was a visible share of recording it. Read back
    they are the same values (floats round-trip exactly either way; NaN, which is not JSON,
    becomes null); what orjson refuses (e.g. an int past 64 bits) goes to ``json``."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


def get_engine(url: str | None = None) -> Engine:
    """The process-wide engine for ``url`` (created once, after the schema is upgraded)."""
    url = database_url(url)
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = _make_engine(url)
    if url not in _upgraded:
        init_db(url)
    return engine


def get_sessionmaker(url: str | None = None) -> sessionmaker[Session]:
    url = database_url(url)
    engine = get_engine(url)
    with _lock:
        maker = _makers.get(url)
        if maker is None:
            maker = _makers[url] = sessionmaker(engine, expire_on_commit=False)
    return maker


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any error, always close."""
    session = get_sessionmaker(url)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def init_db(url: str | None = None) -> None:
    """Bring the schema up to date with Alembic (idempotent; safe from many processes at once)."""
    from arena.db.migrations import upgrade

    url = database_url(url)
    if url in _upgraded:
        return
    with _lock:
        engine = _engines.get(url) or _engines.setdefault(url, _make_engine(url))
    if is_sqlite(url):
        path = url.split("///", 1)[1] if "///" in url else ""
        lock_path = f"{path}.migrate.lock" if path and path != ":memory:" else None
        if lock_path:
            try:
                handle = open(lock_path, "a")  # noqa: SIM115 - closed by the with below
            except OSError as exc:
                raise SettingError(f"cannot write next to the database {shorten_path(Path(path))}: "
                                   f"{exc.strerror or exc}; set {HOME_ENV} or {DATABASE_ENV} to a "
                                   "folder you can write") from None
            with handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    upgrade(engine)
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
        else:
            upgrade(engine)
    else:
        with engine.connect() as conn:
            # A transaction-level advisory lock: concurrent starters wait, then find head reached.
            conn.execute(text("SELECT pg_advisory_lock(731001)"))
            try:
                upgrade(engine)
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(731001)"))
                conn.commit()
    _upgraded.add(url)


#: Longest wait between two attempts of :func:`wait_for_db`.
WAIT_MAX_DELAY = 15.0


def wait_for_db(url: str | None = None, report: Callable[[str], None] | None = None) -> None:
    """:func:`init_db`, retried while the database server cannot be reached — what a worker,
    beat or ``arena serve`` does on start, so a service started before PostgreSQL (or while it
    restarts) waits for it instead of exiting with a traceback. One line per attempt through
    ``report`` (default: a warning in this module's log), 1 s doubling to
    :data:`WAIT_MAX_DELAY` apart, and one when it is reachable. An SQLite file is not waited
    for (a file that cannot be opened now will not open later), nor is any other error."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError, OperationalError

    url = database_url(url)
    say = report or log.warning
    delay, failed = 1.0, False
    while True:
        try:
            init_db(url)
        except (OperationalError, DBAPIError) as exc:
            if is_sqlite(url) or not (isinstance(exc, OperationalError) or exc.connection_invalidated):
                raise
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else type(exc).__name__
            say(f"database unavailable at {make_url(url).render_as_string(hide_password=True)} "
                f"({reason}); retrying in {delay:.0f} s")
            failed = True
            time.sleep(delay)
            delay = min(2 * delay, WAIT_MAX_DELAY)
            continue
        if failed:
            say("database reachable: starting")
        return


def dispose_all() -> None:
    """Forget every engine (tests switching databases; forked worker processes)."""
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()
        _makers.clear()
        _upgraded.clear()
