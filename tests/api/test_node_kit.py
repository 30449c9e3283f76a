"""The Node.js starter kit (starter_kits/node, built from the .proto files only) plays a full
match of every game as a remote bot and as a dialling bot, runs hosted in the sandbox from its
bot.json manifest, and `arena connect` dials in for a bot folder of any language.

Runs the real ``node`` (Debian's ``nodejs``; CI installs it and the kit's locked npm packages).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee.match import MatchConfig, SeatSpec, run_match
from referee.replay import replay
from tests.api.conftest import new_account
from tests.api.processes import ROOT, free_port

KIT = ROOT / "starter_kits" / "node"
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot")
GAMES = ("black_angel", "solenia", "orbital")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (Debian: nodejs)")


@pytest.fixture(scope="module")
def kit() -> Path:
    """The kit with its npm packages (``npm ci`` from the committed lock file if missing)."""
    if not (KIT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=KIT, check=True,
                       timeout=300, stdout=subprocess.DEVNULL)
    return KIT


class Node:
    """``node bot.js ARGS`` from the kit, killed at the end."""

    def __init__(self, args: list[str], command: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(command or ["node", "bot.js", *args], cwd=KIT, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})

    def stop(self) -> str:
        self.proc.kill()
        out, _ = self.proc.communicate(timeout=10)
        return out.decode(errors="replace")


@pytest.fixture
def procs() -> Iterator[list[Node]]:
    started: list[Node] = []
    yield started
    for p in started:
        p.stop()


def play(game: str, source: str, seed: int, sandbox: bool = False):  # noqa: ANN201
    record = run_match(MatchConfig(game=game, seats=[SeatSpec("node", source), SeatSpec("rnd", RANDOM_BOT)],
                                   seed=seed, sandbox=sandbox))
    assert record.forfeits == [], record.forfeits
    assert record.result is not None
    own = [d for d in record.decisions if d.seat == 0]
    assert own and not any(d.forced for d in own)
    replay(record)  # raises on any difference from the engine
    return record


def wait_active(stub, name: str, game: str, node: Node, timeout: float = 120.0) -> None:  # noqa: ANN001
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert node.proc.poll() is None, node.stop()
        bots = stub.ListBots(pb.ListBotsRequest(game=game)).bots
        mine = [b for b in bots if b.name == name]
        if mine:
            status = stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=mine[0].id))
            assert status.status != pb.VERSION_STATUS_REFUSED, status.refusal
            if status.status == pb.VERSION_STATUS_ACTIVE:
                return
        time.sleep(0.1)
    raise AssertionError(f"{name} did not qualify: {node.stop()}")


@pytest.mark.parametrize("game", GAMES)
def test_node_kit_plays_a_full_match_as_a_remote_bot(kit: Path, procs: list[Node], game: str) -> None:
    port = free_port()
    node = Node(["--port", str(port)])
    procs.append(node)
    grpc.channel_ready_future(grpc.insecure_channel(f"127.0.0.1:{port}")).result(timeout=30)
    play(game, f"127.0.0.1:{port}", seed=11)


@pytest.mark.parametrize("game", GAMES)
def test_node_kit_plays_a_full_match_as_a_dialling_bot(server, stub, kit: Path, procs: list[Node], game: str) -> None:  # noqa: ANN001
    owner = new_account(stub, "node")
    name = f"node-{game}".replace("_", "-")
    node = Node(["--connect", server.address, "--token", owner.token, "--name", name, "--game", game])
    procs.append(node)
    wait_active(stub, name, game, node)  # its qualification match came through the stream too
    play(game, dialin_client.source(owner.name, game, name), seed=12)


def test_node_kit_runs_hosted_from_its_manifest(kit: Path) -> None:
    play("solenia", str(kit), seed=13, sandbox=shutil.which("bwrap") is not None)


def test_arena_connect_dials_in_for_a_bot_folder(server, stub, kit: Path, procs: list[Node]) -> None:  # noqa: ANN001
    owner = new_account(stub, "conn")
    node = Node([], command=[sys.executable, "-m", "arena", "connect", str(kit), "--game", "solenia",
                             "--name", "kit-via-connect", "--server", server.address],
                env={"ARENA_TOKEN": owner.token})
    procs.append(node)
    wait_active(stub, "kit-via-connect", "solenia", node)
    play("solenia", dialin_client.source(owner.name, "solenia", "kit-via-connect"), seed=14)


def test_arena_connect_refusal_is_one_line(server, stub, tmp_path: Path) -> None:  # noqa: ANN001
    bad = subprocess.run([sys.executable, "-m", "arena", "connect", str(KIT), "--game", "solenia",
                          "--server", server.address], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "ARENA_TOKEN": "arena_wrong"})
    assert bad.returncode == 1
    assert "UNAUTHENTICATED" in bad.stderr and "Traceback" not in bad.stderr
    empty = subprocess.run([sys.executable, "-m", "arena", "connect", str(tmp_path), "--game", "solenia"],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "ARENA_TOKEN": "x"})
    assert empty.returncode == 1 and "no bot.py" in empty.stderr
