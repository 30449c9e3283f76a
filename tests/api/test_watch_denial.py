"""Watching that nobody can deny (issue 26, item 3): WatchMatch's caps count matches (a prefix
resolved to its id, unknown protobuf fields ignored) and clients by address — IPv6 by /64,
``x-forwarded-for`` believed only from ARENA_TRUSTED_PROXIES — and by account, so one client
cannot fill the server's "different matches" cap with one match, nor multiply its own caps.
Real server, real sockets, real gRPC."""

from __future__ import annotations

import dataclasses
import ipaddress
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.sdk.auth import auth_metadata
from arena.server.app import RunningServer, start_server
from arena.server.config import ServerConfig
from arena.server.streams import ClientAddresses
from benchmarks.bench_streams import add_running_match
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.conftest import fresh_database, make_config

WATCH = "/tabletop.arena.v1.Arena/WatchMatch"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("watch-denial")
    with fresh_database(tmp):
        yield tmp


def _start(tmp: Path, **settings: object) -> RunningServer:
    return start_server(dataclasses.replace(make_config(tmp), **settings), "127.0.0.1:0")


def _wait(predicate, timeout: float = 30.0) -> bool:  # noqa: ANN001
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def _refusal(call) -> grpc.RpcError:  # noqa: ANN001
    with pytest.raises(grpc.RpcError) as info:
        next(iter(call))
    return info.value


def _unknown_field(k: int) -> bytes:
    """Field 99 (varint) = k, which WatchMatchRequest does not have: a parser keeps it as an
    unknown field, so the request's bytes differ while it asks for the same thing."""
    tag = (99 << 3) | 0
    out = bytearray()
    for value in (tag, k):
        while True:
            byte = value & 0x7F
            value >>= 7
            out.append(byte | (0x80 if value else 0))
            if not value:
                break
    return bytes(out)


def attack_requests(match_id: str, n: int = 256) -> list[bytes]:
    """``n`` different serialized requests that all name ``match_id``: every prefix from 8
    characters to the whole id, each with unknown fields appended."""
    prefixes = [match_id[:length] for length in range(8, len(match_id) + 1)]
    out = []
    for k in range(n):
        prefix = prefixes[k % len(prefixes)]
        extra = b"" if k < len(prefixes) else _unknown_field(k)
        out.append(pb.WatchMatchRequest(match_id=prefix).SerializeToString() + extra)
    assert len(set(out)) == n
    return out


def test_one_client_cannot_fill_the_matches_cap_with_one_match(database: Path) -> None:
    """The attack of issue 26: 256 id prefixes and unknown-field variants of one match's request
    from one client. They follow one match (one pump); a second client watches another match."""
    running = _start(database, max_streams_per_client=1000, max_streams=2000)
    attacker = grpc.insecure_channel(running.address)
    spectator = grpc.insecure_channel(running.address, options=[("grpc.use_local_subchannel_pool", 1)])
    raw_watch = attacker.unary_stream(WATCH, request_serializer=None, response_deserializer=pb.MatchEvent.FromString)
    calls = []
    try:
        target, other = add_running_match(), add_running_match()
        calls = [raw_watch(raw, timeout=60) for raw in attack_requests(target)]
        assert _wait(lambda: running.hub.open_streams == 256), running.hub.open_streams
        assert running.hub.pumps == 1  # 256 different requests, one match followed
        # Every variant is the same stream: the match's events, under its full id.
        running.servicer.bus.publish(target, {"type": "decision", "n": 0, "seq": 0})
        assert next(calls[0]).seq == 0 and next(calls[-1]).seq == 0
        # The second client is served.
        watch = arena_pb2_grpc.ArenaStub(spectator).WatchMatch(pb.WatchMatchRequest(match_id=other), timeout=30)
        running.servicer.bus.publish(other, {"type": "decision", "n": 0, "seq": 0})
        assert next(watch).seq == 0
        assert running.hub.pumps == 2
        watch.cancel()
    finally:
        for call in calls:
            call.cancel()
        attacker.close()
        spectator.close()
        running.stop(grace=0)


