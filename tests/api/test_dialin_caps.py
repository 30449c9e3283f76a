"""Caps and endings of dial-in streams (``Arena.ConnectBot``, issue #26): open streams in total,
per address and per account, new names per account per hour, pending qualifications per
account — each RESOURCE_EXHAUSTED with a message naming it; a replaced stream ends ABORTED; a
deactivated, retired or refused bot's stream is ended saying why; a refusal is one log line.

Real parts: an in-process Arena server with small caps on a real socket, dialling bots
(``DialInBot``) and bare ConnectBot streams over gRPC.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.sdk.auth import auth_metadata
from arena.sdk.connect import ConnectError, DialInBot
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.conftest import make_config, new_account, server_on_fresh_database
from tests.api.test_dialin import Running, first_option, wait_for

STREAMS_PER_ACCOUNT = 3
NEW_PER_HOUR = 4
PENDING = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """The API tests' server (tests/api/conftest.py) with small dial-in caps and a fast watcher."""


    tmp: Path = tmp_path_factory.mktemp("arena-caps")
    config = dataclasses.replace(
        make_config(tmp), dialin_streams=100, dialin_streams_per_client=100,
        dialin_streams_per_account=STREAMS_PER_ACCOUNT, dialin_new_bots_per_hour=NEW_PER_HOUR,
        dialin_pending_qualifications=PENDING, dialin_hello_timeout_s=5.0, dialin_check_s=0.2)
    with server_on_fresh_database(tmp, config) as running:
        yield running


class Raw:
    """A bare ConnectBot stream: sends what the test says, reads what the server sends."""

    def __init__(self, address: str, token: str, name: str | None = None, game: str = "toy",
                 meta: tuple[tuple[str, str], ...] = ()) -> None:
        self.channel = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        self.outbox: queue.Queue = queue.Queue()
        stub = arena_pb2_grpc.ArenaStub(self.channel)
        self.call = stub.ConnectBot(iter(self.outbox.get, None), metadata=(*auth_metadata(token), *meta), timeout=60)
        if name is not None:
            self.outbox.put(pb.ConnectBotRequest(hello=pb.ConnectBotHello(name=name, game=game)))

    def first(self) -> pb.ConnectBotResponse:
        return next(self.call)

    def ending(self) -> grpc.RpcError:
        """Read until the stream ends; the status it ended with."""
        try:
            for _ in self.call:
                pass
        except grpc.RpcError as exc:
            return exc
        raise AssertionError("the stream ended with OK")

    def close(self) -> None:
        self.outbox.put(None)
        self.call.cancel()
        self.channel.close()


@pytest.fixture
def raws() -> Iterator[list[Raw]]:
    opened: list[Raw] = []
    yield opened
    for r in opened:
        r.close()


def dial(server, token: str, name: str, act=first_option) -> Running:  # noqa: ANN001
    return Running(DialInBot(act, server.address, token, name, "toy", backoff_s=0.05))


def active(stub, bot_id: int) -> bool:  # noqa: ANN001
    return stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status == pb.VERSION_STATUS_ACTIVE


def dial_active(server, stub, running: list[Running], token: str, name: str) -> Running:  # noqa: ANN001
    bot = dial(server, token, name)
    running.append(bot)
    assert bot.bot.welcomed.wait(20), bot.error
    wait_for(lambda: active(stub, bot.bot.welcome.bot.bot.id), what=f"{name}'s qualification")
    return bot


def refused(raw: Raw) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        raw.first()
    return info.value


def test_streams_per_account_refuse_a_new_bot_but_let_a_bot_replace_its_own_stream(server, stub, running, raws) -> None:  # noqa: ANN001
    owner = new_account(stub, "cap")
    bots = [dial_active(server, stub, running, owner.token, f"cap-{i}") for i in range(STREAMS_PER_ACCOUNT)]
    raws.append(Raw(server.address, owner.token, "cap-extra"))
    err = refused(raws[-1])
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"already has {STREAMS_PER_ACCOUNT} dial-in bots connected (limit {STREAMS_PER_ACCOUNT})" in err.details()
    # A second connection of a connected bot takes over (the cap counts bots, not attempts);
    # the older one ends ABORTED saying it was replaced, and its SDK stops instead of taking
    # the stream back (before: OK, no details, and the two took it from each other for ever).
    newer = dial(server, owner.token, "cap-0")
    running.append(newer)
    assert newer.bot.welcomed.wait(20), newer.error
    bots[0].thread.join(20)
    assert isinstance(bots[0].error, ConnectError), bots[0].error
    assert "ABORTED" in str(bots[0].error) and "replaced" in str(bots[0].error)
    assert newer.bot.connections == 1 and newer.error is None
    assert server.dialin.sessions[f"dialin://{owner.name}/toy/cap-0"].id  # the newer one holds it


