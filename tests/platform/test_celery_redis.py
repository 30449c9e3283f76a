"""The deployment topology as plain processes: a real Redis, real ``arena worker`` processes,
a tournament submitted from another process (``arena tournament``) — and the failures that
must not lose or double-count a match: a worker SIGKILLed mid-match, a Redis restart."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.db import Match, Rating, RatingHistory, Tournament, dispose_all, session_scope
from arena.evaluation import ratings
from tests.platform.conftest import RANDOM_BOT, ROOT, Workers, free_port, platform_env

pytestmark = pytest.mark.redis

SANDBOX = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]


def _slow_bot(tmp_path: Path, delay: float) -> str:
    """A random bot that thinks for ``delay`` seconds per decision (so matches last a while)."""
    folder = tmp_path / f"slow_bot_{int(delay * 1000)}"
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(
        "import random, time\n"
        "from arena.sdk import serve_bot\n"
        "def act(observation, legal_options):\n"
        f"    time.sleep({delay})\n"
        "    return random.choice(legal_options).id\n"
        "if __name__ == '__main__':\n"
        "    serve_bot(act)\n"
    )
    return str(folder)


def _submit(env: dict[str, str], source: str, n: int, log: Path) -> subprocess.Popen:
    bots = [f"--bot=b{i}={source}" for i in range(n)]
    cmd = [sys.executable, "-m", "arena", "tournament", "toy", *bots, "-k", "2",
           "--decision-ms", "2000", "--bank-ms", "5000", *SANDBOX]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=open(log, "wb"),  # noqa: SIM115
                            stderr=subprocess.STDOUT)


def _wait(proc: subprocess.Popen, log: Path, workers: Workers, timeout: float) -> str:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"tournament did not finish\n{log.read_text()}\n--- workers ---\n{workers.logs()}")
    out = log.read_text(errors="replace")
    assert proc.returncode == 0, out + workers.logs()
    return out


def _check_every_match_exactly_once(db: str, players: int = 2) -> list[Match]:
    dispose_all()
    os.environ["ARENA_DATABASE_URL"] = db
    try:
        with session_scope() as s:
            t = s.scalars(select(Tournament)).one()
            matches = list(s.scalars(select(Match).where(Match.tournament_id == t.id)))
            assert t.status == "done" and t.matches_done == t.matches_total == len(matches)
            assert {m.status for m in matches} == {"done"}
            assert sorted(m.rating_seq for m in matches) == list(range(1, len(matches) + 1))
            history = s.scalar(select(func.count()).select_from(RatingHistory))
            assert history == players * len(matches)  # each match rated once, no more
            games = sum(r.games_played for r in s.scalars(select(Rating)))
            assert games == players * len(matches)
            assert ratings.compare_with_stored(s, "toy") == []
            return matches
    finally:
        del os.environ["ARENA_DATABASE_URL"]
        dispose_all()


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.usefixtures("shortcut_setting")
def test_round_robin_on_redis_with_two_workers(
    redis_db: str, tmp_path: Path, database: str, request: pytest.FixtureRequest
) -> None:
    """Two worker processes record concurrently: SQLite's write lock / PostgreSQL's row lock."""
    if database == "sqlite":
        db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    else:
        db = request.getfixturevalue("pg_url")
    env = platform_env(db, redis_db)
    workers = Workers(env, tmp_path)
    workers.start(2)
    workers.wait_ready()
    log = tmp_path / "tournament.log"
    try:
        out = _wait(_submit(env, RANDOM_BOT, 4, log), log, workers, timeout=90)
    finally:
        workers.stop()
    assert "Leaderboard" in out and "12 played, 0 failed" in out
    matches = _check_every_match_exactly_once(db)
    assert len(matches) == 12
    # Both worker processes played.
    assert len({m.worker.split(":")[1] for m in matches}) == 2


@pytest.mark.usefixtures("shortcut_setting")
def test_sigkill_a_worker_mid_match(redis_db: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, redis_db)
    workers = Workers(env, tmp_path)
    victim, survivor = workers.start(2)
    workers.wait_ready()
    log = tmp_path / "tournament.log"
    proc = _submit(env, _slow_bot(tmp_path, 0.1), 3, log)  # 6 matches of ~1.6 s
    killed_match = None
    try:
        os.environ["ARENA_DATABASE_URL"] = db
        deadline = time.time() + 60
        while killed_match is None and time.time() < deadline:
            dispose_all()
            try:
                with session_scope() as s:
                    killed_match = s.scalar(select(Match.id).where(
                        Match.status == "running", Match.worker.like(f"%:{victim.pid}:%")))
            except Exception:  # noqa: BLE001 - the database file may not exist yet
                pass
            time.sleep(0.1)
        assert killed_match, "the victim worker never started a match"
        time.sleep(0.4)  # well inside the match
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
        out = _wait(proc, log, workers, timeout=120)
    finally:
        os.environ.pop("ARENA_DATABASE_URL", None)
        workers.stop()
    assert "6 played, 0 failed" in out
    matches = _check_every_match_exactly_once(db)
    replayed = next(m for m in matches if m.id == killed_match)
    assert replayed.attempts >= 2 and replayed.worker.split(":")[1] == str(survivor.pid)


@pytest.mark.usefixtures("shortcut_setting")
def test_redis_restart_during_a_tournament(tmp_path: Path) -> None:
    """Our own redis-server (never the system one), without persistence: a restart loses every
    queued message; the sweeper re-sends them from the database and the tournament completes."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server not installed")
    port = free_port()

    def start_redis() -> subprocess.Popen:
        p = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        for _ in range(100):
            try:
                if redis.Redis(port=port).ping():
                    return p
            except Exception:  # noqa: BLE001
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    redis_proc = start_redis()
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, f"redis://127.0.0.1:{port}/0")
    workers = Workers(env, tmp_path)
    workers.start(2)
    log = tmp_path / "tournament.log"
    proc = _submit(env, _slow_bot(tmp_path, 0.03), 4, log)  # 12 matches
    try:
        os.environ["ARENA_DATABASE_URL"] = db
        deadline = time.time() + 60
        done = 0
        while done < 3 and time.time() < deadline:
            dispose_all()
            try:
                with session_scope() as s:
                    done = s.scalar(select(func.count()).select_from(Match).where(
                        Match.status == "done")) or 0
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.2)
        assert done >= 3
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        time.sleep(1.0)
        redis_proc = start_redis()
        out = _wait(proc, log, workers, timeout=120)
    finally:
        os.environ.pop("ARENA_DATABASE_URL", None)
        workers.stop()
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
    assert "12 played, 0 failed" in out
    _check_every_match_exactly_once(db)


