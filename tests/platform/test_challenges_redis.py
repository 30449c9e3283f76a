"""A challenge in the multi-machine topology: ``arena serve`` with a real Redis hands the match to
a real ``arena worker`` process (Celery), which plays and records it; the server plays nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from arena.db import Challenge, Match, dispose_all, session_scope
from arena.sdk.client import pack_folder
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.platform.conftest import RANDOM_BOT, ROOT, Workers, free_port, platform_env

pytestmark = pytest.mark.redis


def test_a_challenge_is_played_by_a_celery_worker(redis_db: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, redis_db, ARENA_DATA_DIR=str(tmp_path / "data"))
    workers = Workers(env, tmp_path)
    workers.start(1)
    port = free_port()
    sandbox = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *sandbox,
        ],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        workers.wait_ready()
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = arena_pb2_grpc.ArenaStub(channel)
        ids, metas = [], []
        for name in ("ola", "pat"):
            token = stub.Register(pb.RegisterRequest(name=name)).token
            meta = (("authorization", f"Bearer {token}"),)
            reply = stub.SubmitBot(
                pb.SubmitBotRequest(
                    name=f"{name}-rnd", game="toy", archive=pack_folder(Path(RANDOM_BOT)), wait=True
                ),
                metadata=meta,
                timeout=120,
            )
            assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
            ids.append(reply.bot.bot.id)
            metas.append(meta)
        made = stub.ChallengeBot(
            pb.ChallengeBotRequest(bot_id=ids[0], opponent_bot_id=ids[1], rated=True),
            metadata=metas[0],
            timeout=30,
        )
        deadline = time.monotonic() + 90
        while (
            summary := stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id)).summary
        ).status != "done":
            assert summary.status != "failed" and time.monotonic() < deadline, workers.logs()
            time.sleep(0.2)
        assert len(stub.GetRatingHistory(pb.GetRatingHistoryRequest(bot_id=ids[1])).points) == 1
    finally:
        channel.close()
        server.terminate()
        server.wait(10)
        workers.stop()
    os.environ["ARENA_DATABASE_URL"] = db
    try:
        with session_scope() as s:
            match = s.get(Match, made.match_id)
            assert match.kind == "challenge" and match.rated and match.rating_seq is not None
            # a worker played it, not the server
            assert int(match.worker.split(":")[1]) != server.pid
            assert s.query(Challenge).filter(Challenge.match_id == made.match_id).one().rated
    finally:
        del os.environ["ARENA_DATABASE_URL"]
        dispose_all()
