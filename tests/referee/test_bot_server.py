"""The SDK's bot server (arena/sdk/bot_server.py) over a real socket: every answer a ``grpc.server``
gave the referee and a client's tools is still given, from the one serving thread. Each test
runs on both paths of the ``cygrpc_server`` shortcut (docs/shortcuts.md): the cygrpc server and
the public ``grpc.server`` that replaces it when the shortcut is off."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.sdk import make_server
from arena.sdk.bot_server import BotServer
from referee._proto import bot_pb2, bot_pb2_grpc
from referee.bot_client import BotClient, BotFault
from referee.protocol import PROTOCOL_VERSION

THREADS: list[str] = []


def _act(observation: dict, options: list) -> str:
    THREADS.append(threading.current_thread().name)
    if observation.get("fail"):
        raise ValueError("no move today")
    time.sleep(observation.get("sleep", 0))
    return options[-1].id


@pytest.fixture()
def bot(shortcut_setting):
    server, port = make_server(_act, "127.0.0.1:0", name="served")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield server, channel, f"127.0.0.1:{port}"
    channel.close()
    server.stop(0).wait(5)


def _request(observation: bytes = b"{}") -> bot_pb2.ActRequest:
    return bot_pb2.ActRequest(
        observation_json=observation, options=[bot_pb2.Option(id="a"), bot_pb2.Option(id="b")]
    )


def test_the_bot_service_answers_on_the_serving_thread(bot, shortcut_setting):
    server, channel, _ = bot
    assert isinstance(server, BotServer) == (shortcut_setting == "on")
    stub = bot_pb2_grpc.BotStub(channel)
    ready = stub.StartMatch(bot_pb2.MatchStart(protocol_version=PROTOCOL_VERSION), timeout=5)
    assert ready.bot_name == "served"
    THREADS.clear()
    assert [stub.Act(_request(), timeout=5).option_id for _ in range(3)] == ["b"] * 3
    if shortcut_setting == "on":
        assert THREADS == ["bot-server"] * 3  # no hand-over to a pool thread
    else:
        assert all(name != "bot-server" for name in THREADS)  # grpc.server's pool
    assert stub.EndMatch(bot_pb2.MatchEnd(match_id="m"), timeout=5) == bot_pb2.Ack()


def test_refusals_and_failures_reach_the_referee_as_before(bot):
    _, channel, address = bot
    stub = bot_pb2_grpc.BotStub(channel)
    with pytest.raises(grpc.RpcError) as refused:
        stub.StartMatch(bot_pb2.MatchStart(protocol_version=PROTOCOL_VERSION + 6), timeout=5)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "not spoken here" in refused.value.details()

    client = BotClient(address, None)
    try:
        with pytest.raises(BotFault) as failed:
            client.act(_request(b'{"fail": true}').SerializeToString(), 5.0)
        assert failed.value.code == "bot_error"
        assert "no move today" in failed.value.message
        with pytest.raises(grpc.RpcError) as garbage:
            channel.unary_unary("/tabletop.bot.v1.Bot/Act")(b"\xff\xff\xff", timeout=5)
        assert garbage.value.code() == grpc.StatusCode.INTERNAL
        assert client.act(_request().SerializeToString(), 5.0).option_id == "b"  # still serving
    finally:
        client.close()


def test_a_call_the_referee_gave_up_on_does_not_stop_the_next(bot):
    _, channel, _ = bot
    stub = bot_pb2_grpc.BotStub(channel)
    with pytest.raises(grpc.RpcError) as late:
        stub.Act(_request(b'{"sleep": 0.3}'), timeout=0.05)
    assert late.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert stub.Act(_request(), timeout=5).option_id == "b"


def test_health_and_reflection_for_the_authors_tools(bot, shortcut_setting):
    _, channel, _ = bot
    health = health_pb2_grpc.HealthStub(channel)
    assert (
        health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5).status
        == health_pb2.HealthCheckResponse.SERVING
    )
    assert health.Check(
        health_pb2.HealthCheckRequest(service="tabletop.bot.v1.Bot"), timeout=5
    ).status == (health_pb2.HealthCheckResponse.SERVING)
    with pytest.raises(grpc.RpcError) as unknown:
        health.Check(health_pb2.HealthCheckRequest(service="nope"), timeout=5)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    if shortcut_setting == "on":
        with pytest.raises(
            grpc.RpcError
        ) as watch:  # the health protocol lets a server decline Watch
            next(iter(health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=5)))
        assert watch.value.code() == grpc.StatusCode.UNIMPLEMENTED
    else:  # grpc.server serves it
        watching = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert next(iter(watching)).status == health_pb2.HealthCheckResponse.SERVING
        watching.cancel()

    questions = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="tabletop.bot.v1.Bot"),
    ]
    replies = list(
        reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter(questions), timeout=5
        )
    )
    assert len(replies) == 2
    assert "tabletop.bot.v1.Bot" in {s.name for s in replies[0].list_services_response.service}
    assert replies[1].file_descriptor_response.file_descriptor_proto
    v1 = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    assert len(list(v1(iter(questions[:1]), timeout=5))) == 1

    with pytest.raises(grpc.RpcError) as missing:
        channel.unary_unary("/tabletop.bot.v1.Bot/Resign")(b"", timeout=5)
    assert missing.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_stop_cancels_a_running_call_and_ends_the_wait(bot):
    server, channel, _ = bot
    stub = bot_pb2_grpc.BotStub(channel)
    pending = stub.Act.future(_request(b'{"sleep": 0.5}'), timeout=5)
    time.sleep(0.1)
    started = time.monotonic()
    assert server.stop(0).wait(5)
    assert (
        server.wait_for_termination(timeout=1) is False
    )  # as grpc.Server's: False = not timed out
    assert time.monotonic() - started < 2
    with pytest.raises(grpc.RpcError):
        pending.result(timeout=5)


def test_a_server_stopped_before_it_started_stops_at_once(shortcut_setting):
    server, _ = make_server(_act, "127.0.0.1:0")
    assert server.stop(0).wait(1)
    assert server.stop(None).wait(1)  # and again
