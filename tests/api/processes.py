"""A real deployment in miniature for the end-to-end tests: the Arena server and Celery workers
as separate processes, sharing a SQLite database, a data directory and a Redis broker."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
#: The shared Redis for tests that only publish and read their own keys (live events).
REDIS_URL = os.environ.get("ARENA_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")


def redis_available(url: str = REDIS_URL) -> bool:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return True
    except Exception:  # noqa: BLE001 - any failure means "no Redis here"
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Deployment:
    address: str
    env: dict[str, str]
    data_dir: Path
    logs: Path

    def arena(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run an ``arena`` command against this deployment's database (an operator's command)."""
        return subprocess.run(
            [sys.executable, "-m", "arena", *args], env=self.env, cwd=ROOT,
            capture_output=True, text=True, timeout=timeout,
        )

    def log_text(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in sorted(self.logs.glob("*.log")))


def _wait_serving(address: str, proc: subprocess.Popen, deadline_s: float = 30.0) -> None:
    channel = grpc.insecure_channel(address)
    stub = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + deadline_s
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"arena serve exited with {proc.returncode}")
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                time.sleep(0.1)
        raise TimeoutError(f"arena server at {address} not serving after {deadline_s} s")
    finally:
        channel.close()


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def private_redis_available() -> bool:
    return shutil.which("redis-server") is not None


@contextmanager
def private_redis(tmp: Path, port: int | None = None) -> Iterator[str]:
    """A Redis server of this deployment alone: test runs that overlap on one machine (two
    sessions, or CI beside a developer) must never hand each other's matches to their workers.
    ``port``: a port chosen beforehand (a broker that comes up where clients already point)."""
    import redis

    port = port or free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
                break
            except redis.RedisError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("private redis-server did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        _stop(proc)


@contextmanager
def deployment(tmp: Path, workers: int = 2) -> Iterator[Deployment]:
    """Start a private Redis, ``arena serve`` and one Celery worker process with ``workers`` threads."""
    with private_redis(tmp) as redis_url:
        yield from _deployment(tmp, redis_url, workers)


def _deployment(tmp: Path, redis_url: str, workers: int) -> Iterator[Deployment]:
    logs = tmp / "logs"
    logs.mkdir(parents=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARENA_DATABASE_URL": f"sqlite:///{tmp / 'arena.sqlite3'}",
        "ARENA_DATA_DIR": str(tmp / "data"),
        "ARENA_BROKER_URL": redis_url,
        "ARENA_EXTRA_GAMES": "tests.toy_game:ToyState",
        "ARENA_LEASE_SECONDS": "20",
        # Every account of a test comes from 127.0.0.1 (the cap has its own tests).
        "ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR": "10000",
    }
    port = free_port()
    procs: list[subprocess.Popen] = []
    handles = []
    try:
        for name, cmd in (
            ("server", [sys.executable, "-m", "arena", "serve", "--port", str(port), "--host", "127.0.0.1"]),
            ("worker", [sys.executable, "-m", "celery", "-A", "arena.workers.celery_app", "worker", "-Q", "arena",
                        "--pool", "threads", "-c", str(workers), "--loglevel", "WARNING", "-n", f"apitest{port}@%h"]),
        ):
            handle = open(logs / f"{name}.log", "w")  # noqa: SIM115 - closed in finally
            handles.append(handle)
            procs.append(subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT))
        address = f"127.0.0.1:{port}"
        _wait_serving(address, procs[0])
        yield Deployment(address, env, tmp / "data", logs)
    finally:
        for proc in procs:
            _stop(proc)
        for handle in handles:
            handle.close()