def test_pending_qualifications_and_new_names_per_hour_are_capped_per_account(server, stub, running, raws) -> None:  # noqa: ANN001
    owner = new_account(stub, "qcap")
    # Bare streams that never answer: their qualifications stay pending for a while.
    for i in range(PENDING):
        raws.append(Raw(server.address, owner.token, f"silent-{i}"))
        welcome = raws[-1].first()
        assert welcome.welcome.qualifying
    raws.append(Raw(server.address, owner.token, "silent-x"))
    err = refused(raws[-1])
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"already has {PENDING} qualification(s) pending (limit {PENDING})" in err.details()
    # Each silent bot is told on its own stream why it was refused, then its stream is closed
    # (a connected bot silent at StartMatch is "unreachable" to the referee).
    for raw in raws[:PENDING]:
        ended = raw.ending()
        assert ended.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "failed its qualification match (unreachable)" in ended.details()
        assert "no answer to StartMatch" in ended.details()
    # Names: PENDING made so far; two more, then the hour's budget is spent.
    for i in range(NEW_PER_HOUR - PENDING):
        dial_active(server, stub, running, owner.token, f"named-{i}")
    raws.append(Raw(server.address, owner.token, "one-too-many"))
    err = refused(raws[-1])
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"created {NEW_PER_HOUR} dial-in bots in the last hour (limit {NEW_PER_HOUR} new names per hour)" in err.details()
    # A bot the account already has still connects (no new name).
    for r in running:
        r.stop()
    dial_active(server, stub, running, owner.token, "named-0")


def test_a_burst_of_hellos_with_new_names_starts_no_more_qualifications_than_the_cap(server, stub, raws) -> None:  # noqa: ANN001
    """The issue's attack: many hellos with new names at once (before: as many bots and
    qualification matches). Hellos of one account are decided one at a time, so the burst
    cannot slip several past the count."""
    owner = new_account(stub, "burst")
    burst = [Raw(server.address, owner.token, f"burst-{i}") for i in range(6)]
    raws.extend(burst)
    welcomed, codes = 0, []
    for raw in burst:
        try:
            welcomed += raw.first().WhichOneof("message") == "welcome"
        except grpc.RpcError as exc:
            codes.append(exc.code())
    assert welcomed == PENDING
    assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * (len(burst) - PENDING)
    mine = stub.ListBots(pb.ListBotsRequest(owner=owner.name)).bots
    assert len(mine) == PENDING


def test_the_sdk_waits_at_a_cap_instead_of_giving_up(server, stub, running, raws) -> None:  # noqa: ANN001
    owner = new_account(stub, "wait")
    for i in range(PENDING):
        raws.append(Raw(server.address, owner.token, f"hold-{i}"))
        assert raws[-1].first().welcome.qualifying
    waiting = DialInBot(first_option, server.address, owner.token, "patient", "toy", backoff_s=0.05, max_backoff_s=0.5)
    runner = Running(waiting)
    running.append(runner)
    assert not waiting.welcomed.wait(1.0)  # refused for now, not stopped
    assert runner.thread.is_alive() and runner.error is None
    for raw in raws:
        raw.close()
    # Once the silent bots' qualifications are decided (start-up budget), it gets in.
    assert waiting.welcomed.wait(30), runner.error


def test_a_bot_refused_at_qualification_is_told_why_and_the_sdk_stops(server, stub, running) -> None:  # noqa: ANN001
    owner = new_account(stub, "bad")

    def broken(observation: dict, options: list) -> str:  # noqa: ARG001
        raise RuntimeError("no idea")

    bot = dial(server, owner.token, "broken", act=broken)
    running.append(bot)
    bot.thread.join(30)
    assert isinstance(bot.error, ConnectError), bot.error
    message = str(bot.error)
    assert message.startswith("FAILED_PRECONDITION")
    assert "failed its qualification match (bot_error)" in message and "RuntimeError: no idea" in message
    assert bot.bot.connections == 1  # not reconnected to fail again


def test_a_deactivated_bot_is_ended_and_its_hello_refused(server, stub, running) -> None:  # noqa: ANN001
    owner = new_account(stub, "deact")
    bot = dial_active(server, stub, running, owner.token, "retiring")
    bot_id = bot.bot.welcome.bot.bot.id
    stub.DeactivateBot(pb.DeactivateBotRequest(bot_id=bot_id), metadata=owner.meta)
    bot.thread.join(20)
    assert isinstance(bot.error, ConnectError), bot.error
    assert "FAILED_PRECONDITION" in str(bot.error) and "'retiring' for toy was deactivated" in str(bot.error)
    again = DialInBot(first_option, server.address, owner.token, "retiring", "toy")
    with pytest.raises(ConnectError, match="was deactivated"):
        again.run()
    assert not again.welcomed.is_set()


