"""TLS end to end (issue 11, item 7) with certificates the test makes: the Arena API over TLS
(client, CLI, a live stream), a plaintext client refused, a client that does not trust the CA
refused, clear errors for a wrong set-up, and a remote bot served and dialled over TLS."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.db.session import DATABASE_ENV
from arena.sdk import make_server
from arena.sdk.client import ArenaClient
from arena.server.app import RunningServer, start_server
from arena.workers.live import BROKER_ENV
from benchmarks.bench_streams import add_running_match
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from referee.bot_client import BotSource
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from referee.tls import BOT_CA_ENV, TlsError
from tests.api.certs import Certs, make_certs, needs_openssl
from tests.api.conftest import make_config, server_on_fresh_database
from tests.api.processes import ROOT, free_port

pytestmark = needs_openssl


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory, certs: Certs) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("tls-arena")
    config = dataclasses.replace(make_config(tmp), tls_cert=certs.cert, tls_key=certs.key)
    with server_on_fresh_database(tmp, config) as running:
        yield running


def test_the_api_over_tls_with_the_test_ca(tls_server: RunningServer, certs: Certs) -> None:
    assert tls_server.tls
    address = f"localhost:{tls_server.port}"
    with ArenaClient(address, tls=True, ca=certs.ca) as client:
        token = client.register("tls-user").token
    with ArenaClient(address, token, ca=certs.ca) as client:  # a CA file implies TLS
        assert client.tls
        assert client.whoami().name == "tls-user"
        # A live stream over TLS too.
        match_id = add_running_match()
        stream = client.watch(match_id, timeout=30)
        tls_server.servicer.bus.publish(match_id, {"type": "decision", "n": 0, "seq": 0})
        assert next(stream).seq == 0
        stream.cancel()


def test_a_plaintext_client_is_refused(tls_server: RunningServer) -> None:
    channel = grpc.insecure_channel(tls_server.address)
    try:
        with pytest.raises(grpc.RpcError) as info:
            arena_pb2_grpc.ArenaStub(channel).GetLeaderboard(pb.GetLeaderboardRequest(game="solenia"), timeout=5)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError):
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    finally:
        channel.close()


@pytest.mark.parametrize("which", ["other CA", "system roots"])
def test_a_client_that_does_not_trust_the_certificate_is_refused(
    tls_server: RunningServer, certs: Certs, which: str
) -> None:
    ca = certs.other_ca if which == "other CA" else None
    with ArenaClient(f"localhost:{tls_server.port}", tls=True, ca=ca, timeout=5) as client:
        with pytest.raises(grpc.RpcError) as info:
            client.leaderboard("solenia")
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE


def test_wrong_tls_files_are_clear_errors(tmp_path: Path, certs: Certs) -> None:
    with pytest.raises(TlsError, match="private key .* is missing"):
        start_server(dataclasses.replace(make_config(tmp_path), tls_cert=certs.cert), "127.0.0.1:0")
    with pytest.raises(TlsError, match="cannot read the TLS certificate"):
        start_server(
            dataclasses.replace(make_config(tmp_path), tls_cert=tmp_path / "nope.pem", tls_key=certs.key),
            "127.0.0.1:0",
        )
    with pytest.raises(TlsError, match="is not a PEM file"):
        ArenaClient("localhost:1", ca=certs.key)


def _arena(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_cli_serve_and_client_commands_over_tls(tmp_path: Path, certs: Certs) -> None:
    env = {
        **os.environ,
        DATABASE_ENV: f"sqlite:///{tmp_path / 'arena.sqlite3'}",
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "ARENA_TLS_CERT": str(certs.cert),  # the server takes its files from the environment
        "ARENA_TLS_KEY": str(certs.key),
    }
    env.pop(BROKER_ENV, None)
    env.pop("ARENA_TOKEN", None)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        address = f"localhost:{port}"
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(certs.ca.read_bytes()))
        grpc.channel_ready_future(channel).result(timeout=30)
        channel.close()
        ok = _arena("register", "cli-tls", "--server", address, "--tls-ca", str(certs.ca), env=env)
        assert ok.returncode == 0, ok.stderr
        assert "registered user 'cli-tls'" in ok.stdout
        # The CA from the environment, as a bot author would set it once.
        board = _arena("leaderboard", "solenia", "--server", address, env={**env, "ARENA_TLS_CA": str(certs.ca)})
        assert board.returncode == 0, board.stderr
        # Plaintext against the TLS port: one clear line that says what to do, no traceback.
        plain = _arena("leaderboard", "solenia", "--server", address, env=env, timeout=90)
        assert plain.returncode == 1
        assert "cannot reach the arena server" in plain.stderr and "--tls" in plain.stderr
        assert "Traceback" not in plain.stderr
        # A TLS file that is not there: one line, no traceback.
        bad = _arena("serve", "--port", str(free_port()), "--tls-cert", str(certs.cert), "--tls-key",
                     str(tmp_path / "missing.key"), env=env)
        assert bad.returncode == 1 and "cannot read the TLS private key" in bad.stderr
        assert "Traceback" not in bad.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)


def _act(observation: dict, options: list) -> str:
    return options[0].id


def test_a_remote_bot_served_and_dialled_over_tls(certs: Certs, monkeypatch: pytest.MonkeyPatch) -> None:
    assert BotSource.parse("tls://localhost:50061") == BotSource("remote", "tls://localhost:50061")
    tls_bot, tls_port = make_server(_act, "127.0.0.1:0", name="tls-bot", tls_cert=str(certs.cert), tls_key=str(certs.key))
    plain_bot, plain_port = make_server(_act, "127.0.0.1:0", name="plain-bot")
    tls_bot.start()
    plain_bot.start()
    tc = TimeControl(decision_ms=2000, bank_ms=4000)

    def play(first: str) -> object:
        seats = [SeatSpec("tls", first), SeatSpec("plain", f"127.0.0.1:{plain_port}")]
        return run_match(MatchConfig(game="toy", seats=seats, seed=3, sandbox=False, startup_ms=3000, time_control=tc))

    try:
        monkeypatch.setenv(BOT_CA_ENV, str(certs.ca))
        record = play(f"tls://localhost:{tls_port}")
        assert record.forfeits == [] and record.decisions
        assert any(d.seat == 0 and not d.forced for d in record.decisions)
        # Dialled in plaintext, the TLS bot is unreachable; so it is with a CA that did not sign it.
        t0 = time.monotonic()
        record = play(f"127.0.0.1:{tls_port}")
        assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "unreachable")]
        monkeypatch.setenv(BOT_CA_ENV, str(certs.other_ca))
        record = play(f"tls://localhost:{tls_port}")
        assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "unreachable")]
        assert time.monotonic() - t0 < 30
    finally:
        tls_bot.stop(0)
        plain_bot.stop(0)


def test_a_tls_remote_bot_registered_through_the_tls_api_qualifies(
    tls_server: RunningServer, certs: Certs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BOT_CA_ENV, str(certs.ca))  # what the operator sets on server and workers
    bot, port = make_server(_act, "127.0.0.1:0", name="tls-remote", tls_cert=str(certs.cert), tls_key=str(certs.key))
    bot.start()
    try:
        with ArenaClient(f"localhost:{tls_server.port}", ca=certs.ca) as client:
            client.token = client.register("tls-owner").token
            reply = client.register_remote(f"tls://localhost:{port}", game="toy", name="tls-remote")
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
        assert reply.version.address == f"tls://localhost:{port}"
    finally:
        bot.stop(0)


def test_serve_bot_with_half_a_tls_setup_is_one_clear_line(certs: Certs, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.sdk import serve_bot

    with pytest.raises(SystemExit) as exit_info:
        serve_bot(_act, argv=["--port", str(free_port()), "--tls-cert", str(certs.cert)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "TLS needs both a certificate and its private key" in err and "Traceback" not in err
