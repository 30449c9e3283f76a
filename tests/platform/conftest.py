"""Fixtures of the platform tests: a fresh database (SQLite and PostgreSQL), Redis, workers.

The storage tests run against both databases: ``db_url`` is parametrised over an SQLite file in
the test's tmp folder and a PostgreSQL database created for the test on localhost:5432 (trust
auth, user postgres or root) and dropped afterwards. Redis tests use database 14 of the Redis on
127.0.0.1:6379 with a queue name of their own, never the default database or queue.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.db import dispose_all

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot")
PG_HOST = os.environ.get("ARENA_TEST_PG_HOST", "localhost")
#: Not the default database (and not 13, which tests/api uses); every test also gets a queue of
#: its own (ARENA_QUEUE), so concurrent test runs sharing a Redis never take each other's tasks.
REDIS_URL = os.environ.get("ARENA_PLATFORM_TEST_REDIS_URL", "redis://127.0.0.1:6379/14")
TOY = "tests.toy_game:ToyState"


def _pg_admin():  # noqa: ANN202
    import psycopg2

    last: Exception | None = None
    for user in ("postgres", "root"):
        try:
            conn = psycopg2.connect(host=PG_HOST, user=user, dbname="test", connect_timeout=3)
            conn.autocommit = True
            return conn, user
        except Exception as exc:  # noqa: BLE001
            last = exc
    raise RuntimeError(f"PostgreSQL not reachable on {PG_HOST}: {last}")


@pytest.fixture
def pg_url() -> Iterator[str]:
    try:
        conn, user = _pg_admin()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with conn.cursor() as cur:
        cur.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg2://{user}@{PG_HOST}/{name}"
    finally:
        dispose_all()
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh, migrated database, also set as ARENA_DATABASE_URL for code using the default."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_url")
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    dispose_all()
    yield url
    dispose_all()


@pytest.fixture
def sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    dispose_all()
    yield url
    dispose_all()


def redis_available(url: str = REDIS_URL) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def platform_env(db: str, broker: str | None, **extra: str) -> dict[str, str]:
    """Environment for arena subprocesses: our database, our broker, the toy game, fast leases."""
    env = dict(os.environ)
    env.pop("ARENA_BROKER_URL", None)
    env.update(
        ARENA_DATABASE_URL=db,
        ARENA_EXTRA_GAMES=TOY,
        ARENA_LEASE_SECONDS="3",
        ARENA_SWEEP_EVERY="2",
        ARENA_REQUEUE_GRACE="3",
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    if broker:
        env["ARENA_BROKER_URL"] = broker
        env.setdefault("ARENA_QUEUE", f"arena-test-{uuid.uuid4().hex[:10]}")
    env.update(extra)
    return env


class Workers:
    """``arena worker`` subprocesses (each its own process group, so a kill takes its bots)."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.procs: list[subprocess.Popen] = []

    def start(self, n: int = 1) -> list[subprocess.Popen]:
        new = []
        for _ in range(n):
            log = open(self.log_dir / f"worker-{len(self.procs)}.log", "wb")  # noqa: SIM115
            p = subprocess.Popen(
                [sys.executable, "-m", "arena", "worker", "--loglevel", "info"],
                env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.procs.append(p)
            new.append(p)
        return new

    def wait_ready(self, timeout: float = 60) -> None:
        """Until every worker has logged Celery's ``ready.`` (so all of them take part)."""
        deadline = time.time() + timeout
        for i, proc in enumerate(self.procs):
            log = self.log_dir / f"worker-{i}.log"
            while "ready." not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"worker {i} did not start:\n{self.logs()}")
                time.sleep(0.1)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.time() + 10
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

    def logs(self, tail: int | None = 3000) -> str:
        """The workers' logs, each cut to its last `tail` characters (None: whole) for messages."""
        texts = (f.read_text(errors="replace") for f in self.log_dir.glob("worker-*.log"))
        return "\n".join(text if tail is None else text[-tail:] for text in texts)


@pytest.fixture
def redis_db(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test Redis, with a fresh queue name (ARENA_QUEUE) removed afterwards."""
    import redis

    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL}")
    queue = f"arena-test-{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("ARENA_QUEUE", queue)
    yield REDIS_URL
    client = redis.Redis.from_url(REDIS_URL)
    for name in (queue, f"{queue}.control"):
        client.delete(name, f"_kombu.binding.{name}", f"_kombu.binding_permanent.{name}")
    client.delete(f"arena:sweep-lease:{queue}")
    # Messages a killed worker never acknowledged: drop ours so they are not restored later.
    for tag, raw in client.hgetall("unacked").items():
        try:
            routing_key = json.loads(raw)[2]
        except (ValueError, IndexError, TypeError):
            continue
        if routing_key in (queue, f"{queue}.control"):
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


@pytest.fixture
def have_bwrap() -> bool:
    return shutil.which("bwrap") is not None
