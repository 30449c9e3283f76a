"""The gRPC shortcuts (docs/shortcuts.md): ``cygrpc_stream`` (referee/direct_stream.py) and
``cygrpc_server`` (arena/sdk/bot_server.py) each have a public way back that plays real matches.

Real parts: the in-process Arena server on a socket (the dial-in relay), a dialling bot's own
stream to it, a remote bot on the SDK's server over TCP, sandboxed hosted bots (bubblewrap),
the referee's match runner; and a real ``arena`` process for the start-up check.
"""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.sdk import make_server
from arena.sdk.bot_server import SHORTCUT as SERVER_SHORTCUT
from arena.sdk.bot_server import BotServer, new_server
from referee import dialin_client, shortcuts
from referee._proto import arena_pb2 as pb
from referee._proto import bot_pb2
from referee.bot_client import BotClient, BotSource
from referee.direct_stream import SHORTCUT as STREAM_SHORTCUT
from referee.direct_stream import DirectStream, PublicStream, open_stream
from referee.match import MatchConfig, SeatSpec, run_match
from referee.sandbox import bot_environment
from tests.api.conftest import FAST_TC, new_account
from tests.api.processes import ROOT
from tests.api.test_dialin import Running, dial, wait_for
from tests.referee.helpers import RANDOM_BOT, needs_bwrap
from tests.shortcut_paths import needs_tested_releases

GRPC_SHORTCUTS = (STREAM_SHORTCUT.name, SERVER_SHORTCUT.name)


def last_option(observation: dict, options: list) -> str:  # noqa: ARG001
    return options[-1].id


@pytest.fixture
def running():
    started: list[Running] = []
    yield started
    for r in started:
        r.stop()


@pytest.fixture
def private_grpc_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``grpc._cython`` and ``grpc._common`` cannot be imported (as on a grpcio release that
    moved them): only code that never asks for them runs. grpc's own modules, which use them
    underneath the public API, are loaded first."""
    for module in ("grpc._channel", "grpc._server", "grpc._interceptor"):
        importlib.import_module(module)
    monkeypatch.setitem(sys.modules, "grpc._cython", None)
    monkeypatch.setitem(sys.modules, "grpc._common", None)


def test_a_match_over_real_sockets_on_both_paths(
    server, stub, running, shortcut_setting, request
) -> None:  # noqa: ANN001
    """Seat 0 dials in (its ConnectBot stream and the referee's relay stream: cygrpc_stream),
    seat 1 is a remote bot on the SDK's server over TCP (cygrpc_server). With the shortcuts
    off, the private modules cannot even be imported and the match is played the same."""
    if shortcut_setting == "off":
        request.getfixturevalue("private_grpc_blocked")
    owner = new_account(stub, f"sc{shortcut_setting}")
    name = f"dial-{shortcut_setting}"
    bot = Running(dial(server, owner.token, name, act=last_option))
    running.append(bot)
    assert bot.bot.welcomed.wait(20), bot.error
    bot_id = bot.bot.welcome.bot.bot.id
    wait_for(
        lambda: (
            stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status
            == pb.VERSION_STATUS_ACTIVE
        ),
        what="the qualification",
    )
    on = shortcut_setting == "on"
    assert isinstance(bot.bot._stream, DirectStream if on else PublicStream)  # noqa: SLF001

    remote, port = make_server(last_option, "127.0.0.1:0", name="remote")
    assert isinstance(remote, BotServer) == on
    remote.start()
    try:
        seats = [
            SeatSpec(name, dialin_client.source(owner.name, "toy", name)),
            SeatSpec("remote", f"127.0.0.1:{port}"),
        ]
        for seed in (1, 2):
            record = run_match(
                MatchConfig(game="toy", seats=seats, seed=seed, time_control=FAST_TC, sandbox=False)
            )
            assert record.forfeits == []
            assert {d.seat for d in record.decisions if not d.forced} == {0, 1}
    finally:
        remote.stop(0).wait(5)
    assert bot.error is None


def test_a_dialling_bot_cut_by_the_public_stream_reconnects(
    server, stub, running, monkeypatch
) -> None:  # noqa: ANN001
    """The public stream's cancel (no text of ours: grpc's CANCELLED) ends the connection as the
    direct one's does, and the bot dials again."""
    monkeypatch.setenv(shortcuts.ENV, "off")
    shortcuts.reset_cache()
    owner = new_account(stub, "cutpub")
    bot = Running(dial(server, owner.token, "cut-public"))
    running.append(bot)
    assert bot.bot.welcomed.wait(20), bot.error
    bot.bot.drop()
    wait_for(lambda: bot.bot.connections >= 2, what="the reconnection")
    assert bot.error is None
    shortcuts.reset_cache()


