"""Swiss tournaments in the database: the CLI in-process, the next round paired exactly once,
a round left unpaired picked up by the sweep, and (with Redis) a worker and Redis killed mid-way."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from arena.cli import cli
from arena.competition import tournaments
from arena.db import Match, MatchSeat, Tournament, TournamentRound, session_scope
from arena.intake import bots
from arena.records import recording
from arena.workers import tasks
from tests.platform.conftest import RANDOM_BOT, ROOT, Workers, platform_env

SANDBOX = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
FAST = ["--decision-ms", "1000", "--bank-ms", "3000"]


@pytest.fixture
def _no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)


@pytest.mark.usefixtures("_no_broker")
def test_cli_swiss_plays_every_round_with_fair_byes(sqlite_url: str) -> None:
    """5 bots at 2 seats, 3 rounds: 2 tables and 1 bye a round, a different bot each round,
    rounds paired as the previous one finishes, standings printed."""
    runner = CliRunner()
    entrants = [f"--bot=r{i}={RANDOM_BOT}" for i in range(5)]
    out = runner.invoke(cli, ["tournament", "toy", *entrants, "-k", "2", "--format", "swiss",
                              "--rounds", "3", "-w", "2", *FAST, *SANDBOX])
    assert out.exit_code == 0, out.output
    assert "Swiss" in out.output and "no pair meets twice" in out.output  # said before starting
    assert "Swiss standings" in out.output and "buchholz" in out.output
    with session_scope() as s:
        t = s.scalars(select(Tournament)).one()
        assert (t.format, t.status, t.matches_done, t.matches_total) == ("swiss", "done", 6, 6)
        rounds = s.scalars(select(TournamentRound).order_by(TournamentRound.round)).all()
        assert [r.round for r in rounds] == [0, 1, 2] and all(len(r.byes) == 1 for r in rounds)
        assert len({r.byes[0] for r in rounds}) == 3  # no second bye while others have none
        pairs = Counter(frozenset(m.seats[i].bot_version_id for i in range(2)) for m in t.matches)
        assert max(pairs.values()) == 1  # 5 bots, 3 rounds: no pair meets twice
        rows = tournaments.swiss_standings(s, t)
        assert sum(r.score for r in rows) == pytest.approx(6 + 3)  # a point a game, one a bye


@pytest.mark.usefixtures("_no_broker")
def test_cli_round_robin_says_what_it_guarantees(sqlite_url: str) -> None:
    runner = CliRunner()
    entrants = [f"--bot=r{i}={RANDOM_BOT}" for i in range(4)]
    out = runner.invoke(cli, ["tournament", "toy", *entrants, "-k", "3", "-w", "2", *FAST, *SANDBOX])
    assert out.exit_code == 0, out.output
    line = next(x for x in out.output.splitlines() if x.startswith("schedule:"))
    assert "every pair of bots meets at least 2 time(s)" in line  # 4 tables of 3: 2 each
    assert "each bot sits equally often in every seat" in line


def test_bad_swiss_shapes_are_refused_clearly(sqlite_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["tournament", "toy", f"--bot=a={RANDOM_BOT}", f"--bot=b={RANDOM_BOT}",
                              "-k", "3", "--format", "swiss", *SANDBOX])
    assert out.exit_code != 0 and "at least 3 bots" in out.output and "Traceback" not in out.output


def _swiss(db_tmp: Path, n: int, k: int, rounds: int) -> int:
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"b{i}").id for i in range(n)]
        t = tournaments.create_tournament(s, "toy", ids, k, rounds=rounds, seed=3, format="swiss",
                                          sandbox=False)
        t.status = "running"
        return t.id


def _finish_round(tid: int, round_no: int, rng: random.Random, leave: int = 0) -> list[str]:
    """Record random results for the round's matches, all but the last ``leave`` (their ids)."""
    with session_scope() as s:
        matches = s.scalars(select(Match).where(Match.tournament_id == tid, Match.round == round_no)
                            .order_by(Match.table)).all()
        todo = [(m.id, m.players) for m in matches]
    for mid, k in todo[: len(todo) - leave]:
        ranks = list(range(1, k + 1))
        rng.shuffle(ranks)
        with session_scope() as s:
            recording.record_result(s, mid, {"result": {"ranks": ranks, "scores": ranks}, "forfeits": []})
    return [mid for mid, _ in todo[len(todo) - leave:]]


def test_two_workers_finishing_a_round_at_once_pair_the_next_round_once(db_url: str) -> None:
    """The last two results of a round recorded by two threads at the same moment, each then
    asking for the next round (as arena.workers.tasks does): exactly one round 1, with its tables once.
    Runs on SQLite and PostgreSQL (the round's primary key is the guard)."""
    tid = _swiss(Path(), 12, 3, 3)
    last_two = _finish_round(tid, 0, random.Random(1), leave=2)
    barrier = threading.Barrier(2)
    sent: list[int] = []

    def finish(mid: str) -> None:
        with session_scope() as s:
            recording.record_result(s, mid, {"result": {"ranks": [1, 2, 3], "scores": [3, 2, 1]}, "forfeits": []})
        barrier.wait()
        sent.append(len(tournaments.pair_next_round(tid)))

    threads = [threading.Thread(target=finish, args=(mid,)) for mid in last_two]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(sent) == [0, 4]
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(TournamentRound).where(TournamentRound.tournament_id == tid)) == 2
        per_round = Counter(s.scalars(select(Match.round).where(Match.tournament_id == tid)))
        assert per_round == {0: 4, 1: 4}
    assert tournaments.pair_next_round(tid) == []  # round 1 not played yet


