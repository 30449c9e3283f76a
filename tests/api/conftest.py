"""Fixtures of the Arena API tests: a real server on a real socket, with its own database and
data directory, and clients that talk to it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.db.accounts import ROLE_ORGANISER
from arena.db.session import DATABASE_ENV
from arena.intake.uploads import MiB, UploadLimits
from arena.sdk.auth import auth_metadata
from arena.server.accounts import set_role
from arena.server.app import RunningServer, start_server
from arena.server.config import ServerConfig
from arena.workers.live import BROKER_ENV
from referee._proto import arena_pb2, arena_pb2_grpc
from referee.engine import TimeControl

#: Tight clocks so qualification of the toy game takes well under a second.
FAST_TC = TimeControl(decision_ms=1500, bank_ms=3000)
#: Small caps, so the refusal tests need no big archives.
TEST_LIMITS = UploadLimits(max_archive_bytes=1 * MiB, max_unpacked_bytes=2 * MiB, max_file_bytes=2 * MiB, max_files=50)


def make_config(tmp: Path) -> ServerConfig:
    return ServerConfig(
        data_dir=tmp / "data",
        limits=TEST_LIMITS,
        sandbox=shutil.which("bwrap") is not None,
        qualification_time_control=FAST_TC,
        qualification_wait_s=60.0,
        qualification_startup_ms=4000,
        max_workers=16,
        sprt=None,  # tests/sprt/ turn it on
        # A test module registers dozens of accounts from 127.0.0.1; the cap itself (default 5
        # an hour) is tested in tests/api/test_registration_caps.py.
        registrations_per_client_per_hour=10_000,
    )


@contextmanager
def fresh_database(tmp: Path) -> Iterator[Path]:
    """This process's database is a new SQLite file in ``tmp``, with no broker (matches run in
    the process), until the block ends; the environment is then as it was."""
    saved = {k: os.environ.get(k) for k in (DATABASE_ENV, BROKER_ENV)}
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ.pop(BROKER_ENV, None)
    try:
        yield tmp
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def server_on_fresh_database(tmp: Path, config: ServerConfig) -> Iterator[RunningServer]:
    """A server of ``config`` on 127.0.0.1 (any port) over a :func:`fresh_database`."""
    with fresh_database(tmp):
        running = start_server(config, "127.0.0.1:0")
        try:
            yield running
        finally:
            running.stop(grace=0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """An in-process server (no broker: matches run in this process) on its own database."""
    tmp = tmp_path_factory.mktemp("arena")
    with server_on_fresh_database(tmp, make_config(tmp)) as running:
        yield running


@pytest.fixture(scope="module")
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaStub]:
    channel = grpc.insecure_channel(
        server.address, options=[("grpc.max_send_message_length", 64 * MiB)]
    )
    yield arena_pb2_grpc.ArenaStub(channel)
    channel.close()


class Account:
    """A registered user as the tests use it: its name, token and call metadata."""

    def __init__(self, name: str, token: str) -> None:
        self.name = name
        self.token = token
        self.meta = auth_metadata(token)


_counter = {"n": 0}


def new_account(stub: arena_pb2_grpc.ArenaStub, prefix: str = "user") -> Account:
    _counter["n"] += 1
    name = f"{prefix}{_counter['n']}"
    reply = stub.Register(arena_pb2.RegisterRequest(name=name))
    return Account(name, reply.token)


def make_organiser(server: RunningServer, account: Account) -> None:
    set_role(account.name, ROLE_ORGANISER, server.servicer.url)


@pytest.fixture
def running() -> Iterator[list]:
    """Dial-in bots a test started (``tests.api.test_dialin.Running``, anything with ``stop()``):
    each is stopped when the test ends, passed or failed."""
    started: list = []
    yield started
    for r in started:
        r.stop()