@needs_bwrap
def test_a_sandboxed_bot_takes_the_setting_with_it(shortcut_setting) -> None:
    """The sandbox's clean environment keeps ARENA_SHORTCUTS, so ``off`` is off in hosted bots
    too: the public server serves health Watch, the cygrpc one declines it."""
    assert bot_environment("unix:/x")[shortcuts.ENV] == shortcut_setting
    client = BotClient.launch(BotSource("hosted", str(RANDOM_BOT)), sandbox=True)
    try:
        client.start_match(
            bot_pb2.MatchStart(protocol_version=1, match_id="m", game="toy", players=2), 10.0
        )
        watch = health_pb2_grpc.HealthStub(client.channel).Watch(
            health_pb2.HealthCheckRequest(service=""), timeout=5
        )
        if shortcut_setting == "on":
            with pytest.raises(grpc.RpcError) as declined:
                next(iter(watch))
            assert declined.value.code() == grpc.StatusCode.UNIMPLEMENTED
        else:
            assert next(iter(watch)).status == health_pb2.HealthCheckResponse.SERVING
            watch.cancel()
    finally:
        client.close()


def test_the_sandbox_passes_no_setting_it_was_not_given(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.delenv(shortcuts.ENV, raising=False)
    assert shortcuts.ENV not in bot_environment("unix:/x")


def test_an_untested_grpcio_turns_both_off_with_one_log_line_each(monkeypatch, caplog) -> None:  # noqa: ANN001
    monkeypatch.delenv(shortcuts.ENV, raising=False)
    monkeypatch.setattr(shortcuts, "installed_version", lambda package: "99.1.0")
    shortcuts.reset_cache()
    try:
        with caplog.at_level(logging.INFO, logger=shortcuts.__name__):
            for _ in range(3):
                assert [shortcuts.enabled(name) for name in GRPC_SHORTCUTS] == [False, False]
            server = new_server()
            channel = grpc.insecure_channel("127.0.0.1:9")  # nobody listens: the stream waits
            stream = open_stream(channel, "/x.Y/Z", ())
            stream.close()
            channel.close()
        assert not isinstance(server, BotServer)
        assert isinstance(stream, PublicStream)
        lines = [r.getMessage() for r in caplog.records]
        for name in GRPC_SHORTCUTS:
            said = [line for line in lines if line.startswith(f"shortcut {name} is off")]
            assert len(said) == 1, lines
            assert "grpcio 99.1.0 is not a release it was tested with" in said[0]
    finally:
        shortcuts.reset_cache()


@needs_tested_releases("cygrpc_server", "cygrpc_stream")
def test_the_tested_grpcio_runs_them_and_off_turns_them_off(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.delenv(shortcuts.ENV, raising=False)
    shortcuts.reset_cache()
    try:
        assert [shortcuts.enabled(name) for name in GRPC_SHORTCUTS] == [True, True]
        monkeypatch.setenv(shortcuts.ENV, f"-{STREAM_SHORTCUT.name}")
        assert [shortcuts.enabled(name) for name in GRPC_SHORTCUTS] == [False, True]
        monkeypatch.setenv(shortcuts.ENV, f"off,+{STREAM_SHORTCUT.name}")
        assert [shortcuts.enabled(name) for name in GRPC_SHORTCUTS] == [True, False]
    finally:
        shortcuts.reset_cache()


def test_an_unknown_name_in_the_setting_is_one_line_at_cli_start() -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), shortcuts.ENV: "-cygrpc_streem"}
    out = subprocess.run(
        [sys.executable, "-m", "arena", "games"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 1
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(
        "Error: ARENA_SHORTCUTS: no shortcut is called 'cygrpc_streem'; known: "
    )
    assert {"cygrpc_server", "cygrpc_stream"} <= set(lines[0].split("known: ")[1].split(", "))


def test_the_benchmark_refuses_a_single_round() -> None:
    from click.testing import CliRunner

    from arena.cli import cli

    out = CliRunner().invoke(cli, ["bench", "shortcuts-grpc", "--rounds", "1"])
    assert out.exit_code == 2
    assert "--rounds" in out.output


@pytest.mark.slow
def test_the_benchmark_measures_both_settings_in_one_run() -> None:
    """``arena bench shortcuts-grpc`` in a short form: every figure for both settings, and the
    caller's own setting back afterwards."""
    from benchmarks.bench_shortcuts import bench
    from referee.sandbox import bwrap_path

    before = os.environ.get(shortcuts.ENV)
    result = bench(decisions=200, rounds=2, sandboxed=bwrap_path() is not None)
    assert os.environ.get(shortcuts.ENV) == before
    rows = [result["dialin"]] + ([result["referee"]] if "referee" in result else [])
    for row in rows:
        for setting in ("on", "off"):
            figures = [v for v in row[setting].values() if isinstance(v, float)]
            assert figures and all(v > 0 for v in figures), row
    assert {"gain_dialin_call", "gain_bare_call_tcp"} <= set(result["dialin"])