def test_a_round_left_unpaired_is_paired_by_the_sweep(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed after recording a round's last result but before pairing: the sweep
    (beat's, or arena resume's) pairs it; the tournament then closes after its last round."""
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    monkeypatch.setattr(tasks, "enqueue", lambda ids: None)  # matches stay pending in the database
    tid = _swiss(Path(), 7, 2, 2)
    _finish_round(tid, 0, random.Random(2))  # recorded; nobody paired round 1
    assert tournaments.stalled_swiss() == [tid]
    tasks._sweep(tid, None, None)
    with session_scope() as s:
        assert Counter(s.scalars(select(Match.round).where(Match.tournament_id == tid))) == {0: 3, 1: 3}
    assert tournaments.stalled_swiss() == []
    _finish_round(tid, 1, random.Random(3))
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.status, t.matches_done, t.matches_total) == ("done", 6, 6)
    assert tournaments.pair_next_round(tid) == []


def test_a_failed_match_still_ends_its_round(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks, "enqueue", lambda ids: None)
    tid = _swiss(Path(), 4, 2, 2)
    [last] = _finish_round(tid, 0, random.Random(4), leave=1)
    with session_scope() as s:
        recording.fail(s, last, "ConfigError: gone")
    assert tasks.next_swiss_round(last) == 2
    with session_scope() as s:
        failed = s.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == last)).all()
        rows = {r.version_id: r for r in tournaments.swiss_standings(s, s.get(Tournament, tid))}
    assert all(rows[v].games == 1 for v in failed)  # played (met), no points from the failure


# --- faults: a worker and Redis killed mid-tournament -----------------------------------------


def _db_status(db: str) -> tuple[str, int, int]:
    from arena.db import get_engine

    with get_engine(db).connect() as conn:
        row = conn.execute(select(Tournament.status, Tournament.matches_done, Tournament.matches_total)).first()
    return tuple(row) if row else ("", 0, 0)


def _fault_run(tmp_path: Path, n: int, rounds: int) -> None:
    from tests.platform.test_resilience import PrivateRedis, _start_beat

    broker = PrivateRedis(tmp_path)
    broker.start()
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, broker.url, ARENA_SWEEP_EVERY="1")
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.py").write_text(
        "import random, time\nfrom arena.sdk import serve_bot\n"
        "def act(observation, legal_options):\n    time.sleep(0.05)\n"
        "    return random.choice(legal_options).id\n"
        "if __name__ == '__main__':\n    serve_bot(act)\n")
    workers = Workers(env, tmp_path)
    workers.start(1)
    beat = _start_beat(env, tmp_path)
    entrants = [f"--bot=b{i}={slow}" for i in range(n)]
    cli_proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "toy", *entrants, "-k", "2", "--format", "swiss",
         "--rounds", str(rounds), "--decision-ms", "3000", "--bank-ms", "8000", *SANDBOX],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while _db_status(db)[1] < 1 and time.time() < deadline:
            time.sleep(0.2)
        os.killpg(workers.procs[0].pid, signal.SIGKILL)  # a worker dies mid-round
        workers.procs[0].wait()
        workers.start(1)
        deadline = time.time() + 60
        while _db_status(db)[1] < n // 2 + 1 and time.time() < deadline:  # into round 2
            time.sleep(0.2)
        broker.kill9()  # Redis dies, losing every queued message
        time.sleep(1)
        broker.start()
        deadline = time.time() + 180
        while _db_status(db)[0] != "done" and time.time() < deadline:
            time.sleep(0.5)
        status, done, total = _db_status(db)
        assert status == "done" and done == total == rounds * (n // 2), (status, done, total, workers.logs())
    finally:
        if cli_proc.poll() is None:
            os.killpg(cli_proc.pid, signal.SIGKILL)
            cli_proc.wait()
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=10)
        workers.stop()
        broker.stop()
    from arena.db import get_engine

    with get_engine(db).connect() as conn:
        per_round = Counter(conn.execute(select(Match.round)).scalars())
        paired = list(conn.execute(select(TournamentRound.round)).scalars())
        statuses = set(conn.execute(select(Match.status)).scalars())
    assert sorted(paired) == list(range(rounds)) and set(per_round.values()) == {n // 2}
    assert statuses <= {"done", "failed"}


@pytest.mark.redis
def test_swiss_survives_a_worker_kill_and_a_redis_kill(tmp_path: Path) -> None:
    """6 bots, 3 rounds: a worker SIGKILLed during round 1, Redis SIGKILLed (no persistence)
    during round 2; with one worker and beat and no operator, every round is paired once and
    the tournament completes."""
    _fault_run(tmp_path, 6, 3)


@pytest.mark.redis
@pytest.mark.slow
def test_swiss_survives_faults_long_form(tmp_path: Path) -> None:
    _fault_run(tmp_path, 16, 5)