def test_beat_ticks_the_ladder_and_workers_play_it(redis_db: str, tmp_path: Path) -> None:
    """`arena beat` (tick every second) + one `arena worker`: the ladder queue keeps filling."""
    from arena.competition import ladder
    from arena.intake import bots

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    os.environ["ARENA_DATABASE_URL"] = db
    dispose_all()
    try:
        with session_scope() as s:
            for i in range(3):
                bots.register_version(s, "toy", RANDOM_BOT, name=f"l{i}")
            ladder.ensure_ladder(s, "toy", queue_target=2, decision_ms=1000, bank_ms=3000,
                                 sandbox=not SANDBOX)
        env = platform_env(db, redis_db, ARENA_LADDER_TICK="1")
        workers = Workers(env, tmp_path)
        workers.start(1)
        beat_log = open(tmp_path / "beat.log", "wb")  # noqa: SIM115
        beat = subprocess.Popen(
            [sys.executable, "-m", "arena", "beat", "--loglevel", "info",
             "--schedule-file", str(tmp_path / "beat" / "schedule")],
            env=env, cwd=ROOT, stdout=beat_log, stderr=subprocess.STDOUT, start_new_session=True)
        done = 0
        try:
            deadline = time.time() + 60
            while done < 4 and time.time() < deadline:
                time.sleep(0.5)
                dispose_all()
                with session_scope() as s:
                    done = s.scalar(select(func.count()).select_from(Match).where(
                        Match.kind == "ladder", Match.status == "done"))
        finally:
            os.killpg(beat.pid, signal.SIGTERM)
            beat.wait(timeout=10)
            workers.stop()
        dispose_all()
        with session_scope() as s:
            states = s.execute(select(Match.status, Match.error)).all()
        assert done >= 4, f"{states}\n{(tmp_path / 'beat.log').read_text()}\n{workers.logs()}"
        with session_scope() as s:
            assert ratings.compare_with_stored(s, "toy") == []
    finally:
        os.environ.pop("ARENA_DATABASE_URL", None)
        dispose_all()


