"""Services that wait for the database (issue #30 item 5): ``arena worker``, ``arena beat`` and
``arena serve`` started while PostgreSQL cannot be reached log a line per attempt and keep
running; once it is reachable they start, and the worker plays a match.

"PostgreSQL down" is a port nobody listens on; "back" is a small TCP proxy the test then opens on
that port, forwarding to the real server (so the shared PostgreSQL is never stopped).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.db import Match, dispose_all, session_scope
from tests.platform.conftest import PG_HOST, RANDOM_BOT, ROOT, free_port, platform_env

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

WAITING = "database unavailable at"


class TcpProxy:
    """Forwards every connection on 127.0.0.1:``port`` to ``target`` (one thread per direction)."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port, self.target = port, target
        self.listener = socket.create_server(("127.0.0.1", port))
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.stopped = True
        self.listener.close()


def _wait(predicate, timeout: float, what: str, logs=lambda: "") -> None:  # noqa: ANN001
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}\n{logs()}")


@pytest.fixture
def down_url(pg_url: str) -> Iterator[tuple[str, int]]:
    """The URL of the test's PostgreSQL database through a port nobody listens on (yet)."""
    port = free_port()
    user_and_host, name = pg_url.rsplit("/", 1)
    user = user_and_host.split("//", 1)[1].split("@", 1)[0]
    yield f"postgresql+psycopg2://{user}@127.0.0.1:{port}/{name}", port


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "arena", *args], env=env, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def test_worker_beat_and_server_wait_for_postgres_then_work(
    down_url: tuple[str, int], pg_url: str, redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, port = down_url
    env = platform_env(url, redis_db, ARENA_HOME=str(tmp_path / "home"))
    grpc_port = free_port()
    logs = {name: tmp_path / f"{name}.log" for name in ("worker", "beat", "serve")}
    procs = {
        "worker": _start(["worker", "--loglevel", "info"], env, logs["worker"]),
        "beat": _start(["beat", "--schedule-file", str(tmp_path / "beat" / "schedule")], env, logs["beat"]),
        "serve": _start(["serve", "--port", str(grpc_port), "--host", "127.0.0.1", "--unsafe-no-sandbox",
                         "--data-dir", str(tmp_path / "data")], env, logs["serve"]),
    }

    def text(name: str) -> str:
        return logs[name].read_text(errors="replace")

    def all_logs() -> str:
        return "\n".join(f"--- {n}\n{text(n)[-3000:]}" for n in logs)

    proxy = None
    try:
        # Down: each logs that it waits (without the password-free URL's secrets) and stays up.
        _wait(lambda: all(WAITING in text(n) for n in logs), 60, "the waiting lines", all_logs)
        time.sleep(3)
        for name, proc in procs.items():
            assert proc.poll() is None, f"{name} exited while the database was down\n{all_logs()}"
            assert "Traceback" not in text(name), all_logs()
        assert f"127.0.0.1:{port}" in text("worker") and "retrying in" in text("worker")
        assert "ready." not in text("worker")

        # Back: the proxy opens the port; every service starts.
        proxy = TcpProxy(port, (PG_HOST, 5432))
        _wait(lambda: "ready." in text("worker"), 90, "the worker to start", all_logs)
        _wait(lambda: "beat: Starting" in text("beat"), 60, "beat to start", all_logs)
        _wait(lambda: "listening on" in text("serve") or _listening(grpc_port), 60, "the server", all_logs)
        for name in logs:
            assert "database reachable: starting" in text(name), all_logs()

        # The worker works: a match sent now is played and recorded.
        from arena.intake import bots
        from arena.records import recording

        monkeypatch.setenv("ARENA_DATABASE_URL", pg_url)
        dispose_all()
        with session_scope() as s:
            ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"w{i}").id for i in range(2)]
            mid = recording.create_match(s, "toy", "base", ids, seed=5, kind="adhoc", sandbox=False).id
        send = subprocess.run([sys.executable, "-c", f"from arena import tasks; tasks.enqueue([{mid!r}])"],
                              env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert send.returncode == 0, send.stderr

        def done() -> bool:
            dispose_all()
            with session_scope() as s:
                return s.scalar(select(Match.status).where(Match.id == mid)) == "done"

        _wait(done, 90, "the match to be played", all_logs)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if proxy is not None:
            proxy.close()
        dispose_all()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
