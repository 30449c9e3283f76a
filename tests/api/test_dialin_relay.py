"""The referee's relay stream (``DialinRelay/Relay``, referee/relay_stream.py): one stream per
seat carries StartMatch, every Act and EndMatch of a dial-in bot, with the faults of a unary
call to a remote bot — timeout, the bot's error, ``disconnected`` when the bot's connection
drops (also while a call waits), the relay key — and a watchdog for a relay that goes silent.

Real parts: the in-process Arena server on a socket, a dialling bot on its own stream, the
referee's BotClient.
"""

from __future__ import annotations

import threading
import time
from concurrent import futures

import grpc
import pytest

from arena.sdk.connect import DialInBot
from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee._proto import bot_pb2
from referee.bot_client import BotClient, BotFault
from referee.relay_stream import ACT, GRACE_S, PATH, START_MATCH, RelayStream, RelayTimeout
from tests.api.conftest import new_account
from tests.api.test_dialin import Running, wait_for

ACT_REQUEST = bot_pb2.ActRequest(match_id="r", seat=0, decision=0, observation_json="{}",
                                 options=[bot_pb2.Option(id="only")]).SerializeToString()


def start(match_id: str = "r") -> bot_pb2.MatchStart:
    return bot_pb2.MatchStart(protocol_version=1, match_id=match_id, game="toy", seat=0, players=2)


class Scripted:
    """A dialling bot whose ``act`` does what the test says next: answer, think too long, fail,
    or cut its own connection while the call waits."""

    def __init__(self, server, stub, running: list[Running], name: str) -> None:  # noqa: ANN001
        self.mode = "answer"
        owner = new_account(stub, "relay")
        self.bot = DialInBot(self.act, server.address, owner.token, name, "toy", backoff_s=0.05)
        self.runner = Running(self.bot)
        running.append(self.runner)
        assert self.bot.welcomed.wait(20), self.runner.error
        self.source = dialin_client.source(owner.name, "toy", name)
        bot_id = self.bot.welcome.bot.bot.id
        # Its qualification match is played over the same stream: let it finish first.
        wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status
                 == pb.VERSION_STATUS_ACTIVE, what="the qualification")

    def act(self, observation: dict, options: list) -> str:  # noqa: ARG002
        mode = self.mode
        if mode == "slow":
            time.sleep(0.6)
        elif mode == "fail":
            raise RuntimeError("boom")
        elif mode == "drop":
            self.bot.drop()
            time.sleep(0.2)
        return options[0].id


def test_one_stream_carries_a_seat_timeout_and_bot_error_included(server, stub, running) -> None:  # noqa: ANN001
    bot = Scripted(server, stub, running, "streamed")
    client = BotClient(bot.source, None)
    try:
        client.start_match(start(), 10.0)
        stream = client.relay
        assert client.act(ACT_REQUEST, 2.0).option_id == "only"

        bot.mode = "slow"
        t0 = time.monotonic()
        with pytest.raises(BotFault) as info:
            client.act(ACT_REQUEST, 0.2)
        assert info.value.code == "timeout"
        # Said by the relay at the deadline, not by the referee's watchdog after its grace.
        assert time.monotonic() - t0 < 0.2 + GRACE_S
        assert not stream.cut_by_watchdog

        bot.mode = "fail"
        with pytest.raises(BotFault) as info:
            client.act(ACT_REQUEST, 2.0)
        assert info.value.code == "bot_error" and "boom" in info.value.message

        bot.mode = "answer"  # the slow call's late answer is not taken for this one's
        assert client.act(ACT_REQUEST, 2.0).option_id == "only"
        client.end_match_future(bot_pb2.MatchEnd(match_id="r", seat=0), 1.0).result()
        assert client.relay is stream  # every call of the seat went down one stream
    finally:
        client.close()


