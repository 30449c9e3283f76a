"""WatchMatch streams cannot starve the API (issue 11, item 3): streams hold no request thread,
identical requests share one pump, and caps per client, in total and on watched matches refuse
more with RESOURCE_EXHAUSTED. Real server, real sockets."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.db import Match, session_scope
from arena.sdk.auth import auth_metadata
from arena.server.app import RunningServer, start_server
from arena.server.streams import client_of
from benchmarks.bench_streams import StreamLoad, add_running_match, latency
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.conftest import fresh_database, make_config


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("streams")
    with fresh_database(tmp):
        yield tmp


def _start(tmp: Path, **caps: int) -> RunningServer:
    # 16 unary threads, as the other API tests: before grpc.aio, 16 open streams stopped everything.
    return start_server(dataclasses.replace(make_config(tmp), **caps), "127.0.0.1:0")


def _wait(predicate, timeout: float = 20.0) -> bool:  # noqa: ANN001
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def _finish(running: RunningServer, match_id: str) -> None:
    """What a worker does at the end: store the record, then send the end marker."""
    with session_scope() as s:
        match = s.get(Match, match_id)
        match.status = "done"
        match.record = {"match_id": match_id, "result": {"scores": [1, 0], "ranks": [1, 2]}}
    running.servicer.bus.publish(match_id, {"end": True})


def test_200_anonymous_streams_leave_unary_calls_answering(database: Path) -> None:
    running = _start(database, max_streams_per_client=250)
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    load = None
    try:
        meta = auth_metadata(stub.Register(pb.RegisterRequest(name="spectator-counter")).token)
        match_id = add_running_match()
        load = StreamLoad(running.address, match_id, 200, channels=10).start()
        assert _wait(lambda: running.hub.open_streams == 200), running.hub.open_streams
        assert running.hub.pumps == 1  # 200 spectators of one match: one pump thread

        whoami = latency(lambda: stub.WhoAmI(pb.WhoAmIRequest(), metadata=meta, timeout=10), 200, threads=4)
        board = latency(lambda: stub.GetLeaderboard(pb.GetLeaderboardRequest(game="solenia"), timeout=10), 200, threads=4)
        print(f"\nunary with 200 open streams: WhoAmI {whoami}, GetLeaderboard {board}")
        # Generous bounds for a shared 2-core machine; the old server never answered at all.
        assert whoami["p99_ms"] < 2000 and board["p99_ms"] < 2000

        # The streams are live, not parked: every one gets each event as it comes, then the record.
        for n in range(2):
            running.servicer.bus.publish(match_id, {"type": "decision", "n": n, "seq": n})
        assert load.wait_all(lambda r: len(r) == 2, 30), ([len(r) for r in load.received][:10], load.errors[:1])
        # (The end is sent only now: once the match is stored as done, watch() jumps to the record.)
        _finish(running, match_id)
        assert load.wait_all(lambda r: len(r) == 3, 30), ([len(r) for r in load.received][:10], load.errors[:1])
        assert not load.errors
        for got in load.received:
            kinds = [event.kind for _, event in got]
            assert kinds == [pb.MATCH_EVENT_KIND_LIVE] * 2 + [pb.MATCH_EVENT_KIND_RECORD]
            assert [event.seq for _, event in got[:2]] == [0, 1]
        # Every stream ended: nothing held, the pump gone.
        assert _wait(lambda: running.hub.open_streams == 0 and running.hub.pumps == 0)
    finally:
        if load is not None:
            load.close()
        channel.close()
        running.stop(grace=0)


def _refusal(call) -> grpc.RpcError:  # noqa: ANN001
    with pytest.raises(grpc.RpcError) as info:
        next(iter(call))
    return info.value


def test_per_client_cap_refuses_with_a_clear_message_and_frees_on_close(database: Path) -> None:
    running = _start(database, max_streams_per_client=3)
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    try:
        match_id = add_running_match()
        request = pb.WatchMatchRequest(match_id=match_id)
        calls = [stub.WatchMatch(request) for _ in range(3)]
        assert _wait(lambda: running.hub.open_streams == 3)
        error = _refusal(stub.WatchMatch(request, timeout=10))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many open WatchMatch streams from 127.0.0.1 (limit 3 per client)" in error.details()
        # Unary calls are not capped by it.
        assert stub.GetLeaderboard(pb.GetLeaderboardRequest(game="solenia"), timeout=5) is not None
        # Closing a stream gives its place back.
        calls[0].cancel()
        assert _wait(lambda: running.hub.open_streams == 2)
        again = stub.WatchMatch(request)
        assert _wait(lambda: running.hub.open_streams == 3)
        for call in (*calls[1:], again):
            call.cancel()
        # The last listener gone, the pump notices at its next poll and stops.
        assert _wait(lambda: running.hub.open_streams == 0 and running.hub.pumps == 0)
    finally:
        channel.close()
        running.stop(grace=0)


def test_total_cap_makes_the_oldest_anonymous_match_yield_not_the_newcomer(database: Path) -> None:
    running = _start(database, max_streams=5, max_streams_per_client=10, max_watched_matches=2)
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    try:
        meta = auth_metadata(stub.Register(pb.RegisterRequest(name="signed-in-spectator")).token)
        first, second, third, fourth = (add_running_match() for _ in range(4))
        oldest = stub.WatchMatch(pb.WatchMatchRequest(match_id=first), timeout=30)
        assert _wait(lambda: running.hub.pumps == 1)
        kept = stub.WatchMatch(pb.WatchMatchRequest(match_id=second), timeout=30)
        assert _wait(lambda: running.hub.pumps == 2)
        # The newcomer is served; the match followed longest by anonymous streams yields.
        newcomer = stub.WatchMatch(pb.WatchMatchRequest(match_id=third), metadata=meta, timeout=30)
        error = _refusal(oldest)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "this stream made room for a newer one" in error.details()
        assert "at most 2 different matches" in error.details()
        assert _wait(lambda: running.hub.pumps == 2 and running.hub.yielded == 1)
        for call, match_id in ((kept, second), (newcomer, third)):
            running.servicer.bus.publish(match_id, {"type": "decision", "n": 0, "seq": 0})
            assert next(call).seq == 0
        # A signed-in watcher keeps its match: with one on each followed match, a newcomer is refused.
        joined = stub.WatchMatch(pb.WatchMatchRequest(match_id=second), metadata=meta, timeout=30)
        assert next(joined).seq == 0  # the late joiner's replay
        error = _refusal(stub.WatchMatch(pb.WatchMatchRequest(match_id=fourth), timeout=10))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "limit of 2 different matches for WatchMatch, each with a signed-in watcher" in error.details()
        # Streams of a followed match share its pump until the total stream cap.
        extra = [stub.WatchMatch(pb.WatchMatchRequest(match_id=third), timeout=30) for _ in range(2)]
        assert _wait(lambda: running.hub.open_streams == 5)
        error = _refusal(stub.WatchMatch(pb.WatchMatchRequest(match_id=third), timeout=10))
        assert "limit of 5 WatchMatch streams" in error.details()
        assert running.hub.pumps == 2
        for call in (kept, newcomer, joined, *extra):
            call.cancel()
        assert _wait(lambda: running.hub.open_streams == 0 and running.hub.pumps == 0)
    finally:
        channel.close()
        running.stop(grace=0)


def test_a_late_watcher_of_a_shared_pump_gets_the_whole_stream(database: Path) -> None:
    running = _start(database)
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    try:
        match_id = add_running_match()
        running.servicer.bus.publish(match_id, {"type": "start", "seq": 0})
        early = stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), timeout=30)
        assert next(early).seq == 0
        running.servicer.bus.publish(match_id, {"type": "decision", "n": 0, "seq": 1})
        assert next(early).seq == 1
        late = stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), timeout=30)
        assert [next(late).seq, next(late).seq] == [0, 1]
        assert running.hub.pumps == 1
        _finish(running, match_id)
        for call in (early, late):
            rest = list(call)
            assert [e.kind for e in rest] == [pb.MATCH_EVENT_KIND_RECORD]
        # A watcher of the finished match starts a new pump and gets the record at once.
        after = list(stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), timeout=30))
        assert [e.kind for e in after] == [pb.MATCH_EVENT_KIND_RECORD]
        assert '"match_id"' in after[0].record_json
    finally:
        channel.close()
        running.stop(grace=0)


@pytest.mark.parametrize(
    ("peer", "client"),
    [("ipv4:10.0.0.7:53412", "10.0.0.7"), ("ipv6:[::1]:53412", "::1"), ("unix:/run/arena.sock", "unix"), ("", "unknown")],
)
def test_a_client_is_its_address_without_the_port(peer: str, client: str) -> None:
    assert client_of(peer) == client


def test_a_malformed_stream_cap_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.setenv("ARENA_MAX_STREAMS_PER_CLIENT", "lots")
    result = CliRunner().invoke(cli, ["serve", "--port", "0"])
    assert result.exit_code == 1
    assert "ARENA_MAX_STREAMS_PER_CLIENT='lots' is not a positive whole number" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
