"""The service beyond submissions, on an in-process server over a real socket: remote bots,
reflection and health (what grpcurl needs), version listing, and the CLI's error lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.cli import cli
from arena.sdk.client import pack_folder
from arena.workers import celery_app
from referee._proto import arena_pb2 as pb
from tests.api.archives import tar_bot, zip_bot
from tests.api.conftest import make_organiser, new_account
from tests.api.processes import ROOT, free_port

SLOW_BOT = Path(__file__).parent / "bots" / "slow_bot"


@pytest.fixture
def remote_bot() -> str:
    """The sample random bot, run by its owner on their own machine (a TCP port)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "sample_bots" / "random_bot" / "bot.py"), "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    address = f"127.0.0.1:{port}"
    try:
        grpc.channel_ready_future(grpc.insecure_channel(address)).result(timeout=20)
        yield address
    finally:
        proc.kill()
        proc.wait(5)


def test_remote_bot_qualifies_and_an_unreachable_one_is_refused(server, stub, remote_bot: str) -> None:  # noqa: ANN001
    user = new_account(stub)
    reply = stub.RegisterRemoteBot(pb.RegisterRemoteBotRequest(name="remote-rnd", game="toy", address=remote_bot, wait=True),
                                   metadata=user.meta, timeout=60)
    assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
    assert reply.version.kind == "remote" and reply.version.address == remote_bot
    dead = f"127.0.0.1:{free_port()}"
    reply = stub.RegisterRemoteBot(pb.RegisterRemoteBotRequest(name="remote-dead", game="toy", address=dead, wait=True),
                                   metadata=user.meta, timeout=60)
    assert reply.version.status == pb.VERSION_STATUS_REFUSED
    assert reply.version.refusal.kind in ("unreachable", "crash", "timeout")
    assert reply.version.refusal.message


def test_versions_listing_and_no_wait_submission(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    first = stub.SubmitBot(pb.SubmitBotRequest(name="lister", game="toy", archive=zip_bot(top="lister"), wait=False), metadata=user.meta)
    assert first.version.status in (pb.VERSION_STATUS_QUALIFYING, pb.VERSION_STATUS_ACTIVE)
    bot_id = first.bot.bot.id
    deadline = time.monotonic() + 30
    while stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status == pb.VERSION_STATUS_QUALIFYING:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    second = stub.SubmitBot(pb.SubmitBotRequest(name="lister", game="toy", archive=tar_bot(), wait=True), metadata=user.meta)
    assert second.version.number == 2 and len(second.version.archive_sha256) == 64
    mine = stub.ListBots(pb.ListBotsRequest(mine=True), metadata=user.meta).bots
    assert [(b.name, b.versions, b.active_version, b.owner) for b in mine] == [("lister", 2, 2, user.name)]
    everyone = stub.ListBots(pb.ListBotsRequest(game="toy")).bots
    assert any(b.id == bot_id for b in everyone)
    assert stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id, number=1)).status == pb.VERSION_STATUS_RETIRED
    # Files of both versions are where the data directory says, and nowhere else.
    bots_dir: Path = server.servicer.config.bots_dir
    assert sorted(p.name for p in (bots_dir / str(bot_id)).iterdir()) == ["v1", "v2"]
    assert (bots_dir / str(bot_id) / "v1" / "bot.py").is_file()


def test_reflection_and_health_let_grpcurl_find_the_service(server) -> None:  # noqa: ANN001
    channel = grpc.insecure_channel(server.address)
    try:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"tabletop.arena.v1.Arena", "grpc.health.v1.Health"} <= names
        replies = list(stub.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol="tabletop.arena.v1.Arena")]), timeout=5))
        assert replies[0].file_descriptor_response.file_descriptor_proto
    finally:
        channel.close()


#: Every service the Arena port answers, and the file each is published in (protos/).
SERVED = {
    "tabletop.arena.v1.Arena": "arena.proto",
    "tabletop.arena.v1.DialinRelay": "arena.proto",
    "tabletop.bot.v1.Bot": "bot.proto",
    "grpc.health.v1.Health": "grpc_health/v1/health.proto",  # as grpcio-health-checking names it
    "grpc.reflection.v1alpha.ServerReflection": "grpc_reflection/v1alpha/reflection.proto",
    "grpc.reflection.v1.ServerReflection": "grpc/reflection/v1/reflection.proto",
}