def test_a_drop_while_a_call_waits_or_between_calls_is_disconnected(server, stub, running) -> None:  # noqa: ANN001
    bot = Scripted(server, stub, running, "dropping")
    first = BotClient(bot.source, None)
    second = BotClient(bot.source, None)
    try:
        first.start_match(start("a"), 10.0)
        second.start_match(start("b"), 10.0)
        # The connection drops while first's call waits for its answer.
        bot.mode = "drop"
        with pytest.raises(BotFault) as info:
            first.act(ACT_REQUEST, 5.0)
        assert info.value.code == "disconnected"
        assert info.value.message.startswith(dialin_client.DROPPED)
        bot.mode = "answer"
        wait_for(lambda: bot.bot.connections >= 2 and bot.bot.welcomed.is_set(), 20, "the reconnection")
        # second's match was bound to the dropped connection: it does not move to the new one.
        with pytest.raises(BotFault) as info:
            second.act(ACT_REQUEST, 5.0)
        assert info.value.code == "disconnected"
        assert info.value.message.startswith(dialin_client.DROPPED)
    finally:
        first.close()
        second.close()
    # The next match is served by the new connection.
    third = BotClient(bot.source, None)
    try:
        third.start_match(start("c"), 10.0)
        assert third.act(ACT_REQUEST, 2.0).option_id == "only"
    finally:
        third.close()


def test_the_relay_stream_wants_the_relay_key(server) -> None:  # noqa: ANN001
    channel = grpc.insecure_channel(server.address)
    stream = RelayStream(channel, ((dialin_client.SOURCE_HEADER, dialin_client.source("x", "toy", "y")),
                                   (dialin_client.KEY_HEADER, "not-the-key")))
    try:
        with pytest.raises(grpc.RpcError) as err:
            stream.invoke(START_MATCH, start().SerializeToString(), 2.0)
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        stream.close()
        channel.close()


def test_a_silent_relay_is_a_timeout_after_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A relay that takes calls and never answers (hung): the watchdog cuts the stream."""
    release = threading.Event()

    def silent(requests, context):  # noqa: ANN001, ANN202
        for _ in requests:
            release.wait(10)
        return iter(())

    server = grpc.server(futures.ThreadPoolExecutor(2))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        PATH.split("/")[1], {"Relay": grpc.stream_stream_rpc_method_handler(silent)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    monkeypatch.setenv(dialin_client.RELAY_ENV, f"127.0.0.1:{port}")
    client = BotClient(dialin_client.source("x", "toy", "silent"), None)
    try:
        t0 = time.monotonic()
        with pytest.raises(BotFault) as info:
            client.act(ACT_REQUEST, 0.1)
        elapsed = time.monotonic() - t0
        assert info.value.code == "timeout"
        assert 0.1 + GRACE_S <= elapsed < 0.1 + GRACE_S + 2.0
        assert client.relay.cut_by_watchdog
        # Straight on the stream object too: the same error type.
        stream = RelayStream(client.channel, client.metadata)
        with pytest.raises(RelayTimeout):
            stream.invoke(ACT, ACT_REQUEST, 0.05)
        stream.close()
    finally:
        release.set()
        client.close()
        server.stop(0)


def test_the_unary_relay_of_earlier_workers_still_serves_and_binds(server, stub, running) -> None:  # noqa: ANN001
    """Workers of an earlier release call the ``tabletop.bot.v1.Bot`` methods on the server's
    port, one unary call each, the bound connection in metadata."""
    bot = Scripted(server, stub, running, "unary")
    channel = grpc.insecure_channel(server.address)
    meta = ((dialin_client.SOURCE_HEADER, bot.source), (dialin_client.KEY_HEADER, dialin_client.relay_key()))
    try:
        raw, call = channel.unary_unary("/tabletop.bot.v1.Bot/StartMatch").with_call(
            start("u").SerializeToString(), timeout=10, metadata=meta)
        assert bot_pb2.Ready.FromString(raw).protocol_version == 1
        session = dict(call.trailing_metadata())[dialin_client.SESSION_HEADER]
        bound = (*meta, (dialin_client.SESSION_HEADER, session))
        act = channel.unary_unary("/tabletop.bot.v1.Bot/Act")
        assert bot_pb2.ActReply.FromString(act(ACT_REQUEST, timeout=5, metadata=bound)).option_id == "only"
        bot.bot.drop()
        wait_for(lambda: bot.bot.connections >= 2 and bot.bot.welcomed.is_set(), 20, "the reconnection")
        with pytest.raises(grpc.RpcError) as err:
            act(ACT_REQUEST, timeout=5, metadata=bound)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        assert err.value.details().startswith(dialin_client.DROPPED)
    finally:
        channel.close()
