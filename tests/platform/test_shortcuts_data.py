"""The broker, Redis, database and rating shortcuts (arena/shortcuts.py, docs/shortcuts.md):
each has its public path, which gives the same rows and ratings; off, the private code is not
run at all; on a release it was not tested with it turns itself off with one log line.

The behaviour tests of each path are the existing ones, run on both (``shortcut_setting``:
test_storage, test_kombu_unacked, test_celery_redis, test_resilience, test_live_batching,
test_ratings); this module checks what they cannot: that the two paths write *equal* rows."""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select, text

from arena import shortcuts
from arena.competition import tournaments
from arena.db import Match, dispose_all, get_engine, session_scope
from arena.evaluation import ratings
from arena.intake import bots
from arena.records import recording
from referee import shortcuts as switch
from tests.platform.conftest import PG_HOST, REDIS_URL, _pg_admin, redis_available
from tests.shortcut_paths import apply_setting, needs_tested_releases

GAME = "toy"
MINE = (
    shortcuts.KOMBU_RESTORE,
    shortcuts.KOMBU_UNACKED_SCRIPTS,
    shortcuts.REDIS_DIRECT_SCRIPTS,
    shortcuts.SQL_DRIVER_CURSOR,
    shortcuts.TRUESKILL_TWO_SEAT,
)


@pytest.fixture
def setting() -> Iterator[None]:
    """Tests here change ``ARENA_SHORTCUTS``; it is put back (and kombu with it) afterwards."""
    old = os.environ.get(switch.ENV)
    yield
    apply_setting(old)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two fresh databases of one kind: one for each path."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'on.sqlite3'}", f"sqlite:///{tmp_path / 'off.sqlite3'}"
        dispose_all()
        return
    try:
        conn, user = _pg_admin()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    names = [f"arena_test_{uuid.uuid4().hex[:12]}" for _ in range(2)]
    with conn.cursor() as cur:
        for name in names:
            cur.execute(f'CREATE DATABASE "{name}"')
    try:
        yield tuple(f"postgresql+psycopg2://{user}@{PG_HOST}/{name}" for name in names)
    finally:
        dispose_all()
        with conn.cursor() as cur:
            for name in names:
                cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()