def test_reflection_lists_every_served_service_under_its_published_file(server) -> None:  # noqa: ANN001
    # Issue 29 item 5: reflection listed Arena, health and reflection only, and named the
    # files referee/_proto/*.proto; a client compiling protos/ knows them as bot.proto and
    # arena.proto (protos/contract/v1.json).
    published = {f["name"] for f in json.loads((ROOT / "protos" / "contract" / "v1.json").read_text())["file"]}
    assert {"arena.proto", "bot.proto"} <= published
    channel = grpc.insecure_channel(server.address)
    try:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        questions = [reflection_pb2.ServerReflectionRequest(list_services="")] + [
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=name) for name in SERVED]
        replies = list(stub.ServerReflectionInfo(iter(questions), timeout=5))
        assert {s.name for s in replies[0].list_services_response.service} == set(SERVED)
        for (name, file_name), reply in zip(SERVED.items(), replies[1:], strict=True):
            assert reply.WhichOneof("message_response") == "file_descriptor_response", (name, reply)
            first = descriptor_pb2.FileDescriptorProto.FromString(reply.file_descriptor_response.file_descriptor_proto[0])
            assert first.name == file_name, name
            assert name.rsplit(".", 1)[1] in {s.name for s in first.service}
            if first.package.startswith("tabletop."):
                assert first.name in published
        # The Bot method is callable where it is listed: a relayed call without the relay key is refused
        # by the relay itself (PERMISSION_DENIED), not UNIMPLEMENTED.
        with pytest.raises(grpc.RpcError) as refused:
            channel.unary_unary("/tabletop.bot.v1.Bot/Act")(b"", timeout=5)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        channel.close()


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_reflection_is_served_as_v1_and_v1alpha(server, version: str) -> None:  # noqa: ANN001
    # grpcurl and current tools ask for grpc.reflection.v1; older ones for v1alpha. The messages
    # are the same on the wire, so the v1alpha classes read both.
    channel = grpc.insecure_channel(server.address)
    try:
        call = channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        replies = list(call(iter([
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="tabletop.arena.v1.Arena"),
        ]), timeout=5))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"tabletop.arena.v1.Arena", "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection"} <= names
        for reply in replies[1:]:
            assert reply.WhichOneof("message_response") == "file_descriptor_response", reply
        v1 = descriptor_pb2.FileDescriptorProto.FromString(replies[1].file_descriptor_response.file_descriptor_proto[0])
        assert v1.package == "grpc.reflection.v1"
        arena = descriptor_pb2.FileDescriptorProto.FromString(replies[2].file_descriptor_response.file_descriptor_proto[0])
        assert arena.package == "tabletop.arena.v1" and arena.service[0].name == "Arena"
    finally:
        channel.close()


def test_cli_reports_mistakes_in_one_line(server, stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    runner = CliRunner()
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("print('hi')\n")
    result = runner.invoke(cli, ["submit", str(bot), "--game", "toy", "--name", "nobody", "--server", server.address])
    assert result.exit_code == 1 and "arena register NAME" in result.output
    unused = f"127.0.0.1:{free_port()}"
    result = runner.invoke(cli, ["leaderboard", "toy", "--server", unused])
    assert result.exit_code == 1 and "cannot reach the arena server" in result.output
    result = runner.invoke(cli, ["leaderboard", "chess", "--server", server.address])
    assert result.exit_code == 1 and "INVALID_ARGUMENT" in result.output and "unknown game" in result.output
    monkeypatch.setenv("ARENA_TOKEN", "arena_wrong")
    result = runner.invoke(cli, ["submit", str(bot), "--game", "toy", "--name", "nobody", "--server", server.address])
    assert result.exit_code == 1 and "UNAUTHENTICATED" in result.output
    result = runner.invoke(cli, ["submit", str(tmp_path / "missing"), "--game", "toy", "--name", "x", "--server", server.address])
    assert result.exit_code == 2 and "does not exist" in result.output
    for out in (result.output,):
        assert "Traceback" not in out


def test_cli_register_submit_and_bots_in_process(server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    runner = CliRunner()
    result = runner.invoke(cli, ["register", "cli-carla", "--server", server.address])
    assert result.exit_code == 0, result.output
    crash = tmp_path / "crashy"
    crash.mkdir()
    (crash / "bot.py").write_text("import sys\nprint('Traceback: I give up', file=sys.stderr)\nsys.exit(3)\n")
    result = runner.invoke(cli, ["submit", str(crash), "--game", "toy", "--name", "crashy", "--server", server.address])
    assert result.exit_code == 1
    assert "refused (start_failed)" in result.output and "| Traceback: I give up" in result.output
    result = runner.invoke(cli, ["submit", str(ROOT / "sample_bots" / "random_bot"), "--game", "toy", "--name", "carla-rnd",
                                 "--server", server.address])
    assert result.exit_code == 0 and "version 1: active" in result.output, result.output
    result = runner.invoke(cli, ["bots", "--server", server.address])
    assert result.exit_code == 0 and "carla-rnd" in result.output and "crashy" in result.output


@pytest.mark.skipif(not celery_app.app.conf.task_always_eager, reason="this process was started with a broker")
def test_without_a_broker_the_server_plays_and_streams_matches_itself(server, stub) -> None:  # noqa: ANN001
    orga = new_account(stub, "orga")
    make_organiser(server, orga)
    ids = []
    for name, folder in (("solo-rnd", ROOT / "sample_bots" / "random_bot"), ("solo-slow", SLOW_BOT)):
        author = new_account(stub, "solo")  # one entry per author (arena.intake.authors)
        reply = stub.SubmitBot(pb.SubmitBotRequest(name=name, game="toy", archive=pack_folder(folder), wait=True),
                               metadata=author.meta, timeout=60)
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
        ids.append(reply.bot.bot.id)
    t = stub.CreateTournament(pb.CreateTournamentRequest(name="local", game="toy", players=2, bot_ids=ids,
                                                         decision_ms=1500, bank_ms=3000), metadata=orga.meta)
    assert t.matches_total == 2
    match_id = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.id)).matches[0].id
    events = list(stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), timeout=120))
    kinds = [e.kind for e in events]
    assert kinds[-1] == pb.MATCH_EVENT_KIND_RECORD and kinds.count(pb.MATCH_EVENT_KIND_LIVE) > 5
    deadline = time.monotonic() + 60
    while stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id)).status != "done":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    rows = {r.bot_id: r.matches for r in stub.GetLeaderboard(pb.GetLeaderboardRequest(game="toy")).rows}
    assert rows[ids[0]] == rows[ids[1]] == 2
    assert len(stub.GetRatingHistory(pb.GetRatingHistoryRequest(bot_id=ids[1])).points) == 2
