"""The per-match statements (claim, configuration, recording) and the two ways they are run.

:func:`statements` gives the runner for one SQLAlchemy connection, inside its transaction:

* with the shortcut ``sql_driver_cursor`` on (:mod:`arena.shortcuts`, docs/shortcuts.md), the
  DB-API cursor beneath SQLAlchemy (:class:`arena.db.driver_sql.DriverSQL`): SQLAlchemy's
  execution layer skipped, its value conversions and psycopg's parameter style copied;
* otherwise, the public path (:class:`CoreSQL`): the same SQL text through SQLAlchemy's own
  ``Connection.execute`` as ``text()`` constructs, each value bound with the column type it is
  written to (``JSON``, ``DateTime``, ``Boolean``), JSON columns read back through ``JSON`` too,
  and the history rows inserted by a Core ``insert()``. SQLAlchemy converts and rewrites.

Both take and give the same things (the callers mark values with :meth:`json`, :meth:`when`,
:meth:`flag` and read JSON back with :meth:`loads`), so the callers do not know which one runs,
and the rows they write are equal (tests/platform/test_shortcuts_data.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Protocol

import orjson
from sqlalchemy import JSON, Boolean, Connection, DateTime, bindparam, insert, text
from sqlalchemy.sql.elements import TextClause

from arena import shortcuts

#: Result columns of the per-match statements that hold JSON (read back through ``JSON``).
_JSON_RESULT_COLUMNS = ("opponent_counts", "seat_counts", "player_counts")


class Statements(Protocol):
    """What :func:`statements` returns: one connection's runner of SQL text with ``:name``
    parameters, in that connection's transaction."""

    def execute(self, sql: str, params: Mapping[str, Any]) -> int: ...
    def first(self, sql: str, params: Mapping[str, Any]) -> Sequence[Any] | None: ...
    def all(self, sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]: ...
    def many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None: ...
    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None: ...
    def json(self, value: Any) -> Any: ...
    def when(self, value: datetime | None) -> Any: ...
    def flag(self, value: bool) -> Any: ...
    def loads(self, value: Any) -> Any: ...


def statements(conn: Connection) -> Statements:
    """The runner for ``conn``: the driver's cursor if the shortcut is on, else :class:`CoreSQL`."""
    if shortcuts.enabled(shortcuts.SQL_DRIVER_CURSOR):
        from arena.db.driver_sql import DriverSQL

        return DriverSQL(conn)
    return CoreSQL(conn)


class _JSONValue:
    """A value for a ``JSON`` column (:meth:`CoreSQL.json`): bound with SQLAlchemy's ``JSON``."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_TYPES = {"json": JSON(), "when": DateTime(), "flag": Boolean()}


def _kind(value: Any) -> str | None:
    if isinstance(value, _JSONValue):
        return "json"
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, datetime):
        return "when"
    return None


@cache
def _clause(sql: str, typed: tuple[tuple[str, str], ...]) -> TextClause:
    """``sql`` as a ``text()`` construct with its typed parameters, built once per shape."""
    clause = text(sql)
    if typed:
        clause = clause.bindparams(*(bindparam(name, type_=_TYPES[kind]) for name, kind in typed))
    columns = {name: JSON() for name in _JSON_RESULT_COLUMNS if name in sql}
    if columns and sql.lstrip().upper().startswith("SELECT"):
        clause = clause.columns(**columns)
    return clause


def _bound(sql: str, rows: Sequence[Mapping[str, Any]]) -> tuple[TextClause, list[dict[str, Any]]]:
    typed: dict[str, str] = {}
    for row in rows:
        for name, value in row.items():
            kind = _kind(value)
            if kind is not None:
                typed[name] = kind
    plain = [
        {k: v.value if isinstance(v, _JSONValue) else v for k, v in row.items()} for row in rows
    ]
    return _clause(sql, tuple(sorted(typed.items()))), plain


class CoreSQL:
    """The public path of :func:`statements`: SQLAlchemy's ``Connection.execute`` of ``text()``."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Mapping[str, Any]) -> int:
        """Run one statement; the number of rows it changed."""
        clause, (plain,) = _bound(sql, [params])
        return self.conn.execute(clause, plain).rowcount

    def first(self, sql: str, params: Mapping[str, Any]) -> Sequence[Any] | None:
        clause, (plain,) = _bound(sql, [params])
        return self.conn.execute(clause, plain).first()

    def all(self, sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        clause, (plain,) = _bound(sql, [params])
        return self.conn.execute(clause, plain).all()

    def many(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """The statement once per row (SQLAlchemy's executemany)."""
        if rows:
            clause, plain = _bound(sql, rows)
            self.conn.execute(clause, plain)

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """A Core ``insert()`` of the rows (SQLAlchemy's insertmanyvalues batches them)."""
        from arena.db.models import Base

        values = [dict(zip(columns, row, strict=True)) for row in rows]
        if values:
            self.conn.execute(insert(Base.metadata.tables[table]), values)

    @staticmethod
    def json(value: Any) -> _JSONValue:
        """A ``JSON`` column's value, encoded by SQLAlchemy's ``JSON`` type when bound."""
        return _JSONValue(value)

    @staticmethod
    def when(value: datetime | None) -> datetime | None:
        """A ``DateTime`` column's value (bound with ``DateTime``: SQLAlchemy formats it)."""
        return value

    @staticmethod
    def flag(value: bool) -> bool:
        """A ``Boolean`` column's value (bound with ``Boolean``)."""
        return value

    @staticmethod
    def loads(value: Any) -> Any:
        """A ``JSON`` column read back: already decoded by the ``JSON`` result type."""
        return orjson.loads(value) if isinstance(value, str | bytes) else value