def _play_and_record(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same claims, results (two- and three-seat, forfeits, a duplicate) and tournament on
    ``url``, at fixed clock readings (one with 0 µs: SQLite's format keeps the zeros)."""
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    dispose_all()
    clock = iter(
        [datetime(2026, 12, 4, 21, 0, s, 0 if s % 5 == 0 else 123456 + s) for s in range(60)]
    )
    monkeypatch.setattr(recording, "utcnow", lambda: next(clock))
    rng = random.Random(7)
    with session_scope() as s:
        ids = []
        for i in range(4):
            folder = tmp_path / f"bot{i}"
            folder.mkdir(exist_ok=True)
            (folder / "bot.py").write_text(f"# {i}\n")
            ids.append(bots.register_version(s, GAME, str(folder), name=f"bot{i}").id)
        t = tournaments.create_tournament(s, GAME, ids, players=2, rounds=1, seed=3)
        matches = [
            (m.id, m.players)
            for m in s.scalars(
                select(Match).where(Match.tournament_id == t.id).order_by(Match.round, Match.table)
            )
        ]
        three = recording.create_match(s, GAME, "base", ids[:3], seed=11)
        matches.append((three.id, 3))
    for n, (mid, k) in enumerate(matches):
        with session_scope() as s:
            assert recording.claim(s, mid, "worker-1").outcome == "claimed"
        scores = [rng.randint(0, 3) for _ in range(k)]
        forfeits = [{"seat": k - 1, "reason": "timeout", "decision": 2}] if n % 3 == 0 else []
        record = {
            "result": {
                "scores": scores,
                "ranks": [1 + sum(o > x for o in scores) for x in scores],
                "details": {"n": n, "none": None},
            },
            "forfeits": forfeits,
            "timings": None if n % 2 else {"total_ms": 1.5},
            "decisions": [{"seat": x, "forced": False} for x in range(k)],
        }
        with session_scope() as s:
            assert recording.record_result(s, mid, record) is True
        with session_scope() as s:
            assert recording.record_result(s, mid, record) is False  # a duplicate delivery


#: Columns the recording does not write (set when a match or tournament is created, by the
#: real clock or at random), and the lease (a time.time() reading; NULL once recorded).
_NOT_RECORDED = {"seed", "created_at", "lease_until"}


def _rows(url: str) -> dict[str, list[tuple]]:
    """Every row the recording wrote, as the database holds it (plain text queries: no column
    types between), with the random match ids (and seeds) replaced by each match's place."""
    dispose_all()
    out: dict[str, list[tuple]] = {}
    with get_engine(url).connect() as conn:
        place = {
            mid: f"{kind}/{rnd}/{table}"
            for mid, kind, rnd, table in conn.execute(
                text('SELECT id, kind, round, "table" FROM matches')
            ).all()
        }

        def plain(row: tuple, columns: list[str]) -> tuple:
            return tuple(
                (c, place.get(v, v) if c in ("id", "match_id") else v)
                for c, v in zip(columns, row, strict=True)
                if c not in _NOT_RECORDED
            )

        for table, order in (
            ("matches", "id"),
            ("match_seats", "match_id, seat"),
            ("ratings", "bot_version_id"),
            ("rating_history", "id"),
            ("rating_locks", "game"),
            ("tournaments", "id"),
        ):
            result = conn.execute(text(f"SELECT * FROM {table} ORDER BY {order}"))  # noqa: S608
            columns = list(result.keys())
            out[table] = sorted(plain(tuple(r), columns) for r in result.all())
        # rating_history.created_at is the recording's own stamp: compared too
        out["rating_history_created_at"] = [
            tuple(r)
            for r in conn.execute(
                text("SELECT id, created_at FROM rating_history ORDER BY id")
            ).all()
        ]
    dispose_all()
    return out


def test_both_paths_write_equal_rows(
    two_databases: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: None
) -> None:
    """The driver's cursor (sql_driver_cursor) and SQLAlchemy's execution layer, and the written-
    out two-seat update (trueskill_two_seat) and the package's: the same rows, value for value
    (on SQLite the stored text of every JSON and DateTime value too)."""
    on_url, off_url = two_databases
    for url, value in ((on_url, "on"), (off_url, "off")):
        apply_setting(value)
        _play_and_record(url, tmp_path, monkeypatch)
    on, off = _rows(on_url), _rows(off_url)
    assert len(on["matches"]) == 13 and len(on["rating_history"]) == 12 * 2 + 3
    for table in on:
        for one, other in zip(on[table], off[table], strict=True):
            assert one == other, (
                table,
                [(a, b) for a, b in zip(one, other, strict=True) if a != b],
            )
    if on_url.startswith("sqlite"):  # the raw text: SQLAlchemy's DateTime format, JSON null
        with sqlite3.connect(on_url.removeprefix("sqlite:///")) as db:
            finished = [r[0] for r in db.execute("SELECT finished_at FROM matches")]
            timings = {r[0] for r in db.execute("SELECT timings FROM matches")}
        assert any(f.endswith(".000000") for f in finished), finished
        assert "null" in timings


def test_off_runs_none_of_the_private_code(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: None
) -> None:
    """``ARENA_SHORTCUTS=off``: the written-out TrueSkill update, the driver's cursor, the direct
    script sends and the kombu replacements are never called (each one here raises if it is)."""
    from kombu.transport import redis as kombu_redis

    from arena.db import driver_sql
    from arena.workers import celery_app, redis_script

    def boom(*_: object, **__: object) -> None:
        raise AssertionError("a shortcut ran although ARENA_SHORTCUTS=off")

    monkeypatch.setattr(ratings, "_rate_two", boom)
    monkeypatch.setattr(driver_sql.DriverSQL, "__init__", boom)
    monkeypatch.setattr(redis_script, "run_script", boom)
    monkeypatch.setattr(redis_script, "new_connection", boom)
    apply_setting("off")
    for (owner, name), original in celery_app._KOMBU_ORIGINALS.items():
        assert owner.__dict__[name] is original, name  # kombu's own methods are back
    assert kombu_redis.QoS.__dict__["append"] is celery_app._KOMBU_ORIGINALS.get(
        (kombu_redis.QoS, "append"), kombu_redis.QoS.__dict__["append"]
    )
    assert ratings.rate(GAME, [ratings.Skill(25, 8), ratings.Skill(27, 6)], [1, 2])
    _play_and_record(sqlite_url, tmp_path, monkeypatch)
    if redis_available():
        from arena.workers.live import RedisBus

        bus = RedisBus(REDIS_URL)
        match_id = uuid.uuid4().hex
        bus.publish_batch(match_id, [{"n": 0}, {"n": 1}], {"board": 1})
        assert bus.snapshot(match_id) == ([{"n": 0}, {"n": 1}], {"board": 1})


def test_ratings_are_equal_on_both_paths(setting: None) -> None:
    """Many two-seat updates chained, on each path: equal floats (the shortcut is bit for bit the
    package; test_ratings checks single updates on extreme inputs too)."""

    def chain(value: str) -> list[ratings.Skill]:
        apply_setting(value)
        rng = random.Random(3)
        skills = [ratings.Skill(25.0, 25 / 3) for _ in range(6)]
        for _ in range(300):
            a, b = rng.sample(range(6), 2)
            skills[a], skills[b] = ratings.rate(
                "solenia", [skills[a], skills[b]], rng.choice([[1, 2], [2, 1], [1, 1]])
            )
        return skills

    on, off = chain("on"), chain("off")
    assert on == off  # within no tolerance at all


@pytest.mark.parametrize("name", MINE)
@needs_tested_releases()
def test_a_release_it_was_not_tested_with_turns_it_off_with_one_log_line(
    name: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, setting: None
) -> None:
    apply_setting("on")
    assert switch.enabled(name)  # the installed releases are the tested ones
    # A context of its own: undone before ``setting`` puts the real decisions back.
    with monkeypatch.context() as m:
        m.setattr(switch, "installed_version", lambda package: "999.0.0")
        switch.reset_cache()
        with caplog.at_level(logging.INFO, logger="referee.shortcuts"):
            assert not switch.enabled(name)
            assert not switch.enabled(name)
    lines = [r.getMessage() for r in caplog.records if name in r.getMessage()]
    assert len(lines) == 1 and "999.0.0" in lines[0] and "public path" in lines[0], lines


def test_untested_releases_put_every_public_path_in_place(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, setting: None
) -> None:
    """What the gate decides is what runs: kombu's own methods, SQLAlchemy's execution layer."""
    from arena.db.sql import CoreSQL, statements
    from arena.workers import celery_app

    with monkeypatch.context() as m:  # undone before ``setting`` puts the real decisions back
        m.setattr(switch, "installed_version", lambda package: "0.0.1")
        apply_setting("on")
        for (owner, name), original in celery_app._KOMBU_ORIGINALS.items():
            assert owner.__dict__[name] is original, name
        with get_engine(sqlite_url).connect() as conn:
            assert isinstance(statements(conn), CoreSQL)
        assert not switch.enabled(shortcuts.TRUESKILL_TWO_SEAT)


@pytest.mark.skipif(bool(os.environ.get(switch.ENV)), reason="ARENA_SHORTCUTS is set for this run")
@needs_tested_releases()
def test_after_these_tests_every_shortcut_is_on_again() -> None:
    """The version-gate tests leave no decision of theirs behind for the tests after them."""
    from kombu.transport import redis as kombu_redis

    assert all(switch.enabled(name) for name in MINE)
    assert kombu_redis.QoS.__dict__["append"].__module__ == "arena.workers.celery_app"


def test_the_setting_knows_every_name(setting: None) -> None:
    for name in MINE:
        switch.check_setting(f"-{name}")
        switch.check_setting(f"off,+{name}")
    with pytest.raises(switch.ShortcutSettingError, match="no shortcut is called"):
        switch.check_setting("-sql_driver_cursors")
