"""SPRT through the API and the CLI: a new version is held while its test runs, replaces its
predecessor only when the test accepts, and the progress and verdict are readable."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from arena._proto import arena_pb2 as pb
from arena._proto import arena_pb2_grpc
from arena.cli import cli
from arena.db.session import DATABASE_ENV
from arena.server.app import RunningServer, start_server
from arena.server.live import BROKER_ENV
from arena.sprt import SprtSettings
from tests.api.archives import zip_bot
from tests.api.conftest import FAST_TC, make_config, new_account

BOTS = Path(__file__).resolve().parent / "bots"
HIGH = {"bot.py": (BOTS / "high_card" / "bot.py").read_bytes()}
LOW = {"bot.py": (BOTS / "low_card" / "bot.py").read_bytes()}
QUICK = pb.SprtSettings(elo0=0, elo1=200, alpha=0.1, beta=0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("sprt")
    saved = {k: os.environ.get(k) for k in (DATABASE_ENV, BROKER_ENV)}
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ.pop(BROKER_ENV, None)
    # Unsandboxed for speed (containment has its own tests); seeds counted from 1000 so the
    # verdicts are reproducible.
    config = dataclasses.replace(make_config(tmp), sandbox=False, sprt=SprtSettings(),
                                 sprt_time_control=FAST_TC, sprt_seed=1000)
    running = start_server(config, "127.0.0.1:0")
    try:
        yield running
    finally:
        running.stop(grace=0)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaStub]:
    channel = grpc.insecure_channel(server.address)
    yield arena_pb2_grpc.ArenaStub(channel)
    channel.close()


def _finished(stub, bot_id: int) -> pb.BotDetail:  # noqa: ANN001
    deadline = time.monotonic() + 180
    while True:
        detail = stub.GetBot(pb.GetBotRequest(bot_id=bot_id))
        if detail.sprt_tests and detail.sprt_tests[0].status != "running":
            return detail
        assert time.monotonic() < deadline, "the SPRT did not finish"
        time.sleep(0.2)


def test_new_version_is_held_then_replaces_only_on_accept(server, stub, tmp_path: Path) -> None:  # noqa: ANN001
    user = new_account(stub, "sprt")
    first = stub.SubmitBot(pb.SubmitBotRequest(name="carder", game="toy", archive=zip_bot(LOW), wait=True),
                           metadata=user.meta)
    assert first.version.status == pb.VERSION_STATUS_ACTIVE and not first.version.HasField("sprt")
    bot_id = first.bot.bot.id

    # Refused settings are said at once, nothing stored.
    with pytest.raises(grpc.RpcError) as err:
        stub.SubmitBot(pb.SubmitBotRequest(name="carder", game="toy", archive=zip_bot(HIGH), wait=True,
                                           sprt=pb.SprtSettings(elo0=10, elo1=5)), metadata=user.meta)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "elo0" in err.value.details()

    second = stub.SubmitBot(pb.SubmitBotRequest(name="carder", game="toy", archive=zip_bot(HIGH), wait=True,
                                                sprt=QUICK), metadata=user.meta)
    assert second.version.HasField("sprt") and second.version.sprt.baseline_number == 1
    assert second.version.sprt.settings.elo1 == 200 and second.version.sprt.upper == pytest.approx(2.1972, abs=1e-3)
    if second.version.sprt.status == "running":
        assert second.version.status == pb.VERSION_STATUS_TESTING
        assert second.bot.bot.active_version == 1  # the predecessor plays meanwhile
    detail = _finished(stub, bot_id)
    test = detail.sprt_tests[0]
    assert (test.status, test.replaced, test.candidate_number) == ("accepted", True, 2)
    assert test.llr >= test.upper and test.games == 2 * test.pairs == 2 * sum(test.pentanomial)
    assert test.score > 0.5 and test.elo > 0 and test.elo_error > 0 and test.finished_at
    assert detail.bot.active_version == 2
    assert [v.status for v in detail.versions] == [pb.VERSION_STATUS_ACTIVE, pb.VERSION_STATUS_RETIRED]

    third = stub.SubmitBot(pb.SubmitBotRequest(name="carder", game="toy", archive=zip_bot(LOW), wait=True,
                                               sprt=QUICK), metadata=user.meta)
    assert third.version.sprt.baseline_number == 2
    detail = _finished(stub, bot_id)
    assert (detail.sprt_tests[0].status, detail.sprt_tests[0].replaced) == ("rejected", False)
    assert detail.bot.active_version == 2  # rejected: v2 keeps its place
    status = stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id, number=3))
    assert status.status == pb.VERSION_STATUS_HELD and status.sprt.llr <= status.sprt.lower

    out = CliRunner().invoke(cli, ["sprt", str(bot_id), "--server", server.address])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("SPRT v3 vs v2: rejected, not replaced; LLR -")
    assert lines[1].startswith("SPRT v2 vs v1: accepted, replaced; LLR ")
    assert "elo1 200" in lines[1] and "Elo +" in lines[1] and " ± " in lines[1]
    bots = CliRunner().invoke(cli, ["bots", "--all", "--game", "toy", "--server", server.address])
    assert "version 3: held" in bots.output and "SPRT v3 vs v2: rejected" in bots.output
