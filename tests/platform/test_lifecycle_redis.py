"""An event's pause and resume on the Celery path (Redis and a real ``arena worker``): matches
already sent to Redis when the event is paused are not played by the worker that receives them;
resuming sends them again, the worker plays them, pairs the next Swiss round and ends the event."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.competition import tournaments
from arena.db import Bot, Match, Tournament, TournamentAudit, dispose_all, session_scope
from arena.intake import bots
from tests.platform.conftest import RANDOM_BOT, ROOT, Workers, platform_env

pytestmark = pytest.mark.redis

SEND = "import sys; from arena.workers import tasks; print(tasks.schedule_tournament(int(sys.argv[1])))"


def _arena(env: dict[str, str], *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "arena", *args], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _statuses(tid: int) -> dict[str, int]:
    with session_scope() as s:
        return dict(s.execute(select(Match.status, func.count()).where(Match.tournament_id == tid)
                              .group_by(Match.status)).all())


def test_pause_holds_matches_already_in_redis_and_resume_plays_them(
    redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.competition import lifecycle

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", db)
    dispose_all()
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"p{i}", owner=f"o{i}").bot_id for i in range(4)]
        t = tournaments.create_tournament(s, "toy", [], 2, rounds=2, format="swiss", open_entries=True,
                                          decision_ms=1000, bank_ms=3000, sandbox=False)
        for bot_id in ids:
            lifecycle.enter(s, t, s.get(Bot, bot_id), lifecycle.OPERATOR)
        lifecycle.start(s, t, lifecycle.OPERATOR)
        tid = t.id
    dispose_all()
    env = platform_env(db, redis_db, ARENA_SANDBOX="0")
    sent = subprocess.run([sys.executable, "-c", SEND, str(tid)], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert sent.returncode == 0 and sent.stdout.strip().endswith("2"), sent.stderr  # round 1 in Redis
    assert "2 match(es) held" in _arena(env, "tournament", "pause", str(tid), "--reason", "power cut")
    workers = Workers(env, tmp_path)
    workers.start(1)
    try:
        workers.wait_ready()
        time.sleep(2)  # the worker has received both messages by now, and played neither
        assert _statuses(tid) == {"paused": 2}
        assert "2 match(es) released" in _arena(env, "tournament", "resume", str(tid))
        deadline = time.time() + 90
        while time.time() < deadline:
            with session_scope() as s:
                if s.get(Tournament, tid).status == "done":
                    break
            time.sleep(0.3)
        with session_scope() as s:
            t = s.get(Tournament, tid)
            assert (t.status, t.matches_done, t.matches_total) == ("done", 4, 4), workers.logs()
            actions = list(s.scalars(select(TournamentAudit.action).where(TournamentAudit.tournament_id == tid)))
        assert actions[-2:] == ["pause", "resume"]
    finally:
        workers.stop()
        dispose_all()
