"""End to end over real sockets, with real processes: ``arena serve``, a Celery worker on Redis,
sandboxed bots. A bot author registers, submits the sample random bot as an archive, it
qualifies, plays in a round-robin run by the worker, shows on the leaderboard, and its matches
stream live — once through the project's CLI and client, once through a client generated from
protos/arena.proto alone."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.sdk.client import ArenaClient
from referee._proto import arena_pb2 as pb
from tests.api.processes import ROOT, Deployment, deployment, private_redis_available

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not private_redis_available(), reason="needs redis-server to start a private broker"),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for sandboxed bots"),
]

RANDOM_BOT = ROOT / "sample_bots" / "random_bot"
SLOW_BOT = Path(__file__).parent / "bots" / "slow_bot"


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(tmp_path_factory.mktemp("e2e")) as d:
        yield d


@pytest.fixture(scope="module")
def organiser(deployed: Deployment) -> str:
    """An organiser's token: registered over gRPC, promoted by the operator's command."""
    with ArenaClient(deployed.address) as client:
        token = client.register("organiser-olga").token
    done = deployed.arena("organiser", "organiser-olga")
    assert done.returncode == 0, done.stderr
    return token


def _cli(deployed: Deployment, config_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in deployed.env.items() if k != "ARENA_TOKEN"}
    env["XDG_CONFIG_HOME"] = str(config_home)
    return subprocess.run(
        [sys.executable, "-m", "arena", *args, "--server", deployed.address],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def _wait_done(client: ArenaClient, tournament_id: int, deadline_s: float = 150) -> pb.Tournament:
    deadline = time.monotonic() + deadline_s
    while True:
        t = client.tournament(tournament_id)
        if t.status in ("done", "failed") or time.monotonic() > deadline:
            return t
        time.sleep(0.3)


def test_author_journey_with_the_cli(deployed: Deployment, organiser: str, tmp_path: Path) -> None:
    home = tmp_path / "config"
    # 1. Register: the token is printed once and saved for the owner only.
    reg = _cli(deployed, home, "register", "author-ann")
    assert reg.returncode == 0, reg.stderr + reg.stdout
    token_file = home / "tabletop-arena" / "token"
    token = token_file.read_text().strip()
    assert token in reg.stdout
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600

    # 2. Submit the sample bot as an archive; it qualifies.
    archive = tmp_path / "random_bot.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(RANDOM_BOT / "bot.py", arcname="random_bot/bot.py")
    sub = _cli(deployed, home, "submit", str(archive), "--game", "toy", "--name", "ann-random")
    assert sub.returncode == 0, sub.stderr + sub.stdout
    assert "version 1: active" in sub.stdout
    # A folder is packed by the client; a second bot, the slow one, so a match lasts a moment.
    sub = _cli(deployed, home, "submit", str(SLOW_BOT), "--game", "toy", "--name", "ann-slow")
    assert sub.returncode == 0 and "version 1: active" in sub.stdout, sub.stderr + sub.stdout
    # A third bot from someone else.
    with ArenaClient(deployed.address) as client:
        bob = client.register("author-bob").token
    with ArenaClient(deployed.address, bob) as client:
        reply = client.submit(RANDOM_BOT, game="toy", name="bob-random")
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE
    # And a fourth from a third author: a tournament takes one entry per author (arena.intake.authors).
    with ArenaClient(deployed.address) as client:
        cleo = client.register("author-cleo").token
    with ArenaClient(deployed.address, cleo) as client:
        reply = client.submit(RANDOM_BOT, game="toy", name="cleo-random")
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE

    bots = _cli(deployed, home, "bots")
    assert bots.returncode == 0, bots.stderr
    assert "ann-random" in bots.stdout and "ann-slow" in bots.stdout and "bob-random" not in bots.stdout
    assert bots.stdout.count("active") >= 2

    # 3. An organiser runs a round-robin of three authors' bots; the worker process plays it.
    with ArenaClient(deployed.address, organiser) as client:
        both = [b.id for b in client.bots(game="toy") if b.name in ("ann-random", "ann-slow", "bob-random")]
        with pytest.raises(grpc.RpcError) as twice:  # ann's two bots: refused, saying why
            client.create_tournament(name="cli cup", game="toy", players=2, rounds=1, bot_ids=both)
        assert twice.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "allows 1 entry per author, and 'author-ann' has 2" in twice.value.details()
        ids = [b.id for b in client.bots(game="toy") if b.name in ("cleo-random", "ann-slow", "bob-random")]
        t = client.create_tournament(name="cli cup", game="toy", players=2, rounds=1, bot_ids=ids,
                                     decision_ms=1500, bank_ms=3000)
        assert t.matches_total == 6 and t.status in ("scheduled", "running")
        slow_id = next(b.id for b in client.bots(game="toy") if b.name == "ann-slow")
        pending = client.matches(tournament_id=t.id, bot_id=slow_id, page_size=10).matches
        assert len(pending) == 4
        watched = pending[-1].id  # scheduled last: surely not started yet

        # 4. Its matches stream live: through the client and through `arena watch`.
        arrivals: list[tuple[float, pb.MatchEvent]] = []

        def follow() -> None:
            with ArenaClient(deployed.address) as c:
                for event in c.watch(watched, timeout=150):
                    arrivals.append((time.monotonic(), event))

        follower = threading.Thread(target=follow)
        follower.start()
        cli_watch = subprocess.Popen(
            [sys.executable, "-m", "arena", "watch", watched, "--json", "--server", deployed.address],
            env=deployed.env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        done = _wait_done(client, t.id)
        assert done.status == "done", deployed.log_text()
        assert (done.matches_done, done.matches_failed) == (6, 0)
        follower.join(60)
        cli_out, cli_err = cli_watch.communicate(timeout=60)

    live = [(at, json.loads(e.event_json)) for at, e in arrivals if e.kind == pb.MATCH_EVENT_KIND_LIVE]
    final = [e for _, e in arrivals if e.kind == pb.MATCH_EVENT_KIND_RECORD]
    assert len(final) == 1 and arrivals[-1][1].kind == pb.MATCH_EVENT_KIND_RECORD
    record = json.loads(final[0].record_json)
    decisions = [e for _, e in live if e["type"] == "decision"]
    assert [d["n"] for d in decisions] == list(range(len(record["decisions"])))
    assert [d["option"] for d in decisions] == [d["option"] for d in record["decisions"]]
    assert live[0][1]["type"] == "start" and live[-1][1]["type"] == "end"
    assert [e.seq for _, e in arrivals[:-1]] == list(range(len(live)))
    # Events came as they happened: spread over the match, not in one burst at the end.
    assert live[-1][0] - live[0][0] > 0.5, [round(at - live[0][0], 3) for at, _ in live]
    assert cli_watch.returncode == 0, cli_err
    cli_lines = [json.loads(line) for line in cli_out.splitlines() if line.strip()]
    assert cli_lines[-1]["record"]["match_id"] == watched
    if cli_lines[0].get("type") == "start":  # it came while the match ran: every decision streamed
        assert sum(1 for x in cli_lines if x.get("type") == "decision") == len(record["decisions"])
    else:  # a loaded host started the CLI after the end (seen in CI): the finished match's record
        assert len(cli_lines) == 1 and cli_lines[0]["record"]["decisions"] == record["decisions"]

    # 5. The leaderboard shows every bot with its four games; the CLI prints it.
    with ArenaClient(deployed.address) as client:
        board = client.leaderboard("toy")
        games = {row.bot.split(" v")[0]: row.matches for row in board.rows}
        assert {bot: n for bot, n in games.items() if n} == {"cleo-random": 4, "ann-slow": 4, "bob-random": 4}
        assert [r.conservative for r in board.rows] == sorted((r.conservative for r in board.rows), reverse=True)
        history = client.rating_history(ids[0])
        assert len(history.points) == 4
        # Paging through the tournament's matches: 3 pages of 2, no repeats.
        seen, token = [], ""
        while True:
            page = client.matches(tournament_id=t.id, page_size=2, page_token=token)
            seen += [m.id for m in page.matches]
            token = page.next_page_token
            if not token:
                break
        assert len(seen) == 6 == len(set(seen))
        full = client.match(watched)
        assert full.summary.status == "done" and json.loads(full.record_json)["match_id"] == watched
        assert {s.bot for s in full.summary.seats} <= {"cleo-random", "ann-slow", "bob-random"}
        # Watching a finished match gives its whole record at once.
        after = list(client.watch(watched, timeout=30))
        assert [e.kind for e in after] == [pb.MATCH_EVENT_KIND_RECORD]
        assert json.loads(after[0].record_json) == record
    lb = _cli(deployed, home, "leaderboard", "toy")
    assert lb.returncode == 0 and "cleo-random v1" in lb.stdout and "bob-random v1" in lb.stdout, lb.stderr


def test_a_client_built_only_from_the_proto_can_do_the_same(deployed: Deployment, organiser: str, tmp_path: Path) -> None:
    from grpc_tools import protoc

    out = tmp_path / "client"
    out.mkdir()
    shutil.copy(ROOT / "protos" / "arena.proto", out / "arena.proto")
    # Only the one file, plus the well-known types every protoc ships (google/protobuf/*.proto):
    # `python -m grpc_tools.protoc` adds that include itself; protoc.main() needs it spelled out.
    well_known = Path(protoc.__file__).parent / "_proto"
    code = protoc.main(["protoc", f"-I{out}", f"-I{well_known}", f"--python_out={out}", f"--grpc_python_out={out}",
                        str(out / "arena.proto")])
    assert code == 0
    shutil.copy(Path(__file__).parent / "proto_only_client.py", out / "client.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(
        ARENA_ADDRESS=deployed.address, ARENA_ORGANISER_TOKEN=organiser,
        RANDOM_BOT_DIR=str(RANDOM_BOT), SLOW_BOT_DIR=str(SLOW_BOT),
    )
    run = subprocess.run([sys.executable, "client.py"], cwd=out, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:] + deployed.log_text()
    seen = json.loads(run.stdout)
    assert seen["user"] == "proto-author"
    assert seen["matches_total"] == 2 and seen["matches_done"] == 2 and seen["tournament_status"] == "done"
    assert seen["records"] == 1 and seen["record_matches"]
    assert {"start", "decision", "end"} <= set(seen["live_types"])
    assert seen["live_decisions"] == seen["record_decisions"] > 0
    assert seen["live_span_s"] > 0.5
    assert {int(k): v for k, v in seen["leaderboard"].items() if int(k) in seen["bot_ids"]} == {b: 2 for b in seen["bot_ids"]}
    assert seen["full_record_seats"] == 2
    assert seen["project_imported"] is False


def test_organiser_starts_and_stops_the_ladder(deployed: Deployment, organiser: str) -> None:
    with ArenaClient(deployed.address) as client:
        lee = client.register("ladder-lee").token
    with ArenaClient(deployed.address, lee) as client:
        for name in ("lee-one", "lee-two"):
            assert client.submit(RANDOM_BOT, game="toy", name=name).version.status == pb.VERSION_STATUS_ACTIVE
        with pytest.raises(grpc.RpcError) as info:
            client.start_ladder("toy")
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with ArenaClient(deployed.address, organiser) as client:
        ladder = client.start_ladder("toy", decision_ms=1500, bank_ms=3000)
        assert ladder.enabled and ladder.game == "toy"
        deadline = time.monotonic() + 120
        while client.ladder("toy").matches_done < 4 and time.monotonic() < deadline:
            time.sleep(0.3)
        ladder = client.ladder("toy")
        assert ladder.matches_done >= 4 and ladder.matches_failed == 0, deployed.log_text()
        stopped = client.stop_ladder("toy")
        assert not stopped.enabled
        with pytest.raises(grpc.RpcError) as info:
            client.stop_ladder("toy")
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        ladder_matches = client.matches(game="toy", status="done", page_size=500).matches
        assert sum(1 for m in ladder_matches if m.tournament_id == 0) >= 4
