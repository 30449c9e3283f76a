"""Accounts are free, so ``Register`` is capped per client (issue 26: "a cap is only a cap if the
attacker cannot multiply the thing it counts"): at most ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR
(5) new accounts per client address — IPv6 by /64, ``x-forwarded-for`` believed only from
ARENA_TRUSTED_PROXIES, the same client WatchMatch counts — per rolling hour, counted in the
database so a restart forgets nothing. Real servers on real sockets, real gRPC, real SQLite."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from sqlalchemy import func, select, update

from arena.db import Registration, session_scope
from arena.db.session import DATABASE_ENV
from arena.server.app import RunningServer, start_server
from arena.server.config import REGISTRATIONS_ENV, ServerConfig
from arena.workers.live import BROKER_ENV
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.conftest import make_config

DEFAULT_CAP = 5


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A database of this test alone (the counts live in it), no broker, the cap's setting unset."""
    monkeypatch.setenv(DATABASE_ENV, f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    monkeypatch.delenv(BROKER_ENV, raising=False)
    monkeypatch.delenv(REGISTRATIONS_ENV, raising=False)
    yield tmp_path


def _start(tmp: Path, **settings: object) -> RunningServer:
    """The API tests' server with the registration cap at its default, unless ``settings`` say."""
    settings.setdefault("registrations_per_client_per_hour", ServerConfig().registrations_per_client_per_hour)
    return start_server(dataclasses.replace(make_config(tmp), **settings), "127.0.0.1:0")


class Client:
    """Registers accounts over one channel, as one address (``x-forwarded-for``) or as itself."""

    _names = iter(range(10**6))

    def __init__(self, running: RunningServer, forwarded_for: str | None = None) -> None:
        self.channel = grpc.insecure_channel(running.address, options=[("grpc.use_local_subchannel_pool", 1)])
        self.stub = arena_pb2_grpc.ArenaStub(self.channel)
        self.meta = (("x-forwarded-for", forwarded_for),) if forwarded_for else ()

    def register(self, name: str | None = None, request_id: str = "") -> pb.RegisterReply:
        name = name or f"acct{next(self._names)}"
        return self.stub.Register(pb.RegisterRequest(name=name, request_id=request_id), metadata=self.meta, timeout=10)

    def refusal(self, name: str | None = None) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as info:
            self.register(name)
        return info.value

    def tally(self, attempts: int) -> tuple[int, list[grpc.RpcError]]:
        """``attempts`` registrations one after another: how many were accepted, the refusals."""
        accepted, refused = 0, []
        for _ in range(attempts):
            try:
                self.register()
                accepted += 1
            except grpc.RpcError as exc:
                refused.append(exc)
        return accepted, refused

    def close(self) -> None:
        self.channel.close()


def _rows(client: str | None = None) -> int:
    with session_scope() as s:
        query = select(func.count()).select_from(Registration)
        if client is not None:
            query = query.where(Registration.client == client)
        return s.scalar(query)


def test_forty_registrations_from_one_address_make_five_accounts_and_others_still_register(database: Path) -> None:
    """The attack: one client makes accounts to multiply every per-account cap. Five a rolling
    hour; the rest RESOURCE_EXHAUSTED saying when to try again (also as a RetryInfo); another
    address, another /64, and the proxy itself are other clients."""
    assert ServerConfig().registrations_per_client_per_hour == DEFAULT_CAP
    running = _start(database, trusted_proxies=("127.0.0.1",))
    clients: list[Client] = []
    try:
        attacker = Client(running, "198.51.100.7")
        clients.append(attacker)
        accepted, refused = attacker.tally(40)
        assert (accepted, len(refused)) == (5, 35)
        assert {exc.code() for exc in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
        details = refused[0].details()
        assert details.startswith("too many new accounts from 198.51.100.7: 5 in the last hour "
                                  "(limit 5 per client per hour); try again in 60 min (at ")
        assert details.endswith(" UTC), or sign in with an account you already have")
        retry = error_details_pb2.RetryInfo()
        status = rpc_status.from_call(refused[-1])
        assert status is not None and status.details[0].Unpack(retry)
        assert 3500 <= retry.retry_delay.seconds <= 3600
        assert _rows("addr:198.51.100.7") == 5  # refusals leave no row

        # Another address behind the trusted proxy is another client.
        neighbour = Client(running, "198.51.100.8")
        clients.append(neighbour)
        assert neighbour.register("neighbour").user.name == "neighbour"

        # IPv6: every address of a /64 is one client; the next /64 is another.
        def client(forwarded_for: str | None = None) -> Client:
            clients.append(Client(running, forwarded_for))
            return clients[-1]

        for host in range(1, 6):
            client(f"2001:db8:0:1::{host}").register()
        error = client("2001:db8:0:1:ffff:ffff:ffff:ffff").refusal()
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many new accounts from 2001:db8:0:1::/64: 5 in the last hour" in error.details()
        assert client("2001:db8:0:2::1").register("next-prefix").user.name == "next-prefix"

        # The proxy's own calls (no header) are the proxy's.
        assert client().register("from-the-proxy").user.name == "from-the-proxy"
    finally:
        for client in clients:
            client.close()
        running.stop(grace=0)


def test_without_a_trusted_proxy_the_header_names_nobody_and_the_count_survives_a_restart(database: Path) -> None:
    """Nobody's x-forwarded-for is believed by default, so varying it makes no new client; the
    count is in the database, so a restarted server on it refuses the sixth as well; an hour
    later the client registers again and the old rows are pruned."""
    assert ServerConfig().trusted_proxies == ()
    running = _start(database)
    try:
        for k in range(DEFAULT_CAP):
            Client(running, f"203.0.113.{k + 1}").register()
        error = Client(running, "203.0.113.99").refusal()
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many new accounts from 127.0.0.1: 5 in the last hour" in error.details()
    finally:
        running.stop(grace=0)

    restarted = _start(database)
    try:
        error = Client(restarted).refusal("after-restart")
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many new accounts from 127.0.0.1: 5 in the last hour (limit 5 per client per hour)" in error.details()
        # An hour and a minute later (the rows aged in the database): registered, old rows gone.
        with session_scope() as s:
            s.execute(update(Registration).values(created_at=Registration.created_at - timedelta(minutes=61)))
        assert Client(restarted).register("an-hour-later").user.name == "an-hour-later"
        assert _rows() == 1
    finally:
        restarted.stop(grace=0)


def test_parallel_registrations_of_one_client_cannot_pass_the_cap_together(database: Path) -> None:
    """Thirty Register calls of one client at once (the server answers them on many threads):
    five accounts, the rest refused."""
    running = _start(database, trusted_proxies=("127.0.0.0/8",))
    client = Client(running, "192.0.2.55")
    codes: list[grpc.StatusCode] = []
    lock = threading.Lock()
    start = threading.Barrier(30)

    def one(k: int) -> None:
        start.wait()
        try:
            client.register(f"burst{k}")
            code = grpc.StatusCode.OK
        except grpc.RpcError as exc:
            code = exc.code()
        with lock:
            codes.append(code)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(30)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert codes.count(grpc.StatusCode.OK) == DEFAULT_CAP
        assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 30 - DEFAULT_CAP
        assert _rows("addr:192.0.2.55") == DEFAULT_CAP
    finally:
        client.close()
        running.stop(grace=0)


def test_a_retried_or_failed_registration_counts_nothing(database: Path) -> None:
    """A retry with the same request id answers for the same account (a fresh token) and is not
    a new account; a taken or invalid name makes none and counts none."""
    running = _start(database, registrations_per_client_per_hour=2)
    client = Client(running)
    try:
        first = client.register("retried", request_id="retry-request-0001")
        again = client.register("retried", request_id="retry-request-0001")
        assert again.user.id == first.user.id and again.token != first.token
        assert _rows() == 1
        with pytest.raises(grpc.RpcError) as taken:
            client.register("retried")
        assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS
        with pytest.raises(grpc.RpcError) as invalid:
            client.register("no")
        assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert _rows() == 1
        client.register("second")
        error = client.refusal("third")
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "(limit 2 per client per hour)" in error.details()
    finally:
        client.close()
        running.stop(grace=0)


def test_the_cap_is_read_from_the_environment(database: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR sets it; a malformed value is one clear line."""
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.setenv(REGISTRATIONS_ENV, "3")
    config = ServerConfig(data_dir=database / "data", sandbox=False)
    assert config.registrations_per_client_per_hour == 3
    running = start_server(config, "127.0.0.1:0")
    client = Client(running)
    try:
        accepted, refused = client.tally(5)
        assert (accepted, len(refused)) == (3, 2)
        assert "(limit 3 per client per hour)" in refused[0].details()
    finally:
        client.close()
        running.stop(grace=0)

    monkeypatch.setenv(REGISTRATIONS_ENV, "five")
    result = CliRunner().invoke(cli, ["serve", "--port", "0"])
    assert result.exit_code == 1
    assert f"{REGISTRATIONS_ENV}='five' is not a positive whole number" in result.output
    assert "Traceback" not in result.output
