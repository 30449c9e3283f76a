"""Statements run on the DB-API cursor under a SQLAlchemy connection: the per-match hot path.

Why: every match a worker plays is claimed, configured and recorded by a dozen statements,
and SQLAlchemy's execution layer around each one (compiled-cache lookup, bind processors, an
execution context, a result wrapper, events) cost ~100 µs of CPU here, more than SQLite took
to run the statement itself: ~0.8 ms of a match's ~2.5 ms of recording (a profile of 60
in-process matches; docs/tournaments-and-ratings.md). So those statements are written once as
SQL text and run on the driver's own cursor, in the transaction SQLAlchemy opened on that
connection (SQLite's ``BEGIN IMMEDIATE`` from :mod:`arena.db.session`, psycopg's or psycopg2's
implicit one), which SQLAlchemy still commits or rolls back.

The values SQLAlchemy's column types would have converted are converted here the same way, so
the rows are exactly those the Core statements wrote (tests/platform/test_storage.py rebuilds
every rating from them and compares with ``==``): JSON as the text of
:func:`arena.db.session._json_dumps`, ``DateTime`` as SQLite's text format (psycopg2 adapts
``datetime`` itself), ``Boolean`` as 0/1 on SQLite. The SQL is written with ``:name``
parameters (sqlite3's named style) and rewritten once to ``%(name)s``, the style both
PostgreSQL drivers take (psycopg 3, what ``postgresql://`` opens, and psycopg2); it uses no
``::`` casts and no literal colons, which that rewrite would break.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

import orjson
from sqlalchemy import Connection

from arena.db.session import _json_dumps

#: SQLAlchemy's storage format for ``DateTime`` on SQLite (sqlalchemy.dialects.sqlite.DATETIME).
_SQLITE_DATETIME = "%04d-%02d-%02d %02d:%02d:%02d.%06d"
_NAMED = re.compile(r":(\w+)")
#: PostgreSQL drivers whose cursors take ``%(name)s`` and adapt the values below themselves.
POSTGRES_DRIVERS = ("psycopg", "psycopg2")


@cache
def _pyformat(sql: str) -> str:
    return _NAMED.sub(r"%(\1)s", sql.replace("%", "%%"))


class DriverSQL:
    """The driver's cursor of one SQLAlchemy connection, inside that connection's transaction."""

    def __init__(self, conn: Connection) -> None:
        self.sqlite = conn.dialect.name == "sqlite"
        if not self.sqlite and conn.dialect.driver not in POSTGRES_DRIVERS:
            raise ValueError(
                f"matches are recorded on SQLite or on PostgreSQL through psycopg or psycopg2, "
                f"not {conn.dialect.name}+{conn.dialect.driver}")
        self._cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]

    def _sql(self, sql: str) -> str:
        return sql if self.sqlite else _pyformat(sql)

    def execute(self, sql: str, params: Mapping[str, Any]) -> int:
        """Run one statement; the number of rows it changed."""
        self._cursor.execute(self._sql(sql), params)
        return self._cursor.rowcount

    def first(self, sql: str, params: Mapping[str, Any]) -> tuple | None:
        self._cursor.execute(self._sql(sql), params)
        return self._cursor.fetchone()

    def all(self, sql: str, params: Mapping[str, Any]) -> list[tuple]:
        self._cursor.execute(self._sql(sql), params)
        return self._cursor.fetchall()

    def many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """The statement once per row (an UPDATE per seat: a handful of rows)."""
        self._cursor.executemany(self._sql(sql), rows)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """One multi-row INSERT (one round trip on PostgreSQL, as SQLAlchemy's insertmanyvalues)."""
        params: dict[str, Any] = {}
        groups = []
        for i, row in enumerate(rows):
            names = [f"{column}_{i}" for column in columns]
            params.update(zip(names, row, strict=True))
            groups.append("(" + ", ".join(f":{name}" for name in names) + ")")
        if groups:
            self._cursor.execute(self._sql(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join(groups)}"), params)

    # --- values as SQLAlchemy's column types would bind them -------------------------------------

    @staticmethod
    def json(value: Any) -> str:
        """A ``JSON`` column's value: None too becomes the JSON text ``null``, as SQLAlchemy's
        ``JSON`` type (``none_as_null`` off) writes it."""
        return _json_dumps(value)

    def when(self, value: datetime | None) -> datetime | str | None:
        """A ``DateTime`` column's value."""
        if value is None or not self.sqlite:
            return value
        return _SQLITE_DATETIME % (value.year, value.month, value.day, value.hour, value.minute,
                                   value.second, value.microsecond)

    def flag(self, value: bool) -> bool | int:
        """A ``Boolean`` column's value."""
        return int(value) if self.sqlite else value

    @staticmethod
    def loads(value: Any) -> Any:
        """A ``JSON`` column read back: text on SQLite, already decoded by psycopg(2)."""
        return orjson.loads(value) if isinstance(value, str | bytes) else value
