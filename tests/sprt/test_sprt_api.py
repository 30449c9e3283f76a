"""SPRT through the API and the CLI: a new version is held while its test runs, replaces its
predecessor only when the test accepts, and the progress and verdict are readable."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.evaluation.sprt import SprtSettings
from arena.server.app import RunningServer
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.archives import zip_bot
from tests.api.conftest import FAST_TC, make_config, new_account, server_on_fresh_database

BOTS = Path(__file__).resolve().parent / "bots"
HIGH = {"bot.py": (BOTS / "high_card" / "bot.py").read_bytes()}
LOW = {"bot.py": (BOTS / "low_card" / "bot.py").read_bytes()}
QUICK = pb.SprtSettings(elo0=0, elo1=200, alpha=0.1, beta=0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("sprt")
    # Unsandboxed for speed (containment has its own tests); seeds counted from 1000 so the
    # verdicts are reproducible.
    config = dataclasses.replace(make_config(tmp), sandbox=False, sprt=SprtSettings(),
                                 sprt_time_control=FAST_TC, sprt_seed=1000)
    with server_on_fresh_database(tmp, config) as running:
        yield running


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


def _cli(server, *args: str) -> object:  # noqa: ANN001
    return CliRunner().invoke(cli, [*args, "--server", server.address])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    return tmp_path


def test_submit_prints_the_qualification_then_the_sprt_until_its_verdict(server, stub, home: Path,  # noqa: ANN001
                                                                         tmp_path: Path) -> None:
    """``arena submit`` (issue 14 item 6): the qualification match id, progress lines (games,
    score, LLR in its bounds, Elo ± error) while the SPRT runs, then the verdict and whether
    the version replaced its predecessor."""
    assert _cli(server, "register", "follower").exit_code == 0
    for name, source in (("v1", LOW), ("v2", HIGH)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_bytes(source["bot.py"])
    first = _cli(server, "submit", str(tmp_path / "v1"), "--game", "toy", "--name", "follow")
    assert first.exit_code == 0 and "SPRT" not in first.output, first.output
    out = _cli(server, "submit", str(tmp_path / "v2"), "--game", "toy", "--name", "follow",
               "--max-pairs", "2", "--replace-always", "--interval", "0.2")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    qualification = next(i for i, line in enumerate(lines) if re.search(r"qualification match [0-9a-f]{32}$", line))
    progress = [i for i, line in enumerate(lines) if line.startswith("  SPRT: ")]
    assert progress and progress[0] > qualification, out.output
    assert re.match(r"  SPRT: \d+ games \(\d+ pairs\), score [01]\.\d{3}, LLR [+-]\d+\.\d\d in "
                    r"\[-2\.94, 2\.94\], Elo [+-]\d+\.\d ± \d+\.\d$", lines[progress[-1]]), lines[progress[-1]]
    # Two pairs at most and the owner's "always": inconclusive, and replaced all the same.
    assert lines[-1] == "  SPRT inconclusive: version 2 replaced version 1", out.output
    assert "  SPRT: 4 games (2 pairs)" in out.output


def test_ctrl_c_leaves_the_sprt_running_and_says_how_to_follow(server, stub, home: Path, tmp_path: Path,  # noqa: ANN001
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while following stops the client only; ``--sprt-house`` reaches the test, whose
    house comparison is shown by ``arena sprt``."""
    from arena.cli import client as commands

    assert _cli(server, "register", "interrupter").exit_code == 0
    for name, source in (("w1", LOW), ("w2", HIGH)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_bytes(source["bot.py"])
    first = _cli(server, "submit", str(tmp_path / "w1"), "--game", "toy", "--name", "stopper")
    bot_id = int(re.search(r"\(id (\d+), toy\)", first.output).group(1))

    def interrupted(_test: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "sprt_progress", interrupted)
    out = _cli(server, "submit", str(tmp_path / "w2"), "--game", "toy", "--name", "stopper",
               "--sprt-house", "--max-pairs", "2")
    monkeypatch.undo()
    assert out.exit_code == 130, out.output
    assert f"the SPRT goes on on the server: `arena sprt {bot_id} --follow`" in out.output
    assert "Traceback" not in out.output
    detail = _finished(stub, bot_id)  # it went on without the client
    test = detail.sprt_tests[0]
    assert test.settings.house and test.pairs == 2 and test.house_pairs == 1 and test.games == 6
    shown = _cli(server, "sprt", str(bot_id))
    assert "through the house bots: 1 of the pairs" in shown.output, shown.output


def test_ladder_start_with_and_without_the_house_bots(server, stub, home: Path) -> None:  # noqa: ANN001
    """``arena ladder start GAME --no-house`` / ``--house`` (default) over the API."""
    from tests.api.conftest import Account, make_organiser

    registered = _cli(server, "register", "ladder-orga")
    token = re.search(r"API token \(shown only now\): (\S+)", registered.output).group(1)
    make_organiser(server, Account("ladder-orga", token))
    without = _cli(server, "ladder", "start", "toy", "--no-house")
    assert without.exit_code == 0 and "house bots: none" in without.output, without.output
    with_house = _cli(server, "ladder", "start", "toy")
    assert "house bots: 2" in with_house.output, with_house.output  # random and search for toy
    assert "house bots: 2" in _cli(server, "ladder", "status", "toy").output
    assert _cli(server, "ladder", "stop", "toy").exit_code == 0
    assert stub.GetLadder(pb.GetLadderRequest(game="toy")).house_bots == 2


def test_verdict_lines_say_who_plays() -> None:
    from arena.cli.client import sprt_verdict

    rejected = pb.SprtTest(candidate_number=3, baseline_number=2, status="rejected", replaced=False)
    assert sprt_verdict(rejected) == "  SPRT rejected: version 2 keeps playing; version 3 is held"
    failed = pb.SprtTest(candidate_number=3, baseline_number=2, status="failed", message="no bot")
    assert sprt_verdict(failed) == "  SPRT failed: version 2 keeps playing; version 3 is held (no bot)"


def test_a_solo_automaton_is_a_house_row_of_the_leaderboard(server, stub) -> None:  # noqa: ANN001
    """Over the API: after one Black Angel solo match against Hal (normal difficulty), ``hal-5``
    is on the leaderboard as an anchor, rated (still calibrating), and ``arena leaderboard`` says so."""
    from arena.db import session_scope
    from arena.intake import bots
    from arena.intake.qualification import RANDOM_BOT
    from arena.records import recording
    from arena.workers import tasks

    with session_scope(server.servicer.url) as s:
        vid = bots.register_version(s, "black_angel", str(RANDOM_BOT), name="soloist", owner="solo-author").id
        match_id = recording.create_match(s, "black_angel", "solo", [vid], seed=11, sandbox=False).id
    assert tasks.play_match_now(match_id).status == "recorded"
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(game="black_angel", limit=10))
    rows = {r.bot: r for r in board.rows}
    assert rows["hal-5 v1"].house and rows["hal-5 v1"].matches == 1 and rows["hal-5 v1"].owner == "house"
    assert not rows["soloist v1"].house and rows["soloist v1"].matches == 1
    shown = _cli(server, "leaderboard", "black_angel")
    assert re.search(r"hal-5 v1 .*anchor \(calibrating\)$", shown.output, re.M), shown.output  # 1 game: not calibrated


def test_the_house_owner_name_is_reserved(stub) -> None:  # noqa: ANN001
    """Bots of a user called "house" would pass for reference points (and could take an
    automaton's name): the name is refused."""
    for name in ("house", "House"):
        with pytest.raises(grpc.RpcError) as err:
            stub.Register(pb.RegisterRequest(name=name))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "reserved" in err.value.details()