@pytest.mark.slow
def test_sample_bots_round_robin_on_a_real_game(redis_db: str, tmp_path: Path) -> None:
    """Long form: the shipped sample bots (random + greedy) play Black Angel on two workers."""
    bots_dir = ROOT / "sample_bots"
    entrants = [f"--bot=random={bots_dir / 'random_bot'}", f"--bot=random2={bots_dir / 'random_bot'}",
                f"--bot=greedy={bots_dir / 'black_angel_greedy'}",
                f"--bot=greedy2={bots_dir / 'black_angel_greedy'}"]
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, redis_db, ARENA_LEASE_SECONDS="20")
    workers = Workers(env, tmp_path)
    workers.start(2)
    log = tmp_path / "tournament.log"
    cmd = [sys.executable, "-m", "arena", "tournament", "black_angel", *entrants, "-k", "2",
           "-r", "2", *SANDBOX]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=open(log, "wb"),  # noqa: SIM115
                            stderr=subprocess.STDOUT)
    try:
        out = _wait(proc, log, workers, timeout=600)
    finally:
        workers.stop()
    assert "24 played, 0 failed" in out
    dispose_all()
    os.environ["ARENA_DATABASE_URL"] = db
    try:
        with session_scope() as s:
            assert ratings.compare_with_stored(s, "black_angel") == []
            assert s.scalar(select(func.count()).select_from(RatingHistory)) == 48
    finally:
        del os.environ["ARENA_DATABASE_URL"]
        dispose_all()


SWEEP_SCRIPT = """
import json, sys
from arena import tasks
from arena.db import Match, session_scope
from sqlalchemy import select
with session_scope() as s:
    ids = sorted(s.scalars(select(Match.id)))
tasks.enqueue(ids[:2])
seen = tasks.match_ids_in_broker()
first = tasks.sweep()            # only the third match has no message: re-sent
again = tasks.sweep()            # now every match has one: nothing to do
from arena.workers.celery_app import app
with app.connection_for_write() as conn:
    conn.default_channel.client.delete(app.conf.task_default_queue)   # "Redis lost them"
lost = tasks.sweep()
print(json.dumps({"ids": ids, "seen": sorted(seen), "first": first, "again": again,
                  "lost": lost}))
"""


def test_sweeper_resends_exactly_the_matches_redis_lost(
    redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from arena.competition import tournaments
    from arena.intake import bots

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", db)
    dispose_all()
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"s{i}").id for i in range(3)]
        t = tournaments.create_tournament(s, "toy", ids, players=3, rounds=1)
        tournaments.start(s, t)
    dispose_all()
    env = platform_env(db, redis_db, ARENA_REQUEUE_GRACE="0")
    out = subprocess.run([sys.executable, "-c", SWEEP_SCRIPT], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(result["ids"]) == 3
    # (Redis' unacked hash may also hold other tests' messages, e.g. of a killed worker.)
    assert set(result["ids"][:2]) <= set(result["seen"])
    assert result["ids"][2] not in result["seen"]
    assert (result["first"], result["again"], result["lost"]) == (1, 0, 3)