def test_a_bot_moved_to_another_route_is_retired_as_a_dial_in_bot(server, stub, running) -> None:  # noqa: ANN001
    owner = new_account(stub, "moved")
    bot = dial_active(server, stub, running, owner.token, "mover")
    stub.RegisterRemoteBot(pb.RegisterRemoteBotRequest(name="mover", game="toy", address="127.0.0.1:9"),
                           metadata=owner.meta)
    bot.thread.join(20)
    assert isinstance(bot.error, ConnectError), bot.error
    assert "retired as a dial-in bot" in str(bot.error) and "remote address 127.0.0.1:9" in str(bot.error)


def test_streams_in_total_per_address_and_without_hello_are_capped(server, stub, raws) -> None:  # noqa: ANN001
    accounts = [new_account(stub, "many") for _ in range(3)]
    config = server.dialin.config
    saved = config.dialin_streams, config.dialin_streams_per_client, config.dialin_hello_timeout_s
    try:
        # Streams waiting for their hello count, per account too. They wait 60 s for it here: on
        # a loaded host (a load of 19 on 2 CPUs in CI) 5 s ran out before the caps were checked.
        config.dialin_hello_timeout_s = 60.0
        config.dialin_streams, config.dialin_streams_per_client = 100, 5
        for _ in range(STREAMS_PER_ACCOUNT):
            raws.append(Raw(server.address, accounts[0].token))
        # Waiting for their hello, not only open: a stream counts as open before its token is
        # looked up (on a worker thread), and counts against the account's cap only after, so
        # on a loaded host a sixth could overtake one of the five (then that one is refused
        # instead — the cap holds, the order differs; seen in CI as a 60 s wait for a refusal).
        wait_for(lambda: server.dialin._awaiting_hello.get(accounts[0].name, 0) >= STREAMS_PER_ACCOUNT,
                 timeout=30, what="the streams waiting for their hello")
        raws.append(Raw(server.address, accounts[0].token))
        err = refused(raws[-1])
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "too many dial-in connections open" in err.details()
        for _ in range(2):
            raws.append(Raw(server.address, accounts[1].token))
        wait_for(lambda: server.dialin.open_streams >= 5, timeout=10, what="the streams")
        raws.append(Raw(server.address, accounts[2].token))
        err = refused(raws[-1])
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many dial-in connections from 127.0.0.1 (limit 5 per address)" in err.details()
        config.dialin_streams, config.dialin_streams_per_client = 5, 100
        raws.append(Raw(server.address, accounts[2].token))
        err = refused(raws[-1])
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "its limit of 5 dial-in connections" in err.details()
        # A stream that never says hello is closed after the hello timeout.
        config.dialin_streams, config.dialin_streams_per_client = 100, 100
        config.dialin_hello_timeout_s = 2.0
        raws.append(Raw(server.address, accounts[2].token))
        ended = raws[-1].ending()
        assert ended.code() == grpc.StatusCode.DEADLINE_EXCEEDED and "no hello within 2 s" in ended.details()
    finally:
        config.dialin_streams, config.dialin_streams_per_client, config.dialin_hello_timeout_s = saved
    for raw in raws:
        raw.close()
    wait_for(lambda: server.dialin.open_streams == 0, timeout=10, what="the streams to close")
    assert server.dialin._held == {} and server.dialin._locks == {}  # nothing kept per account


def test_a_refused_hello_is_one_log_line_without_traceback(server, stub, running, caplog) -> None:  # noqa: ANN001
    owner = new_account(stub, "logs")
    other = new_account(stub, "logs")
    dial_active(server, stub, running, owner.token, "logged")
    caplog.set_level(logging.INFO, logger="arena")
    caplog.clear()
    attempts = [
        DialInBot(first_option, server.address, other.token, "logged", "toy"),  # another's name
        DialInBot(first_option, server.address, owner.token, "logged-2", "no-such-game"),
        DialInBot(first_option, server.address, "arena_wrong", "logged-3", "toy"),
    ]
    for bot in attempts:
        with pytest.raises(ConnectError):
            bot.run()
    wait_for(lambda: len([r for r in caplog.records if "dial-in refused" in r.getMessage()]) >= 3,
             timeout=10, what="the log lines")
    lines = [r for r in caplog.records if "dial-in refused" in r.getMessage()]
    assert [r.getMessage().split(": ", 1)[1].split()[0] for r in lines] == [
        "PERMISSION_DENIED", "INVALID_ARGUMENT", "UNAUTHENTICATED"]
    assert all(r.exc_info is None for r in caplog.records), [r.getMessage() for r in caplog.records if r.exc_info]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [r.getMessage() for r in caplog.records]