def test_with_default_caps_one_address_holds_a_few_matches_and_a_newcomer_still_watches(database: Path) -> None:
    """The same attack under the default caps: the attacker's address gets its 16 streams (all
    one match), the rest are refused; spread over many matches it is held to 8 of them."""
    config = make_config(database)
    defaults = ServerConfig()
    assert (config.max_streams_per_client, config.max_watched_matches_per_client) == (16, 8) == (
        defaults.max_streams_per_client, defaults.max_watched_matches_per_client)
    assert defaults.trusted_proxies == ()
    running = _start(database, trusted_proxies=("127.0.0.1",))
    attacker = grpc.insecure_channel(running.address)
    spectator = grpc.insecure_channel(running.address, options=[("grpc.use_local_subchannel_pool", 1)])
    raw_watch = attacker.unary_stream(WATCH, request_serializer=None, response_deserializer=pb.MatchEvent.FromString)
    calls = []
    try:
        target = add_running_match()
        for raw in attack_requests(target, 20):
            calls.append(raw_watch(raw, timeout=60))
        assert _wait(lambda: running.hub.open_streams == 16)
        assert running.hub.pumps == 1
        assert _wait(lambda: sum(not c.running() for c in calls) == 4)
        refused = [c for c in calls if not c.running()]
        assert {c.code() for c in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
        assert "too many open WatchMatch streams from 127.0.0.1 (limit 16 per client)" in refused[0].details()
        for c in calls:
            c.cancel()
        assert _wait(lambda: running.hub.open_streams == 0 and running.hub.pumps == 0)
        # Many matches from one address: 8 at most.
        many = [add_running_match() for _ in range(9)]
        calls = [attacker.unary_stream(WATCH, response_deserializer=pb.MatchEvent.FromString,
                                       request_serializer=pb.WatchMatchRequest.SerializeToString)(
                     pb.WatchMatchRequest(match_id=m), timeout=60) for m in many[:8]]
        assert _wait(lambda: running.hub.open_streams == 8)
        error = _refusal(arena_pb2_grpc.ArenaStub(attacker).WatchMatch(pb.WatchMatchRequest(match_id=many[8]), timeout=10))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "127.0.0.1 already follows 8 different matches (limit 8 per client)" in error.details()
        # Another client behind the trusted proxy is another client.
        stub = arena_pb2_grpc.ArenaStub(spectator)
        watch = stub.WatchMatch(pb.WatchMatchRequest(match_id=many[8]), metadata=(("x-forwarded-for", "198.51.100.7"),),
                                timeout=30)
        running.servicer.bus.publish(many[8], {"type": "decision", "n": 0, "seq": 0})
        assert next(watch).seq == 0
        watch.cancel()
    finally:
        for call in calls:
            call.cancel()
        attacker.close()
        spectator.close()
        running.stop(grace=0)


def test_addresses_of_one_ipv6_64_or_one_account_are_one_client(database: Path) -> None:
    running = _start(database, max_streams_per_client=2, trusted_proxies=("127.0.0.0/8",))
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    calls = []
    try:
        token = stub.Register(pb.RegisterRequest(name="many-addresses")).token
        match_id = add_running_match()
        request = pb.WatchMatchRequest(match_id=match_id)

        def via(address: str, *meta: tuple[str, str]):  # noqa: ANN202
            return stub.WatchMatch(request, metadata=(("x-forwarded-for", address), *meta), timeout=30)

        # Three addresses of one /64: one client.
        calls += [via("2001:db8:0:1::1"), via("2001:db8:0:1::2")]
        assert _wait(lambda: running.hub.open_streams == 2)
        error = _refusal(via("2001:db8:0:1:ffff::3"))
        assert "too many open WatchMatch streams from 2001:db8:0:1::/64 (limit 2 per client)" in error.details()
        # The next /64 is someone else.
        calls.append(via("2001:db8:0:2::1"))
        assert _wait(lambda: running.hub.open_streams == 3)
        # One account on many addresses: one client.
        meta = auth_metadata(token)[0]
        calls += [via("203.0.113.1", meta), via("203.0.113.2", meta)]
        assert _wait(lambda: running.hub.open_streams == 5)
        error = _refusal(via("203.0.113.3", meta))
        assert "too many open WatchMatch streams from your account (limit 2 per client)" in error.details()
        # A made-up token is no account of its own.
        error = _refusal(via("203.0.113.4", ("authorization", "Bearer arena_made-up")))
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        # An unknown match is NOT_FOUND before any cap counts it.
        error = _refusal(stub.WatchMatch(pb.WatchMatchRequest(match_id="f" * 32), timeout=10))
        assert error.code() == grpc.StatusCode.NOT_FOUND
    finally:
        for call in calls:
            call.cancel()
        channel.close()
        running.stop(grace=0)


def test_forwarded_for_from_an_untrusted_peer_is_ignored(database: Path) -> None:
    running = _start(database, max_streams_per_client=1)
    channel = grpc.insecure_channel(running.address)
    stub = arena_pb2_grpc.ArenaStub(channel)
    try:
        request = pb.WatchMatchRequest(match_id=add_running_match())
        first = stub.WatchMatch(request, metadata=(("x-forwarded-for", "198.51.100.1"),), timeout=30)
        assert _wait(lambda: running.hub.open_streams == 1)
        error = _refusal(stub.WatchMatch(request, metadata=(("x-forwarded-for", "198.51.100.2"),), timeout=10))
        assert "from 127.0.0.1 (limit 1 per client)" in error.details()
        first.cancel()
    finally:
        channel.close()
        running.stop(grace=0)


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("ipv4:10.0.0.7:53412", (), "addr:10.0.0.7"),
        ("ipv6:[2001:db8:1:2:3:4:5:6]:5", (), "addr:2001:db8:1:2::/64"),
        ("ipv6:[::ffff:10.0.0.7]:5", (), "addr:10.0.0.7"),
        ("unix:/run/arena.sock", (), "addr:unix"),
        # Not a trusted proxy: its header is anyone's to write.
        ("ipv4:192.0.2.1:5", ("203.0.113.9",), "addr:192.0.2.1"),
        # A trusted proxy: the rightmost address that is not a trusted proxy.
        ("ipv4:10.0.0.1:5", ("203.0.113.9",), "addr:203.0.113.9"),
        ("ipv4:10.0.0.1:5", ("198.51.100.1, 203.0.113.9, 10.0.0.2",), "addr:203.0.113.9"),
        ("ipv4:10.0.0.1:5", ("198.51.100.1", "203.0.113.9"), "addr:203.0.113.9"),
        ("ipv4:10.0.0.1:5", ("[2001:db8::7]:443",), "addr:2001:db8::/64"),
        ("ipv4:10.0.0.1:5", ("203.0.113.9:5123",), "addr:203.0.113.9"),
        ("ipv4:10.0.0.1:5", ("unknown",), "addr:10.0.0.1"),
        ("ipv4:10.0.0.1:5", (), "addr:10.0.0.1"),
    ],
)
def test_the_client_of_a_call(peer: str, forwarded: tuple[str, ...], client: str) -> None:
    addresses = ClientAddresses(["10.0.0.0/24"])
    assert addresses.client(peer, [("x-forwarded-for", value) for value in forwarded]) == client
    assert ipaddress.ip_network("10.0.0.0/24")  # the trusted list is networks or addresses


def test_a_malformed_trusted_proxy_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "10.0.0.1, proxy.example")
    result = CliRunner().invoke(cli, ["serve", "--port", "0"])
    assert result.exit_code == 1
    assert "ARENA_TRUSTED_PROXIES='10.0.0.1, proxy.example': 'proxy.example' is not an IP address or network" in result.output
